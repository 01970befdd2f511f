// The webview's model: a mutable store that applies the chat's entries (the core's events, user
// turns, permission answers) in order. Messages from the extension are queued and applied once per
// animation frame (a replay at once); subscribers are notified once per batch.

import type { TodoItem, UiEvent, UserDecision } from "@tether/core";
import { PERMISSION_MODE_INFO } from "@tether/contract/modes";
import type { Attachment, ChatEntry, ExtensionToWebview, FileSuggestion, HistoryActions, HistorySession, UiState } from "@tether/contract/protocol";
import { ToolCalls } from "./calls";
import { Canvas } from "./canvas";
import { Messages } from "./messages";
import { Timeline, type AgentEvent, type ErrorRow, type PermissionRow, type Row, type TerminalView, type ToolCall } from "./model";
import { Permissions } from "./permissions";
import { Tasks } from "./tasks";
import { RewindState } from "./rewind";

export * from "./model";
export { atPointer, bound, type Surface } from "./canvas";
export { isRunning, statusLabel, type TaskEntry } from "./tasks";

type Listener = () => void;
type ComposerCommand = { type: "prefill"; text: string } | { type: "attachment"; attachment: Attachment } | { type: "focus" };

/** Whether an error can be retried when the agent does not say (the driver's errors do). */
function retryableByKind(ev: AgentEvent<"error">): boolean {
  return ev.kind === "api" || ev.kind === "executionError" || ev.kind === "crash";
}

export function errorText(ev: AgentEvent<"error">): string {
  return ev.hint ? `${ev.message}\n${ev.hint}` : ev.message;
}

export function isRetryable(ev: AgentEvent<"error">): boolean {
  return ev.retryable ?? retryableByKind(ev);
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
  todos: TodoItem[] = [];
  history: HistorySession[] | undefined = undefined;
  /** What the history list may do (rename, delete) with the agent's sessions. */
  historyActions: HistoryActions | undefined = undefined;
  suggestions: { requestId: string; items: FileSuggestion[] } | undefined;
  agentStatus: AgentEvent<"status">["state"] = "idle";
  /** Bumped on `clear`/`replay` so views can reset scroll state. */
  epoch = 0;
  /** Bumped when the user sends: the list jumps back to the bottom. */
  stickSignal = 0;
  /** Bumped on every batch. */
  version = 0;
  /** Text for the screen-reader live region. */
  announcement = "";
  /** Composer commands from the extension (prefill/addAttachment/focus), consumed by the composer. */
  composerInbox: ComposerCommand[] = [];
  /** What the agent's canvas shows (board widgets, documents, A2UI surfaces). */
  readonly canvas = new Canvas();
  /** Subagents and background tasks, for their panels. */
  readonly tasks = new Tasks();
  /** A rewind being previewed or done (a user message's actions). */
  readonly rewind = new RewindState();

  private readonly timeline = new Timeline();
  private readonly calls = new ToolCalls(this.timeline);
  private readonly messages = new Messages(this.timeline, this.calls);
  private readonly permissions = new Permissions(this.timeline, this.calls);
  private listeners = new Set<Listener>();
  private queue: ExtensionToWebview[] = [];
  private scheduled = false;
  private lastUsage: AgentEvent<"usage"> | undefined;

  get rows(): Row[] {
    return this.timeline.rows;
  }

  /** Open permission requests, in arrival order. */
  get pending(): PermissionRow[] {
    return this.permissions.pending;
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Queue a message from the extension; everything queued is applied once per animation frame
   * (a replay at once). */
  enqueue(msg: ExtensionToWebview): void {
    this.queue.push(msg);
    // A replay replaces the whole chat in one message: applied (with whatever came before it) at
    // once, so its rendering does not first wait for the next frame.
    if (msg.type === "replay") return this.flush();
    // One frame callback (and its timer) at a time: a flush in between (a test's, a session
    // switch's) leaves it pending, and it applies whatever came since.
    if (this.scheduled) return;
    this.scheduled = true;
    let done = false;
    const run = () => {
      if (done) return;
      done = true;
      this.scheduled = false;
      this.flush();
    };
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(run);
    // rAF does not run while the view is hidden; don't let events pile up forever.
    setTimeout(run, 100);
  }

  /** Apply everything queued now (also used by tests through the frame scheduler). */
  flush(): void {
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
    this.changed();
  }

  requestStick(): void {
    this.stickSignal++;
    this.changed();
  }

  /** Notify after a change. */
  changed(): void {
    this.version++;
    for (const fn of this.listeners) fn();
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
        for (const entry of msg.events) this.apply(entry, false);
        break;
      case "replay":
        this.reset();
        for (const entry of msg.events) this.apply(entry, true);
        this.finishReplay();
        break;
      case "clear":
        this.reset();
        break;
      case "history":
        this.history = msg.sessions;
        this.historyActions = msg.actions;
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
      case "rewindPreview":
      case "rewindDone":
        this.rewind.apply(msg);
        break;
      default:
        // Unknown message types are ignored (forward compatibility).
        break;
    }
  }

  reset(): void {
    this.timeline.clear();
    this.todos = [];
    this.calls.clear();
    this.messages.clear();
    this.permissions.clear();
    this.canvas.clear();
    this.tasks.clear();
    this.lastUsage = undefined;
    this.epoch++;
  }

  /** One chat entry. `replay`: a past session, rendered as finished and announced to nobody. */
  apply(entry: ChatEntry, replay: boolean): void {
    switch (entry.type) {
      case "userMessage":
        this.timeline.push({ kind: "user", key: this.timeline.key("u"), v: 0, messageId: entry.id, text: entry.text, attachments: entry.attachments ?? [] });
        return;
      case "permissionResolved":
        this.permissions.resolve(entry);
        return;
      default:
        this.applyEvent(entry, replay);
    }
  }

  private applyEvent(ev: UiEvent, replay: boolean): void {
    switch (ev.type) {
      case "messageStart":
        return this.messages.start(ev.messageId, ev.parentToolUseId);
      case "textDelta":
        return this.messages.append(ev.messageId, ev.parentToolUseId, "text", ev.text);
      case "thinkingDelta":
        return this.messages.append(ev.messageId, ev.parentToolUseId, "thinking", ev.text);
      case "messageStop":
        return this.messages.stop(ev.messageId);
      case "toolCallStart":
        return this.calls.start(ev);
      case "toolCallUpdate":
        return this.calls.update(ev);
      case "toolInputDelta":
        return this.calls.inputDelta(ev);
      case "toolCallResult":
        return this.calls.result(ev);
      case "toolContent":
        return this.calls.content(ev);
      case "terminalOutput":
        return this.calls.terminalOutput(ev);
      case "userMessageChunk": {
        const last = this.rows[this.rows.length - 1];
        if (last && last.kind === "user" && last.streamed) {
          last.text += ev.text;
          last.v++;
        } else {
          this.timeline.push({ kind: "user", key: this.timeline.key("u"), v: 0, text: ev.text, attachments: [], streamed: true });
        }
        return;
      }
      case "authMethods":
        if (!ev.required) return;
        this.timeline.push({ kind: "auth", key: this.timeline.key("a"), v: 0, methods: ev.methods, message: ev.message ?? "The agent needs you to log in." });
        if (!replay) this.announcement = "Log in needed";
        return;
      case "plan":
        this.calls.plan(ev);
        for (const p of this.pending) if (p.req.toolUseId === ev.toolCallId) p.v++;
        return;
      case "todoUpdate":
        this.todos = ev.todos;
        return;
      case "canvas":
        return this.canvas.apply(ev.update);
      case "transcript": {
        if (!ev.older) this.reset();
        const rows: Row[] = ev.messages.map((m, i) =>
          m.role === "user"
            ? { kind: "user", key: this.timeline.key("u"), v: 0, text: m.text, attachments: [] }
            : { kind: "assistant", key: this.timeline.key(`a:t${i}`), v: 0, msg: { id: `transcript-${i}`, parts: [{ kind: "text", text: m.text }], streaming: false } },
        );
        this.timeline.putTranscript(rows, ev.hasMore, ev.older);
        return;
      }
      case "permissionRequest":
        this.permissions.add(ev);
        if (!replay) this.announcement = `Approval needed: ${ev.title || ev.toolName}`;
        return;
      case "permissionCancelled":
        return this.permissions.resolve({ type: "permissionResolved", requestId: ev.id, outcome: "cancelled" });
      case "permissionDenied": {
        if (this.calls.refuse(ev.toolUseId, ev.reason ?? ev.message ?? "")) return;
        const why = `${ev.reason ? ` (${ev.reason})` : ""}${ev.message ? `: ${ev.message}` : ""}`;
        return this.timeline.notice("warning", `${ev.toolName} was denied${why}`);
      }
      case "modeChanged":
        if (ev.mode !== this.state.mode) {
          this.state = { ...this.state, mode: ev.mode };
          this.timeline.notice("info", `Mode: ${this.modeLabel(ev.mode)}`);
        }
        return;
      case "status":
        this.agentStatus = ev.state;
        this.state = { ...this.state, busy: ev.state !== "idle" };
        return;
      case "apiRetry": {
        const last = this.rows[this.rows.length - 1];
        if (last && last.kind === "retry") {
          last.ev = ev;
          last.v++;
        } else {
          this.timeline.push({ kind: "retry", key: this.timeline.key("r"), v: 0, ev });
        }
        return;
      }
      case "rateLimit":
        if (ev.status === "allowed") return;
        return this.timeline.notice(
          "warning",
          `Rate limit ${ev.status}${ev.resetsAt ? `; resets at ${new Date(ev.resetsAt * 1000).toLocaleTimeString()}` : ""}`,
        );
      case "compacted":
        return this.timeline.notice("info", "The conversation was compacted.");
      case "mcpStatus": {
        const failed = ev.servers.filter((s) => s.status !== "connected" && s.status !== "pending");
        if (failed.length) this.timeline.notice("warning", `MCP server ${failed.map((s) => `${s.name} (${s.status})`).join(", ")}`);
        return;
      }
      case "usage": {
        this.lastUsage = ev;
        const last = this.rows[this.rows.length - 1];
        if (last && last.kind === "done" && !last.usage) {
          last.usage = ev;
          last.v++;
          this.lastUsage = undefined;
        }
        return;
      }
      case "done":
        this.finishTurn();
        this.timeline.push({ kind: "done", key: this.timeline.key("d"), v: 0, ev, ...(this.lastUsage ? { usage: this.lastUsage } : {}) });
        this.lastUsage = undefined;
        if (!replay) this.announcement = `${this.state.agentLabel ?? "Claude"} ${ev.isError ? "stopped" : "finished"}.`;
        return;
      case "error":
        if (ev.severity === "notice") return this.timeline.notice("info", errorText(ev));
        this.finishTurn();
        this.timeline.push({ kind: "error", key: this.timeline.key("e"), v: 0, ev });
        if (!replay) this.announcement = `Error: ${ev.message}`;
        return;
      case "taskUpdate":
        this.tasks.apply(ev);
        if (!replay && ev.status === "started") this.announcement = `Task started: ${ev.description ?? ev.taskId}`;
        return;
      case "commands":
      case "agentOptions":
      case "sessionInfo":
      case "contextUsage":
      case "sessionList":
      case "sessionInit":
      case "sessionReady":
      case "modelChanged":
      case "toolProgress":
      case "activity":
        // Header state comes from the extension's `state` messages; the rest has no view yet (the
        // tool row already spins).
        return;
    }
  }

  modeLabel(mode: string): string {
    const modes = this.state.modes.length ? this.state.modes : PERMISSION_MODE_INFO;
    return modes.find((m) => m.id === mode)?.label ?? mode;
  }

  private finishReplay(): void {
    this.messages.stopAll();
    this.calls.cancelRunning();
    // A past session cannot be waiting for an answer.
    this.permissions.cancelPending("all");
    this.agentStatus = "idle";
  }

  private finishTurn(): void {
    this.messages.stopAll();
    this.calls.cancelRunning();
    this.permissions.cancelPending("turn");
    this.agentStatus = "idle";
    this.state = { ...this.state, busy: false };
  }

  /** The user answered a permission card (the extension confirms with permissionResolved). */
  markDecided(requestId: string, decision: UserDecision, reason?: string): void {
    if (this.permissions.markDecided(requestId, decision, reason)) this.changed();
  }

  /** Toggle a UI flag on a call (bumps versions so the row re-renders). */
  toggleCall(call: ToolCall, flag: string, value?: boolean): void {
    call.ui[flag] = value ?? !call.ui[flag];
    if (flag === "open") call.ui.userToggled = true;
    this.calls.touch(call);
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

  /** A tool call by its id (a task's output is its call's children). */
  call(id: string | null | undefined): ToolCall | undefined {
    return this.calls.get(id);
  }

  planFor(toolCallId: string | null | undefined): string | undefined {
    return this.calls.planFor(toolCallId);
  }

  terminal(id: string): TerminalView | undefined {
    return this.calls.terminal(id);
  }
}

/** The store of the session the view shows; `showSession` swaps it (a live binding: every
 * importer sees the new one). */
export let store = new Store();

const kept = new Map<string, Store>();
let shownKey: string | undefined;
const swapListeners = new Set<Listener>();

/** Told after `store` is another session's. */
export function onStoreSwap(fn: Listener): () => void {
  swapListeners.add(fn);
  return () => swapListeners.delete(fn);
}

/** The view shows the session `key` now: its store, kept from before (or new), becomes `store`. The
 * messages queued for the one shown until now are applied to it first. */
export function showSession(key: string): void {
  if (key === shownKey) return;
  if (shownKey === undefined) {
    // The page's first session takes the store it started with.
    shownKey = key;
    kept.set(key, store);
    return;
  }
  store.flush();
  shownKey = key;
  let next = kept.get(key);
  if (!next) {
    next = new Store();
    kept.set(key, next);
  }
  store = next;
  for (const fn of swapListeners) fn();
}

/** The session `key` was closed. */
export function forgetSession(key: string): void {
  if (key !== shownKey) kept.delete(key);
}
