// The chat's sessions: one ChatSession per agent picked so far, each with its own feed, permission
// broker and agent process. The view shows one of them (the active one); switching the agent shows
// that agent's session (made on first use) while the others keep running, and switching back shows
// the earlier one as it is. No vscode import.

import type { PermissionMode } from "../generated/core";
import type { UiState } from "../contract/protocol";
import type { ProjectSource } from "./contextSync";
import { ChatFeed, type ChatViewPort } from "./feed";
import { PermissionBroker, type ReviewPort } from "./permissionBroker";
import { ChatSession, type AgentSession, type AgentStart, type ChatAgent } from "./session";

export interface SessionManagerDeps {
  /** The chat view: only the active session's feed reaches it. */
  view: ChatViewPort;
  /** The diff reviews every session's broker opens. */
  reviews: ReviewPort;
  /** What the header shows for a new session of `agent`, carrying over the mode from `previous`. */
  initialState(agent: ChatAgent, previous: UiState | undefined): UiState;
  /** The active session's state changed (the status bar). */
  onState(state: UiState): void;
  /** The agent the registry has under `name`; throws for a name it does not have. */
  agent(name: string): ChatAgent;
  workspace(): Promise<ProjectSource>;
  startAgent(start: AgentStart): Promise<AgentSession>;
  defaultMode(): PermissionMode;
  fail(what: string, error: unknown): void;
  log(message: string): void;
}

/** The view as one session's feed sees it: open while the session is the active one. */
class ViewSlot implements ChatViewPort {
  constructor(
    private readonly view: ChatViewPort,
    private readonly shown: () => boolean,
  ) {}

  pushEvents(entries: Parameters<ChatViewPort["pushEvents"]>[0]): void {
    if (this.shown()) this.view.pushEvents(entries);
  }

  post(message: Parameters<ChatViewPort["post"]>[0]): void {
    if (this.shown()) this.view.post(message);
  }
}

export class SessionManager {
  private readonly sessions: ChatSession[] = [];
  private current: ChatSession;

  constructor(
    private readonly deps: SessionManagerDeps,
    /** The agent the first session runs. */
    agent: string,
  ) {
    this.current = this.create(deps.agent(agent));
  }

  /** The session the view shows. */
  get active(): ChatSession {
    return this.current;
  }

  list(): readonly ChatSession[] {
    return this.sessions;
  }

  /** Show the session of `agent` (made now if there is none); the others keep running. */
  switchTo(agent: string): ChatSession {
    if (agent === this.current.agent.name) return this.current;
    const chatAgent = this.deps.agent(agent);
    this.current = this.sessions.find((s) => s.agent.name === agent) ?? this.create(chatAgent);
    this.deps.view.post({ type: "clear" });
    this.current.feed.ready();
    this.deps.onState(this.current.feed.state);
    this.current.warm();
    return this.current;
  }

  /** End `session` and forget it; the active one is replaced by a fresh session of its agent. */
  async dispose(session: ChatSession, reason?: string): Promise<void> {
    const index = this.sessions.indexOf(session);
    if (index < 0) return;
    this.sessions.splice(index, 1);
    await session.endSession(reason);
    if (session === this.current) {
      this.current = this.create(session.agent, session.feed.state);
      this.deps.view.post({ type: "clear" });
      this.current.feed.ready();
      this.current.warm();
    }
  }

  /** Every session ends (VS Code is closing). */
  async disposeAll(reason: string): Promise<void> {
    await Promise.all(this.sessions.map((s) => s.endSession(reason)));
  }

  private create(agent: ChatAgent, previous: UiState | undefined = this.sessions.length ? this.current.feed.state : undefined): ChatSession {
    const slot: { session?: ChatSession } = {};
    const feed = new ChatFeed(new ViewSlot(this.deps.view, () => slot.session === this.current), this.deps.initialState(agent, previous), (state) => {
      if (slot.session === this.current) this.deps.onState(state);
    });
    const broker = new PermissionBroker({ reviews: this.deps.reviews, show: (entries) => feed.show(entries), fail: this.deps.fail });
    const session = new ChatSession({
      agent,
      feed,
      broker,
      workspace: this.deps.workspace,
      startAgent: this.deps.startAgent,
      defaultMode: this.deps.defaultMode,
      log: this.deps.log,
    });
    slot.session = session;
    this.sessions.push(session);
    return session;
  }
}
