// JS side of the wasm tests (run in Node by wasm-bindgen-test-runner): the real Node host, bundled
// from extension/src/node/nodeHost.ts by build.sh, fixtures in real temporary directories, and
// small scripted hosts for the error paths of the boundary.

import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";

/** A NodeHost from the bundle at `bundlePath`; `ripgrep` is a binary path, or null for none. */
export function nodeHost(bundlePath, ripgrep) {
  if (!fs.existsSync(bundlePath)) {
    throw new Error(
      `The Node host bundle is missing at ${bundlePath}: run ./build.sh (it bundles extension/src/node/nodeHost.ts for these tests).`,
    );
  }
  const { NodeHost } = createRequire(bundlePath)(bundlePath);
  const host = new NodeHost({ ripgrepPath: ripgrep ?? null });
  return host;
}

/** Kill what the host still runs in the background. */
export function disposeHost(host) {
  host.dispose?.();
}

export function makeTempDir() {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tether-wasm-")));
}

export function removeDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
}

export function writeText(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

export function readText(file) {
  return fs.readFileSync(file, "utf8");
}

export function exists(file) {
  return fs.existsSync(file);
}

export function makeDir(dir) {
  fs.mkdirSync(dir, { recursive: true });
}

export function symlink(target, link) {
  fs.symlinkSync(target, link);
}

export function isSymlink(file) {
  return fs.lstatSync(file).isSymbolicLink();
}

export function chmod(file, mode) {
  fs.chmodSync(file, mode);
}

export function fileMode(file) {
  return fs.statSync(file).mode & 0o7777;
}

/** Set a file's modification time (ms since the epoch), to fake "unchanged" metadata. */
export function setMtime(file, mtimeMs) {
  const seconds = mtimeMs / 1000;
  fs.utimesSync(file, seconds, seconds);
}

export function mtimeMs(file) {
  return fs.statSync(file).mtimeMs;
}

/** A host whose every method throws (or rejects with, when `asRejection`) the given value. */
export function failingHost(error, asRejection) {
  const fail = asRejection ? () => Promise.reject(error) : () => { throw error; };
  return Object.fromEntries(
    [
      "readFile", "writeFile", "stat", "lstat", "readDir", "mkdir", "rename", "remove", "realPath",
      "run", "spawnBackground", "readBackground", "killBackground", "ripgrep", "nowMs",
    ].map((name) => [name, fail]),
  );
}

/** A host that answers with plain values instead of promises (a synchronous host). */
export function plainValueHost() {
  const stat = { kind: "file", size: 3, mtimeMs: 1000 };
  return {
    readFile: () => new Uint8Array([1, 2, 3]),
    writeFile: () => undefined,
    stat: () => stat,
    lstat: () => stat,
    readDir: () => [{ name: "a", kind: "file" }],
    mkdir: () => undefined,
    rename: () => undefined,
    remove: () => undefined,
    realPath: (p) => p,
    run: () => ({ stdout: "out", stderr: "", exitCode: 0, timedOut: false, truncated: false }),
    spawnBackground: () => "bg-plain",
    readBackground: () => ({ stdout: "", stderr: "", running: false, exitCode: 0 }),
    killBackground: () => false,
    ripgrep: () => null,
    nowMs: () => 1234,
  };
}

/** A host with answers of the wrong shape. */
export function wrongShapeHost() {
  const host = plainValueHost();
  return { ...host, readFile: () => "not bytes", stat: () => ({ kind: "file" }), realPath: () => 42 };
}

/** A host whose `mtimes` answers for fewer files than it was asked about. */
export function shortMtimesHost() {
  return { ...plainValueHost(), mtimes: async () => new Float64Array([1]) };
}

/** An object with only some of the host methods. */
export function partialHost() {
  const { readFile, stat } = plainValueHost();
  return { readFile, stat };
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
