// Hostile input catalogue, edits: stale and ambiguous edits, a MultiEdit that fails half-way,
// binary and UTF-16 files, 10 MB files and notebooks, through dist/tether-mcp.js. Each case: a
// clear error (or the right bytes on disk), the server still answers, and no other byte changed.

import assert from "node:assert/strict";
import fs from "node:fs";
import { afterEach, test } from "node:test";
import { cleanUp, session } from "./client.mjs";

afterEach(cleanUp);

test("edits: a stale Edit that still applies lands with a note, and the other change on disk is kept", async () => {
  const { server, file, done } = session({ "a.txt": "one\ntwo\n" });
  await server.callOk("Read", { file_path: file("a.txt") });
  // A different length, so the change is seen whatever the clock's resolution.
  fs.writeFileSync(file("a.txt"), "one\ntwo\nthree (by someone else)\n");
  const text = await server.callOk("Edit", { file_path: file("a.txt"), old_string: "two", new_string: "TWO" });
  assert.match(text, /had been modified on disk since you last read it/);
  assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "one\nTWO\nthree (by someone else)\n");
  await done(["a.txt"]);
});

test("edits: a stale Edit whose old_string someone else changed is refused, and their change is kept", async () => {
  const { server, file, done } = session({ "a.txt": "one\ntwo\n" });
  await server.callOk("Read", { file_path: file("a.txt") });
  fs.writeFileSync(file("a.txt"), "one\n2 (by someone else)\n");
  assert.match(await server.callError("Edit", { file_path: file("a.txt"), old_string: "two", new_string: "TWO" }), /File has been modified since read, either by the user or by a linter. Read it again before attempting to write it./);
  assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "one\n2 (by someone else)\n");
  await done(["a.txt"]);
});

test("edits: an Edit of a file deleted since the Read is refused and does not bring it back", async () => {
  const { server, file, done } = session({ "a.txt": "one\n", "b.txt": "keep\n" });
  await server.callOk("Read", { file_path: file("a.txt") });
  fs.rmSync(file("a.txt"));
  assert.match(await server.callError("Edit", { file_path: file("a.txt"), old_string: "one", new_string: "1" }), /does not exist/);
  assert.ok(!fs.existsSync(file("a.txt")));
  await done(["a.txt"]);
});

test("edits: an ambiguous old_string is refused with the match count, and the file is unchanged", async () => {
  const { server, file, done } = session({ "a.txt": "x = 1\nx = 1\nx = 1\n" });
  await server.callOk("Read", { file_path: file("a.txt") });
  const text = await server.callError("Edit", { file_path: file("a.txt"), old_string: "x = 1", new_string: "x = 2" });
  assert.match(text, /Found 3 matches of the string to replace, but replace_all is false/);
  await done();
});

test("edits: an old_string that is not in the file, or equal to new_string, is refused", async () => {
  const { server, file, done } = session({ "a.txt": "alpha\n" });
  await server.callOk("Read", { file_path: file("a.txt") });
  assert.match(await server.callError("Edit", { file_path: file("a.txt"), old_string: "omega", new_string: "x" }), /String to replace not found in file/);
  assert.match(await server.callError("Edit", { file_path: file("a.txt"), old_string: "alpha", new_string: "alpha" }), /No changes to make: old_string and new_string are exactly the same/);
  await done();
});

test("edits: a MultiEdit whose third edit fails writes none of them", async () => {
  const { server, file, done } = session({ "a.txt": "one two three\n" });
  await server.callOk("Read", { file_path: file("a.txt") });
  const text = await server.callError("MultiEdit", {
    file_path: file("a.txt"),
    edits: [
      { old_string: "one", new_string: "1" },
      { old_string: "two", new_string: "2" },
      { old_string: "four", new_string: "4" },
    ],
  });
  assert.match(text, /String to replace not found in file/);
  await done();
});

test("edits: a MultiEdit whose later edit matches only text an earlier one wrote is refused whole, as the CLI does", async () => {
  const { server, file, done } = session({ "a.txt": "alpha\n" });
  await server.callOk("Read", { file_path: file("a.txt") });
  const text = await server.callError("MultiEdit", {
    file_path: file("a.txt"),
    edits: [
      { old_string: "alpha", new_string: "beta gamma" },
      { old_string: "gamma", new_string: "delta" },
    ],
  });
  assert.match(text, /old_string is a substring of a new_string from a previous edit/);
  await done();
});

test("edits: malformed Edit and MultiEdit input is an InputValidationError, and nothing is written", async () => {
  const { server, file, done } = session({ "a.txt": "alpha\n" });
  await server.callOk("Read", { file_path: file("a.txt") });
  for (const [tool, args] of [
    ["Edit", { file_path: file("a.txt"), old_string: "alpha", new_string: "b", replace_alll: true }],
    ["Edit", { file_path: file("a.txt"), old_string: 5, new_string: "b" }],
    ["MultiEdit", { file_path: file("a.txt"), edits: [] }],
    ["MultiEdit", { file_path: file("a.txt"), edits: [{ old_string: "alpha" }] }],
    ["Read", { file_path: file("a.txt"), offest: 2 }],
    ["Read", { file_path: file("a.txt"), limit: "ten" }],
    ["Write", { file_path: file("a.txt") }],
  ]) {
    const text = await server.callError(tool, args);
    assert.match(text, /InputValidationError/, `${tool} ${JSON.stringify(args)}: ${text}`);
  }
  // Below the minimum counts as absent, as the CLI measured does: a negative offset reads from line 1.
  assert.match(await server.callOk("Read", { file_path: file("a.txt"), offset: -1 }), /^1\talpha/);
  await done();
});

test("edits: a binary file (NUL bytes) is not edited, and not a byte of it changes", async () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from("IHDR text inside\n")]);
  const { server, file, done } = session({ "blob.dat": png });
  await server.call("Read", { file_path: file("blob.dat") });
  const text = await server.callError("Edit", { file_path: file("blob.dat"), old_string: "text", new_string: "TEXT" });
  assert.ok(text.length > 0 && text.length < 2000, text);
  await done();
});

test("edits: a UTF-16LE file with its byte-order mark is edited and stays UTF-16LE", async () => {
  const original = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo wörld\r\nsecond\r\n", "utf16le")]);
  const { server, file, done } = session({ "u16.txt": original });
  assert.match(await server.callOk("Read", { file_path: file("u16.txt") }), /héllo wörld/);
  await server.callOk("Edit", { file_path: file("u16.txt"), old_string: "wörld", new_string: "wörld ✓" });
  const expected = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo wörld ✓\r\nsecond\r\n", "utf16le")]);
  assert.deepEqual(fs.readFileSync(file("u16.txt")), expected);
  await done(["u16.txt"]);
});

test("edits: a file that is not valid UTF-8 (Latin-1) is refused, never converted", async () => {
  const latin1 = Buffer.from("caf\xe9 cr\xe8me\n", "latin1");
  const { server, file, done } = session({ "l1.txt": latin1 });
  await server.call("Read", { file_path: file("l1.txt") });
  const text = await server.callError("Edit", { file_path: file("l1.txt"), old_string: "caf", new_string: "CAF" });
  assert.match(text, /never convert a file's encoding|not valid UTF-8|encoding/);
  assert.deepEqual(fs.readFileSync(file("l1.txt")), latin1);
  await done();
});

test("edits: a 10 MB file is edited near its end, every other byte kept", async () => {
  const line = "0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz\n";
  const body = line.repeat(Math.ceil((10 << 20) / line.length));
  const { server, file, done } = session({ "big.txt": body + "THE END\n" });
  await server.callOk("Read", { file_path: file("big.txt"), offset: 140_000, limit: 5 });
  await server.callOk("Edit", { file_path: file("big.txt"), old_string: "THE END", new_string: "the end" }, 60_000);
  const after = fs.readFileSync(file("big.txt"), "utf8");
  assert.equal(after.length, body.length + 8);
  assert.ok(after === body + "the end\n", "every byte but the edit is kept");
  await done(["big.txt"]);
});

test("edits: a 10 MB Write replaces a file whole (never half-written)", async () => {
  const { server, file, done } = session({ "w.txt": "old\n" });
  await server.callOk("Read", { file_path: file("w.txt") });
  const content = "x".repeat(10 << 20) + "\n";
  await server.callOk("Write", { file_path: file("w.txt"), content }, 60_000);
  assert.equal(fs.statSync(file("w.txt")).size, content.length);
  assert.equal(fs.readFileSync(file("w.txt"), "utf8"), content);
  await done(["w.txt"]);
});

const NOTEBOOK = JSON.stringify(
  {
    cells: [
      { cell_type: "code", id: "c1", metadata: {}, source: ["print('one')\n"], outputs: [], execution_count: null },
      { cell_type: "markdown", id: "m1", metadata: {}, source: ["# Title\n"] },
    ],
    metadata: {},
    nbformat: 4,
    nbformat_minor: 5,
  },
  null,
  1,
);

test("notebooks: NotebookEdit replaces one cell's source and keeps the others and the JSON valid", async () => {
  const { server, file, done } = session({ "nb.ipynb": NOTEBOOK });
  await server.callOk("Read", { file_path: file("nb.ipynb") });
  await server.callOk("NotebookEdit", { notebook_path: file("nb.ipynb"), cell_id: "c1", new_source: "print('two')" });
  const nb = JSON.parse(fs.readFileSync(file("nb.ipynb"), "utf8"));
  assert.equal([nb.cells[0].source].flat().join(""), "print('two')");
  assert.deepEqual(nb.cells[1], JSON.parse(NOTEBOOK).cells[1]);
  await done(["nb.ipynb"]);
});

test("notebooks: a truncated notebook, an unknown cell id and a bad edit_mode are refused, nothing written", async () => {
  const { server, file, done } = session({ "nb.ipynb": NOTEBOOK, "cut.ipynb": NOTEBOOK.slice(0, 120) });
  await server.callOk("Read", { file_path: file("nb.ipynb") });
  await server.call("Read", { file_path: file("cut.ipynb") });
  await server.callError("NotebookEdit", { notebook_path: file("cut.ipynb"), cell_id: "c1", new_source: "x" });
  await server.callError("NotebookEdit", { notebook_path: file("nb.ipynb"), cell_id: "nope", new_source: "x" });
  await server.callError("NotebookEdit", { notebook_path: file("nb.ipynb"), cell_id: "c1", new_source: "x", edit_mode: "explode" });
  await done();
});
