// Stand-ins for the chat's ports (the view, the review editor, the agent) that record what they are
// asked, and complete core events for the tests.

import type { EditReview, PermissionAnswer, PermissionMode, PermissionRequest, RewindOutcome, RewindPreview, UiEvent } from "../src/generated/core";
import type { ChatEntry, ExtensionToWebview, UiState } from "../src/contract/protocol";
import type { ChatViewPort } from "../src/chat/feed";
import type { ReviewAnswer, ReviewPort } from "../src/chat/permissionBroker";
import type { ProjectSource } from "../src/chat/contextSync";
import type { AgentSession, AgentStart } from "../src/chat/session";
import { SessionManager } from "../src/chat/sessions";
import type { SessionOp, SessionOpKind } from "../src/session/agent";
import type { TurnOutcome } from "../src/session/driver";

export const initialState: UiState = {
  mode: "default",
  model: "",
  models: [],
  modes: [],
  where: "local",
  workspaceLabel: "/w",
  connected: true,
  busy: false,
};

/** The chat view: what was pushed and posted, in order. */
export class RecordingView implements ChatViewPort {
  readonly pushed: ChatEntry[] = [];
  readonly posted: ExtensionToWebview[] = [];
  /** Whether the user sees it (a session finishing unseen gets its badge). */
  shown = true;

  visible(): boolean {
    return this.shown;
  }

  pushEvents(entries: ChatEntry[]): void {
    this.pushed.push(...entries);
  }

  post(message: ExtensionToWebview): void {
    this.posted.push(message);
  }

  /** Every entry that reached the view, pushed or inside a posted batch. */
  entriesOf<T extends ChatEntry["type"]>(type: T): Extract<ChatEntry, { type: T }>[] {
    const replayed = this.posted.flatMap((m) => (m.type === "replay" || m.type === "events" ? m.events : []));
    return [...this.pushed, ...replayed].filter((e): e is Extract<ChatEntry, { type: T }> => e.type === type);
  }
}

/** The diff review: opened reviews, and a scripted answer from the card. */
export class RecordingReviews implements ReviewPort {
  readonly opened = new Map<string, (answer: ReviewAnswer) => void>();
  readonly cancelled: string[] = [];
  /** What answeredElsewhere returns (the text the user left in the review). */
  userContent: string | undefined;

  async open(requestId: string, _review: EditReview, answer: (answer: ReviewAnswer) => void): Promise<void> {
    this.opened.set(requestId, answer);
  }

  async answeredElsewhere(): Promise<string | undefined> {
    return this.userContent;
  }

  async cancel(requestId: string): Promise<void> {
    this.cancelled.push(requestId);
  }
}

export function permissionRequest(id: string, fields: Partial<PermissionRequest> = {}): PermissionRequest & { type: "permissionRequest" } {
  return {
    type: "permissionRequest",
    id,
    toolUseId: `tool-${id}`,
    toolName: "Bash",
    rawToolName: "mcp__tether__Bash",
    kind: "execute",
    input: { command: "npm test" },
    agentId: null,
    suggestions: [],
    title: null,
    displayName: null,
    description: null,
    blockedPath: null,
    decisionReason: null,
    decisionReasonType: null,
    suppressAlwaysAllow: false,
    requiresUserInteraction: false,
    options: [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "always", name: "Always allow", kind: "allow_always" },
      { optionId: "deny", name: "Reject", kind: "reject_once" },
    ],
    ...fields,
  };
}

export const done = (sessionId: string): UiEvent => ({
  type: "done",
  subtype: "success",
  isError: false,
  durationMs: 1,
  numTurns: 1,
  sessionId,
  result: null,
  stopReason: null,
});

/**
 * An agent session as SessionDriver runs one: every event goes to onEvent, and a permission
 * request then also to onPermission (driver.ts `emit`: onEvent first, then ask), whose answer is
 * recorded. `turn` scripts the events of the next prompt.
 */
export class ScriptedAgent implements AgentSession {
  running = true;
  sessionId: string | null;
  readonly prompts: string[] = [];
  readonly answers: PermissionAnswer[] = [];
  readonly modes: PermissionMode[] = [];
  readonly operations: SessionOp[] = [];
  stopped = false;
  turn: UiEvent[] = [];
  private readonly controllers = new Map<string, AbortController>();

  constructor(readonly start: AgentStart) {
    this.sessionId = start.resume ?? null;
  }

  /** Emits one event the way the driver does. */
  emit(event: UiEvent): void {
    this.start.onEvent(event);
    if (event.type === "permissionRequest") {
      const controller = new AbortController();
      this.controllers.set(event.id, controller);
      void this.start.onPermission(event, controller.signal).then((answer) => {
        if (!controller.signal.aborted) this.answers.push(answer);
      });
    } else if (event.type === "permissionCancelled") {
      this.controllers.get(event.id)?.abort();
    }
  }

  /** The chat's id of each prompt's user message. */
  readonly messageIds: (string | undefined)[] = [];
  /** The messages rewound (the fake keeps no files). */
  readonly rewound: string[] = [];

  async rewindPreview(messageId: string): Promise<RewindPreview> {
    return { messageId, known: this.messageIds.includes(messageId), files: [], shellCommands: false };
  }

  async rewind(messageId: string): Promise<RewindOutcome> {
    this.rewound.push(messageId);
    return { restored: [], deleted: [] };
  }

  async prompt(text: string, _images?: unknown, messageId?: string): Promise<TurnOutcome> {
    this.messageIds.push(messageId);
    this.prompts.push(text);
    for (const event of this.turn.splice(0)) this.emit(event);
    return { ok: true };
  }

  /** Records every operation; the modes it is switched to also in `modes`. */
  operate(op: SessionOp): void {
    this.operations.push(op);
    if (op.op === "setMode") this.modes.push(op.mode);
  }

  /** What this fake agent offers (a test sets it). */
  offered: SessionOpKind[] = ["setMode", "interrupt"];
  offers(): SessionOpKind[] {
    return this.offered;
  }

  /** The process died (driver.ts onExit): open questions are withdrawn, then the crash is told. */
  crash(): void {
    this.running = false;
    for (const controller of this.controllers.values()) controller.abort();
    this.start.onEvent({
      type: "error",
      kind: "crash",
      severity: "error",
      message: "Claude Code exited with code 1 unexpectedly.",
      hint: null,
      retryable: true,
      sessionId: this.sessionId,
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    for (const controller of this.controllers.values()) controller.abort();
  }
}

/** Lets queued promise callbacks run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A SessionManager over scripted agents (no processes) with one sidebar page. "claude" keeps its
 * sessions in files, any other agent its own list; `makeAgent` gives each start its agent (a
 * ScriptedAgent unless the test holds its turns). */
export function scriptedManager<A extends ScriptedAgent = ScriptedAgent>(options: {
  root: string;
  host?: ProjectSource["host"];
  makeAgent?: (start: AgentStart) => A;
}) {
  const agents: A[] = [];
  const view = new RecordingView();
  let changes = 0;
  const manager = new SessionManager({
    reviews: new RecordingReviews(),
    initialState: (agent) => ({ ...initialState, agent: agent.name, agentLabel: agent.displayName }),
    onState: () => undefined,
    onChange: () => changes++,
    agent: (name) => ({ name, displayName: name === "claude" ? "Claude Code" : `Agent ${name}`, history: name === "claude" ? "files" : "agent" }),
    workspace: async () => ({ host: options.host ?? ({} as never), root: options.root }),
    startAgent: async (start: AgentStart) => {
      await settle();
      const agent = options.makeAgent?.(start) ?? (new ScriptedAgent(start) as A);
      agents.push(agent);
      return agent;
    },
    defaultMode: () => "default",
    fail: () => undefined,
    log: () => undefined,
  });
  const sidebar = manager.addView(view, "sidebar");
  return { manager, view, sidebar, agents, changes: () => changes };
}
