// A long-lived process whose stdin and stdout are a conversation (a stdio MCP server): started
// without a shell, in its own process group on POSIX so that stopping it stops what it started,
// its stderr kept as a short tail for the message that says why it stopped. Used where the files
// are: by Tether Remote on a remote, by the extension itself for a local folder.

import { spawn, type ChildProcess } from "node:child_process";

export interface ProcessSpec {
  command: string;
  args: string[];
  /** Added to the environment of the process that starts it. */
  env: Record<string, string>;
  cwd: string;
}

export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

export interface StdioProcess {
  readonly pid: number | undefined;
  /** Write to its stdin, in order. */
  write(data: string): Promise<void>;
  /** Its stdout, chunk by chunk, from the first (chunks that came before a listener wait for it). */
  onStdout(listener: (chunk: string) => void): void;
  /** Resolves once it exited (or the link to it is gone). */
  readonly exited: Promise<ProcessExit>;
  /** The last bytes it wrote to stderr. */
  stderrTail(): string;
  /** Stop it (and what it started); resolves once it is gone. */
  kill(): Promise<void>;
}

/** How much of stderr is kept. */
export const STDERR_TAIL_BYTES = 4096;
/** How long a stopped process gets before SIGKILL. */
const KILL_GRACE_MS = 2000;

/** Keeps the last `max` characters written to it. */
export class Tail {
  private text = "";
  constructor(private readonly max = STDERR_TAIL_BYTES) {}
  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-this.max);
  }
  toString(): string {
    return this.text;
  }
}

/** Hands chunks to one listener, keeping those that come before it is there. */
export class ChunkQueue {
  private waiting: string[] = [];
  private listener: ((chunk: string) => void) | undefined;
  push(chunk: string): void {
    if (this.listener) this.listener(chunk);
    else this.waiting.push(chunk);
  }
  listen(listener: (chunk: string) => void): void {
    this.listener = listener;
    const waiting = this.waiting;
    this.waiting = [];
    for (const chunk of waiting) listener(chunk);
  }
}

/** Start `spec` here; rejects (with the reason) when it cannot start at all. */
export function startLocalProcess(spec: ProcessSpec): Promise<StdioProcess> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: { ...process.env, ...spec.env },
        stdio: ["pipe", "pipe", "pipe"],
        detached: process.platform !== "win32",
        windowsHide: true,
      });
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const stdout = new ChunkQueue();
    const stderr = new Tail();
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => stdout.push(chunk));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => stderr.push(chunk));
    // A reader that went away must not take the extension host with it.
    child.stdin?.on("error", () => undefined);
    const exited = new Promise<ProcessExit>((done) => child.once("exit", (code, signal) => done({ code, signal })));
    child.once("error", (error) => reject(error));
    child.once("spawn", () =>
      resolve({
        pid: child.pid,
        write: (data) =>
          new Promise<void>((written, failed) => {
            if (!child.stdin || child.stdin.destroyed) return failed(new Error("the process's input is closed"));
            child.stdin.write(data, (error) => (error ? failed(error) : written()));
          }),
        onStdout: (listener) => stdout.listen(listener),
        exited,
        stderrTail: () => stderr.toString(),
        kill: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          signal(child, "SIGTERM");
          const timer = setTimeout(() => signal(child, "SIGKILL"), KILL_GRACE_MS);
          await exited;
          clearTimeout(timer);
        },
      }),
    );
  });
}

/** Signal the process's group (POSIX), else the process. */
function signal(child: ChildProcess, name: NodeJS.Signals): void {
  try {
    if (process.platform !== "win32" && child.pid) process.kill(-child.pid, name);
    else child.kill(name);
  } catch {
    child.kill(name);
  }
}
