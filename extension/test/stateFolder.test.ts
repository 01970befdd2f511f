import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { defaultStateRoot, newStateFolderPath, stateFolderProblem } from "../src/session/stateFolder";

const posix = process.platform !== "win32" && process.getuid !== undefined;

test("the state root is the user's state folder, never the temp folder", () => {
  assert.equal(defaultStateRoot({ XDG_STATE_HOME: "/x/state" }, "linux", "/home/u"), "/x/state/tether");
  assert.equal(defaultStateRoot({}, "linux", "/home/u"), "/home/u/.local/state/tether");
  assert.equal(defaultStateRoot({ XDG_STATE_HOME: "relative" }, "darwin", "/Users/u"), "/Users/u/.local/state/tether");
  assert.equal(defaultStateRoot({ LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, "win32", "C:\\Users\\u"), "C:\\Users\\u\\AppData\\Local\\tether\\state");
});

test("a folder under the world-writable temp folder is refused, naming the folder at fault", { skip: !posix || (statSync(os.tmpdir()).mode & 0o002) === 0 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tether-state-"));
  try {
    const problem = stateFolderProblem(path.join(dir, "state"));
    assert.match(problem ?? "", new RegExp(`the folder ${os.tmpdir()} above it is writable by group or others`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a private folder under private parents passes; opened to others, or reached through a folder others write, it does not", { skip: !posix }, () => {
  const root = path.join(os.homedir(), ".cache", "tether", "test-state");
  const base = newStateFolderPath(root, "unit-");
  mkdirSync(base, { recursive: true, mode: 0o700 });
  try {
    if (stateFolderProblem(root)) return; // This machine's home is not private: nothing to compare.
    const dir = newStateFolderPath(base, "s-");
    assert.equal(existsSync(dir), false, "a path only: nothing made before a backend needs it");
    mkdirSync(dir, { mode: 0o700 });
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(stateFolderProblem(dir), undefined);
    chmodSync(dir, 0o755);
    assert.match(stateFolderProblem(dir) ?? "", /others can use it \(mode 755/);
    chmodSync(dir, 0o700);
    const open = path.join(base, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    mkdirSync(path.join(open, "inner"), { mode: 0o700 });
    symlinkSync(path.join(open, "inner"), path.join(base, "link"));
    // The path looks private; its real path goes through a folder anyone may write.
    assert.match(stateFolderProblem(path.join(base, "link")) ?? "", /the folder .*\/open above it is writable by group or others/);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
