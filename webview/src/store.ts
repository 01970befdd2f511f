import type {
  ApiRetryEvent,
  Attachment,
  DoneEvent,
  ErrorEvent,
  ExtensionToWebview,
  FileSuggestion,
  HistorySession,
  PermissionRequestEvent,
  PermissionResolvedEvent,
  StructuredToolResult,
  TodoItem,
  UiEvent,
  UiState,
  UsageEvent,
} from "./protocol";
import { IncrementalMarkdown } from "./markdown";

/**
 * The webview's model: a mutable store that applies UiEvents in order, and a version number per row
 * so that only changed rows re-render. Events are applied in batches (one per animation frame) and
 * subscribers are notified once per batch.
 */

// ---------------------------------------------------------------------------------------------
// Model types
// ---------------------------------------------------------------------------------------------

export interface TextPart {
  kind: "text" | "thinking";
  text: string;
  /** Lazily created renderer (only rows that are displayed ever parse markdown). */
  md?: IncrementalMarkdown;
  /** Thinking: the user's expand/collapse choice. */
  open?: boolean;
}

export interface AssistantMessage {
  id: string;
  parts: TextPart[];
  streaming: boolean;
}

export type ToolStatus = "running" | "ok" | "error" | "cancelled";

export interface ToolResultData {
  isError: boolean;
  content: string;
  structured?: StructuredToolResult;
}

export type ToolChild = { kind: "tool"; call: ToolCall } | { kind: "message"; msg: AssistantMessage };

export interface ToolCall {
  id: string;
  name: string;
  kind: string;
  title: string;
  input: unknown;
  /** Accumulated `partialJson` fragments. */
  inputJson: string;
  status: ToolStatus;
  result?: ToolResultData;
  parentId?: string;
  agentId?: string;
  /** Nested calls and subagent text (Task/Agent). */
  children: ToolChild[];
  plan?: string;
  awaitingApproval?: boolean;
  /** UI state that must survive the row being virtualized away. */
  ui: Record<string, boolean>;
  v: number;
}

interface RowBase {
  /** Unique key (prefixed by kind). */
  key: string;
  v: number;
}

export interface UserRow extends RowBase {
  kind: "user";
  text: string;
  attachments: Attachment[];
}
export interface AssistantRow extends RowBase {
  kind: "assistant";
  msg: AssistantMessage;
}
export interface ToolRow extends RowBase {
  kind: "tool";
  call: ToolCall;
}
export interface PermissionRow extends RowBase {
  kind: "permission";
  req: PermissionRequestEvent;
  outcome?: "allowed" | "denied" | "cancelled";
  always?: boolean;
  reason?: string;
  /** The user clicked; waiting for permissionResolved. */
  decided?: "allow" | "always" | "deny";
}
export interface NoticeRow extends RowBase {
  kind: "notice";
  level: "info" | "warning";
  text: string;
}
export interface RetryRow extends RowBase {
  kind: "retry";
  ev: ApiRetryEvent;
}
export interface ErrorRow extends RowBase {
  kind: "error";
  ev: ErrorEvent;
  retried?: boolean;
}
export interface DoneRow extends RowBase {
  kind: "done";
  ev: DoneEvent;
  usage?: UsageEvent;
}

export type Row = UserRow | AssistantRow | ToolRow | PermissionRow | NoticeRow | RetryRow | ErrorRow | DoneRow;

export const DEFAULT_MODES = [
  { id: "default", label: "Ask before edits", description: "Ask before editing files or running commands" },
  { id: "acceptEdits", label: "Accept edits", description: "Edit files without asking; ask before commands" },
  { id: "plan", label: "Plan", description: "Read and plan only; no edits or commands until you approve the plan" },
  { id: "dontAsk", label: "Don't ask", description: "Never ask; anything not already allowed is denied" },
  {
    id: "bypassPermissions",
    label: "Bypass permissions",
    description: "Run everything without asking (dangerous)",
  },
];

// ---------------------------------------------------------------------------------------------
// Store
// ---------------------------------------------------------------------------------------------

type Listener = () => void;

interface MessageEntry {
  msg: AssistantMessage;
  /** Set once the message has content: it is placed in the timeline at its first delta. */
  row?: AssistantRow;
  parent?: ToolCall;
  parentId?: string;
  placed: boolean;
}

export class Store {
  initialized = false;
  state: UiState = {
    mode: "default",
    model: "",
    models: [],
    modes: [],
    where: "local",
    workspaceLabel: "",
    connected: true,
    busy: false,
  };
  rows: Row[] = [];
  todos: TodoItem[] = [];
  history: HistorySession[] | undefined = undefined;
  suggestions: { requestId: string; items: FileSuggestion[] } | undefined;
  /** Pending permission requests, in arrival order. */
  pending: PermissionRow[] = [];
  agentStatus: "idle" | "running" | "requires_action" = "idle";
  /** Bumped on `clear`/`replay` so views can reset scroll state. */
  epoch = 0;
  /** Bumped when the user sends: the list jumps back to the bottom. */
  stickSignal = 0;
  /** Bumped on every batch. */
  version = 0;
  /** Text for the screen-reader live region. */
  announcement = "";
  /** Composer commands from the extension (prefill/addAttachment/focus), consumed by the composer. */
  composerInbox: Array<{ type: "prefill"; text: string } | { type: "attachment"; attachment: Attachment } | { type: "focus" }> =
    [];

  private calls = new Map<string, ToolCall>();
  /** toolCallId → top-level row holding it. */
  private callRow = new Map<string, ToolRow>();
  private messages = new Map<string, MessageEntry>();
  /** Messages still streaming and calls still running (so ending a turn is O(open), not O(all)). */
  private openMessages = new Set<MessageEntry>();
  private runningCalls = new Set<ToolCall>();
  private permissions = new Map<string, PermissionRow>();
  private plans = new Map<string, string>();
  private listeners = new Set<Listener>();
  private queue: ExtensionToWebview[] = [];
  private scheduled = false;
  private seq = 0;
  private lastUsage: UsageEvent | undefined;

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Queue a message from the extension; everything queued is applied once per animation frame. */
  enqueue(msg: ExtensionToWebview): void {
    this.queue.push(msg);
    if (this.scheduled) return;
    this.scheduled = true;
    let done = false;
    const run = () => {
      if (done) return;
      done = true;
      this.flush();
    };
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(run);
    // rAF does not run while the view is hidden; don't let events pile up forever.
    setTimeout(run, 100);
  }

  /** Apply everything queued now (also used by tests through the frame scheduler). */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    if (!batch.length) return;
    this.queue = [];
    for (const msg of batch) {
      try {
        this.applyMessage(msg);
      } catch (err) {
        console.error("[tether] failed to apply message", msg, err);
      }
    }
    this.version++;
    for (const fn of this.listeners) fn();
  }

  requestStick(): void {
    this.stickSignal++;
    this.changed();
  }

  /** Notify after a local (UI) change. */
  changed(): void {
    this.version++;
    for (const fn of this.listeners) fn();
  }

  private key(prefix: string): string {
    return `${prefix}:${++this.seq}`;
  }

  applyMessage(msg: ExtensionToWebview): void {
    switch (msg.type) {
      case "init":
        this.initialized = true;
        this.state = { ...this.state, ...msg.state };
        if (this.state.busy) this.agentStatus = "running";
        break;
      case "state": {
        const { type: _t, ...rest } = msg;
        this.state = { ...this.state, ...rest };
        if (rest.busy === false && this.agentStatus !== "idle") this.agentStatus = "idle";
        if (rest.busy === true && this.agentStatus === "idle") this.agentStatus = "running";
        break;
      }
      case "events":
        for (const ev of msg.events) this.applyEvent(ev, false);
        break;
      case "replay":
        this.reset();
        for (const ev of msg.events) this.applyEvent(ev, true);
        this.finishReplay();
        break;
      case "clear":
        this.reset();
        break;
      case "history":
        this.history = msg.sessions;
        break;
      case "fileSuggestions":
        this.suggestions = { requestId: msg.requestId, items: msg.items };
        break;
      case "prefill":
        this.composerInbox.push({ type: "prefill", text: msg.text });
        break;
      case "addAttachment":
        this.composerInbox.push({ type: "attachment", attachment: msg.attachment });
        break;
      case "focus":
        this.composerInbox.push({ type: "focus" });
        break;
      default:
        // Unknown message types are ignored (forward compatibility).
        break;
    }
  }

  reset(): void {
    this.rows = [];
    this.todos = [];
    this.pending = [];
    this.calls.clear();
    this.callRow.clear();
    this.messages.clear();
    this.openMessages.clear();
    this.runningCalls.clear();
    this.permissions.clear();
    this.plans.clear();
    this.lastUsage = undefined;
    this.epoch++;
  }

  private finishReplay(): void {
    this.closeOpen();
    // A past session cannot be waiting for an answer.
    for (const p of this.pending) {
      p.outcome = p.outcome ?? "cancelled";
      p.v++;
    }
    this.pending = [];
    this.agentStatus = "idle";
  }

  /** Ends whatever is still streaming or running (end of a turn, error, replay). */
  private closeOpen(): void {
    for (const entry of this.openMessages) {
      entry.msg.streaming = false;
      this.touchEntry(entry);
    }
    this.openMessages.clear();
    for (const call of this.runningCalls) {
      call.status = "cancelled";
      call.awaitingApproval = false;
      this.touchCall(call);
    }
    this.runningCalls.clear();
  }

  private push(row: Row): void {
    this.rows.push(row);
  }

  /** Bump a call's version and every ancestor's (and the row holding it). */
  private touchCall(call: ToolCall): void {
    let c: ToolCall | undefined = call;
    let top: ToolCall = call;
    while (c) {
      c.v++;
      top = c;
      c = c.parentId ? this.calls.get(c.parentId) : undefined;
    }
    const row = this.callRow.get(top.id);
    if (row) row.v++;
  }

  private touchEntry(entry: MessageEntry): void {
    if (entry.row) entry.row.v++;
    if (entry.parent) this.touchCall(entry.parent);
  }

  private ensureMessage(id: string, parentToolCallId?: string): MessageEntry {
    const existing = this.messages.get(id);
    if (existing) return existing;
    const msg: AssistantMessage = { id, parts: [], streaming: true };
    const entry: MessageEntry = { msg, parentId: parentToolCallId, placed: false };
    this.messages.set(id, entry);
    this.openMessages.add(entry);
    return entry;
  }

  /** Puts the message in the timeline (top level, or inside its Task/Agent call). */
  private place(entry: MessageEntry): void {
    if (entry.placed) return;
    entry.placed = true;
    const parent = entry.parentId ? this.calls.get(entry.parentId) : undefined;
    if (parent) {
      entry.parent = parent;
      parent.children.push({ kind: "message", msg: entry.msg });
    } else {
      entry.row = { kind: "assistant", key: `a:${entry.msg.id}:${++this.seq}`, v: 0, msg: entry.msg };
      this.push(entry.row);
    }
  }

  private appendPart(messageId: string, kind: "text" | "thinking", text: string): void {
    if (!text) return;
    const entry = this.ensureMessage(messageId);
    this.place(entry);
    const msg = entry.msg;
    const last = msg.parts[msg.parts.length - 1];
    if (last && last.kind === kind) {
      last.text += text;
    } else {
      msg.parts.push({ kind, text });
    }
    this.touchEntry(entry);
  }

  applyEvent(ev: UiEvent, replay: boolean): void {
    switch (ev.type) {
      case "userMessage":
        this.push({
          kind: "user",
          key: this.key("u"),
          v: 0,
          text: ev.text,
          attachments: ev.attachments ?? [],
        });
        break;
      case "messageStart":
        this.ensureMessage(ev.id, ev.parentToolCallId);
        break;
      case "textDelta":
        this.appendPart(ev.messageId, "text", ev.text);
        break;
      case "thinkingDelta":
        this.appendPart(ev.messageId, "thinking", ev.text);
        break;
      case "messageStop": {
        const entry = this.messages.get(ev.messageId);
        if (entry) {
          entry.msg.streaming = false;
          this.openMessages.delete(entry);
          this.touchEntry(entry);
        }
        break;
      }
      case "toolCallStart":
        this.startToolCall(ev);
        break;
      case "toolCallInputDelta": {
        const call = this.calls.get(ev.toolCallId);
        if (!call) break;
        call.inputJson += ev.partialJson;
        try {
          call.input = JSON.parse(call.inputJson);
        } catch {
          // Not complete yet.
        }
        this.touchCall(call);
        break;
      }
      case "toolCallResult": {
        const call = this.calls.get(ev.toolCallId);
        if (!call) break;
        call.result = { isError: ev.isError, content: ev.content, structured: ev.structured };
        call.status = ev.isError ? "error" : "ok";
        this.runningCalls.delete(call);
        call.awaitingApproval = false;
        // A finished subagent group folds away unless the user opened it.
        if ((call.name === "Task" || call.name === "Agent") && call.ui.userToggled !== true) call.ui.open = false;
        this.touchCall(call);
        break;
      }
      case "todoUpdate":
        this.todos = ev.todos;
        break;
      case "plan": {
        this.plans.set(ev.toolCallId, ev.plan);
        const call = this.calls.get(ev.toolCallId);
        if (call) {
          call.plan = ev.plan;
          this.touchCall(call);
        }
        for (const p of this.pending) {
          if (p.req.toolCallId === ev.toolCallId) p.v++;
        }
        break;
      }
      case "permissionRequest":
        this.addPermission(ev, replay);
        break;
      case "permissionResolved":
        this.resolvePermission(ev);
        break;
      case "modeChange":
        if (ev.mode !== this.state.mode) {
          this.state = { ...this.state, mode: ev.mode };
          const label = this.modeLabel(ev.mode);
          this.push({ kind: "notice", key: this.key("n"), v: 0, level: "info", text: `Mode: ${label}` });
        }
        break;
      case "status":
        this.agentStatus = ev.state;
        this.state = { ...this.state, busy: ev.state !== "idle" };
        break;
      case "apiRetry": {
        const last = this.rows[this.rows.length - 1];
        if (last && last.kind === "retry") {
          last.ev = ev;
          last.v++;
        } else {
          this.push({ kind: "retry", key: this.key("r"), v: 0, ev });
        }
        break;
      }
      case "notice":
        this.push({ kind: "notice", key: this.key("n"), v: 0, level: ev.level, text: ev.text });
        break;
      case "usage": {
        this.lastUsage = ev;
        const last = this.rows[this.rows.length - 1];
        if (last && last.kind === "done" && !last.usage) {
          last.usage = ev;
          last.v++;
          this.lastUsage = undefined;
        }
        break;
      }
      case "done":
        this.finishTurn();
        this.push({ kind: "done", key: this.key("d"), v: 0, ev, usage: this.lastUsage });
        this.lastUsage = undefined;
        if (!replay) this.announcement = ev.isError ? "Claude stopped." : "Claude finished.";
        break;
      case "error":
        this.finishTurn();
        this.push({ kind: "error", key: this.key("e"), v: 0, ev });
        if (!replay) this.announcement = `Error: ${ev.message}`;
        break;
      default:
        break;
    }
  }

  modeLabel(mode: string): string {
    const modes = this.state.modes.length ? this.state.modes : DEFAULT_MODES;
    return modes.find((m) => m.id === mode)?.label ?? mode;
  }

  private startToolCall(ev: Extract<UiEvent, { type: "toolCallStart" }>): void {
    const existing = this.calls.get(ev.toolCallId);
    if (existing) {
      // A repeated start (e.g. the full input after streaming) updates the call.
      existing.input = ev.input ?? existing.input;
      existing.title = ev.title || existing.title;
      existing.kind = ev.kind || existing.kind;
      this.touchCall(existing);
      return;
    }
    const isGroup = ev.name === "Task" || ev.name === "Agent";
    const call: ToolCall = {
      id: ev.toolCallId,
      name: ev.name,
      kind: ev.kind,
      title: ev.title,
      input: ev.input ?? {},
      inputJson: "",
      status: "running",
      parentId: ev.parentToolCallId,
      agentId: ev.agentId,
      children: [],
      plan: this.plans.get(ev.toolCallId),
      ui: isGroup ? { open: true } : {},
      v: 0,
    };
    this.calls.set(call.id, call);
    this.runningCalls.add(call);
    const parent = ev.parentToolCallId ? this.calls.get(ev.parentToolCallId) : undefined;
    if (parent) {
      parent.children.push({ kind: "tool", call });
      this.touchCall(parent);
    } else {
      call.parentId = undefined;
      const row: ToolRow = { kind: "tool", key: `t:${call.id}`, v: 0, call };
      this.callRow.set(call.id, row);
      this.push(row);
    }
  }

  private addPermission(ev: PermissionRequestEvent, replay: boolean): void {
    if (this.permissions.has(ev.requestId)) return;
    const row: PermissionRow = { kind: "permission", key: `p:${ev.requestId}`, v: 0, req: ev };
    this.permissions.set(ev.requestId, row);
    this.push(row);
    this.pending.push(row);
    if (ev.toolCallId) {
      const call = this.calls.get(ev.toolCallId);
      if (call) {
        call.awaitingApproval = true;
        this.touchCall(call);
      }
    }
    if (!replay) {
      this.announcement = `Approval needed: ${ev.title || ev.toolName}`;
    }
  }

  private resolvePermission(ev: PermissionResolvedEvent): void {
    const row = this.permissions.get(ev.requestId);
    if (!row) return;
    row.outcome = ev.outcome;
    row.always = ev.always ?? row.decided === "always";
    row.reason = ev.reason ?? row.reason;
    row.v++;
    this.pending = this.pending.filter((p) => p !== row);
    if (row.req.toolCallId) {
      const call = this.calls.get(row.req.toolCallId);
      if (call) {
        call.awaitingApproval = false;
        this.touchCall(call);
      }
    }
  }

  /** The user answered a permission card (the extension confirms with permissionResolved). */
  markDecided(requestId: string, decision: "allow" | "always" | "deny", reason?: string): void {
    const row = this.permissions.get(requestId);
    if (!row) return;
    row.decided = decision;
    if (reason) row.reason = reason;
    row.v++;
    this.changed();
  }

  private finishTurn(): void {
    this.closeOpen();
    for (const p of this.pending) {
      p.outcome = "cancelled";
      p.v++;
    }
    this.pending = [];
    this.agentStatus = "idle";
    this.state = { ...this.state, busy: false };
  }

  /** Toggle a UI flag on a call (bumps versions so the row re-renders). */
  toggleCall(call: ToolCall, flag: string, value?: boolean): void {
    call.ui[flag] = value ?? !call.ui[flag];
    if (flag === "open") call.ui.userToggled = true;
    this.touchCall(call);
    this.changed();
  }

  toggleRow(row: Row): void {
    row.v++;
    this.changed();
  }

  markErrorRetried(row: ErrorRow): void {
    row.retried = true;
    row.v++;
    this.changed();
  }

  /** Local optimistic state change (mode/model pickers). */
  setLocalState(patch: Partial<UiState>): void {
    this.state = { ...this.state, ...patch };
    this.changed();
  }

  planFor(toolCallId: string | undefined): string | undefined {
    if (!toolCallId) return undefined;
    return this.plans.get(toolCallId) ?? this.calls.get(toolCallId)?.plan;
  }

  callById(id: string | undefined): ToolCall | undefined {
    return id ? this.calls.get(id) : undefined;
  }
}

export const store = new Store();
