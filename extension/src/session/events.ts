// The normalized UI events (crate/src/events.rs `UiEvent`, serialized tagged by `type` with
// camelCase names). Only the events the driver and its front ends look into are spelled out; the
// rest pass through as they are.

export interface PermissionRequestEvent {
  type: "permissionRequest";
  id: string;
  toolUseId: string | null;
  /** The built-in name (`Edit`, not `mcp__tether__Edit`). */
  toolName: string;
  rawToolName: string;
  kind: string;
  input: Record<string, unknown>;
  agentId: string | null;
  suggestions: unknown[];
  title: string | null;
  displayName: string | null;
  description: string | null;
  blockedPath: string | null;
  decisionReason: string | null;
  decisionReasonType: string | null;
  suppressAlwaysAllow: boolean;
  requiresUserInteraction: boolean;
  /** Added by the agent: what "Always allow" adds, and the engine's reason. */
  alwaysLabel?: string | null;
  reason?: string | null;
  /** Edits only: the proposed file for the diff editor. */
  review?: { path: string; original: string | null; proposed: string; hunks: unknown[] } | null;
}

export interface DoneEvent {
  type: "done";
  subtype: string;
  isError: boolean;
  durationMs: number;
  numTurns: number;
  sessionId: string;
  result: string | null;
  stopReason: string | null;
}

/** events.rs `ErrorKind`, plus `crash`, which only the driver can see: the CLI process died. */
export type ErrorKind =
  | "notLoggedIn"
  | "maxTurns"
  | "maxBudget"
  | "interrupted"
  | "api"
  | "executionError"
  | "controlRequestFailed"
  | "other"
  | "crash";

export interface ErrorEvent {
  type: "error";
  kind: ErrorKind;
  severity: "notice" | "error";
  message: string;
  hint: string | null;
  /** Driver errors only: whether starting again (with `resume: sessionId`) can pick up. */
  retryable?: boolean;
  /** Driver errors only: the session to resume, when the CLI had started one. */
  sessionId?: string | null;
}

export interface SessionInitEvent {
  type: "sessionInit";
  sessionId: string;
  model: string | null;
  tools: string[];
  permissionMode: string | null;
  agentVersion: string | null;
}

export interface PermissionCancelledEvent {
  type: "permissionCancelled";
  id: string;
}

/** Any other event, passed through untouched. */
export interface OtherEvent {
  type: string;
  [field: string]: unknown;
}

type KnownEvent = PermissionRequestEvent | DoneEvent | ErrorEvent | SessionInitEvent | PermissionCancelledEvent;

export type UiEvent = KnownEvent | OtherEvent;

export function isEvent<T extends KnownEvent["type"]>(event: UiEvent, type: T): event is Extract<KnownEvent, { type: T }> {
  return event.type === type;
}
