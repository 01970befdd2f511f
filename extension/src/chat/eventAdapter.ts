// Maps the agent's UI events (crate/src/events.rs, see agentEvents.ts) to the webview's UiEvents
// (webview/src/protocol.ts). Pure and stateful per session: it remembers the open message (the
// CLI may stream text without a message id) and each tool call's name (the webview updates a call
// by a repeated toolCallStart, which needs the name). No vscode import: tested under node:test.

import type {
  ModelInfo,
  TodoItem,
  TodoStatus,
  UiEvent,
  UiState,
} from "../../../webview/src/protocol";
import type { AgentEvent, AgentPermissionRequest } from "./agentEvents";

export interface Adapted {
  events: UiEvent[];
  /** Header state that changed (mode, model, busy, session id, models). */
  state?: Partial<UiState>;
}

const TODO_STATUSES: readonly TodoStatus[] = ["pending", "in_progress", "completed"];

function opt<T>(value: T | null | undefined): T | undefined {
  return value === null ? undefined : value;
}

export class EventAdapter {
  private openMessage: string | undefined;
  private syntheticMessages = 0;
  private readonly toolNames = new Map<string, string>();

  /** Forget per-session state (new session, resume). */
  reset(): void {
    this.openMessage = undefined;
    this.toolNames.clear();
  }

  adapt(event: AgentEvent): Adapted {
    switch (event.type) {
      case "sessionInit":
        return {
          events: [],
          state: {
            sessionId: event.sessionId,
            ...(event.model ? { model: event.model } : {}),
            ...(event.permissionMode ? { mode: event.permissionMode } : {}),
          },
        };
      case "sessionReady": {
        const models: ModelInfo[] = event.models.map((m) => ({ id: m.value, label: m.displayName || m.value }));
        return {
          events: [],
          state: { ...(models.length ? { models } : {}), ...(event.permissionMode ? { mode: event.permissionMode } : {}) },
        };
      }
      case "messageStart":
        this.openMessage = event.messageId;
        return {
          events: [
            { type: "messageStart", id: event.messageId, role: "assistant", parentToolCallId: opt(event.parentToolUseId) },
          ],
        };
      case "textDelta":
      case "thinkingDelta": {
        const events: UiEvent[] = [];
        const messageId = this.messageFor(event.messageId, event.parentToolUseId, events);
        events.push({ type: event.type, messageId, text: event.text });
        return { events };
      }
      case "messageStop":
        if (this.openMessage === event.messageId) this.openMessage = undefined;
        return { events: [{ type: "messageStop", messageId: event.messageId }] };
      case "toolCallStart":
        this.toolNames.set(event.id, event.name);
        return {
          events: [
            {
              type: "toolCallStart",
              toolCallId: event.id,
              name: event.name,
              input: event.input,
              kind: event.kind,
              title: event.title,
              parentToolCallId: opt(event.parentToolUseId),
            },
          ],
        };
      case "toolInputDelta":
        return { events: [{ type: "toolCallInputDelta", toolCallId: event.id, partialJson: event.partialJson }] };
      case "toolCallUpdate": {
        const name = this.toolNames.get(event.id);
        if (name === undefined) return { events: [] };
        return {
          events: [
            { type: "toolCallStart", toolCallId: event.id, name, input: event.input, kind: "", title: event.title },
          ],
        };
      }
      case "toolCallResult":
        return {
          events: [
            {
              type: "toolCallResult",
              toolCallId: event.id,
              isError: event.isError,
              content: event.content,
              ...(event.structured !== undefined && event.structured !== null
                ? { structured: event.structured as Record<string, unknown> }
                : {}),
            },
          ],
        };
      case "todoUpdate":
        return {
          events: [
            {
              type: "todoUpdate",
              todos: event.todos.map(
                (t): TodoItem => ({
                  content: t.content,
                  status: (TODO_STATUSES as readonly string[]).includes(t.status) ? (t.status as TodoStatus) : "pending",
                  ...(t.activeForm ? { activeForm: t.activeForm } : {}),
                }),
              ),
            },
          ],
        };
      case "plan":
        return { events: [{ type: "plan", toolCallId: event.toolCallId, plan: event.plan ?? "" }] };
      case "permissionRequest":
        return { events: [permissionRequest(event)], state: { busy: true } };
      case "permissionCancelled":
        return { events: [{ type: "permissionResolved", requestId: event.id, outcome: "cancelled" }] };
      case "permissionDenied":
        return {
          events: [
            {
              type: "notice",
              level: "warning",
              text: `${event.toolName} was denied${event.reason ? ` (${event.reason})` : ""}${event.message ? `: ${event.message}` : ""}`,
            },
          ],
        };
      case "modeChanged":
        return { events: [{ type: "modeChange", mode: event.mode }], state: { mode: event.mode } };
      case "modelChanged":
        return { events: [], state: { model: event.model ?? "" } };
      case "status": {
        const state = event.state === "requiresAction" ? "requires_action" : event.state;
        return { events: [{ type: "status", state }], state: { busy: state !== "idle" } };
      }
      case "apiRetry":
        return {
          events: [
            {
              type: "apiRetry",
              attempt: event.attempt,
              maxRetries: event.maxRetries,
              delayMs: event.delayMs,
              error: event.errorStatus ? `${event.errorStatus} ${event.error}` : event.error,
            },
          ],
        };
      case "rateLimit":
        if (event.status === "allowed") return { events: [] };
        return {
          events: [
            {
              type: "notice",
              level: "warning",
              text: `Rate limit ${event.status}${event.resetsAt ? `; resets at ${new Date(event.resetsAt * 1000).toLocaleTimeString()}` : ""}`,
            },
          ],
        };
      case "compacted":
        return { events: [{ type: "notice", level: "info", text: "The conversation was compacted." }] };
      case "mcpStatus": {
        const failed = event.servers.filter((s) => s.status !== "connected" && s.status !== "pending");
        if (failed.length === 0) return { events: [] };
        return {
          events: [
            {
              type: "notice",
              level: "warning",
              text: `MCP server ${failed.map((s) => `${s.name} (${s.status})`).join(", ")}`,
            },
          ],
        };
      }
      case "usage":
        return {
          events: [
            {
              type: "usage",
              inputTokens: event.inputTokens + event.cacheReadTokens + event.cacheCreationTokens,
              outputTokens: event.outputTokens,
              ...(typeof event.costUsd === "number" ? { costUsd: event.costUsd } : {}),
            },
          ],
        };
      case "done":
        this.openMessage = undefined;
        return {
          events: [
            {
              type: "done",
              subtype: event.subtype,
              isError: event.isError,
              durationMs: event.durationMs,
              numTurns: event.numTurns,
            },
          ],
          state: { busy: false, sessionId: event.sessionId },
        };
      case "error": {
        const text = event.hint ? `${event.message}\n${event.hint}` : event.message;
        if (event.severity === "notice") return { events: [{ type: "notice", level: "info", text }] };
        if (event.kind === "crash") {
          this.openMessage = undefined;
          return {
            events: [{ type: "error", kind: "crash", message: text, retryable: event.retryable ?? true }],
            state: { connected: false, busy: false },
          };
        }
        return {
          events: [
            {
              type: "error",
              kind: event.kind === "notLoggedIn" ? "login" : event.kind === "api" ? "api" : "other",
              message: text,
              retryable: event.retryable ?? (event.kind === "api" || event.kind === "executionError"),
            },
          ],
        };
      }
      case "toolProgress":
      case "activity":
      case "taskUpdate":
        // Nothing the webview shows yet (the tool row already spins).
        return { events: [] };
    }
  }

  /** The message a delta belongs to; opens one when the agent streams without messageStart. */
  private messageFor(id: string | null | undefined, parent: string | null | undefined, events: UiEvent[]): string {
    if (id) {
      if (this.openMessage !== id) {
        this.openMessage = id;
        events.push({ type: "messageStart", id, role: "assistant", parentToolCallId: opt(parent) });
      }
      return id;
    }
    if (this.openMessage) return this.openMessage;
    const synthetic = `tether-msg-${++this.syntheticMessages}`;
    this.openMessage = synthetic;
    events.push({ type: "messageStart", id: synthetic, role: "assistant", parentToolCallId: opt(parent) });
    return synthetic;
  }
}

function permissionRequest(event: AgentPermissionRequest): UiEvent {
  const reason = opt(event.reason) ?? opt(event.decisionReason);
  return {
    type: "permissionRequest",
    requestId: event.id,
    toolName: event.toolName,
    input: event.input,
    ...(event.title ? { title: event.title } : {}),
    ...(event.description ? { description: event.description } : {}),
    ...(event.agentId ? { agentId: event.agentId } : {}),
    ...(event.alwaysLabel && !event.suppressAlwaysAllow ? { alwaysRule: event.alwaysLabel } : {}),
    ...(event.review ? { diff: { path: event.review.path, hunks: event.review.hunks } } : {}),
    ...(reason ? { reason } : {}),
    ...(event.toolUseId ? { toolCallId: event.toolUseId } : {}),
  };
}
