// A scripted fake ACP agent (fake-agent.mjs) through tether-cli, on a workspace with a mirror (a
// remote workspace's shape): every session/update kind reaches the events, the agent's own
// requests are served on the workspace behind the gate, hostile frames each get a clear notice and
// the session goes on; a permission pending when the turn is cancelled is answered `cancelled`; an
// agent that dies mid-turn ends the run with a crash, not a hang; a resumed session is resumed; a
// closed agent asking to run its own shell (its switch did not take) stops the session.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { REPO } from "./bridge-host.mjs";
import { cliEnv } from "./cli.mjs";
import { makeFolders, removeFolders } from "./scenario.mjs";

const CLI = join(REPO, "dist", "tether-cli.js");
const FAKE_AGENT = join(dirname(fileURLToPath(import.meta.url)), "fake-agent.mjs");
const RUN_LIMIT_MS = 60_000;
const folders = makeFolders();
after(() => removeFolders(folders));

/** tether-cli with the fake agent playing `scenario`; resolves to {code, events, stderr, frames}. */
function run(scenario, args, env = {}) {
  const log = join(folders.base, `${scenario}-${Date.now()}.ndjson`);
  writeFileSync(log, "");
  const argv = [
    CLI, "run", "--root", folders.workspace, "--mirror", folders.mirror,
    "--agent-command", process.execPath, "--agent-arg", FAKE_AGENT,
    "--agent-env", `FAKE_ACP_SCENARIO=${scenario}`, "--agent-env", `FAKE_ACP_LOG=${log}`, ...args,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, {
      cwd: folders.base,
      env: { PATH: process.env.PATH, HOME: folders.home, TMPDIR: folders.tmp, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`tether-cli ran over ${RUN_LIMIT_MS} ms:\n${stderr.slice(-3000)}`));
    }, RUN_LIMIT_MS);
    child.on("exit", (code) => {
      clearTimeout(timer);
      const events = stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
      const frames = readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
      resolve({ code, events, stderr, frames });
    });
  });
}

const of = (events, type) => events.filter((e) => e.type === type);

describe("the scripted fake ACP agent through tether-cli", { concurrency: false }, () => {
  test("every update kind becomes its event, its requests are served on the workspace, hostile frames are told and survived", async () => {
    const { code, events, stderr, frames } = await run("every-update", ["--prompt", "go", "--approve", "Write,Bash"]);
    assert.equal(code, 0, stderr.slice(-3000));
    const types = new Set(events.map((e) => e.type));
    for (const type of ["thinkingDelta", "textDelta", "todoUpdate", "commands", "agentOptions", "sessionInfo", "contextUsage", "toolCallStart", "toolContent", "toolCallResult", "terminalOutput", "done"]) {
      assert.ok(types.has(type), `${type} missing: ${[...types].join(", ")}`);
    }
    assert.deepEqual(of(events, "todoUpdate")[0].todos.map((t) => t.status), ["completed", "in_progress"]);
    assert.equal(of(events, "commands")[0].commands[0].name, "review");
    assert.equal(of(events, "agentOptions").at(-1).options.find((o) => o.id === "mode").value, "careful");
    assert.equal(of(events, "sessionInfo")[0].title, "Fake session title");
    assert.equal(of(events, "contextUsage")[0].used, 1234);
    // A terminal Tether never created still shows its output.
    const own = of(events, "terminalOutput").filter((e) => e.terminalId === "own-shell");
    assert.equal(own[0].output, "notes.txt\n");
    assert.equal(own.at(-1).exitCode, 0);
    // The diff is shown with workspace paths.
    const diff = of(events, "toolContent").find((e) => e.id === "edit-1").content[0];
    assert.equal(diff.path, join(folders.workspace, "notes.txt"));
    // Its requests, served on the workspace.
    const checks = frames.find((f) => f.dir === "checks").message;
    assert.equal(checks.readLine2, "second line\n");
    assert.match(checks.outsideRefused, /outside the workspace/);
    assert.equal(checks.written, "ok");
    assert.equal(readFileSync(join(folders.workspace, "notes.txt"), "utf8"), "HELLO world\nsecond line\n");
    assert.deepEqual(checks.exit, { exitCode: 3, signal: null });
    assert.match(checks.terminalOutput, /from-terminal/);
    assert.ok(checks.terminalOutput.includes(folders.workspace), `the command ran in the workspace: ${checks.terminalOutput}`);
    assert.equal(checks.unknownTerminal, -32602);
    assert.equal(checks.unknownMethod, -32601);
    // The terminal streamed into its tool card.
    const terminalId = checks.terminalId;
    const streamed = of(events, "terminalOutput").filter((e) => e.terminalId === terminalId);
    assert.match(streamed.map((e) => e.output).join(""), /from-terminal/);
    assert.equal(streamed.at(-1).exited, true);
    // Each hostile frame got its notice, and the turn still ended well.
    const notices = of(events, "error").map((e) => e.message).join("\n");
    assert.match(notices, /not JSON/);
    assert.match(notices, /over the size limit/);
    assert.match(notices, /never sent/);
    assert.equal(of(events, "done")[0].subtype, "success");
    // Tether answered the unknown notification with nothing.
    assert.ok(!frames.some((f) => f.dir === "in" && f.message.id === undefined && f.message.error), "no answer to a notification");
  });

  test("a permission pending when the turn is cancelled is answered cancelled, and the turn ends cancelled", async () => {
    const script = join(folders.base, "cancel.json");
    writeFileSync(script, JSON.stringify([{ prompt: "edit it", interrupt: "onPermission" }]));
    const { code, events, stderr, frames } = await run("pending-cancel", ["--script", script]);
    assert.equal(code, 0, stderr.slice(-3000));
    const checks = frames.find((f) => f.dir === "checks").message;
    assert.deepEqual(checks.permissionOutcome, { outcome: "cancelled" });
    assert.equal(checks.cancelSeen, true);
    const asked = of(events, "permissionRequest")[0];
    assert.deepEqual(asked.options.map((o) => o.optionId), ["yes", "no"], "the agent's own options");
    assert.deepEqual(of(events, "permissionCancelled").map((e) => e.id), [asked.id]);
    assert.equal(of(events, "done")[0].stopReason, "cancelled");
  });

  test("a closed agent whose switch did not take (asking to run its own shell) is refused and the session stops, even with --approve all", async () => {
    // gemini's switches are written, in a private state folder, for an agent that ignores them.
    const { XDG_STATE_HOME } = cliEnv(folders);
    const { events, stderr, frames } = await run("broken-switch", ["--agent", "gemini", "--prompt", "go", "--approve", "all"], { XDG_STATE_HOME });
    const error = of(events, "error").find((e) => /is not closed/.test(e.message));
    assert.ok(error, stderr.slice(-3000));
    assert.match(error.message, /^Gemini CLI is not closed: its own tool "echo local > local\.txt" \(execute\)/);
    assert.deepEqual(of(events, "permissionRequest"), [], "never put to the user");
    assert.deepEqual(frames.find((f) => f.dir === "checks").message.permissionOutcome, { outcome: "selected", optionId: "cancel" });
    assert.ok(frames.some((f) => f.dir === "in" && f.message.method === "session/cancel"), "the turn was stopped");
    assert.equal(of(events, "done").at(-1).isError, true);
    assert.equal(existsSync(join(folders.mirror, "local.txt")), false);
  });

  test("an agent that dies mid-turn ends the run with the crash, without hanging", async () => {
    const started = Date.now();
    const { code, events, stderr } = await run("dies", ["--prompt", "go"]);
    assert.equal(code, 1);
    const crash = of(events, "error").find((e) => e.kind === "crash");
    assert.ok(crash, `a crash event: ${JSON.stringify(events.map((e) => e.type))}`);
    assert.match(crash.message, /Fake ACP Agent|ACP agent|exited/);
    assert.match(stderr, /the turn failed/);
    assert.ok(Date.now() - started < 20_000);
  });

  test("a session to resume is resumed, with the same session id", async () => {
    const { code, events, frames } = await run("every-update", ["--prompt", "go", "--approve", "Write,Bash", "--resume", "older-1"]);
    assert.equal(code, 0);
    const methods = frames.filter((f) => f.dir === "in" && f.message.method).map((f) => f.message.method);
    assert.ok(methods.includes("session/resume") && !methods.includes("session/new"), methods.join(", "));
    assert.equal(of(events, "sessionInit")[0].sessionId, "older-1");
  });
});
