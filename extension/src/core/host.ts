// The host interface the wasm core calls (crate/src/wasm/host.rs, `JsHost`). A host gives the core
// the workspace's file system, command execution, search and a clock. The Node host
// (src/node/nodeHost.ts) implements it with fs and child_process; the VS Code extension implements
// it over vscode.workspace.fs and a remote executor.
//
// Paths are absolute paths in the workspace's own namespace (POSIX for a remote workspace).
// Failures throw or reject with an Error carrying `code`: Node's errno names (ENOENT, EACCES,
// EISDIR, ENOTDIR, EEXIST, ENOSYS, EFBIG; EFTYPE for what is not a regular file) or vscode.FileSystemError codes (FileNotFound, FileExists,
// FileNotADirectory, FileIsADirectory, NoPermissions, Unavailable). Any other code, or none, is
// passed to the model as a plain failure with the error's message.

// The values that cross the boundary are declared once, in Rust (crate/src/host.rs), and
// generated.
import type { BackgroundStatus, DirEntry, ExecOutput, ExecRequest, FileStat } from "../generated/core";

export type { BackgroundStatus, DirEntry, ExecOutput, ExecRequest, FileKind, FileStat } from "../generated/core";

/** An Error with the code the core maps to a failure kind. */
export interface HostError extends Error {
  code: string;
}

export function hostError(code: string, message: string): HostError {
  return Object.assign(new Error(message), { code });
}

/** `TetherHost.mtimes` by one stat per file, NaN where a stat fails: for hosts whose stats asked
 * in one tick already travel together (the core's Rust side has the same fallback). */
export async function mtimesByStat(paths: string[], stat: (path: string) => Promise<{ mtimeMs: number }>): Promise<Float64Array> {
  return Float64Array.from(await Promise.all(paths.map((p) => stat(p).then((s) => s.mtimeMs, () => NaN))));
}

export interface TetherHost {
  /**
   * A regular file's bytes, at most `maxBytes` of them. Anything else (a FIFO, a socket, a
   * device) is refused with code EFTYPE, without waiting on it; a file holding more than
   * `maxBytes`, even one that grows while it is read, with code EFBIG, having read no more than
   * `maxBytes + 1` bytes. A host that cannot bound its read may ignore `maxBytes` (the core
   * checks the size before and after). The core always gives `maxBytes`.
   */
  readFile(path: string, maxBytes?: number): Promise<Uint8Array>;
  /** Atomic: readers see the old or the new content, never a mix; a failure leaves the old file. */
  writeFile(path: string, data: Uint8Array): Promise<void>;
  /** Follows symlinks. */
  stat(path: string): Promise<FileStat>;
  /** Does not follow symlinks: a link is reported as "symlink". */
  lstat(path: string): Promise<FileStat>;
  /** Entries without "." and "..", unsorted; a symlink's kind is "symlink". */
  readDir(path: string): Promise<DirEntry[]>;
  /** Recursive; an existing directory is not an error. */
  mkdir(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string, recursive: boolean): Promise<void>;
  /** Canonical path with every symlink resolved (the path unchanged where links cannot be resolved). */
  realPath(path: string): Promise<string>;
  run(request: ExecRequest): Promise<ExecOutput>;
  /** Start a command that outlives the call; resolves to the host's id for it. */
  spawnBackground(request: ExecRequest): Promise<string>;
  readBackground(id: string): Promise<BackgroundStatus>;
  /** Resolves false when the process had already exited. */
  killBackground(id: string): Promise<boolean>;
  /** ripgrep with these arguments in cwd; null when this host has no ripgrep. */
  ripgrep(args: string[], cwd: string, timeoutMs: number): Promise<ExecOutput | null>;
  /** Milliseconds since the Unix epoch; the core has no clock of its own on wasm. */
  nowMs(): number;
  /** Optional: the text an editor holds for `path` with unsaved changes, or null (an ACP agent's
   * file reads see what the user sees). */
  unsavedText?(path: string): Promise<string | null>;
  /** Optional: readBackground after waiting up to `waitMs` for output or the end (a long poll;
   * the terminals an ACP agent runs stream through it). */
  waitBackground?(id: string, waitMs: number): Promise<BackgroundStatus>;
  /** Optional: the modification times (ms) of many files, in order, NaN where a file cannot be
   * stat'ed: one call for every match Grep and Glob sort, instead of a `stat` each. */
  mtimes?(paths: string[]): Promise<Float64Array>;
}
