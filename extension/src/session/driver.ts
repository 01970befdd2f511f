// Runs one Claude Code session: spawns the CLI with the launch line the TetherAgent builds, pipes
// its stdout lines into the agent (which serves Tether's tools in-process and answers what the
// permission engine can decide), writes the agent's lines to the CLI's stdin, and hands UI events
// and permission prompts to the front end. Shared by dist/tether-cli.js and the VS Code
// extension, so nothing here knows about vscode.

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, promises as fsp } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TetherHost } from "../core/host";
import { LineSplitter } from "../node/ndjson";
import { createTetherAgent, type AgentConfig, type AgentOutput, type PermissionAnswer, type PermissionMode, type TetherAgent } from "./agent";
import { isEvent, type DoneEvent, type ErrorEvent, type PermissionRequestEvent, type UiEvent } from "./events";

/** After stdin is closed, how long the CLI gets to finish and exit before it is killed. */
const DEFAULT_STOP_GRACE_MS = 5000;
/** When the CLI exits, how long the lines it wrote last may take before the exit is reported. */
const EXIT_REPORT_WAIT_MS = 500;
/** How much of the CLI's stderr is kept for error messages. */
const STDERR_KEEP_CHARS = 4000;

export interface SessionDriverOptions {
  host: TetherHost;
  /** The workspace root, in the host's namespace. */
  root: string;
  /** The CLI's local cwd, whose paths map onto root; default: root itself (a local workspace). */
  mirror?: string;
  /** The claude binary; default: found by findClaude(). */
  claudePath?: string;
  mode?: PermissionMode;
  model?: string;
  /** A session id to resume (same mirror and HOME as the session that made it). */
  resume?: string;
  /** Extra environment for the CLI, e.g. ANTHROPIC_BASE_URL; the driver's own env is inherited. */
  env?: Record<string, string>;
  /** The laptop's Claude settings; default ~/.claude/settings.json (skipped when missing). */
  userSettingsPath?: string;
  /** For ~/ in permission rules; default the user's home directory. */
  homeDir?: string;
  remote?: AgentConfig["remote"];
  extraSystemPrompt?: string;
  /** The project's `.claude/agents/*.md` files, offered to the model as subagents. */
  agentFiles?: { name: string; text: string }[];
  allowedTools?: string[];
  disallowedTools?: string[];
  onEvent(event: UiEvent): void;
  /** Asked only when the user has to choose. `signal` aborts when the CLI withdraws the
   * question (an interrupt) or the session ends; the answer is then ignored. */
  onPermission(request: PermissionRequestEvent, signal: AbortSignal): Promise<PermissionAnswer>;
  log?(message: string): void;
  stopGraceMs?: number;
}

/** How a turn ended: `ok` when the CLI reported success. */
export interface TurnOutcome {
  ok: boolean;
  done?: DoneEvent;
  /** The last error event of the turn (the CLI's, or the driver's when the CLI died). */
  error?: ErrorEvent;
}

interface TurnWaiter {
  resolve(outcome: TurnOutcome): void;
  error?: ErrorEvent;
}

export class SessionDriver {
  private agent: TetherAgent | undefined;
  private child: ChildProcess | undefined;
  private closed: Promise<void> | undefined;
  private hasExited = false;
  private stopping = false;
  private stderrTail = "";
  private currentSessionId: string | null = null;
  private readonly turns: TurnWaiter[] = [];
  private readonly openPermissions = new Map<string, AbortController>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly log: (message: string) => void;

  constructor(private readonly options: SessionDriverOptions) {
    this.log = options.log ?? (() => undefined);
    this.currentSessionId = options.resume ?? null;
  }

  /** The CLI's session id, once known (the resumed one before the first turn). */
  get sessionId(): string | null {
    return this.currentSessionId;
  }

  /** The CLI's process id while it runs. */
  get pid(): number | undefined {
    return this.hasExited ? undefined : this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && !this.hasExited;
  }

  /** Spawn the CLI, send `initialize` and load the permission settings; resolves once the first
   * prompt may be sent. Rejects with a clear message when the config is bad or the binary cannot
   * be started. */
  async start(): Promise<void> {
    if (this.child) throw new Error("the session was already started");
    const options = this.options;
    const homeDir = options.homeDir ?? os.homedir();
    const userSettings = await readOptional(options.userSettingsPath ?? path.join(homeDir, ".claude", "settings.json"));
    const config: AgentConfig = {
      root: options.root,
      homeDir,
      ...defined({
        mirror: options.mirror,
        userSettings,
        mode: options.mode,
        model: options.model,
        resume: options.resume,
        env: options.env,
        remote: options.remote,
        extraSystemPrompt: options.extraSystemPrompt,
        agentFiles: options.agentFiles,
        allowedTools: options.allowedTools,
        disallowedTools: options.disallowedTools,
      }),
    };
    const claudePath = options.claudePath ?? findClaude();
    const agent = createTetherAgent(options.host, config);
    const launch = agent.launch(stringEnv(process.env));
    const cwd = options.mirror ?? options.root;
    this.log(`spawning ${claudePath} ${launch.args.join(" ")} in ${cwd}`);
    let child: ChildProcess;
    try {
      child = await spawnChild(claudePath, launch.args, { cwd, env: launch.env });
    } catch (error) {
      agent.free();
      throw error;
    }
    this.agent = agent;
    this.child = child;
    this.log(`claude pid ${child.pid}`);
    this.wire(child);
    // initialize needs no settings: the CLI takes it up as soon as it reads its stdin, while the
    // agent reads the workspace's settings (round trips on a remote workspace).
    this.apply(agent.initialize());
    let outputs: AgentOutput[];
    try {
      // The prompt waits for this (the driver's caller awaits start()): the settings may switch
      // the mode before the first turn.
      outputs = await agent.start();
    } catch (error) {
      this.stopping = true;
      this.kill();
      throw error;
    }
    this.apply(outputs);
  }

  /** Send a user turn; settles when the turn ends (or the CLI dies). */
  prompt(text: string, images?: { mediaType: string; data: string }[]): Promise<TurnOutcome> {
    const agent = this.requireRunning();
    const outcome = new Promise<TurnOutcome>((resolve) => this.turns.push({ resolve }));
    this.apply(agent.prompt(text, images));
    return outcome;
  }

  interrupt(): void {
    if (!this.running) return;
    this.apply(this.requireRunning().interrupt());
  }

  setMode(mode: PermissionMode): void {
    this.apply(this.requireRunning().setMode(mode));
  }

  setModel(model: string | null): void {
    this.apply(this.requireRunning().setModel(model));
  }

  /** A file watcher saw a workspace file change. */
  async fileChanged(file: string): Promise<void> {
    await this.agent?.fileChanged(file);
  }

  /** Close the CLI's stdin, give it the grace period to exit, then kill it. Settles once it is
   * gone; open turns end with an error outcome. */
  async stop(): Promise<void> {
    if (!this.child || !this.closed) return;
    this.stopping = true;
    if (!this.hasExited) {
      this.child.stdin?.end();
      const grace = this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
      let timer: NodeJS.Timeout | undefined;
      const gone = await Promise.race([
        this.closed.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), grace))),
      ]);
      clearTimeout(timer);
      if (!gone) {
        this.log(`claude did not exit within ${grace} ms of closing its stdin; killing pid ${this.child.pid}`);
        this.kill();
      }
    }
    await this.closed;
    // Tool calls still running finish on their own; their answers have nowhere to go.
  }

  // ---- the process ----

  private wire(child: ChildProcess): void {
    const splitter = new LineSplitter();
    child.stdout?.on("data", (chunk: Buffer) => {
      for (const frame of splitter.push(chunk)) {
        if ("line" in frame) this.feed(frame.line);
        else this.log(`dropped an oversized line of ${frame.oversized} bytes from claude`);
      }
    });
    child.stdout?.on("end", () => {
      const last = splitter.finish();
      if (last && "line" in last) this.feed(last.line);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      this.log(`claude stderr: ${text.trimEnd()}`);
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_KEEP_CHARS);
    });
    // A write after the CLI died fails with EPIPE; the exit is handled on "close".
    child.stdin?.on("error", (error) => this.log(`claude stdin: ${error.message}`));
    this.closed = new Promise((resolve) => {
      child.once("close", (code, signal) => {
        this.hasExited = true;
        // The last lines the CLI wrote (its `result`, say) come before the news of its exit;
        // a tool call that runs on does not hold that news back for long.
        const settled = Promise.allSettled([...this.inFlight]);
        void Promise.race([settled, delay(EXIT_REPORT_WAIT_MS)]).then(() => {
          this.onExit(code, signal);
          resolve();
          void this.freeAgentWhenIdle();
        });
      });
    });
  }

  /** Feed one stdout line without waiting for the previous ones: a long tool call must not hold
   * up the lines behind it. */
  private feed(line: string): void {
    const agent = this.agent;
    if (!agent) return;
    const task = agent.onLine(line).then(
      (outputs) => this.apply(outputs),
      (error: unknown) => this.internalError("handling a line from claude", error),
    );
    const tracked = task.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private apply(outputs: AgentOutput[]): void {
    for (const output of outputs) {
      if (output.type === "write") this.write(output.line);
      // The wasm types leave events open; events.ts spells out the ones the driver reads.
      else this.emit(output.event as UiEvent);
    }
  }

  private write(line: string): void {
    const stdin = this.child?.stdin;
    if (!stdin || !stdin.writable || this.hasExited) {
      this.log(`claude is gone; dropped a line for its stdin: ${line.slice(0, 200)}`);
      return;
    }
    stdin.write(line + "\n");
  }

  private emit(event: UiEvent): void {
    if (isEvent(event, "sessionInit") && event.sessionId) this.currentSessionId = event.sessionId;
    if (isEvent(event, "done") && event.sessionId) this.currentSessionId = event.sessionId;
    try {
      this.options.onEvent(event);
    } catch (error) {
      this.log(`onEvent threw: ${describe(error)}`);
    }
    if (isEvent(event, "permissionRequest")) {
      this.ask(event);
    } else if (isEvent(event, "permissionCancelled")) {
      this.openPermissions.get(event.id)?.abort();
      this.openPermissions.delete(event.id);
    } else if (isEvent(event, "error")) {
      const turn = this.turns[0];
      if (turn) turn.error = event;
    } else if (isEvent(event, "done")) {
      const turn = this.turns.shift();
      turn?.resolve({ ok: !event.isError, done: event, ...defined({ error: turn.error }) });
    }
  }

  private ask(request: PermissionRequestEvent): void {
    const task = this.askAndAnswer(request);
    const tracked = task.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private async askAndAnswer(request: PermissionRequestEvent): Promise<void> {
    const controller = new AbortController();
    this.openPermissions.set(request.id, controller);
    let answer: PermissionAnswer;
    try {
      answer = await this.options.onPermission(request, controller.signal);
    } catch (error) {
      this.log(`the permission prompt for ${request.toolName} failed: ${describe(error)}`);
      answer = { decision: "deny", reason: `The permission prompt failed: ${describe(error)}` };
    }
    this.openPermissions.delete(request.id);
    const agent = this.agent;
    if (controller.signal.aborted || !agent || this.hasExited) return;
    try {
      this.apply(await agent.answerPermission(request.id, answer));
    } catch (error) {
      this.internalError(`answering the permission request for ${request.toolName}`, error);
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    for (const controller of this.openPermissions.values()) controller.abort();
    this.openPermissions.clear();
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    this.log(`claude ${how}`);
    let error: ErrorEvent;
    if (this.stopping) {
      error = { type: "error", kind: "other", severity: "notice", message: "The session was stopped.", hint: null };
    } else {
      const stderr = this.stderrTail.trim();
      const id = this.currentSessionId;
      error = {
        type: "error",
        kind: "crash",
        severity: "error",
        message: `Claude Code ${how} unexpectedly.${stderr ? `\n${stderr}` : ""}`,
        hint: id ? `Start again with resume ${id} to continue this session.` : "Start a new session.",
        retryable: true,
        sessionId: id,
      };
      this.emit(error);
    }
    for (const turn of this.turns.splice(0)) turn.resolve({ ok: false, error });
  }

  /** The wasm object's memory is not garbage-collected: release it once no call uses it. Tool
   * calls still running when the CLI died are left to finish first. */
  private async freeAgentWhenIdle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    const agent = this.agent;
    this.agent = undefined;
    agent?.free();
  }

  private kill(): void {
    const pid = this.child?.pid;
    if (pid === undefined || this.hasExited) return;
    try {
      process.kill(pid, "SIGKILL");
    } catch (error) {
      this.log(`could not kill claude (pid ${pid}): ${describe(error)}`);
    }
  }

  private requireRunning(): TetherAgent {
    if (this.hasExited) throw new Error("Claude Code is no longer running; start a new session (or resume this one)");
    if (!this.agent || !this.child) throw new Error("the session has not been started");
    return this.agent;
  }

  private internalError(what: string, error: unknown): void {
    this.log(`internal error ${what}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    this.emit({ type: "error", kind: "other", severity: "error", message: `Tether failed ${what}: ${describe(error)}`, hint: null });
  }
}

// ---- finding and starting the binary ----

/** The claude binary: `explicit`, else $TETHER_CLAUDE_PATH, else `claude` on PATH, else the places
 * the installers use. Throws a message that says where it looked. */
export function findClaude(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const configured = explicit ?? env["TETHER_CLAUDE_PATH"];
  if (configured) {
    if (!existsSync(configured)) throw new Error(`the Claude Code binary ${configured} does not exist`);
    return configured;
  }
  const isWindows = process.platform === "win32";
  const names = isWindows ? ["claude.exe", "claude.cmd", "claude"] : ["claude"];
  const home = env["HOME"] ?? os.homedir();
  const dirs = [
    ...(env["PATH"] ?? "").split(path.delimiter).filter(Boolean),
    path.join(home, ".claude", "local"),
    path.join(home, ".local", "bin"),
    // npm's global bin: next to node itself on POSIX installs, %APPDATA%\npm on Windows.
    ...(env["npm_config_prefix"] ? [isWindows ? env["npm_config_prefix"] : path.join(env["npm_config_prefix"], "bin")] : []),
    path.dirname(process.execPath),
    ...(isWindows && env["APPDATA"] ? [path.join(env["APPDATA"], "npm")] : []),
    ...(isWindows ? [] : ["/usr/local/bin", "/opt/homebrew/bin"]),
  ];
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (existsSync(candidate)) return candidate;
    }
  }
  throw new Error(
    "Claude Code (claude) was not found on PATH, in ~/.claude/local, ~/.local/bin or npm's global bin. " +
      "Install it (npm install -g @anthropic-ai/claude-code) or give its path (TETHER_CLAUDE_PATH).",
  );
}

/** Resolves once the process runs; rejects with a clear message when it cannot start. */
function spawnChild(file: string, args: string[], options: { cwd: string; env: Record<string, string> }): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
    } catch (error) {
      reject(new Error(`could not start Claude Code (${file}): ${describe(error)}`));
      return;
    }
    child.once("spawn", () => resolve(child));
    child.once("error", (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return;
      const reason = error.code === "ENOENT" && !existsSync(options.cwd) ? `its working directory ${options.cwd} does not exist` : error.message;
      reject(new Error(`could not start Claude Code (${file}): ${reason}`));
    });
  });
}

// ---- small helpers ----

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`could not read ${file}: ${describe(error)}`);
  }
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}

/** The object without its undefined fields (exactOptionalPropertyTypes-friendly spreading). */
function defined<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
