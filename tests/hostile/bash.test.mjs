// Hostile input catalogue, Bash: huge and binary output, timeouts, orphaned children, background
// shells and their kill, through dist/tether-mcp.js. Each case: a clear result in bounded time,
// no process of the command left behind, the server still answers, and no file changed.

import assert from "node:assert/strict";
import fs from "node:fs";
import { afterEach, test } from "node:test";
import { cleanUp, eventually, running, session } from "./client.mjs";

afterEach(cleanUp);

/** A marker no other process on the machine has in its command line (a sleep of an odd length). */
function marker() {
  return `${900 + Math.floor(Math.random() * 99)}.${process.pid}${Math.floor(Math.random() * 1000)}`;
}

test("Bash: 50 MB of output is cut to a bounded answer, and the server goes on", async () => {
  const { server, done } = session({ "a.txt": "alpha\n" });
  const result = await server.call("Bash", { command: "yes 'a line of output' | head -c 50000000; echo; echo tail-marker" }, 60_000);
  assert.ok(result.text.length < 200_000, `answer of ${result.text.length} characters`);
  assert.match(result.text, /a line of output/);
  assert.match(result.text, /tail-marker|truncated/);
  await done();
});

test("Bash: one 5 MB line without a newline is cut, not held whole", async () => {
  const { server, done } = session({});
  const result = await server.call("Bash", { command: "head -c 5000000 /dev/zero | tr '\\0' x" }, 60_000);
  assert.ok(result.text.length < 200_000, `answer of ${result.text.length} characters`);
  await done();
});

test("Bash: binary output (invalid UTF-8, NUL, escapes) comes back as valid text", async () => {
  const { server, done } = session({});
  const result = await server.call("Bash", { command: "printf 'a\\377\\376b\\000c\\033[31mred\\n'; head -c 3000 /dev/urandom" });
  assert.equal(result.isError, false, result.text);
  assert.match(result.text, /^a\uFFFD\uFFFDb/, "invalid UTF-8 becomes U+FFFD, as the CLI's decoder makes it");
  assert.match(result.text, /red/);
  await done();
});

test("Bash: a command over its timeout is stopped, its whole tree killed, and the answer says so", async () => {
  const { server, done } = session({});
  const tag = marker();
  const started = Date.now();
  const result = await server.call("Bash", { command: `bash -c 'sleep ${tag}' & sleep ${tag}`, timeout: 1000 }, 30_000);
  assert.ok(Date.now() - started < 20_000, "answered soon after the timeout");
  assert.match(result.text, /timed out|timeout|Command was aborted|killed/i);
  await eventually(() => !running(`sleep ${tag}`), 10_000, "every process of the timed-out command is gone");
  await done();
});

test("Bash: a command that reads stdin gets end-of-file at once, not a hang", async () => {
  const { server, done } = session({});
  const result = await server.call("Bash", { command: "cat; read -r line; echo after-stdin:$?", timeout: 20_000 });
  assert.match(result.text, /after-stdin:1/);
  await done();
});

test("Bash: children a command leaves running (&, nohup) may outlive it, but not the server", async () => {
  const { server } = session({});
  const tag = marker();
  await server.callOk("Bash", { command: `nohup sleep ${tag} >/dev/null 2>&1 & (sleep ${tag} &) ; echo started` });
  assert.ok(running(`sleep ${tag}`), "they run on after the command, as with the CLI's own Bash");
  await server.assertAlive();
  const exit = await server.close();
  assert.equal(exit.code, 0);
  await eventually(() => !running(`sleep ${tag}`), 10_000, "the command's leftover processes are gone");
});

test("Bash: a background shell streams output to BashOutput, and KillShell ends its whole tree", async () => {
  const { server, done } = session({});
  const tag = marker();
  const started = await server.callOk("Bash", {
    command: `for i in 1 2 3 4 5 6 7 8 9 10; do echo tick-$i; sleep 0.1; done; sleep ${tag}`,
    run_in_background: true,
  });
  const id = /ID: (bash_\d+)/.exec(started)?.[1];
  assert.ok(id, started);
  await eventually(() => running(`sleep ${tag}`), 10_000, "the background shell reached its sleep");
  // BashOutput gives what is new since the last call: gather it until the last tick is in.
  let output = "";
  for (let i = 0; i < 50 && !output.includes("tick-10"); i++) {
    output += await server.callOk("BashOutput", { bash_id: id });
    if (!output.includes("tick-10")) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.match(output, /tick-1\b[\s\S]*tick-10/);
  assert.match(await server.callOk("KillShell", { shell_id: id }), /kill/i);
  await eventually(() => !running(`sleep ${tag}`), 10_000, "the killed shell's processes are gone");
  assert.match(await server.callError("KillShell", { shell_id: id }), /is not running/);
  assert.match(await server.callError("BashOutput", { bash_id: "no-such-shell" }), /No shell found|not found|no-such-shell/i);
  await done();
});

test("Bash: twenty background shells at once all run and are all killed", async () => {
  const { server, done } = session({});
  const tag = marker();
  const ids = [];
  for (let i = 0; i < 20; i++) {
    const text = await server.callOk("Bash", { command: `sleep ${tag}`, run_in_background: true });
    ids.push(/ID: (bash_\d+)/.exec(text)?.[1]);
  }
  assert.equal(new Set(ids).size, 20, `distinct ids: ${ids.join(", ")}`);
  await Promise.all(ids.map((id) => server.callOk("KillShell", { shell_id: id })));
  await eventually(() => !running(`sleep ${tag}`), 10_000, "all twenty are gone");
  await done();
});

test("Bash: a command that deletes its own working directory leaves the next command a clear cwd", async () => {
  const { server, root, done } = session({ "keep.txt": "keep\n", "doomed/x": "x\n" });
  await server.callOk("Bash", { command: "cd doomed" });
  await server.call("Bash", { command: `rm -rf ${root}/doomed` });
  const result = await server.call("Bash", { command: "pwd; cat ../keep.txt 2>&1; echo ok" });
  assert.match(result.text, /ok/);
  await done(["doomed", "doomed/x"]);
});

