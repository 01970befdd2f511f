// How the session driver reaches an agent: a Transport sends messages and delivers the agent's,
// whatever carries them. StdioTransport runs the agent as a child process and speaks NDJSON on
// its stdin and stdout, split by the core's framing; a WebSocket transport (for a gateway) gives
// the same interface.

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createNdjsonSplitter, type NdjsonFrame } from "../core/wasm";

/** How a transport ended. */
export interface TransportExit {
  /** The process's exit code, or null (killed, or no process). */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** What the agent said on its way out (the end of its stderr), for error messages. */
  detail: string;
}

export interface Transport {
  /** Send one message (a stdio transport adds the newline). Dropped, with a log line, once the
   * agent is gone. */
  send(message: string): void;
  /** Every message from the agent, in order. */
  onMessage(handler: (message: string) => void): void;
  /** The agent is gone; called once, after its last message. */
  onExit(handler: (exit: TransportExit) => void): void;
  /** Ask the agent to finish (close its input); after `graceMs`, end it by force. Settles once it
   * is gone. */
  close(graceMs: number): Promise<void>;
  /** End it now. */
  kill(): void;
  readonly running: boolean;
  /** The process id, for a transport that runs a process. */
  readonly pid: number | undefined;
}

export interface StdioOptions {
  /** The agent's name in messages ("Claude Code"). */
  displayName: string;
  /** Its command, for log lines ("claude"). */
  logName: string;
  program: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  log(message: string): void;
  /** A line of the agent's that could not be delivered (over the size limit, not UTF-8). */
  problem?(message: string): void;
  /** POSIX: run the agent in a process group of its own, and end the whole group: agents spawn
   * helpers (their MCP servers, gemini-cli relaunches itself and its wrapper ignores SIGTERM). */
  processGroup?: boolean;
}

/** How much of the agent's stderr is kept for error messages. */
const STDERR_KEEP_CHARS = 4000;
/** After SIGTERM to a process group, how long before SIGKILL. */
const GROUP_TERM_GRACE_MS = 1000;

/** A child process speaking NDJSON on its stdio. */
export class StdioTransport implements Transport {
  private readonly splitter = createNdjsonSplitter();
  private messageHandler: (message: string) => void = () => undefined;
  private exitHandler: (exit: TransportExit) => void = () => undefined;
  private stderrTail = "";
  private exited = false;
  private readonly closed: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly options: StdioOptions,
  ) {
    const log = options.log;
    child.stdout?.on("data", (chunk: Buffer) => {
      for (const frame of this.splitter.push(chunk)) this.deliver(frame);
    });
    child.stdout?.on("end", () => {
      const last = this.splitter.finish();
      if (last) this.deliver(last);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      log(`${options.logName} stderr: ${text.trimEnd()}`);
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_KEEP_CHARS);
    });
    // A write after the agent died fails with EPIPE; the exit is handled on "close".
    child.stdin?.on("error", (error) => log(`${options.logName} stdin: ${error.message}`));
    this.closed = new Promise((resolve) => {
      child.once("exit", () => {
        // Helpers the agent left behind (an MCP server, a relaunched child) go with it.
        if (this.grouped) this.signalGroup("SIGKILL");
      });
      child.once("close", (code, signal) => {
        this.exited = true;
        this.splitter.free();
        this.exitHandler({ code, signal, detail: this.stderrTail.trim() });
        resolve();
      });
    });
  }

  /** Spawn the program; resolves once it runs, rejects with a clear message when it cannot
   * start. */
  static start(options: StdioOptions): Promise<StdioTransport> {
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        const detached = options.processGroup === true && process.platform !== "win32";
        child = spawn(options.program, options.args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"], windowsHide: true, detached });
      } catch (error) {
        reject(new Error(`could not start ${options.displayName} (${options.program}): ${describe(error)}`));
        return;
      }
      child.once("spawn", () => resolve(new StdioTransport(child, options)));
      child.once("error", (error: NodeJS.ErrnoException) => {
        if (child.pid !== undefined) return;
        const reason = error.code === "ENOENT" && !existsSync(options.cwd) ? `its working directory ${options.cwd} does not exist` : error.message;
        reject(new Error(`could not start ${options.displayName} (${options.program}): ${reason}`));
      });
    });
  }

  get running(): boolean {
    return !this.exited;
  }

  get pid(): number | undefined {
    return this.exited ? undefined : this.child.pid;
  }

  send(message: string): void {
    const stdin = this.child.stdin;
    if (!stdin || !stdin.writable || this.exited) {
      this.options.log(`${this.options.logName} is gone; dropped a message for its stdin: ${message.slice(0, 200)}`);
      return;
    }
    stdin.write(message + "\n");
  }

  onMessage(handler: (message: string) => void): void {
    this.messageHandler = handler;
  }

  onExit(handler: (exit: TransportExit) => void): void {
    this.exitHandler = handler;
  }

  async close(graceMs: number): Promise<void> {
    if (!this.exited) {
      this.child.stdin?.end();
      let timer: NodeJS.Timeout | undefined;
      const gone = await Promise.race([
        this.closed.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
      ]);
      clearTimeout(timer);
      if (!gone && this.grouped) {
        this.options.log(`${this.options.logName} did not exit within ${graceMs} ms of closing its stdin; ending its process group ${this.child.pid}`);
        this.signalGroup("SIGTERM");
        await Promise.race([this.closed, new Promise((resolve) => setTimeout(resolve, GROUP_TERM_GRACE_MS))]);
      }
      if (!gone && !this.exited) {
        this.options.log(`${this.options.logName} did not exit within ${graceMs} ms of closing its stdin; killing pid ${this.child.pid}`);
        this.kill();
      }
    }
    await this.closed;
  }

  kill(): void {
    const pid = this.child.pid;
    if (pid === undefined || this.exited) return;
    if (this.grouped) {
      this.signalGroup("SIGKILL");
      return;
    }
    try {
      process.kill(pid, "SIGKILL");
    } catch (error) {
      this.options.log(`could not kill ${this.options.logName} (pid ${pid}): ${describe(error)}`);
    }
  }

  private get grouped(): boolean {
    return this.options.processGroup === true && process.platform !== "win32";
  }

  /** Signal the agent's process group, by its leader's pid. */
  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch (error) {
      // ESRCH: the group is gone already.
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") this.options.log(`could not signal the process group of ${this.options.logName} (${pid}): ${describe(error)}`);
    }
  }

  private deliver(frame: NdjsonFrame): void {
    if (frame.kind === "line") {
      this.messageHandler(frame.line);
      return;
    }
    const message =
      frame.kind === "oversized"
        ? `dropped a line of ${frame.bytes} bytes from ${this.options.displayName}: over the size limit`
        : `dropped a line of ${frame.bytes} bytes from ${this.options.displayName} that is not UTF-8 (from byte ${frame.validUpTo})`;
    this.options.log(message);
    this.options.problem?.(`Tether ${message}.`);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The environment with its unset names left out (what a launch takes). */
export function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}
