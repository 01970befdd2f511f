// Hostile input catalogue, paths: escapes, symlinks, NUL, long names, FIFOs, devices, sockets and
// permissions, through dist/tether-mcp.js. Each case: a clear error (or the right answer), the
// server still answers, and no file inside or outside the workspace changed.

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterEach, test } from "node:test";
import { assertIntact, canDropPrivileges, cleanUp, snapshot, startServer, workspace } from "./client.mjs";

afterEach(cleanUp);

function setup(files = { "a.txt": "alpha\nbeta\n" }, options = {}) {
  const root = workspace(files);
  const outside = workspace({ "secret.txt": "outside\n" });
  options.prepare?.(root, outside);
  const before = snapshot(root);
  const beforeOutside = snapshot(outside);
  const server = startServer(root, options);
  const done = async (changed = []) => {
    await server.assertAlive();
    assertIntact(root, before, changed);
    assertIntact(outside, beforeOutside);
  };
  return { root, outside, server, done };
}

const NOT_REGULAR = (p, tool, what) =>
  `<tool_use_error>${p} exists but is not a regular file (a device, FIFO or socket). ${tool} only ${what} regular files.</tool_use_error>`;

test("paths: ../ out of the workspace is refused for reads and writes", async () => {
  const { root, outside, server, done } = setup();
  const escape = path.join(root, "..", path.basename(outside), "secret.txt");
  assert.match(await server.callError("Read", { file_path: escape }), /outside the workspace/);
  assert.match(await server.callError("Write", { file_path: escape, content: "pwned" }), /outside the workspace/);
  assert.match(await server.callError("Edit", { file_path: "../../../../../../etc/hostname", old_string: "a", new_string: "b" }), /outside the workspace/);
  await done();
});

test("paths: an absolute path outside the workspace is refused", async () => {
  const { outside, server, done } = setup();
  const text = await server.callError("Read", { file_path: path.join(outside, "secret.txt") });
  assert.match(text, /outside the workspace/);
  assert.ok(!text.includes("outside\n"), "nothing of the file was shown");
  await done();
});

test("paths: a symlink in the workspace that leads out is refused for Read, Write and Edit", async () => {
  const { root, server, done } = setup(undefined, {
    prepare: (root, outside) => fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "link.txt")),
  });
  const link = path.join(root, "link.txt");
  for (const [tool, args] of [
    ["Read", { file_path: link }],
    ["Write", { file_path: link, content: "pwned" }],
    ["Edit", { file_path: link, old_string: "outside", new_string: "pwned" }],
  ]) {
    assert.match(await server.callError(tool, args), /leads outside the workspace .* symbolic link/, tool);
  }
  await done();
});

test("paths: a symlinked directory leading out cannot be written through", async () => {
  const { root, server, done } = setup(undefined, {
    prepare: (root, outside) => fs.symlinkSync(outside, path.join(root, "out")),
  });
  assert.match(await server.callError("Write", { file_path: path.join(root, "out", "new.txt"), content: "x" }), /symbolic link/);
  await done();
});

test("paths: a symlink loop is a clear error", async () => {
  const { root, server, done } = setup(undefined, {
    prepare: (root) => {
      fs.symlinkSync(path.join(root, "loop2"), path.join(root, "loop1"));
      fs.symlinkSync(path.join(root, "loop1"), path.join(root, "loop2"));
    },
  });
  const text = await server.callError("Read", { file_path: path.join(root, "loop1") });
  assert.match(text, /ELOOP|too many symbolic links|loop/i);
  await done();
});

test("paths: a NUL byte in a path is refused", async () => {
  const { root, server, done } = setup();
  for (const tool of ["Read", "Write"]) {
    const result = await server.call(tool, { file_path: `${root}/a.txt\u0000.evil`, content: "x" });
    assert.equal(result.isError, true, `${tool}: ${result.text}`);
  }
  await done();
});

test("paths: a 5,000-character path and a 300-character name are clear errors", async () => {
  const { root, server, done } = setup();
  const long = path.join(root, ...Array.from({ length: 500 }, () => "abcdefghi"), "f.txt");
  assert.match(await server.callError("Read", { file_path: long }), /does not exist|ENAMETOOLONG|too long/i);
  const text = await server.callError("Write", { file_path: path.join(root, "n".repeat(300)), content: "x" });
  assert.match(text, /ENAMETOOLONG|name too long|Could not write/i);
  await done();
});

test("paths: names with spaces, quotes, newlines and unicode work", async () => {
  const { root, server, done } = setup();
  const name = "we ird'\"\n名前 ✓.txt";
  await server.callOk("Write", { file_path: path.join(root, name), content: "ok\n" });
  assert.match(await server.callOk("Read", { file_path: path.join(root, name) }), /1\tok/);
  assert.equal(fs.readFileSync(path.join(root, name), "utf8"), "ok\n");
  await done([name]);
});

test("paths: a Windows path on a POSIX workspace is refused", async () => {
  const { server, done } = setup();
  assert.match(await server.callError("Read", { file_path: "C:\\Windows\\win.ini" }), /outside the workspace/);
  await done();
});

test("paths: a directory given as a file gets the CLI's EISDIR error", async () => {
  const { root, server, done } = setup({ "sub/x.txt": "x\n" });
  assert.equal(await server.callError("Read", { file_path: path.join(root, "sub") }), `EISDIR: illegal operation on a directory, read '${path.join(root, "sub")}'`);
  await done();
});

test("FIFO: a Read returns at once with a clear error, and the server never blocks", async () => {
  const { root, server, done } = setup(undefined, { prepare: (root) => execFileSync("mkfifo", [path.join(root, "pipe")]) });
  const fifo = path.join(root, "pipe");
  const started = Date.now();
  assert.equal(await server.callError("Read", { file_path: fifo }), NOT_REGULAR(fifo, "Read", "reads"));
  assert.ok(Date.now() - started < 5000);
  await done();
});

test("FIFO: eight concurrent Reads block nothing, and SIGTERM still ends the server", async () => {
  const { root, server } = setup(undefined, {
    prepare: (root) => {
      for (let i = 0; i < 8; i++) execFileSync("mkfifo", [path.join(root, `pipe${i}`)]);
    },
  });
  const reads = Array.from({ length: 8 }, (_, i) => server.call("Read", { file_path: path.join(root, `pipe${i}`) }));
  // More file work than libuv has threads, while the FIFO reads are asked for.
  const normal = server.callOk("Read", { file_path: path.join(root, "a.txt") });
  for (const result of await Promise.all(reads)) assert.equal(result.isError, true);
  assert.match(await normal, /alpha/);
  await server.assertAlive();
  server.child.kill("SIGTERM");
  const exit = await Promise.race([server.exited, new Promise((r) => setTimeout(() => r("hung"), 5000))]);
  assert.notEqual(exit, "hung", "the server ignored SIGTERM");
});

test("FIFO: Edit, Write and MultiEdit refuse it in the CLI's words and leave it a FIFO", async () => {
  const { root, server, done } = setup(undefined, { prepare: (root) => execFileSync("mkfifo", [path.join(root, "pipe")]) });
  const fifo = path.join(root, "pipe");
  assert.equal(await server.callError("Edit", { file_path: fifo, old_string: "a", new_string: "b" }), NOT_REGULAR(fifo, "Edit", "changes"));
  assert.equal(await server.callError("Write", { file_path: fifo, content: "x" }), NOT_REGULAR(fifo, "Write", "creates or overwrites"));
  assert.equal(
    await server.callError("MultiEdit", { file_path: fifo, edits: [{ old_string: "a", new_string: "b" }] }),
    NOT_REGULAR(fifo, "MultiEdit", "changes"),
  );
  assert.ok(fs.lstatSync(fifo).isFIFO());
  await done();
});

test("FIFO: Grep over a tree with one finishes, and Grep of the FIFO itself is refused", async () => {
  const { root, server, done } = setup(undefined, { prepare: (root) => execFileSync("mkfifo", [path.join(root, "pipe")]) });
  assert.match(await server.callOk("Grep", { pattern: "alpha" }), /a\.txt/);
  assert.match(await server.callError("Grep", { pattern: "alpha", path: path.join(root, "pipe") }), /pipe or a device/);
  await done();
});

test("devices: /dev/zero outside the root is refused by name, in the CLI's words", async () => {
  const { server, done } = setup(undefined, { args: ["--allow-outside-root"] });
  assert.equal(
    await server.callError("Read", { file_path: "/dev/zero" }),
    "<tool_use_error>Cannot read '/dev/zero': this path names a device or process file that this tool does not read.</tool_use_error>",
  );
  assert.match(await server.callError("Read", { file_path: "/dev/urandom" }), /device or process file/);
  await done();
});

test("devices: /proc/self/environ (a regular file to stat) is refused by name", async () => {
  const { server, done } = setup(undefined, { args: ["--allow-outside-root"] });
  const text = await server.callError("Read", { file_path: "/proc/self/environ" });
  assert.match(text, /device or process file/);
  assert.ok(!text.includes("PATH="), "nothing of the environment was shown");
  await done();
});

test("devices: a symlink outside the root to /dev/zero is refused where it leads", async () => {
  const { outside, server, done } = setup(undefined, {
    args: ["--allow-outside-root"],
    prepare: (root, outside) => fs.symlinkSync("/dev/zero", path.join(outside, "zero")),
  });
  assert.match(await server.callError("Read", { file_path: path.join(outside, "zero") }), /device or process file/);
  await done();
});

test("devices: a character device node inside the root is refused without reading it", async (t) => {
  const { root, server, done } = setup(undefined, {
    prepare: (root) => spawnSync("mknod", [path.join(root, "zero"), "c", "1", "5"]),
  });
  if (!fs.existsSync(path.join(root, "zero"))) return t.skip("mknod needs root");
  const started = Date.now();
  assert.equal(await server.callError("Read", { file_path: path.join(root, "zero") }), NOT_REGULAR(path.join(root, "zero"), "Read", "reads"));
  assert.ok(Date.now() - started < 5000);
  await done();
});

test("devices: a Unix socket inside the root is refused", async () => {
  let listener;
  const { root, server, done } = setup(undefined, {
    prepare: (root) => {
      listener = net.createServer().listen(path.join(root, "sock"));
    },
  });
  await new Promise((resolve) => (listener.listening ? resolve() : listener.once("listening", resolve)));
  assert.equal(await server.callError("Read", { file_path: path.join(root, "sock") }), NOT_REGULAR(path.join(root, "sock"), "Read", "reads"));
  await done();
  listener.close();
});

test("devices: a sparse file of 300 MB is refused for Read and Edit before any byte is read", async () => {
  const { root, server, done } = setup(undefined, {
    prepare: (root) => {
      fs.writeFileSync(path.join(root, "huge.bin"), "");
      fs.truncateSync(path.join(root, "huge.bin"), 300 * 1024 * 1024);
    },
  });
  const huge = path.join(root, "huge.bin");
  assert.match(await server.callError("Read", { file_path: huge, offset: 1, limit: 1 }), /too large to read/);
  assert.match(await server.callError("Edit", { file_path: huge, old_string: "a", new_string: "b" }), /too large to edit/);
  await done();
});

/** As `nobody`, through setpriv; the case is skipped (with the reason) when that is not possible. */
function asNobody(t) {
  const why = canDropPrivileges();
  if (why) t.skip(`cannot run the server as nobody: ${why}`);
  return !why;
}

test("permissions (as nobody): an unreadable file is a permission error", async (t) => {
  if (!asNobody(t)) return;
  const { root, server, done } = setup({ "a.txt": "alpha\n", "locked.txt": "secret\n" }, {
    asNobody: true,
    prepare: (root) => {
      fs.chmodSync(root, 0o777);
      fs.chmodSync(path.join(root, "locked.txt"), 0o000);
    },
  });
  const text = await server.callError("Read", { file_path: path.join(root, "locked.txt") });
  assert.match(text, /Permission denied/);
  assert.ok(!text.includes("secret"));
  await done();
});

test("permissions (as nobody): a read-only file is not changed by Edit or Write, and no temp file is left", async (t) => {
  if (!asNobody(t)) return;
  const { root, server, done } = setup({ "ro.txt": "keep me\n" }, {
    asNobody: true,
    prepare: (root) => fs.chmodSync(root, 0o555),
  });
  const file = path.join(root, "ro.txt");
  await server.callOk("Read", { file_path: file });
  assert.match(await server.callError("Edit", { file_path: file, old_string: "keep", new_string: "lose" }), /Could not write|EACCES|permission/i);
  assert.match(await server.callError("Write", { file_path: path.join(root, "new.txt"), content: "x" }), /Could not write|EACCES|permission/i);
  assert.equal(fs.readFileSync(file, "utf8"), "keep me\n");
  await done();
});

test("permissions (as nobody): a folder it cannot list is a clear error for Glob, Grep and LS", async (t) => {
  if (!asNobody(t)) return;
  const { root, server, done } = setup({ "a.txt": "alpha\n", "closed/x.txt": "alpha\n" }, {
    asNobody: true,
    prepare: (root) => {
      fs.chmodSync(root, 0o755);
      fs.chmodSync(path.join(root, "closed"), 0o000);
    },
  });
  assert.match(await server.callError("LS", { path: path.join(root, "closed") }), /EACCES|Permission denied|permission/i);
  assert.match(await server.callOk("Grep", { pattern: "alpha" }), /a\.txt/);
  await server.call("Glob", { pattern: "**/*.txt" });
  await done();
});
