// Hostile input catalogue, search: catastrophic and invalid patterns, huge and deep trees, huge
// lines, through dist/tether-mcp.js. Each case: a clear error or a bounded answer in bounded
// time, the server still answers, and no file changed.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { afterEach, test } from "node:test";
import { cleanUp, session } from "./client.mjs";

afterEach(cleanUp);

test("search: a catastrophic-backtracking pattern over a 1 MB line finishes (linear-time regex)", async () => {
  const { server, done } = session({ "evil.txt": "a".repeat(1 << 20) + "!\n" });
  const started = Date.now();
  // The line ends in "!", so the first cannot match (a backtracking engine tries 2^n ways).
  assert.match(await server.callOk("Grep", { pattern: "(a+)+$", output_mode: "count" }, 60_000), /No matches found/);
  assert.match(await server.callOk("Grep", { pattern: "(a|aa)+!", output_mode: "count" }, 60_000), /evil\.txt:1/);
  assert.ok(Date.now() - started < 30_000);
  await done();
});

test("search: an invalid regex, a look-around and a back-reference are clear errors", async () => {
  const { server, done } = session({ "a.txt": "alpha\n" });
  for (const pattern of ["(unclosed", "a{99999999}", "(?<=a)b", "(a)\\1"]) {
    const result = await server.call("Grep", { pattern });
    // ripgrep's own engine refuses these; either a clear error or no match, never a hang.
    if (result.isError) assert.ok(result.text.length > 0 && result.text.length < 5000, result.text);
    else assert.match(result.text, /No files found|No matches found|Found 0/, result.text);
  }
  await done();
});

test("search: a tree of 20,000 files: Glob, Grep and LS answer with their caps and notes", async () => {
  const { root, server, done } = session({}, {
    prepare: (root) => {
      for (let d = 0; d < 100; d++) {
        const dir = path.join(root, `dir${d}`, "nested");
        fs.mkdirSync(dir, { recursive: true });
        for (let f = 0; f < 200; f++) fs.writeFileSync(path.join(dir, `f${f}.txt`), `file ${d}/${f}\n`);
      }
    },
  });
  const glob = await server.callOk("Glob", { pattern: "**/*.txt" }, 60_000);
  assert.match(glob, /\(Showing 100 of 20000 matching files; 19900 more are not listed/);
  const grep = await server.callOk("Grep", { pattern: "file 99/199$", output_mode: "files_with_matches" }, 60_000);
  assert.match(grep, /dir99\/nested\/f199\.txt/);
  const ls = await server.callOk("LS", { path: root }, 60_000);
  assert.match(ls, /There are more than 1000 files/);
  await done();
});

test("search: a tree 300 folders deep is searched to its bottom", async () => {
  const { server, done } = session({}, {
    prepare: (root) => {
      const deep = path.join(root, ...Array.from({ length: 300 }, () => "d"));
      fs.mkdirSync(deep, { recursive: true });
      fs.writeFileSync(path.join(deep, "bottom.txt"), "found me\n");
    },
  });
  assert.match(await server.callOk("Grep", { pattern: "found me", output_mode: "files_with_matches" }, 60_000), /bottom\.txt/);
  assert.match(await server.callOk("Glob", { pattern: "**/bottom.txt" }, 60_000), /bottom\.txt/);
  await done();
});

test("search: a match on a 10 MB line comes back cut, not whole", async () => {
  const { server, done } = session({ "long.txt": "x".repeat(10 << 20) + "needle" + "y".repeat(1000) + "\n" });
  const text = await server.callOk("Grep", { pattern: "needle", output_mode: "content" }, 60_000);
  assert.ok(text.length < 200_000, `answer of ${text.length} characters`);
  await done();
});

test("search: pathological glob patterns answer in bounded time", async () => {
  const { server, done } = session({ "a/b/c/d.txt": "x\n", "a/b.txt": "y\n" });
  for (const pattern of ["**/**/**/**/**/**/**/**/*.txt", "{a,b,c,d,e}{a,b,c,d,e}{a,b,c,d,e}{a,b,c,d,e}/**", "[", "a/[z-a]/**", "*".repeat(5000)]) {
    const result = await server.call("Glob", { pattern }, 30_000);
    assert.ok(result.text.length < 100_000, `${pattern}: ${result.text.slice(0, 200)}`);
  }
  await done();
});

test("search: Grep and Glob of a path outside the workspace, or one that does not exist, are clear errors", async () => {
  const { root, server, done } = session({ "a.txt": "alpha\n" });
  assert.match(await server.callError("Grep", { pattern: "root", path: "/etc" }), /outside|not allowed|denied/i);
  assert.match(await server.callError("Glob", { pattern: "*", path: path.join(root, "missing") }), /does not exist|not found|No such/i);
  await done();
});
