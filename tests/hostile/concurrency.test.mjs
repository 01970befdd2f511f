// Hostile input catalogue, concurrency: many calls on one file at once, through
// dist/tether-mcp.js (which serves concurrent requests). No update may be lost while reported as
// a success, and no reader may see a half-written file.

import assert from "node:assert/strict";
import fs from "node:fs";
import { afterEach, test } from "node:test";
import { cleanUp, session } from "./client.mjs";

afterEach(cleanUp);

const STALE = /File has been modified since read|has not been read yet/;

/** Send every call before awaiting any answer (the server sees them all at once). */
function all(server, calls) {
  const ids = calls.map(([name, args]) => {
    const id = server.nextId++;
    server.sendMessage({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    return id;
  });
  return Promise.all(
    ids.map(async (id) => {
      const reply = await server.answer(id, 60_000);
      const text = reply.result.content.map((c) => c.text ?? "").join("\n");
      return { isError: reply.result.isError, text };
    }),
  );
}

test("concurrency: ten concurrent Edits of one file: every one reported as done is in the file", async () => {
  const tokens = Array.from({ length: 10 }, (_, i) => `token${i}`);
  const { server, file, done } = session({ "a.txt": tokens.join("\n") + "\n" });
  await server.callOk("Read", { file_path: file("a.txt") });
  const results = await all(
    server,
    tokens.map((t) => ["Edit", { file_path: file("a.txt"), old_string: t, new_string: t.toUpperCase() }]),
  );
  const after = fs.readFileSync(file("a.txt"), "utf8");
  let landed = 0;
  results.forEach((result, i) => {
    if (result.isError) {
      assert.match(result.text, STALE, `edit ${i} failed without saying it was stale: ${result.text}`);
      assert.ok(after.includes(`${tokens[i]}\n`), `refused edit ${i} still changed the file`);
    } else {
      landed++;
      assert.ok(after.includes(tokens[i].toUpperCase()), `edit ${i} was reported done but is not in the file (a lost update)`);
    }
  });
  assert.ok(landed >= 1, "at least the first edit lands");
  assert.equal(after.split("\n").length, 11, "no line lost or doubled");
  await done(["a.txt"]);
});

test("concurrency: ten concurrent MultiEdits and Edits on one file lose nothing reported as done", async () => {
  const lines = Array.from({ length: 20 }, (_, i) => `line${String(i).padStart(2, "0")}`);
  const { server, file, done } = session({ "m.txt": lines.join("\n") + "\n" });
  await server.callOk("Read", { file_path: file("m.txt") });
  const calls = [];
  for (let i = 0; i < 10; i++) {
    const [a, b] = [lines[2 * i], lines[2 * i + 1]];
    calls.push(
      i % 2
        ? ["MultiEdit", { file_path: file("m.txt"), edits: [{ old_string: a, new_string: `${a}-x` }, { old_string: b, new_string: `${b}-x` }] }]
        : ["Edit", { file_path: file("m.txt"), old_string: `${a}\n${b}`, new_string: `${a}-x\n${b}-x` }],
    );
  }
  const results = await all(server, calls);
  const after = fs.readFileSync(file("m.txt"), "utf8");
  results.forEach((result, i) => {
    const [a, b] = [lines[2 * i], lines[2 * i + 1]];
    if (result.isError) {
      assert.match(result.text, STALE, result.text);
      assert.ok(after.includes(`${a}\n${b}\n`), `refused call ${i} changed the file`);
    } else {
      assert.ok(after.includes(`${a}-x\n${b}-x\n`), `call ${i} was reported done but is not (all) in the file`);
    }
  });
  await done(["m.txt"]);
});

test("concurrency: ten concurrent Writes of one new file leave exactly one whole content", async () => {
  const { server, file, done } = session({});
  const contents = Array.from({ length: 10 }, (_, i) => `writer ${i}\n`.repeat(20_000));
  const results = await all(server, contents.map((content) => ["Write", { file_path: file("w.txt"), content }]));
  const after = fs.readFileSync(file("w.txt"), "utf8");
  const winner = contents.indexOf(after);
  assert.ok(winner >= 0, "the file is one writer's content, whole");
  assert.equal(results[winner].isError, false);
  results.forEach((result, i) => {
    if (result.isError) assert.match(result.text, STALE, result.text);
  });
  await done(["w.txt"]);
});

test("concurrency: Reads racing a 5 MB Write see the old or the new file, never half of one", async () => {
  const old = "old line\n".repeat(100_000);
  const next = "new line\n".repeat(600_000);
  const { server, file, done } = session({ "r.txt": old });
  await server.callOk("Read", { file_path: file("r.txt"), limit: 1 });
  const calls = [["Write", { file_path: file("r.txt"), content: next }]];
  for (let i = 0; i < 10; i++) calls.push(["Bash", { command: `wc -c < ${file("r.txt")}` }]);
  const results = await all(server, calls);
  assert.equal(results[0].isError, false, results[0].text);
  for (const result of results.slice(1)) {
    assert.ok([String(old.length), String(next.length)].includes(result.text.trim()), `a reader saw ${result.text.trim()} bytes`);
  }
  assert.equal(fs.readFileSync(file("r.txt"), "utf8"), next);
  await done(["r.txt"]);
});

test("concurrency: 200 concurrent calls of every read-only tool are all answered", async () => {
  const files = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`d${i % 4}/f${i}.txt`, `needle ${i}\n`]));
  const { server, file, done } = session(files);
  const calls = [];
  for (let i = 0; i < 40; i++) {
    calls.push(["Read", { file_path: file(`d${i % 4}/f${i}.txt`) }]);
    calls.push(["Grep", { pattern: `needle ${i}$`, output_mode: "files_with_matches" }]);
    calls.push(["Glob", { pattern: `**/f${i}.txt` }]);
    calls.push(["LS", { path: file(`d${i % 4}`) }]);
    calls.push(["Bash", { command: `cat d${i % 4}/f${i}.txt` }]);
  }
  const results = await all(server, calls);
  results.forEach((result, n) => {
    const i = Math.floor(n / 5);
    const call = `${calls[n][0]} ${JSON.stringify(calls[n][1])}`;
    assert.equal(result.isError, false, `${call}: ${result.text}`);
    if (n % 5 !== 3) assert.match(result.text, new RegExp(n % 5 === 0 || n % 5 === 4 ? `needle ${i}` : `f${i}\\.txt`), `${call}: ${result.text}`);
  });
  await done();
});
