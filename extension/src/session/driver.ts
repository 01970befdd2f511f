// Runs one agent session, whatever the backend: has the backend module's connector make the
// session config and start the program (or open the connection), hands every message from it to
// the TetherAgent (which serves Tether's tools in-process and answers what the permission gate can
// decide), sends the agent's messages back through the transport, and hands UI events and
// permission prompts to the front end. Shared by dist/tether-cli.js and the VS Code extension, so
// nothing here knows about vscode; nothing here knows a backend either (see backends/backend.ts).

import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Connector, ConnectorSession } from "../backends/backend";
import type { TetherHost } from "../core/host";
import type { AuditRecord, CheckpointsConfig, CommonConfig, FolderConfig, HooksConfig, McpServerEntry, RemoteConfig, RewindOutcome, RewindPreview, RuleEntry } from "../generated/core";
import { loadTetherCore } from "../core/wasm";
import { createTetherAgent, type AgentOutput, type PermissionAnswer, type PermissionMode, type SessionOp, type SessionOpKind, type TetherAgent } from "./agent";
import { isEvent, type DoneEvent, type ErrorEvent, type PermissionRequestEvent, type UiEvent } from "./events";
import type { Transport, TransportExit } from "./transport";

/** When the agent exits, how long the messages it sent last may take before the exit is reported. */
const EXIT_REPORT_WAIT_MS = 500;
/** When the session ends, how long killing its background shells may hold up its end. */
const SHELLS_END_WAIT_MS = 3_000;

export interface SessionDriverOptions {
  host: TetherHost;
  /** How this session's backend starts and talks (the backend module's connector). */
  connector: Connector;
  /** The workspace root, in the host's namespace. */
  root: string;
  /** The agent's local cwd, whose paths map onto root; default: root itself (a local workspace). */
  mirror?: string;
  mode?: PermissionMode;
  model?: string;
  /** A session id to resume (same mirror and HOME as the session that made it). */
  resume?: string;
  /** Where the session keeps its checkpoints (on the workspace side). */
  checkpoints?: CheckpointsConfig;
  /** The project's MCP servers the agent is given next to Tether's. */
  mcpServers?: McpServerEntry[];
  /** Whose hooks run on the workspace (default: the project's). */
  hooks?: HooksConfig;
  /** The laptop's Claude settings (Tether's permission rules); default ~/.claude/settings.json
   * (skipped when missing). */
  userSettingsPath?: string;
  /** For ~/ in permission rules; default the user's home directory. */
  homeDir?: string;
  remote?: RemoteConfig;
  /** The workspace's other folders (each with its mirror on a remote). */
  additionalFolders?: FolderConfig[];
  /** The project's settings texts as read before the start: the hook events to ask for. */
  projectSettings?: string[];
  onEvent(event: UiEvent): void;
  /** Asked only when the user has to choose. `signal` aborts when the agent withdraws the
   * question (an interrupt) or the session ends; the answer is then ignored. */
  onPermission(request: PermissionRequestEvent, signal: AbortSignal): Promise<PermissionAnswer>;
  /** One record for the session's audit log (paths, decisions, sizes, hashes). */
  onAudit?(record: AuditRecord): void;
  /** The core wrote the project's settings file `path` (a rule saved or taken out); `text` is what it wrote. */
  onSettingsWritten?(path: string, text: string): void;
  log?(message: string): void;
  stopGraceMs?: number;
}

/** How a turn ended: `ok` when the agent reported success. */
export interface TurnOutcome {
  ok: boolean;
  done?: DoneEvent;
  /** The last error event of the turn (the agent's, or the driver's when the agent died). */
  error?: ErrorEvent;
}

interface TurnWaiter {
  resolve(outcome: TurnOutcome): void;
  error?: ErrorEvent;
}

export class SessionDriver {
  private agent: TetherAgent | undefined;
  private transport: Transport | undefined;
  private closed: Promise<void> | undefined;
  private hasExited = false;
  private stopping = false;
  private currentSessionId: string | null = null;
  private readonly turns: TurnWaiter[] = [];
  private readonly openPermissions = new Map<string, AbortController>();
  private readonly inFlight = new Set<Promise<void>>();
  /** The next `watchShells` call the core asked for (a background shell runs), and when. */
  private shellWatch: { timer: ReturnType<typeof setTimeout>; due: number } | undefined;
  private readonly log: (message: string) => void;
  private readonly connector: Connector;
  /** The agent's name for people, and for log lines. */
  private readonly label: { displayName: string; command: string };

  constructor(private readonly options: SessionDriverOptions) {
    this.log = options.log ?? (() => undefined);
    this.currentSessionId = options.resume ?? null;
    this.connector = options.connector;
    this.label = options.connector.label;
  }

  /** The agent's session id, once known (the resumed one before the first turn). */
  get sessionId(): string | null {
    return this.currentSessionId;
  }

  /** The agent's process id while it runs. */
  get pid(): number | undefined {
    return this.hasExited ? undefined : this.transport?.pid;
  }

  get running(): boolean {
    return this.transport !== undefined && !this.hasExited;
  }

  /** Start the agent, send its first messages and load the permission settings; resolves once
   * the first prompt may be sent. Rejects with a clear message when the config is bad or the
   * program cannot be started. */
  async start(): Promise<void> {
    if (this.transport) throw new Error("the session was already started");
    const options = this.options;
    const homeDir = options.homeDir ?? os.homedir();
    const userSettings = await readOptional(this.userSettingsPath);
    const common: CommonConfig = {
      root: options.root,
      homeDir,
      ...defined({
        mirror: options.mirror,
        userSettings,
        mode: options.mode,
        model: options.model,
        resume: options.resume,
        remote: options.remote,
        checkpoints: options.checkpoints,
        mcpServers: options.mcpServers,
        additionalFolders: options.additionalFolders,
        hooks: hooksWithEvents(options.hooks, options.projectSettings, userSettings),
      }),
    };
    const session: ConnectorSession = {
      log: this.log,
      problem: (message) => this.emit({ type: "error", kind: "other", severity: "notice", message, hint: null }),
      run: (what, outputs) => this.track(outputs.then((o) => this.apply(o), (error: unknown) => this.internalError(what, error))),
    };
    let agent: TetherAgent | undefined;
    let transport: Transport;
    try {
      agent = createTetherAgent(options.host, await this.connector.config(common, session));
      transport = await this.connector.connect(agent, session);
    } catch (error) {
      agent?.free();
      await this.connector.close?.();
      throw error;
    }
    this.agent = agent;
    this.transport = transport;
    if (transport.pid !== undefined) this.log(`${this.label.command} pid ${transport.pid}`);
    this.wire(transport);
    // The first messages need no settings: the agent takes them up as soon as it reads its
    // input, while the core reads the workspace's settings (round trips on a remote workspace).
    this.apply(agent.initialize());
    let outputs: AgentOutput[];
    try {
      // The prompt waits for this (the driver's caller awaits start()): the settings may switch
      // the mode before the first turn.
      outputs = await agent.start();
    } catch (error) {
      this.stopping = true;
      transport.kill();
      throw error;
    }
    this.apply(outputs);
  }

  /** One session operation (a new or loaded session, a mode, an option, a backend's command…);
   * throws when the agent is not running or does not offer it (see `offers`). */
  operate(op: SessionOp): void {
    if (op.op === "interrupt" && !this.running) return;
    this.apply(this.requireRunning().operate(op));
  }

  /** The operations the agent offers now (more may come with its handshake). */
  offers(): SessionOpKind[] {
    return this.agent?.offers() ?? [];
  }

  /** Send a user turn; settles when the turn ends (or the agent dies). `messageId`: the chat's
   * id of the user message, under which the files the turn changes are checkpointed. */
  async prompt(text: string, images?: { mediaType: string; data: string }[], messageId?: string): Promise<TurnOutcome> {
    const agent = this.requireRunning();
    if (messageId) this.apply(await agent.beginMessage(messageId));
    const outcome = new Promise<TurnOutcome>((resolve) => this.turns.push({ resolve }));
    this.apply(await agent.prompt(text, images));
    return outcome;
  }

  /** What rewinding the files to before the user message `messageId` would do. */
  rewindPreview(messageId: string): Promise<RewindPreview> {
    return this.requireRunning().rewindPreview(messageId);
  }

  /** Rewind the files to before `messageId`; rejects, writing nothing, when one changed since. */
  rewind(messageId: string): Promise<RewindOutcome> {
    return this.requireRunning().rewind(messageId);
  }

  /** Every permission rule in effect, with where it lives. */
  rules(): RuleEntry[] {
    return this.requireRunning().rules();
  }

  /** Take a rule out: the session's or a project file's through the core (on the workspace), the
   * user's settings here, where they live. Rejects with the reason. */
  async removeRule(entry: RuleEntry): Promise<void> {
    const agent = this.requireRunning();
    if (entry.scope === "userSettings") {
      const file = this.userSettingsPath;
      const text = await readOptional(file);
      const changed = text === undefined ? undefined : settingsCore().settingsWithoutRule(text, entry.behavior, entry.rule);
      if (changed === undefined) throw new Error(`${file} does not hold the rule ${entry.rule}`);
      await writeSettings(file, changed);
      this.apply(await agent.setUserSettings(changed));
    }
    this.apply(await agent.removeRule(entry));
  }

  /** A file watcher saw a workspace file change. */
  async fileChanged(file: string): Promise<void> {
    await this.agent?.fileChanged(file);
  }

  /** Ask the agent to finish, give it the grace period to exit, then kill it. Settles once it is
   * gone; open turns end with an error outcome. */
  async stop(): Promise<void> {
    if (!this.transport || !this.closed) return;
    this.stopping = true;
    const grace = this.options.stopGraceMs ?? this.connector.stopGraceMs;
    if (!this.hasExited) await this.transport.close(grace);
    await this.closed;
    await this.connector.close?.();
    // Tool calls still running finish on their own; their answers have nowhere to go.
  }

  // ---- the transport ----

  private wire(transport: Transport): void {
    transport.onMessage((message) => this.feed(message));
    this.closed = new Promise((resolve) => {
      transport.onExit((exit) => {
        this.hasExited = true;
        // The last messages the agent sent (its turn's result, say) come before the news of its
        // exit; a tool call that runs on does not hold that news back for long.
        const settled = Promise.allSettled([...this.inFlight]);
        void Promise.race([settled, delay(EXIT_REPORT_WAIT_MS)]).then(() => {
          this.onExit(exit);
          void this.endShells().then(() => {
            resolve();
            void this.freeAgentWhenIdle();
          });
        });
      });
    });
  }

  /** Feed one message without waiting for the previous ones: a long tool call must not hold up
   * the messages behind it. */
  private feed(message: string): void {
    const agent = this.agent;
    if (!agent) return;
    const task = agent.onMessage(message).then(
      (outputs) => this.apply(outputs),
      (error: unknown) => this.internalError(`handling a message from ${this.label.command}`, error),
    );
    this.track(task);
  }

  private apply(outputs: AgentOutput[]): void {
    for (const output of outputs) {
      if (output.type === "send") this.transport?.send(output.message);
      else if (output.type === "event") this.emit(output.event);
      else if (output.type === "audit") this.options.onAudit?.(output.record);
      else if (output.type === "saveUserRules") this.track(this.saveUserRules(output.rules));
      else if (output.type === "projectSettingsWritten") this.options.onSettingsWritten?.(output.path, output.text);
      else if (output.type === "watchShells") this.watchShells(output.afterMs);
      else this.connector.deliver?.(output);
    }
  }

  /** Claude's user settings live here, where the driver runs. */
  private get userSettingsPath(): string {
    return this.options.userSettingsPath ?? path.join(this.options.homeDir ?? os.homedir(), ".claude", "settings.json");
  }

  /** "Always allow" saved in the user's settings: the file written, its rules handed back. */
  private async saveUserRules(rules: string[]): Promise<void> {
    const file = this.userSettingsPath;
    try {
      const text = settingsCore().settingsWithRules(await readOptional(file), rules);
      await writeSettings(file, text);
      const agent = this.agent;
      if (agent) this.apply(await agent.setUserSettings(text));
      this.options.onAudit?.({ kind: "write", path: file, bytes: Buffer.byteLength(text), sha256: sha256(text) });
    } catch (error) {
      this.emit({ type: "error", kind: "other", severity: "notice", message: `The rule applies for this session only: ${describe(error)}`, hint: null });
    }
  }

  /** Have the core read the background shells' output after `afterMs` (an earlier call already
   * due stands), for their panels. */
  private watchShells(afterMs: number): void {
    const due = Date.now() + afterMs;
    if (this.hasExited || (this.shellWatch && this.shellWatch.due <= due)) return;
    if (this.shellWatch) clearTimeout(this.shellWatch.timer);
    const timer = setTimeout(() => {
      this.shellWatch = undefined;
      const agent = this.agent;
      if (!agent || this.hasExited) return;
      this.track(agent.watchShells().then((outputs) => this.apply(outputs), (error: unknown) => this.internalError("reading the background shells' output", error)));
    }, afterMs);
    this.shellWatch = { timer, due };
  }

  /** The session is over: its background shells are killed (their panels say so). Settles once
   * they are, or after SHELLS_END_WAIT_MS. */
  private endShells(): Promise<void> {
    if (this.shellWatch) clearTimeout(this.shellWatch.timer);
    this.shellWatch = undefined;
    const agent = this.agent;
    if (!agent) return Promise.resolve();
    const ended = agent.endShells().then((outputs) => this.apply(outputs), (error: unknown) => this.internalError("stopping the background shells", error));
    this.track(ended);
    return Promise.race([ended, delay(SHELLS_END_WAIT_MS)]);
  }

  private emit(event: UiEvent): void {
    if (isEvent(event, "sessionInit") && event.sessionId) this.currentSessionId = event.sessionId;
    this.connector.observe?.(event);
    if (isEvent(event, "done") && event.sessionId) this.currentSessionId = event.sessionId;
    try {
      this.options.onEvent(event);
    } catch (error) {
      this.log(`onEvent threw: ${describe(error)}`);
    }
    if (isEvent(event, "permissionRequest")) {
      this.track(this.askAndAnswer(event));
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

  private track(task: Promise<void>): void {
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

  private onExit(exit: TransportExit): void {
    void this.connector.close?.();
    for (const controller of this.openPermissions.values()) controller.abort();
    this.openPermissions.clear();
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    this.log(`${this.label.command} ${how}`);
    let error: ErrorEvent;
    if (this.stopping) {
      error = { type: "error", kind: "other", severity: "notice", message: "The session was stopped.", hint: null };
    } else {
      const id = this.currentSessionId;
      error = {
        type: "error",
        kind: "crash",
        severity: "error",
        message: `${this.label.displayName} ${how} unexpectedly.${exit.detail ? `\n${exit.detail}` : ""}`,
        hint: id ? `Start again with resume ${id} to continue this session.` : "Start a new session.",
        retryable: true,
        sessionId: id,
      };
      this.emit(error);
    }
    for (const turn of this.turns.splice(0)) turn.resolve({ ok: false, error });
  }

  /** The wasm object's memory is not garbage-collected: release it once no call uses it. Tool
   * calls still running when the agent died are left to finish first. */
  private async freeAgentWhenIdle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    const agent = this.agent;
    this.agent = undefined;
    agent?.free();
  }

  private requireRunning(): TetherAgent {
    if (this.hasExited) throw new Error(`${this.label.displayName} is no longer running; start a new session (or resume this one)`);
    if (!this.agent || !this.transport) throw new Error("the session has not been started");
    return this.agent;
  }

  private internalError(what: string, error: unknown): void {
    this.log(`internal error ${what}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    this.emit({ type: "error", kind: "other", severity: "error", message: `Tether failed ${what}: ${describe(error)}`, hint: null });
  }
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

type Glue = typeof import("tether-core-wasm");

/** The core's settings-file edits and readings (pure functions). */
function settingsCore(): Pick<Glue, "settingsWithRules" | "settingsWithoutRule" | "hookEvents"> {
  return loadTetherCore() as Glue;
}

/** Whose hooks run, with the events the settings read before the start have hooks for (so the
 * agent asks for those only); as given when the project's settings were not read. */
export function hooksWithEvents(hooks: HooksConfig | undefined, projectSettings: string[] | undefined, userSettings: string | undefined): HooksConfig | undefined {
  if (!hooks || !projectSettings) return hooks;
  const texts = [...(hooks.project ? projectSettings : []), ...(hooks.user && userSettings !== undefined ? [userSettings] : [])];
  return { ...hooks, events: settingsCore().hookEvents(texts) };
}

/** Write a settings file whole: a sibling temp file renamed over it, so no reader sees a part. */
async function writeSettings(file: string, text: string): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.tether-${process.pid}.tmp`;
  await fsp.writeFile(temp, text, "utf8");
  await fsp.rename(temp, file);
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
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
