// The agent's UI events as the wasm TetherAgent emits them: crate/src/events.rs `UiEvent`,
// serialized by serde (tagged by `type`, camelCase; Option → null or absent). Types only.

import type { ErrorKind } from "../session/events";

export type AgentToolKind = "read" | "edit" | "execute" | "search" | "think" | "fetch" | "switch_mode" | "other";

export interface AgentLocation {
  path: string;
  line?: number | null;
}

export interface AgentPatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** What an Edit/Write permission request proposes (agent-contract.md). */
export interface AgentReview {
  path: string;
  original: string | null;
  proposed: string;
  hunks: AgentPatchHunk[];
}

export interface AgentPermissionRequest {
  type: "permissionRequest";
  id: string;
  toolUseId?: string | null;
  toolName: string;
  rawToolName: string;
  kind: AgentToolKind;
  input: unknown;
  agentId?: string | null;
  suggestions: unknown[];
  title?: string | null;
  displayName?: string | null;
  description?: string | null;
  blockedPath?: string | null;
  decisionReason?: string | null;
  decisionReasonType?: string | null;
  suppressAlwaysAllow: boolean;
  requiresUserInteraction: boolean;
  /** Added by the agent for the UI: what "Always allow" adds. */
  alwaysLabel?: string | null;
  /** Added by the agent: the permission engine's reason. */
  reason?: string | null;
  /** Added by the agent for Edit/MultiEdit/Write/NotebookEdit. */
  review?: AgentReview | null;
}

type Opt<T> = T | null | undefined;

export type AgentEvent =
  | {
      type: "sessionInit";
      sessionId: string;
      model?: Opt<string>;
      tools: string[];
      mcpServers: { name: string; status: string }[];
      permissionMode?: Opt<string>;
      agentVersion?: Opt<string>;
    }
  | {
      type: "sessionReady";
      agentVersion?: Opt<string>;
      models: { value: string; displayName?: Opt<string>; description?: Opt<string> }[];
      commands: { name: string; description?: Opt<string>; argumentHint?: Opt<string> }[];
      permissionMode?: Opt<string>;
    }
  | { type: "messageStart"; messageId: string; parentToolUseId?: Opt<string> }
  | { type: "textDelta"; messageId?: Opt<string>; text: string; parentToolUseId?: Opt<string> }
  | { type: "thinkingDelta"; messageId?: Opt<string>; text: string; parentToolUseId?: Opt<string> }
  | { type: "messageStop"; messageId: string; stopReason?: Opt<string> }
  | {
      type: "toolCallStart";
      id: string;
      name: string;
      input: unknown;
      kind: AgentToolKind;
      title: string;
      locations: AgentLocation[];
      parentToolUseId?: Opt<string>;
    }
  | { type: "toolInputDelta"; id: string; partialJson: string }
  | { type: "toolCallUpdate"; id: string; input: unknown; title: string; locations: AgentLocation[] }
  | {
      type: "toolCallResult";
      id: string;
      isError: boolean;
      content: string;
      structured?: unknown;
      parentToolUseId?: Opt<string>;
    }
  | { type: "toolProgress"; id: string; name: string; elapsedSeconds: number }
  | { type: "todoUpdate"; todos: { content: string; status: string; activeForm?: Opt<string> }[] }
  | { type: "plan"; toolCallId: string; plan?: Opt<string>; filePath?: Opt<string> }
  | AgentPermissionRequest
  | { type: "permissionCancelled"; id: string }
  | {
      type: "permissionDenied";
      toolUseId: string;
      toolName: string;
      message?: Opt<string>;
      reason?: Opt<string>;
      agentId?: Opt<string>;
    }
  | { type: "modeChanged"; mode: string }
  | { type: "modelChanged"; model?: Opt<string> }
  | { type: "status"; state: "idle" | "running" | "requiresAction" }
  | { type: "activity"; activity?: Opt<string> }
  | {
      type: "apiRetry";
      attempt: number;
      maxRetries: number;
      delayMs: number;
      errorStatus?: Opt<number>;
      error: string;
    }
  | { type: "rateLimit"; status: string; resetsAt?: Opt<number>; limitType?: Opt<string> }
  | { type: "compacted"; trigger?: Opt<string>; preTokens?: Opt<number> }
  | {
      type: "taskUpdate";
      taskId: string;
      toolUseId?: Opt<string>;
      status: string;
      description?: Opt<string>;
      summary?: Opt<string>;
    }
  | { type: "mcpStatus"; servers: { name: string; status: string }[] }
  | {
      type: "usage";
      inputTokens: number;
      outputTokens: number;
      cacheReadTokens: number;
      cacheCreationTokens: number;
      costUsd?: Opt<number>;
    }
  | {
      type: "done";
      subtype: string;
      isError: boolean;
      durationMs: number;
      numTurns: number;
      sessionId: string;
      result?: Opt<string>;
      stopReason?: Opt<string>;
    }
  | {
      type: "error";
      kind: ErrorKind;
      severity: "notice" | "error";
      message: string;
      hint?: Opt<string>;
      /** Driver errors: whether starting again (resuming sessionId) can pick up. */
      retryable?: boolean;
      sessionId?: Opt<string>;
    };
