// One chat session with one agent: it owns what its view shows (its feed), its permission broker,
// the project context it synced, and the agent session (a SessionDriver), started on the first
// prompt or ahead of it (warm(): when the view shows the session, so the first prompt pays no
// start), one start at a time, fed the user's turns, stopped, resumed, restarted when the
// project's context changes, and started again (resuming) after a crash. The agent's events go to
// its feed as they are; its permission questions to its broker. Sessions are made, switched and
// disposed by the SessionManager (sessions.ts). No vscode import: the agent and the workspace are
// ports.

import type { JsonValue, PermissionAnswer, PermissionMode, PermissionRequest, RewindOutcome, RewindPreview, RuleEntry, UiEvent } from "../generated/core";
import { CheckpointNotes, newCheckpointKey, type CheckpointIndex } from "./checkpointStore";
import type { SessionOp, SessionOpKind } from "../session/agent";
import type { TurnOutcome } from "../session/driver";
import type { Attachment, ChatEntry, HistorySession, ProjectSetupInfo, QueuedMessage } from "../contract/protocol";
import { isPermissionMode } from "../contract/modes";
import { ContextSync, type ProjectSetup, type ProjectSource, type RestartableSession } from "./contextSync";
import type { ChatFeed } from "./feed";
import type { PermissionBroker } from "./permissionBroker";
import { buildPrompt, type PromptImage } from "./prompt";
import { composePrompt, type IdeSources } from "./compose";
import { MessageQueue } from "./queue";
import { loginNeeded, startFailure } from "./startFailure";

/** A running agent session, as the chat drives it (SessionDriver's public methods). */
export interface AgentSession {
  readonly running: boolean;
  /** The conversation's id once known (the resumed one before the first turn). */
  readonly sessionId: string | null;
  /** `messageId`: the chat's id of the user message (the turn's checkpoint). */
  prompt(text: string, images?: PromptImage[], messageId?: string): Promise<TurnOutcome>;
  rewindPreview(messageId: string): Promise<RewindPreview>;
  rewind(messageId: string): Promise<RewindOutcome>;
  /** One session operation; throws when the agent does not support it (saying so, by name). */
  operate(op: SessionOp): void;
  /** The operations the agent offers now (ACP agents tell theirs in their handshake). */
  offers(): SessionOpKind[];
  stop(): Promise<void>;
  /** The permission rules in effect, with where each lives (the rules view). */
  rules?(): RuleEntry[];
  /** Take a rule out of where it lives; rejects with the reason. */
  removeRule?(entry: RuleEntry): Promise<void>;
}

/** The agent a chat session runs, as the chat needs to know it. */
export interface ChatAgent {
  /** Its name in the agent registry. */
  name: string;
  /** What people call it ("Claude Code", "Gemini CLI"). */
  displayName: string;
  /** Where its sessions are kept: files Tether reads, or the agent's own `session/list`. */
  history: "files" | "agent";
}

/** What starting an agent session takes. */
export interface AgentStart {
  /** The agent to start (its name in the agent registry). */
  agent: string;
  /** Resuming from history: show the conversation the agent replays. */
  replay?: boolean;
  source: ProjectSource;
  setup: ProjectSetup;
  mode: PermissionMode;
  model?: string;
  resume?: string;
  /** A fork of `resume` up to the agent's message `resumeAt` (Claude Code's transcript uuid). */
  fork?: { resumeAt?: string };
  /** The folder key of the session's checkpoints. */
  checkpointKey: string;
  onEvent(event: UiEvent): void;
  onPermission(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer>;
  /** What the project configures, as this start runs it (its MCP servers, what is off). */
  onProjectSetup?(info: ProjectSetupInfo): void;
  /** Tether wrote the project's settings file `path` itself (a saved rule, an MCP server's answer)
   * and the session holds what it wrote: the context watcher's notice of it restarts nothing. */
  onSettingsWritten?(path: string, text: string): void;
}

export interface ChatSessionDeps {
  agent: ChatAgent;
  feed: ChatFeed;
  broker: PermissionBroker;
  /** Where the project is; throws a clear message when there is no folder. */
  /** The project for a session in the workspace folder named `folder` (default: `tether.folder`, else the first). */
  workspace(folder?: string): Promise<ProjectSource>;
  /** Creates and starts the agent session; resolves once a prompt may be sent. */
  startAgent(start: AgentStart): Promise<AgentSession>;
  /** The mode a session starts in when the chat's is not one of Tether's. */
  defaultMode(): PermissionMode;
  /** Where conversations keep their checkpoints (absent: no checkpoints). */
  checkpoints?: CheckpointIndex;
  /** Terminals and the Problems list, for @-mentions (absent outside VS Code). */
  ide?: IdeSources;
  /** A first-run remedy (`NotLoggedInError.remedies`) for `agent`: whether it is done; undefined
   * when `methodId` is the agent's own login method. */
  remedy?(agent: string, methodId: string): Promise<{ done: boolean } | undefined>;
  log(message: string): void;
}

/** How long an agent may take to list its sessions. */
const LIST_SESSIONS_TIMEOUT_MS = 15_000;

const ENDED_BEFORE_START = "the session ended before the agent started";

const REMINDER_INTRO = "The project's instructions changed during this session; they now read as follows and replace the earlier ones.";

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class ChatSession implements RestartableSession {
  readonly context: ContextSync;
  private session: AgentSession | undefined;
  private starting: Promise<AgentSession> | undefined;
  /** The conversation the next start resumes. */
  private resumeId: string | undefined;
  /** The next start shows the conversation the agent replays (a session from history). */
  private replay = false;
  private lastPrompt: { text: string; attachments: Attachment[] } | undefined;
  /** Waiting for the agent's `sessionList`. */
  private listWaiter: ((sessions: HistorySession[]) => void) | undefined;
  /** Deletions of past sessions waiting for the agent's `sessionDeleted`, by session id. */
  private readonly deleteWaiters = new Map<string, (error: string | undefined) => void>();
  /** Messages sent while a turn runs; the next goes when it ends. */
  private readonly queue: MessageQueue;
  /** A turn is being sent or runs (from the user's send until the agent's answer). */
  private turnRunning = false;
  /** The login buttons are in the chat (shown once). */
  private loginShown = false;
  /** The folder key of this conversation's checkpoints. */
  private checkpointKey = newCheckpointKey();
  private readonly checkpointNotes: CheckpointNotes;
  /** The workspace folder the session works in (by name): picked before it starts, else the
   * default one, then kept for its restarts. */
  folder: string | undefined;
  /** The next start forks the resumed conversation (at the agent's message `resumeAt`). */
  private forkAt: { resumeAt?: string } | undefined;
  /** Bumped when the session ends: a start begun before belongs to the ended one. */
  private generation = 0;
  /** A mode or model the user picked while no agent ran: the start under way applies it. */
  private picked: { mode?: PermissionMode; model?: string } = {};

  constructor(private readonly deps: ChatSessionDeps) {
    this.context = new ContextSync(this, deps.log);
    this.queue = new MessageQueue((queue) => deps.feed.setState({ queue }));
    this.checkpointNotes = new CheckpointNotes(deps.checkpoints, deps.log);
  }

  get agent(): ChatAgent {
    return this.deps.agent;
  }

  get feed(): ChatFeed {
    return this.deps.feed;
  }

  /** The key of this conversation's audit log (its checkpoints' key). */
  get auditKey(): string {
    return this.checkpointKey;
  }

  /** The agent session, for its permission rules (the rules view); started when none runs. */
  async rulesSession(): Promise<Required<Pick<AgentSession, "rules" | "removeRule">>> {
    const session = await this.ensure();
    const { rules, removeRule } = session;
    if (!rules || !removeRule) throw new Error(`${this.deps.agent.displayName} has no permission rules Tether keeps`);
    return { rules: () => rules.call(session), removeRule: (entry) => removeRule.call(session, entry) };
  }

  get broker(): PermissionBroker {
    return this.deps.broker;
  }

  get running(): boolean {
    return this.session?.running ?? false;
  }

  get busy(): boolean {
    return this.deps.feed.state.busy;
  }

  /** A user turn; while one runs, it waits in the queue. `echo`: show it in the chat (a retry
   * does not show it again). Settles once the turn, and the queue after it, went. */
  async send(text: string, attachments: Attachment[], echo = true): Promise<void> {
    if (!text.trim() && attachments.length === 0) return;
    if (this.turnRunning) {
      this.queue.add(text, attachments);
      return;
    }
    if (await this.turn(text, attachments, echo)) await this.drain();
  }

  /** The messages waiting for the turn to end, oldest first (a plain list, to save and restore). */
  get queued(): QueuedMessage[] {
    return this.queue.list;
  }

  /** Saved messages back in the queue without sending them (a window reloaded with them
   * waiting): they go after the next turn, or by Send now. */
  holdQueue(items: QueuedMessage[]): void {
    this.queue.restore(items);
  }

  editQueued(id: string, text: string): void {
    this.queue.edit(id, text);
  }

  removeQueued(id: string): void {
    this.queue.remove(id);
  }

  /** A queued message now: into the running turn where the agent takes one (steering, text
   * only), else the turn stops and the message goes first. */
  async sendNow(id: string): Promise<void> {
    const item = this.queue.remove(id);
    if (!item) return;
    const attachments = item.attachments ?? [];
    if (!this.turnRunning) {
      if (await this.turn(item.text, attachments, true)) await this.drain();
      return;
    }
    const session = this.session;
    const steerable = session?.running && session.offers().includes("steer") && !attachments.some((a) => a.kind === "image");
    if (session && steerable) {
      this.deps.feed.show([userMessage(nextMessageId(), item.text, attachments)]);
      session.operate({ op: "steer", text: buildPrompt(item.text, attachments).text });
      return;
    }
    this.queue.unshift(item);
    this.interrupt();
  }

  /** Stop one subagent or background task; throws when the agent cannot (saying so). */
  stopTask(taskId: string): void {
    this.session?.operate({ op: "stopTask", id: taskId });
  }

  /** The queue, one turn after the other, while the agent takes them. */
  private async drain(): Promise<void> {
    let next: QueuedMessage | undefined;
    while (!this.turnRunning && (next = this.queue.shift())) {
      if (!(await this.turn(next.text, next.attachments ?? [], true))) return;
    }
  }

  /** One turn, to its end; false when the agent could not start. */
  private async turn(text: string, attachments: Attachment[], echo: boolean): Promise<boolean> {
    const { feed } = this.deps;
    this.turnRunning = true;
    this.lastPrompt = { text, attachments };
    const id = nextMessageId();
    if (echo) feed.show([userMessage(id, text, attachments)]);
    feed.event({ type: "status", state: "running" });
    let session: AgentSession;
    try {
      session = await this.ensure();
    } catch (error) {
      this.tellStartFailure(error, true);
      feed.setState({ busy: false });
      this.turnRunning = false;
      return false;
    }
    const prompt = await composePrompt(text, attachments, {
      projectCommands: this.context.commands,
      agentCommands: feed.state.commands ?? [],
      ...(this.context.project ? { project: this.context.project } : {}),
      ...(this.deps.ide ? { ide: this.deps.ide } : {}),
    });
    const reminder = this.context.takeReminder();
    const promptText = reminder ? `<system-reminder>\n${REMINDER_INTRO}\n\n${reminder}\n</system-reminder>\n\n${prompt.text}` : prompt.text;
    const outcome = await session.prompt(promptText, prompt.images.length ? prompt.images : undefined, id);
    if (!outcome.ok && !outcome.done && outcome.error) this.deps.log(`turn ended: ${outcome.error.message}`);
    feed.setState({ busy: false });
    await this.context.turnEnded();
    this.turnRunning = false;
    return true;
  }

  /** The turn Retry sends again, when it was sent before a reload (the session index keeps it). */
  rememberPrompt(text: string): void {
    this.lastPrompt ??= { text, attachments: [] };
  }

  /** Send the last turn again (after an error). */
  async retry(): Promise<void> {
    if (this.lastPrompt) await this.send(this.lastPrompt.text, this.lastPrompt.attachments, false);
  }

  interrupt(): void {
    this.session?.operate({ op: "interrupt" });
  }

  setMode(mode: string): void {
    if (!isPermissionMode(mode)) return;
    if (this.session?.running) return this.session.operate({ op: "setMode", mode });
    // The agent confirms with modeChanged; without a session the mode waits for the next start
    // (or for the one under way).
    this.picked.mode = mode;
    this.deps.feed.event({ type: "modeChanged", mode });
  }

  setModel(model: string): void {
    if (this.session?.running) this.session.operate({ op: "setConfigOption", option: "model", value: model || null });
    else this.picked.model = model;
    this.deps.feed.setState({ model });
  }

  /** Start the agent ahead of the first prompt (the view shows this session), so the prompt
   * only writes the user's message. A failure is logged here and told when the user sends
   * (that start is tried again then); an agent started ahead and never used shows nothing. */
  warm(): void {
    if (this.session?.running || this.starting) return;
    this.ensure().catch((error) => {
      this.deps.log(`starting ${this.deps.agent.displayName} ahead failed (told on the next prompt): ${messageOf(error)}`);
      // What the user must do first (log in) is shown at once.
      this.tellStartFailure(error, false);
    });
  }

  /** A failed start in the chat: the login buttons when it needs a login (once), and, for a start
   * a message needed (`turn`), why, with Retry. */
  private tellStartFailure(error: unknown, turn: boolean): void {
    const login = this.loginShown ? [] : loginNeeded(error);
    this.loginShown ||= login.length > 0;
    this.deps.feed.show([...login, ...(turn ? startFailure(error, this.deps.agent.displayName) : [])]);
  }

  /** A backend's own command on the running session (a gateway's `connect` / `disconnect`, a
   * canvas action); false when no session runs or its agent has no such command. */
  agentCommand(name: string, args?: unknown): boolean {
    if (!this.session?.running) return false;
    // The args come from the view's messages: JSON already.
    this.session.operate({ op: "command", name, args: (args ?? {}) as JsonValue });
    return true;
  }

  /** One of the agent's own options. */
  setAgentOption(id: string, value: string): void {
    if (this.session?.running) this.session.operate({ op: "setConfigOption", option: id, value });
  }

  /** Log in with one of the agent's methods (the agent starts if it is not running), or with a
   * first-run remedy (then the agent starts ahead once it is done). */
  async authenticate(methodId: string): Promise<void> {
    const remedy = await this.deps.remedy?.(this.deps.agent.name, methodId);
    if (remedy) return remedy.done ? this.warm() : undefined;
    const session = await this.ensure();
    session.operate({ op: "authenticate", method: methodId });
  }

  /** A new session of the agent's from the past session `id`, up to its end (where the agent
   * offers fork: the history shows the action then). */
  forkSession(id: string): void {
    this.session?.operate({ op: "fork", id });
  }

  /** What rewinding the files to before the user message `messageId` would do (the agent starts
   * if it is not running: it holds the checkpoints). */
  async rewindPreview(messageId: string): Promise<RewindPreview> {
    return (await this.ensure()).rewindPreview(messageId);
  }

  /** Rewind the files to before `messageId`; rejects with the reason when it cannot. */
  async rewind(messageId: string): Promise<RewindOutcome> {
    return (await this.ensure()).rewind(messageId);
  }

  /** The conversation as the agent knows it now (its id), to fork from. */
  get conversationId(): string | undefined {
    return this.session?.sessionId ?? this.resumeId;
  }

  /** Start as a fork of `conversation` up to the agent's message `resumeAt` (none: the whole
   * conversation before its first message, i.e. a fresh one), showing `entries`. */
  startFork(conversation: string | undefined, resumeAt: string | undefined, entries: ChatEntry[]): void {
    this.resumeId = conversation;
    this.forkAt = conversation ? { ...(resumeAt ? { resumeAt } : {}) } : undefined;
    this.deps.feed.replay(entries);
    this.deps.feed.setState({ busy: false });
  }

  /** End the current session in the agent (where it offers close); the chat starts afresh. */
  closeSession(): void {
    if (!this.session?.running) return;
    this.session.operate({ op: "close" });
    this.resumeId = undefined;
    this.deps.feed.clear();
  }

  /** Past sessions for the history: the files Tether reads (`files`), or the agent's own list. */
  async history(files: () => Promise<HistorySession[]>): Promise<HistorySession[]> {
    if (this.deps.agent.history === "files") return files();
    let session: AgentSession;
    try {
      session = await this.ensure();
    } catch (error) {
      this.deps.log(`history: ${messageOf(error)}`);
      return [];
    }
    const listed = new Promise<HistorySession[]>((resolve) => {
      this.listWaiter = resolve;
      setTimeout(() => resolve([]), LIST_SESSIONS_TIMEOUT_MS);
    });
    try {
      session.operate({ op: "list" });
    } catch (error) {
      // The agent keeps no list (gemini-cli): an empty history.
      this.deps.log(`history: ${messageOf(error)}`);
      this.listWaiter = undefined;
      return [];
    }
    return listed;
  }

  /** The agent deletes its past sessions (ACP `session/delete`, a gateway's `sessions.delete`). */
  get canDelete(): boolean {
    return this.session?.running === true && this.session.offers().includes("delete");
  }

  /** Delete the agent's past session `id`; rejects with the agent's reason when it refuses. */
  async deleteSession(id: string): Promise<void> {
    const session = await this.ensure();
    const deleted = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.deleteWaiters.delete(id);
        reject(new Error(`${this.deps.agent.displayName} did not answer the deletion`));
      }, LIST_SESSIONS_TIMEOUT_MS);
      this.deleteWaiters.set(id, (error) => {
        clearTimeout(timer);
        this.deleteWaiters.delete(id);
        if (error) reject(new Error(error));
        else resolve();
      });
    });
    try {
      session.operate({ op: "delete", id });
    } catch (error) {
      this.deleteWaiters.get(id)?.(messageOf(error));
    }
    return deleted;
  }

  /** An empty chat; the next prompt starts a new conversation. */
  async newSession(): Promise<void> {
    // Before the agent stops: its turn's end must not send what was queued for this session.
    this.queue.clear();
    await this.endSession();
    this.resumeId = undefined;
    this.context.forget();
    this.deps.feed.clear();
    this.deps.feed.setState({ sessionId: undefined, busy: false });
    this.warm();
  }

  /** A past conversation: its entries replace the chat; the next prompt resumes it. An agent
   * that keeps its own sessions replays it into the chat at once. */
  async resume(sessionId: string, entries: ChatEntry[]): Promise<void> {
    // Before the agent stops: its turn's end must not send what was queued for this session.
    this.queue.clear();
    await this.endSession();
    this.resumeId = sessionId;
    this.context.forget();
    this.deps.feed.replay(entries);
    this.deps.feed.setState({ sessionId, busy: false });
    if (this.deps.agent.history === "agent") {
      this.replay = true;
      try {
        await this.ensure();
      } catch (error) {
        this.tellStartFailure(error, true);
      }
    } else this.warm();
  }

  /** Stop and start again, resuming the same conversation (the project's context changed). */
  async restart(when: string): Promise<void> {
    const id = this.session?.sessionId ?? this.resumeId;
    if (!this.session?.running || !id) return;
    this.deps.log(`project context changed: restarting ${this.deps.agent.displayName} with --resume ${id} (${when})`);
    await this.endSession();
    this.resumeId = id;
    await this.ensure();
  }

  /** The agent stops; open permission requests are refused. */
  async endSession(reason = "The session ended."): Promise<void> {
    const session = this.session;
    this.session = undefined;
    // A start under way (one ahead of the prompt) is for the session that ends: dropped.
    this.starting = undefined;
    this.generation++;
    this.deps.broker.denyAll(reason);
    await session?.stop();
  }

  private ensure(): Promise<AgentSession> {
    if (this.session?.running) return Promise.resolve(this.session);
    if (!this.starting) {
      const starting: Promise<AgentSession> = this.start().finally(() => {
        if (this.starting === starting) this.starting = undefined;
      });
      this.starting = starting;
    }
    return this.starting;
  }

  private async start(): Promise<AgentSession> {
    const { feed, broker } = this.deps;
    const generation = this.generation;
    const source = await this.deps.workspace(this.folder);
    this.folder ??= source.folder;
    const setup = await this.context.prepare(source, this.resumeId !== undefined);
    if (generation !== this.generation) throw new Error(ENDED_BEFORE_START);
    feed.setState({ projectCommands: this.context.commands.map(({ name, description, argumentHint }) => ({ name, description, argumentHint })) });
    // What was picked so far starts with the agent; what is picked while it starts, after.
    this.picked = {};
    const mode = feed.state.mode;
    const replay = this.replay;
    this.replay = false;
    const fork = this.forkAt;
    this.forkAt = undefined;
    // A resumed conversation keeps the checkpoints it made (found by its id in the index).
    if (this.resumeId && !fork) this.checkpointKey = (await this.deps.checkpoints?.keyFor(this.resumeId).catch(() => undefined)) ?? this.checkpointKey;
    const session = await this.deps.startAgent({
      agent: this.deps.agent.name,
      ...(replay ? { replay } : {}),
      source,
      setup,
      mode: isPermissionMode(mode) ? mode : this.deps.defaultMode(),
      ...(feed.state.model ? { model: feed.state.model } : {}),
      ...(this.resumeId ? { resume: this.resumeId } : {}),
      ...(fork ? { fork } : {}),
      checkpointKey: this.checkpointKey,
      // The events of a start the session outlived are not its.
      onEvent: (event) => {
        if (generation === this.generation) this.onEvent(event);
      },
      // The request is in the chat already (its permissionRequest event): the broker only waits.
      onPermission: (request, signal) => broker.ask(request, signal),
      onProjectSetup: (projectSetup) => {
        if (generation === this.generation) feed.setState({ projectSetup });
      },
      onSettingsWritten: (file, text) => this.context.noteWrite(file, text),
    });
    if (generation !== this.generation) {
      await session.stop();
      throw new Error(ENDED_BEFORE_START);
    }
    this.session = session;
    const { mode: pickedMode, model: pickedModel } = this.picked;
    this.picked = {};
    if (pickedMode) session.operate({ op: "setMode", mode: pickedMode });
    if (pickedModel !== undefined) session.operate({ op: "setConfigOption", option: "model", value: pickedModel || null });
    feed.setState({ connected: true });
    return session;
  }

  private onEvent(event: UiEvent): void {
    if (event.type === "sessionInit" || event.type === "done") this.resumeId = event.sessionId;
    if (event.type === "sessionInit" && event.sessionId) this.checkpointNotes.note(this.checkpointKey, event.sessionId);
    // What the agent offers is known from its handshake on (fork and close show in the history).
    if ((event.type === "sessionInit" || event.type === "sessionReady") && this.session) this.deps.feed.setState({ offers: this.session.offers() });
    // The agent died: the next prompt (or Retry) starts it again, resuming the same conversation.
    if (event.type === "error" && event.kind === "crash") {
      this.session = undefined;
      if (event.sessionId) this.resumeId = event.sessionId;
    }
    if (event.type === "permissionCancelled") this.deps.broker.withdrawn(event.id);
    if (event.type === "sessionList") {
      this.listWaiter?.(event.sessions.map((s) => ({ id: s.id, title: s.title ?? s.id, updatedAt: s.updatedAt ?? 0, messageCount: 0 })));
      this.listWaiter = undefined;
      return;
    }
    if (event.type === "sessionDeleted") return this.deleteWaiters.get(event.id)?.(event.error ?? undefined);
    this.deps.feed.event(event);
  }
}

let lastMessageMs = 0;

/** A user message's id, `user-<ms>`: unique in this window even for messages sent in the same
 * millisecond (a queue drained), since checkpoints and Claude Code's transcript uuids key on it. */
function nextMessageId(): string {
  lastMessageMs = Math.max(Date.now(), lastMessageMs + 1);
  return `user-${lastMessageMs}`;
}

function userMessage(id: string, text: string, attachments: Attachment[]): ChatEntry {
  return { type: "userMessage", id, text, ...(attachments.length ? { attachments } : {}) };
}

