// A TetherHost on Node's fs and child_process: the host of dist/tether-mcp.js, of the wasm tests,
// and of the extension when the workspace is on the machine it runs on.

import { spawn, type ChildProcess } from "node:child_process";
import { constants as fsConstants, existsSync, lstatSync, promises as fsp, realpathSync, renameSync, statSync, type Dirent, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import * as path from "node:path";
import { StringDecoder } from "node:string_decoder";
import {
  hostError,
  mtimesByStat,
  type BackgroundStatus,
  type DirEntry,
  type ExecOutput,
  type ExecRequest,
  type FileKind,
  type FileStat,
  type TetherHost,
} from "../core/host";
import { StatBatcher } from "./statBatch";

export interface NodeHostOptions {
  /** The ripgrep binary: a path, null for none, or absent to use $TETHER_RG, else `rg` on PATH. */
  ripgrepPath?: string | null;
}

/** Unread output kept per stream of a background process; older unread output is dropped. */
const BACKGROUND_KEEP_BYTES = 8 * 1024 * 1024;
/** ripgrep output is parsed by the core, so it is not capped like a command's. */
const RIPGREP_MAX_OUTPUT_BYTES = 256 * 1024 * 1024;
/** After the shell exits, how long its pipes must stay quiet before they are closed. A grandchild
 * left running in the background keeps them open; the command is done anyway. */
const PIPE_DRAIN_GRACE_MS = 200;
/** The longest the pipes are drained after the shell exits, however much keeps coming. */
const PIPE_DRAIN_MAX_MS = 5000;
/** How long killBackground waits for the process to be gone. */
const KILL_WAIT_MS = 2000;
/** setTimeout takes a signed 32-bit delay; anything longer fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const isWindows = process.platform === "win32";

function kindOf(entry: Stats | Dirent): FileKind {
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isDirectory()) return "directory";
  if (entry.isFile()) return "file";
  return "other";
}

function fileStat(stats: Stats): FileStat {
  return { kind: kindOf(stats), size: stats.size, mtimeMs: stats.mtimeMs };
}

/** `p` with its links resolved, or `p` itself when it cannot be (it does not exist yet, say). */
function realpathOrSelf(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** First `name` on PATH (with Windows executable extensions), or undefined. */
export function findOnPath(name: string): string | undefined {
  const dirs = (process.env["PATH"] ?? "").split(path.delimiter).filter(Boolean);
  const extensions = isWindows ? (process.env["PATHEXT"] ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of dirs) {
    for (const ext of extensions) {
      const candidate = path.join(dir, name + ext);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

/** The shell that runs command lines: bash where there is one, else sh (cmd.exe on bare Windows). */
function resolveShell(): (command: string) => [string, string[]] {
  if (!isWindows) {
    const bash = existsSync("/bin/bash") ? "/bin/bash" : findOnPath("bash");
    const shell = bash ?? (existsSync("/bin/sh") ? "/bin/sh" : "sh");
    return (command) => [shell, ["-c", command]];
  }
  const bash = findOnPath("bash");
  if (bash) return (command) => [bash, ["-c", command]];
  const cmd = process.env["ComSpec"] ?? "cmd.exe";
  return (command) => [cmd, ["/d", "/s", "/c", command]];
}

/** Kill a process and everything it started (its process group on POSIX). */
function killTree(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    if (isWindows) {
      spawn("taskkill", ["/pid", String(child.pid), "/T", "/F"], { stdio: "ignore", windowsHide: true });
    } else {
      process.kill(-child.pid, "SIGKILL");
    }
  } catch {
    child.kill("SIGKILL");
  }
}

/** Whether POSIX process group `group` still has a process in it. */
function groupExists(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, but is not ours to signal (a setuid program).
    return errorCode(error) === "EPERM";
  }
}

function killGroup(group: number): void {
  try {
    process.kill(-group, "SIGKILL");
  } catch {
    // Gone already.
  }
}

/** One output stream of a foreground run: the first `cap` bytes, and a count of the rest. */
class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private total = 0;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.cap - this.kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  text(): string {
    const bytes = Buffer.concat(this.chunks);
    // A cut at the cap may split a character: leave its partial bytes out rather than show U+FFFD.
    return this.truncated ? new StringDecoder("utf8").write(bytes) : bytes.toString("utf8");
  }
}

/** One output stream of a background process: what has not been read yet, bounded. */
class UnreadOutput {
  private chunks: Buffer[] = [];
  private size = 0;
  private readonly decoder = new StringDecoder("utf8");

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > BACKGROUND_KEEP_BYTES) {
      const first = this.chunks[0]!;
      const excess = this.size - BACKGROUND_KEEP_BYTES;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  get hasUnread(): boolean {
    return this.size > 0;
  }

  /** Everything unread, as text; a character split across reads is completed by the next read. */
  take(final: boolean): string {
    const text = this.decoder.write(Buffer.concat(this.chunks));
    this.chunks = [];
    this.size = 0;
    return final ? text + this.decoder.end() : text;
  }
}

interface Background {
  child: ChildProcess;
  stdout: UnreadOutput;
  stderr: UnreadOutput;
  exitCode: number | null;
  running: boolean;
  /** Settles once the process is gone and its output collected. */
  finished: Promise<void>;
  /** Called on new output and on exit (long polls waiting in waitForBackground). */
  wake: Set<() => void>;
}

/** Settles when the child has exited and its pipes are drained (or the drain grace is over). */
function whenFinished(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    let closed = false;
    let received = 0;
    const count = (chunk: Buffer): void => {
      received += chunk.length;
    };
    child.stdout?.on("data", count);
    child.stderr?.on("data", count);
    child.once("close", () => {
      closed = true;
    });
    child.once("exit", (code) => {
      if (closed) return resolve(code);
      const exited = Date.now();
      let timer: NodeJS.Timeout | undefined;
      child.once("close", () => {
        clearTimeout(timer);
        resolve(code);
      });
      // Quiet for the grace period, then closed. The check hops through setImmediate: a busy event
      // loop runs due timers before it reads the pipes, and output already waiting in them must be
      // read first (or a loaded host would answer with an empty or cut output).
      const arm = (seen: number): void => {
        timer = setTimeout(
          () =>
            setImmediate(() => {
              if (closed) return;
              if (received !== seen && Date.now() - exited < PIPE_DRAIN_MAX_MS) return arm(received);
              child.stdout?.destroy();
              child.stderr?.destroy();
              resolve(code);
            }),
          PIPE_DRAIN_GRACE_MS,
        );
      };
      arm(received);
    });
  });
}

export class NodeHost implements TetherHost {
  private readonly shellFor = resolveShell();
  private readonly background = new Map<string, Background>();
  /** Process groups of finished commands that left processes running (`cmd &`, `nohup`): they
   * may run on, as with the CLI's own Bash, but not past the host. */
  private readonly leftovers = new Set<number>();
  private nextBackgroundId = 0;
  private tempCounter = 0;
  private readonly statBatch = new StatBatcher();
  private ripgrepPath: string | null | undefined;

  constructor(options: NodeHostOptions = {}) {
    this.ripgrepPath = options.ripgrepPath;
  }

  // ---- FileSystem ----
  // Calls on metadata (realpath, stat, lstat, rename) are synchronous: each is one system call on a
  // local disk, where a round trip through libuv's thread pool took 50-90 µs here, more than the
  // call (in process: a small Read 82 → 57 µs, a 200-line Edit 767 → 660 µs). Contents are read and
  // written asynchronously. As with the stat batch, a network mount that hangs holds the event loop.

  async readFile(p: string, maxBytes: number = Number.MAX_SAFE_INTEGER): Promise<Uint8Array> {
    // O_NONBLOCK: opening a FIFO does not wait for a writer (fs.readFile's open would, holding
    // one of libuv's four threads, and with four such reads every file operation of the process).
    // The type is then checked on the open handle, so nothing swapped in after a stat is read.
    let handle: FileHandle;
    try {
      handle = await fsp.open(p, isWindows ? fsConstants.O_RDONLY : fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    } catch (error) {
      // A socket cannot be opened at all.
      if (errorCode(error) === "ENXIO") throw hostError("EFTYPE", `${p} is not a regular file (a device, FIFO or socket)`);
      throw error;
    }
    try {
      const stats = await handle.stat();
      if (stats.isDirectory()) throw hostError("EISDIR", `EISDIR: illegal operation on a directory, read '${p}'`);
      if (!stats.isFile()) throw hostError("EFTYPE", `${p} is not a regular file (a device, FIFO or socket)`);
      const tooLarge = () => hostError("EFBIG", `${p} holds more than ${maxBytes} bytes`);
      if (stats.size > maxBytes) throw tooLarge();
      // Read what the stat reported, then one byte past the limit at most: a file that grew, or
      // one that reports a size of 0 (/proc), is still read only up to the limit.
      const limit = Math.min(maxBytes + 1, Number.MAX_SAFE_INTEGER);
      let buffer = Buffer.allocUnsafe(Math.max(1, Math.min(stats.size + 1, limit)));
      let length = 0;
      for (;;) {
        if (length === buffer.length) {
          if (buffer.length >= limit) break;
          const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, limit));
          buffer.copy(grown, 0, 0, length);
          buffer = grown;
        }
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      if (length > maxBytes) throw tooLarge();
      return buffer.subarray(0, length);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  async writeFile(p: string, data: Uint8Array): Promise<void> {
    // Writing through a symlink replaces the link's target, not the link.
    const target = realpathOrSelf(p);
    let mode: number | undefined;
    try {
      const existing = statSync(target);
      if (existing.isDirectory()) throw hostError("EISDIR", `EISDIR: illegal operation on a directory, open '${p}'`);
      mode = existing.mode & 0o7777;
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
    }
    // Temp file in the same directory, so the rename is atomic (same file system).
    const temp = path.join(path.dirname(target), `.${path.basename(target)}.tether-${process.pid}-${++this.tempCounter}.tmp`);
    let handle: FileHandle | undefined;
    try {
      try {
        handle = await fsp.open(temp, "wx", mode ?? 0o666);
      } catch (error) {
        if (errorCode(error) === "ENOENT") throw hostError("ENOENT", `ENOENT: no such file or directory, open '${p}'`);
        throw error;
      }
      await handle.writeFile(data);
      // No fsync: the rename alone makes the replacement atomic for readers (as VS Code's own saves
      // do); an fsync per edit costs more than the whole edit.
      // The umask may have narrowed the mode given to open: keep the replaced file's exactly.
      if (mode !== undefined) await handle.chmod(mode);
      await handle.close();
      handle = undefined;
      renameSync(temp, target);
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await fsp.rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
  }

  async stat(p: string): Promise<FileStat> {
    return fileStat(await this.statBatch.stat(p));
  }

  mtimes(paths: string[]): Promise<Float64Array> {
    return mtimesByStat(paths, (p) => this.statBatch.stat(p));
  }

  async lstat(p: string): Promise<FileStat> {
    return fileStat(lstatSync(p));
  }

  async readDir(p: string): Promise<DirEntry[]> {
    const entries = await fsp.readdir(p, { withFileTypes: true });
    return entries.map((entry) => ({ name: entry.name, kind: kindOf(entry) }));
  }

  async mkdir(p: string): Promise<void> {
    await fsp.mkdir(p, { recursive: true });
  }

  async rename(from: string, to: string): Promise<void> {
    renameSync(from, to);
  }

  async remove(p: string, recursive: boolean): Promise<void> {
    const stats = await fsp.lstat(p);
    if (!stats.isDirectory()) return fsp.unlink(p);
    if (recursive) return fsp.rm(p, { recursive: true });
    return fsp.rmdir(p);
  }

  async realPath(p: string): Promise<string> {
    return realpathSync.native(p);
  }

  // ---- Exec ----

  run(request: ExecRequest): Promise<ExecOutput> {
    const [file, args] = this.shellFor(request.command);
    return this.execute(file, args, request.cwd, request.env, request.timeoutMs, request.maxOutputBytes);
  }

  async spawnBackground(request: ExecRequest): Promise<string> {
    const [file, args] = this.shellFor(request.command);
    const child = await this.start(file, args, request.cwd, request.env);
    const id = `bg-${++this.nextBackgroundId}`;
    const stdout = new UnreadOutput();
    const stderr = new UnreadOutput();
    const wake = new Set<() => void>();
    const wakeAll = () => {
      for (const w of [...wake]) w();
    };
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout.push(chunk);
      wakeAll();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr.push(chunk);
      wakeAll();
    });
    const lifetime = setTimeout(() => killTree(child), Math.min(Math.max(request.timeoutMs, 1), MAX_TIMER_MS));
    const record: Background = { child, stdout, stderr, exitCode: null, running: true, finished: Promise.resolve(), wake };
    record.finished = whenFinished(child).then((code) => {
      clearTimeout(lifetime);
      record.exitCode = code;
      record.running = false;
      wakeAll();
    });
    this.background.set(id, record);
    return id;
  }

  async readBackground(id: string): Promise<BackgroundStatus> {
    const record = this.backgroundRecord(id);
    const running = record.running;
    return {
      stdout: record.stdout.take(!running),
      stderr: record.stderr.take(!running),
      running,
      exitCode: record.exitCode,
    };
  }

  async waitBackground(id: string, waitMs: number): Promise<BackgroundStatus> {
    await this.waitForBackground(id, waitMs);
    return this.readBackground(id);
  }

  /** Resolves once the background process has unread output or has exited, or after `waitMs`:
   * a long poll, so a remote reader gets output as it comes without polling on a timer. */
  waitForBackground(id: string, waitMs: number): Promise<void> {
    const record = this.backgroundRecord(id);
    if (!record.running || record.stdout.hasUnread || record.stderr.hasUnread || waitMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        record.wake.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(waitMs, MAX_TIMER_MS));
      record.wake.add(done);
    });
  }

  async killBackground(id: string): Promise<boolean> {
    const record = this.backgroundRecord(id);
    if (!record.running) return false;
    killTree(record.child);
    // Wait until it is gone so a following read reports it stopped.
    await Promise.race([record.finished, new Promise((resolve) => setTimeout(resolve, KILL_WAIT_MS))]);
    return true;
  }

  /** Kill every background process still running (the host is being shut down). */
  dispose(): void {
    for (const record of this.background.values()) {
      if (record.running) killTree(record.child);
    }
    this.pruneLeftovers();
    for (const group of this.leftovers) killGroup(group);
    this.leftovers.clear();
  }

  /** Forget the groups whose last process has ended (so no group id is kept once it can be reused). */
  private pruneLeftovers(): void {
    for (const group of this.leftovers) if (!groupExists(group)) this.leftovers.delete(group);
  }

  // ---- Search ----

  async ripgrep(args: string[], cwd: string, timeoutMs: number): Promise<ExecOutput | null> {
    const rg = this.ripgrepBinary();
    if (rg === null) return null;
    try {
      return await this.execute(rg, args, cwd, [], timeoutMs, RIPGREP_MAX_OUTPUT_BYTES);
    } catch (error) {
      // The binary vanished since it was found: this host has no ripgrep after all.
      if (errorCode(error) === "ENOENT" && !existsSync(rg)) {
        this.ripgrepPath = null;
        return null;
      }
      throw error;
    }
  }

  private ripgrepBinary(): string | null {
    if (this.ripgrepPath === undefined) {
      const configured = process.env["TETHER_RG"];
      this.ripgrepPath = configured ? (existsSync(configured) ? configured : null) : (findOnPath("rg") ?? null);
    }
    return this.ripgrepPath;
  }

  // ---- Clock ----

  nowMs(): number {
    return performance.timeOrigin + performance.now();
  }

  // ---- processes ----

  private backgroundRecord(id: string): Background {
    const record = this.background.get(id);
    if (!record) throw hostError("ENOENT", `no background process ${id}`);
    return record;
  }

  /** Spawn in its own process group (so a kill reaches the whole pipeline); rejects when the
   * process cannot start. */
  private start(file: string, args: string[], cwd: string, env: [string, string][]): Promise<ChildProcess> {
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(file, args, {
          cwd,
          env: { ...process.env, ...Object.fromEntries(env) },
          stdio: ["ignore", "pipe", "pipe"],
          detached: !isWindows,
          windowsHide: true,
          windowsVerbatimArguments: isWindows && args[0] === "/d",
        });
      } catch (error) {
        // Invalid arguments (a NUL byte in the command, say) throw synchronously.
        reject(hostError("EINVAL", `could not start the process: ${(error as Error).message}`));
        return;
      }
      child.once("spawn", () => resolve(child));
      child.once("error", (error) => {
        if (child.pid !== undefined) return; // a failed kill after start; the exit still comes
        if (errorCode(error) === "ENOENT" && !existsSync(cwd)) {
          reject(hostError("ENOENT", `working directory ${cwd} does not exist`));
        } else {
          // ENOENT here means the program itself is missing (ripgrep checks for that).
          const code = errorCode(error) === "ENOENT" ? "ENOENT" : "ESPAWN";
          reject(hostError(code, `could not start the process: ${error.message}`));
        }
      });
    });
  }

  private async execute(
    file: string,
    args: string[],
    cwd: string,
    env: [string, string][],
    timeoutMs: number,
    maxOutputBytes: number,
  ): Promise<ExecOutput> {
    const child = await this.start(file, args, cwd, env);
    const stdout = new CappedOutput(maxOutputBytes);
    const stderr = new CappedOutput(maxOutputBytes);
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        killTree(child);
      },
      Math.min(Math.max(timeoutMs, 1), MAX_TIMER_MS),
    );
    const code = await whenFinished(child);
    clearTimeout(timer);
    this.pruneLeftovers();
    if (!isWindows && child.pid !== undefined && groupExists(child.pid)) this.leftovers.add(child.pid);
    return {
      stdout: stdout.text(),
      stderr: stderr.text(),
      exitCode: timedOut ? null : code,
      timedOut,
      truncated: stdout.truncated || stderr.truncated,
    };
  }
}
