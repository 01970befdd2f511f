// Runs one agent session, whatever the backend: starts the agent's program with the launch line
// the TetherAgent builds (or, for a gateway, opens the sockets the core asks for), hands every
// message from it to the agent (which serves Tether's tools in-process and answers what the
// permission gate can decide), sends the agent's messages back through the transport, and hands
// UI events and permission prompts to the front end. Shared by dist/tether-cli.js and the VS Code
// extension, so nothing here knows about vscode; what is particular to a backend comes from the
// core (its config keys, its program, its protocol).

import { randomUUID } from "node:crypto";
import { promises as fsp } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TetherHost } from "../core/host";
import type { BackoffConfig, CommonConfig, JsonValue, SessionOp, SessionOpKind } from "../generated/core";
import { gatewaySecretName, loadCredentials } from "../openclaw/credentials";
import type { SecretStore } from "../openclaw/deviceKey";
import { loadDelayMs, SessionBridge, bridgeCommand, sessionStarted, writeLaunchFiles, type AcpAgentLaunch } from "./acp";
import { createTetherAgent, type AgentConfig, type AgentOutput, type PermissionAnswer, type PermissionMode, type TetherAgent } from "./agent";
import { isEvent, type DoneEvent, type ErrorEvent, type PermissionRequestEvent, type UiEvent } from "./events";
import { GatewayTransport } from "./gatewayTransport";
import { backendLabel, findProgram, isProgramBackend, type BackendName } from "./program";
import { StdioTransport, type Transport, type TransportExit } from "./transport";

export { findClaude, findProgram, type BackendName } from "./program";
export type { AcpAgentLaunch } from "./acp";

/** After its input is closed, how long the agent gets to finish and exit before it is killed. */
const DEFAULT_STOP_GRACE_MS = 5000;
/** When the agent exits, how long the messages it sent last may take before the exit is reported. */
const EXIT_REPORT_WAIT_MS = 500;
/** An ACP agent gets less: claude-agent-acp exits at once, codex-acp in ~2 s, gemini-cli with an
 * MCP server never (its process group is ended then). */
const ACP_STOP_GRACE_MS = 2500;

export interface SessionDriverOptions {
  host: TetherHost;
  /** Which agent; default "claude". */
  backend?: BackendName;
  /** The workspace root, in the host's namespace. */
  root: string;
  /** The agent's local cwd, whose paths map onto root; default: root itself (a local workspace). */
  mirror?: string;
  /** The agent's binary; default: found by findProgram(). */
  agentPath?: string;
  /** The same as agentPath, by the name the Claude-only driver had. */
  claudePath?: string;
  mode?: PermissionMode;
  model?: string;
  /** A session id to resume (same mirror and HOME as the session that made it). */
  resume?: string;
  /** Extra environment for the agent, e.g. ANTHROPIC_BASE_URL; the driver's own env is inherited. */
  env?: Record<string, string>;
  /** The laptop's Claude settings (Tether's permission rules); default ~/.claude/settings.json
   * (skipped when missing). */
  userSettingsPath?: string;
  /** For ~/ in permission rules; default the user's home directory. */
  homeDir?: string;
  remote?: AgentConfig["remote"];
  /** Claude Code: more system prompt. */
  extraSystemPrompt?: string;
  /** Claude Code: the project's `.claude/agents/*.md` files, offered to the model as subagents. */
  agentFiles?: { name: string; text: string }[];
  /** Claude Code: extra built-ins for `--tools`. */
  allowedTools?: string[];
  /** Claude Code: extra entries for `--disallowedTools`. */
  disallowedTools?: string[];
  /** For the OpenClaw backend: the gateway and what Tether keeps for it. */
  gateway?: GatewayOptions;
  /** ACP: the agent (backend "acp"). */
  acp?: AcpAgentLaunch;
  /** ACP: a folder of Tether's own for the files the agent's launch names. */
  stateDir?: string;
  /** ACP, resuming: show the conversation the agent replays (a session picked from history). */
  replay?: boolean;
  onEvent(event: UiEvent): void;
  /** Asked only when the user has to choose. `signal` aborts when the agent withdraws the
   * question (an interrupt) or the session ends; the answer is then ignored. */
  onPermission(request: PermissionRequestEvent, signal: AbortSignal): Promise<PermissionAnswer>;
  log?(message: string): void;
  stopGraceMs?: number;
}

export interface GatewayOptions {
  /** ws:// or wss://. */
  url: string;
  /** The gateway's shared token. */
  token?: string;
  /** Where the device keys and the tokens the gateway issues are kept. */
  secrets: SecretStore;
  /** Offer the workspace as the gateway's node (its exec and file_fetch then act there). */
  node?: { displayName?: string; platform?: string };
  backoff?: BackoffConfig;
  clientVersion?: string;
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
  private readonly log: (message: string) => void;
  private readonly backend: BackendName;
  /** The agent's name for people, and for log lines. */
  private readonly label: { displayName: string; command: string };
  private gateway: GatewayTransport | undefined;
  private bridge: SessionBridge | undefined;

  constructor(private readonly options: SessionDriverOptions) {
    this.log = options.log ?? (() => undefined);
    this.currentSessionId = options.resume ?? null;
    this.backend = options.backend ?? (options.acp ? "acp" : "claude");
    const acp = options.acp;
    this.label = acp ? { displayName: acp.displayName, command: path.basename(acp.command) } : backendLabel(this.backend);
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
    const userSettings = await readOptional(options.userSettingsPath ?? path.join(homeDir, ".claude", "settings.json"));
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
      }),
    };
    if (!isProgramBackend(this.backend)) return this.startConnected(common);
    const acp = options.acp;
    let config: AgentConfig;
    let programPath: string;
    if (acp) {
      // Tether's tools reach the agent's MCP client through the bridge, behind this session's gate.
      this.bridge = await SessionBridge.start((connection, message) => this.feedMcp(connection, message), this.log);
      config = {
        backend: "acp",
        ...common,
        env: { ...options.env, ...acp.env },
        agentName: acp.displayName,
        agentArgs: acp.args,
        bridge: bridgeCommand(this.bridge.server),
        stateDir: options.stateDir ?? path.join(os.tmpdir(), `tether-acp-${process.pid}`),
        ...defined({ profile: acp.profile, allowLocalTools: acp.allowLocalTools, replay: options.replay }),
      };
      programPath = acp.command;
      const wait = options.resume ? loadDelayMs(acp.profile, options.resume) : 0;
      if (wait > 0) {
        this.log(`${acp.displayName} cannot load a session in the minute it started: waiting ${Math.round(wait / 1000)} s`);
        await delay(wait);
      }
    } else {
      config = {
        backend: "claude",
        ...common,
        ...defined({
          env: options.env,
          extraSystemPrompt: options.extraSystemPrompt,
          agentFiles: options.agentFiles,
          allowedTools: options.allowedTools,
          disallowedTools: options.disallowedTools,
        }),
      };
      programPath = findProgram(this.backend, options.agentPath ?? options.claudePath);
    }
    let agent: TetherAgent;
    try {
      agent = createTetherAgent(options.host, config);
    } catch (error) {
      await this.bridge?.close();
      throw error;
    }
    const launch = agent.launch(stringEnv(process.env));
    const cwd = options.mirror ?? options.root;
    this.log(`spawning ${programPath} ${launch.args.join(" ")} in ${cwd}`);
    let transport: StdioTransport;
    try {
      writeLaunchFiles(launch.files);
      transport = await StdioTransport.start({
        displayName: this.label.displayName,
        logName: this.label.command,
        program: programPath,
        args: launch.args,
        cwd,
        env: launch.env,
        log: this.log,
        problem: (message) => this.emit({ type: "error", kind: "other", severity: "notice", message, hint: null }),
        processGroup: acp !== undefined,
      });
    } catch (error) {
      agent.free();
      await this.bridge?.close();
      throw error;
    }
    this.agent = agent;
    this.transport = transport;
    this.log(`${this.label.command} pid ${transport.pid}`);
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

  /** A backend the core connects itself (a gateway): no program; the sockets it asks for. */
  private async startConnected(common: CommonConfig): Promise<void> {
    const gateway = this.options.gateway;
    if (!gateway) throw new Error(`${this.label.displayName} needs a gateway URL`);
    const credentials = await loadCredentials(gateway.secrets, gateway.url, gateway.node !== undefined);
    const { operatorKey, nodeKey } = credentials;
    const config: AgentConfig = {
      ...common,
      backend: "openclaw",
      gatewayUrl: gateway.url,
      instanceId: randomUUID(),
      device: operatorKey.identity,
      ...defined({
        token: gateway.token,
        deviceToken: credentials.deviceToken,
        backoff: gateway.backoff,
        clientVersion: gateway.clientVersion,
      }),
      ...(nodeKey && gateway.node
        ? { node: { device: nodeKey.identity, ...defined({ deviceToken: credentials.nodeDeviceToken, ...gateway.node }) } }
        : {}),
    };
    const agent = createTetherAgent(this.options.host, config);
    const transport = new GatewayTransport({
      keys: { gateway: operatorKey, ...(nodeKey ? { node: nodeKey } : {}) },
      secrets: gateway.secrets,
      secretName: (name) => gatewaySecretName(gateway.url, name),
      log: this.log,
    });
    this.agent = agent;
    this.transport = transport;
    this.gateway = transport;
    this.log(`connecting to the ${this.label.displayName} gateway at ${gateway.url}${nodeKey ? " (offering the workspace as its node)" : ""}`);
    this.wire(transport);
    transport.onTransportEvent((event) => this.track(agent.onTransport(event).then((outputs) => this.apply(outputs), (error: unknown) => this.internalError("handling the gateway connection", error))));
    transport.onWake(() => this.track(agent.wake().then((outputs) => this.apply(outputs), (error: unknown) => this.internalError("handling a timer", error))));
    this.apply(agent.initialize());
    this.apply(await agent.start());
  }

  /** One operation on the session; throws for one the agent does not offer (see `offers`). */
  operate(op: SessionOp): void {
    this.apply(this.requireRunning().operate(op));
  }

  /** The operations the agent offers now (more may come with its handshake). */
  offers(): SessionOpKind[] {
    return this.agent?.offers() ?? [];
  }

  /** Switch to a session of the agent and show its messages (a transcript event follows). */
  loadSession(id: string): void {
    this.operate({ op: "load", id });
  }

  /** A new session in the running agent. */
  newSession(): void {
    this.operate({ op: "new" });
  }

  /** One of the backend's own commands (historyOlder, connect, disconnect, pairNode, canvasAction…). */
  command(name: string, args: unknown = {}): void {
    this.operate({ op: "command", name, args: args as JsonValue });
  }

  /** Send a user turn; settles when the turn ends (or the agent dies). */
  prompt(text: string, images?: { mediaType: string; data: string }[]): Promise<TurnOutcome> {
    const agent = this.requireRunning();
    const outcome = new Promise<TurnOutcome>((resolve) => this.turns.push({ resolve }));
    this.apply(agent.prompt(text, images));
    return outcome;
  }

  interrupt(): void {
    if (!this.running) return;
    this.operate({ op: "interrupt" });
  }

  setMode(mode: PermissionMode): void {
    this.operate({ op: "setMode", mode });
  }

  /** `null` returns to the agent's default model. */
  setModel(model: string | null): void {
    this.setConfigOption("model", model);
  }

  /** One of the agent's options; throws for one it does not have. */
  setConfigOption(option: string, value: string | null): void {
    this.operate({ op: "setConfigOption", option, value });
  }

  /** Log in with one of the agent's methods (an `authMethods` event lists them). */
  authenticate(method: string): void {
    this.operate({ op: "authenticate", method });
  }

  /** Ask for the agent's sessions: they come as a `sessionList` event. Throws when it has none. */
  listSessions(): void {
    this.operate({ op: "list" });
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
    const grace = this.options.stopGraceMs ?? (this.options.acp ? ACP_STOP_GRACE_MS : DEFAULT_STOP_GRACE_MS);
    if (!this.hasExited) await this.transport.close(grace);
    await this.closed;
    await this.bridge?.close();
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
          resolve();
          void this.freeAgentWhenIdle();
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

  /** One MCP line from the agent's MCP client on the bridge. */
  private feedMcp(connection: number, message: string): void {
    const agent = this.agent;
    if (!agent) return;
    const task = agent.onMcpMessage(connection, message).then(
      (outputs) => this.apply(outputs),
      (error: unknown) => this.internalError("serving Tether's tools to the agent", error),
    );
    this.track(task);
  }

  private apply(outputs: AgentOutput[]): void {
    for (const output of outputs) {
      if (output.type === "send") this.transport?.send(output.message);
      else if (output.type === "transport") this.gateway?.carry(output.request);
      else if (output.type === "mcpReply") this.bridge?.reply(output);
      else this.emit(output.event);
    }
  }

  private emit(event: UiEvent): void {
    if (isEvent(event, "sessionInit") && event.sessionId) {
      this.currentSessionId = event.sessionId;
      sessionStarted(event.sessionId);
    }
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
    void this.bridge?.close();
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
