// The chat's open sessions: any number at once (several of one agent too), each a ChatSession with
// its own feed, permission broker, agent process, mode and model, each shown in the sidebar or in
// editor tabs (ChatView). A session carries a title (the user's, else the agent's, else its first
// prompt) and badges (a question waiting; a turn finished that nobody saw). The manager makes,
// shows, closes and restores them; the session index (sessionIndex.ts) keeps what survives a
// reload. No vscode import.

import type { PermissionMode } from "../generated/core";
import type { ChatEntry, ExtensionToWebview, OpenSessionInfo, UiState } from "../contract/protocol";
import type { ProjectSource } from "./contextSync";
import { ChatFeed } from "./feed";
import { PermissionBroker, type ReviewPort } from "./permissionBroker";
import type { PlanPort } from "./plans";
import type { CheckpointIndex } from "./checkpointStore";
import { ChatSession, type AgentSession, type AgentStart, type ChatAgent } from "./session";
import type { PendingQuestion, SessionRecord } from "./sessionIndex";
import type { IdeSources } from "./compose";
import { ChatView, type ShownSession, type Surface, type ViewPage } from "./views";

/** How long a first prompt may be as a title. */
const TITLE_LENGTH = 48;

export interface SessionManagerDeps {
  /** The diff reviews every session's broker opens. */
  reviews: ReviewPort;
  /** The plan documents every session's broker opens. */
  plans?: PlanPort;
  /** What the header shows for a new session of `agent`, carrying over the mode from `previous`. */
  initialState(agent: ChatAgent, previous: UiState | undefined): UiState;
  /** The focused session's state changed (the status bar). */
  onState(state: UiState): void;
  /** The open sessions, their titles or badges changed (tab titles, the strip, the index). */
  onChange(): void;
  /** The agent the registry has under `name`; throws for a name it does not have. */
  agent(name: string): ChatAgent;
  workspace(folder?: string): Promise<ProjectSource>;
  startAgent(start: AgentStart): Promise<AgentSession>;
  /** A first-run remedy for `agent` (a login button in the chat). */
  remedy?(agent: string, methodId: string): Promise<{ done: boolean } | undefined>;
  defaultMode(): PermissionMode;
  /** Where conversations keep their checkpoints (absent: none). */
  checkpoints?: CheckpointIndex;
  /** Terminals and the Problems list, for @-mentions. */
  ide?: IdeSources;
  fail(what: string, error: unknown): void;
  log(message: string): void;
  /** A fresh key for a new open session. */
  newKey?(): string;
}

/** A title from the first prompt: its first line, cut short. */
export function promptTitle(text: string): string {
  const line = text.trim().split("\n")[0]!.trim();
  return line.length > TITLE_LENGTH ? `${line.slice(0, TITLE_LENGTH - 1).trimEnd()}…` : line;
}

/** What the chat says of a turn that a reload cut. */
export function cutNotice(pending: PendingQuestion | undefined): ChatEntry {
  const what = pending
    ? `Waiting for approval of ${pending.tool}${pending.path ? ` ${pending.path}` : ""} when the window reloaded; the turn was stopped.`
    : "A turn was running when the window reloaded; it was stopped.";
  return { type: "error", kind: "other", severity: "error", message: what, hint: "Retry sends the last message again.", retryable: true };
}

/** One open session, with what its tabs show. */
export class OpenSession implements ShownSession {
  readonly views = new Set<ChatView>();
  /** The user's name for it (renamed). */
  userTitle: string | undefined;
  firstPrompt: string | undefined;
  lastPrompt: string | undefined;
  unread = false;
  /** The last question asked while it is open (what the index keeps of it). */
  pending: PendingQuestion | undefined;

  constructor(
    readonly key: string,
    readonly session: ChatSession,
  ) {}

  get title(): string {
    return this.userTitle ?? this.session.feed.state.title ?? (this.firstPrompt ? promptTitle(this.firstPrompt) : `New ${this.session.agent.displayName} session`);
  }

  get waiting(): boolean {
    return this.session.broker.waiting > 0;
  }

  /** Nothing was said in it, and no agent conversation is behind it. */
  get empty(): boolean {
    return this.session.feed.transcript.length === 0 && !this.session.feed.state.sessionId && !this.session.running;
  }

  info(): OpenSessionInfo {
    return {
      key: this.key,
      title: this.title,
      agentLabel: this.session.feed.state.agentLabel ?? this.session.agent.displayName,
      waiting: this.waiting,
      unread: this.unread,
      busy: this.session.busy,
      inEditor: [...this.views].some((v) => v.surface === "editor"),
    };
  }
}

/** The file a tool's input names, if any. */
function filePathOf(input: unknown): string | undefined {
  const value = input && typeof input === "object" ? (input as Record<string, unknown>).file_path ?? (input as Record<string, unknown>).path : undefined;
  return typeof value === "string" ? value : undefined;
}

let counter = 0;
const defaultKey = () => `s${Date.now().toString(36)}${(counter++).toString(36)}`;

export class SessionManager {
  private readonly open: OpenSession[] = [];
  private readonly views: ChatView[] = [];
  private focusedView: ChatView | undefined;

  constructor(private readonly deps: SessionManagerDeps) {}

  list(): readonly OpenSession[] {
    return this.open;
  }

  find(key: string): OpenSession | undefined {
    return this.open.find((o) => o.key === key);
  }

  /** The open session whose agent conversation is `sessionId`. */
  findConversation(sessionId: string): OpenSession | undefined {
    return this.open.find((o) => o.session.feed.state.sessionId === sessionId);
  }

  /** The session of the view the user used last (commands act on it). */
  get focused(): OpenSession | undefined {
    return ((this.focusedView ?? this.views[0])?.shown as OpenSession | undefined) ?? this.open[0];
  }

  /** A new open session of `agent`; `previous` lends it its mode. */
  create(agent: string, previous?: OpenSession, key = (this.deps.newKey ?? defaultKey)()): OpenSession {
    const chatAgent = this.deps.agent(agent);
    const slot: { open?: OpenSession } = {};
    const fanOut = {
      pushEvents: (entries: ChatEntry[]) => {
        for (const view of slot.open!.views) view.page.pushEvents(entries);
        this.observe(slot.open!, entries);
      },
      post: (message: ExtensionToWebview) => {
        for (const view of slot.open!.views) view.page.post(message);
      },
    };
    const feed = new ChatFeed(fanOut, this.deps.initialState(chatAgent, previous?.session.feed.state), (state) => {
      if (slot.open === this.focused) this.deps.onState(state);
      this.deps.onChange();
    });
    const broker = new PermissionBroker({ reviews: this.deps.reviews, plans: this.deps.plans, show: (entries) => feed.show(entries), fail: this.deps.fail, changed: () => this.deps.onChange() });
    const session = new ChatSession({
      agent: chatAgent,
      feed,
      broker,
      workspace: this.deps.workspace,
      startAgent: this.deps.startAgent,
      ...(this.deps.remedy ? { remedy: this.deps.remedy } : {}),
      defaultMode: this.deps.defaultMode,
      ...(this.deps.checkpoints ? { checkpoints: this.deps.checkpoints } : {}),
      ...(this.deps.ide ? { ide: this.deps.ide } : {}),
      log: this.deps.log,
    });
    const open = new OpenSession(key, session);
    slot.open = open;
    this.open.push(open);
    this.deps.onChange();
    return open;
  }

  /** A view over `page`; `show` puts a session in it. */
  addView(page: ViewPage, surface: Surface): ChatView {
    const view = new ChatView(page, surface);
    this.views.push(view);
    return view;
  }

  /** The view's tab closed. */
  removeView(view: ChatView): void {
    view.detach();
    const index = this.views.indexOf(view);
    if (index >= 0) this.views.splice(index, 1);
    if (this.focusedView === view) this.focusedView = undefined;
    this.deps.onChange();
  }

  /** `view` shows `open`; seen, it is no longer unread. */
  show(view: ChatView, open: OpenSession): void {
    view.show(open);
    this.focus(view);
    this.deps.onChange();
  }

  /** The user is in `view` (its tab active, its page visible). */
  focus(view: ChatView): void {
    this.focusedView = view;
    const open = view.shown as OpenSession | undefined;
    if (!open) return;
    if (open.unread && view.page.visible()) {
      open.unread = false;
      this.deps.onChange();
    }
    this.deps.onState(open.session.feed.state);
  }

  /** A new session in `view`, of the agent it shows (or `agent`); an empty one shown there is
   * replaced rather than kept. */
  newSession(view: ChatView, agent?: string): OpenSession {
    const current = view.shown as OpenSession | undefined;
    const name = agent ?? current?.session.agent.name;
    if (!name) throw new Error("no agent to start a session with");
    const next = this.create(name, current);
    this.show(view, next);
    if (current?.empty && current.views.size === 0) void this.close(current, "It was replaced by a new session.");
    return next;
  }

  /** A new session of `from`'s agent shown in `view` while the others keep running, set up by
   * `setup` (a fork of `from`'s conversation). */
  openFork(view: ChatView, from: OpenSession, setup: (session: ChatSession) => void): OpenSession {
    const next = this.create(from.session.agent.name, from);
    this.show(view, next);
    setup(next.session);
    this.deps.onState(next.session.feed.state);
    return next;
  }

  /** End `open` (its agent stops, its views move on or close); it stays in the agent's history. */
  async close(open: OpenSession, reason = "The session was closed."): Promise<void> {
    const index = this.open.indexOf(open);
    if (index < 0) return;
    this.open.splice(index, 1);
    for (const view of [...open.views]) {
      if (view.surface === "sidebar") this.show(view, this.open.find((o) => o.views.size === 0) ?? this.create(open.session.agent.name, open));
    }
    for (const view of this.views) view.forget(open.key);
    this.deps.onChange();
    await open.session.endSession(reason);
  }

  /** Every session ends (VS Code is closing). */
  async disposeAll(reason: string): Promise<void> {
    await Promise.all(this.open.map((o) => o.session.endSession(reason)));
  }

  /** What the index keeps of every open session. */
  records(): SessionRecord[] {
    return this.open.map((o) => {
      const state = o.session.feed.state;
      // The texts only: a queued image stays with the window that had it.
      const queued = o.session.queued.map(({ id, text }) => ({ id, text }));
      return {
        key: o.key,
        agent: o.session.agent.name,
        ...(state.sessionId ? { sessionId: state.sessionId } : {}),
        ...(state.title ? { title: state.title } : {}),
        ...(o.userTitle ? { userTitle: o.userTitle } : {}),
        ...(o.firstPrompt ? { firstPrompt: promptTitle(o.firstPrompt) } : {}),
        ...(o.lastPrompt ? { lastPrompt: o.lastPrompt } : {}),
        mode: state.mode,
        ...(state.model ? { model: state.model } : {}),
        ...(queued.length ? { queued } : {}),
        ...(o.pending && o.waiting ? { pending: o.pending } : {}),
        ...(state.busy ? { busy: true } : {}),
        ...(o.unread ? { unread: true } : {}),
      };
    });
  }

  /** An open session as the index kept it: its metadata now, its transcript from the agent's own
   * store (`entries`; an agent that replays its sessions shows it when it loads), and a notice
   * when a turn was cut. The conversation resumes on the next prompt. */
  restore(record: SessionRecord, entries: (agent: string, sessionId: string) => Promise<ChatEntry[]>): { open: OpenSession; loaded: Promise<void> } {
    const open = this.create(record.agent, undefined, record.key);
    const { session } = open;
    open.userTitle = record.userTitle;
    open.firstPrompt = record.firstPrompt;
    open.lastPrompt = record.lastPrompt;
    open.unread = record.unread ?? false;
    session.feed.setState({
      mode: record.mode,
      ...(record.sessionId ? { sessionId: record.sessionId } : {}),
      ...(record.model ? { model: record.model } : {}),
      ...(record.title ? { title: record.title } : {}),
    });
    if (record.lastPrompt) session.rememberPrompt(record.lastPrompt);
    const loaded = (async () => {
      if (record.sessionId) {
        const past = await entries(record.agent, record.sessionId).catch((error: unknown) => {
          this.deps.log(`restoring ${record.sessionId}: ${error instanceof Error ? error.message : String(error)}`);
          return [];
        });
        await session.resume(record.sessionId, past);
        // The agent's replay may not carry the title the index kept.
        if (record.title && !session.feed.state.title) session.feed.setState({ title: record.title });
      }
      if (record.busy) session.feed.show([cutNotice(record.pending)]);
      // After the resume (which empties the queue): they wait, shown, until the user sends.
      if (record.queued?.length) session.holdQueue(record.queued);
    })();
    return { open, loaded };
  }

  /** The entries an open session's feed showed: its title, badges and pending question follow. */
  private observe(open: OpenSession, entries: ChatEntry[]): void {
    let changed = false;
    for (const entry of entries) {
      switch (entry.type) {
        case "userMessage":
          open.firstPrompt ??= entry.text;
          open.lastPrompt = entry.text;
          changed = true;
          break;
        case "permissionRequest": {
          const path = entry.review?.path ?? entry.blockedPath ?? filePathOf(entry.input);
          open.pending = { tool: entry.toolName, ...(path ? { path } : {}) };
          changed = true;
          break;
        }
        case "permissionResolved":
        case "permissionCancelled":
          changed = true;
          break;
        case "done":
          if (![...open.views].some((v) => v.page.visible())) open.unread = true;
          changed = true;
          break;
        case "error":
          if (entry.severity === "error" && ![...open.views].some((v) => v.page.visible())) open.unread = true;
          changed = true;
          break;
        default:
          break;
      }
    }
    if (changed) this.deps.onChange();
  }
}
