// What the chat shows, as the store keeps it: assistant messages, tool calls (nested under their
// subagent), and the rows of the timeline. Each row and call has a version number `v`, bumped on
// every change, so only changed rows re-render.

import type { AuthMethodInfo, JsonValue, Location, PermissionRequest, RuleScope, ToolContentItem, ToolKind, UiEvent } from "@tether/core";
import type { IncrementalMarkdown } from "../markdown";
import type { Attachment } from "@tether/contract/protocol";

export type AgentEvent<T extends UiEvent["type"]> = Extract<UiEvent, { type: T }>;

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
  /** The agent's structured result (Claude Code's `tool_use_result`). */
  structured: JsonValue | null;
}

export type ToolChild = { kind: "tool"; call: ToolCall } | { kind: "message"; msg: AssistantMessage };

export interface ToolCall {
  id: string;
  name: string;
  kind: ToolKind;
  title: string;
  locations: Location[];
  input: unknown;
  /** Accumulated `partialJson` fragments. */
  inputJson: string;
  status: ToolStatus;
  result?: ToolResultData;
  parentId?: string;
  /** Nested calls and subagent text (Task/Agent). */
  children: ToolChild[];
  plan?: string;
  /** What the call shows besides its result (ACP agents): text, file changes, terminals. */
  content?: ToolContentItem[];
  awaitingApproval?: boolean;
  /** Why Tether refused the call without asking (plan mode, a deny rule). */
  refusal?: string;
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
  /** The chat's id of the message (its actions name it); none for a replayed agent's message. */
  messageId?: string;
  text: string;
  attachments: Attachment[];
  /** Sent back by the agent in pieces (a loaded session's replay): later pieces append. */
  streamed?: boolean;
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
  req: PermissionRequest;
  outcome?: "allowed" | "denied" | "cancelled";
  always?: boolean;
  /** Where "always" saved its rules. */
  destination?: RuleScope;
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
  ev: AgentEvent<"apiRetry">;
}
export interface ErrorRow extends RowBase {
  kind: "error";
  ev: AgentEvent<"error">;
  retried?: boolean;
}
/** The agent will not work until the user logs in: its ways to log in. */
export interface AuthRow extends RowBase {
  kind: "auth";
  methods: AuthMethodInfo[];
  message: string;
}
export interface DoneRow extends RowBase {
  kind: "done";
  ev: AgentEvent<"done">;
  usage?: AgentEvent<"usage">;
}

/** The agent keeps earlier messages of this session than those shown (a gateway's paged history). */
export interface OlderRow extends RowBase {
  kind: "older";
}
export type Row = UserRow | AssistantRow | ToolRow | PermissionRow | NoticeRow | RetryRow | ErrorRow | DoneRow | AuthRow | OlderRow;

/** A terminal's output as a tool card shows it. */
export interface TerminalView {
  output: string;
  exited: boolean;
  exitCode: number | null;
  signal: string | null;
}

/** The rows in order, and the keys that tell them apart. */
export class Timeline {
  rows: Row[] = [];
  private seq = 0;

  key(prefix: string): string {
    return `${prefix}:${++this.seq}`;
  }

  push(row: Row): void {
    this.rows.push(row);
  }

  notice(level: "info" | "warning", text: string): void {
    this.push({ kind: "notice", key: this.key("n"), v: 0, level, text });
  }

  clear(): void {
    this.rows = [];
  }

  /**
   * A page of a session's messages as the agent keeps them, at the start (`older`: before those
   * shown) or as the whole chat; a "load earlier" row leads while the agent has more.
   */
  putTranscript(rows: Row[], hasMore: boolean, older: boolean): void {
    const rest = older ? this.rows.filter((r) => r.kind !== "older") : [];
    const lead: Row[] = hasMore ? [{ kind: "older", key: this.key("o"), v: 0 }] : [];
    this.rows = [...lead, ...rows, ...rest];
  }
}
