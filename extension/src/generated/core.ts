// Generated from the Rust types by `cargo test` (crate/src/typescript.rs). Do not edit: change the
// Rust type, then run `TETHER_UPDATE_GENERATED=1 cargo test -p tether-core --lib typescript`.

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

export type UiEvent = { "type": "sessionInit", sessionId: string, model: string | null, tools: Array<string>, mcpServers: Array<McpServerStatus>, permissionMode: string | null, agentVersion: string | null, }
  | { "type": "sessionReady", agentVersion: string | null, models: Array<ModelOption>, commands: Array<CommandInfo>, permissionMode: string | null, }
  | { "type": "messageStart", messageId: string, parentToolUseId: string | null, }
  | { "type": "textDelta", messageId: string | null, text: string, parentToolUseId: string | null, }
  | { "type": "thinkingDelta", messageId: string | null, text: string, parentToolUseId: string | null, }
  | { "type": "messageStop", messageId: string, stopReason: string | null, }
  | { "type": "toolCallStart", id: string, name: string, input: JsonValue, kind: ToolKind, title: string, locations: Array<Location>, parentToolUseId: string | null, }
  | { "type": "toolInputDelta", id: string, partialJson: string, }
  | { "type": "toolCallUpdate", id: string, input: JsonValue, title: string, locations: Array<Location>, }
  | { "type": "toolCallResult", id: string, isError: boolean, 
/**
 * The model-facing result as text (text blocks joined; images left out).
 */
content: string, 
/**
 * Structured result for rendering (for Claude: the CLI's `tool_use_result`).
 */
structured: JsonValue | null, parentToolUseId: string | null, }
  | { "type": "toolProgress", id: string, name: string, elapsedSeconds: number, }
  | { "type": "todoUpdate", todos: Array<TodoItem>, }
  | { "type": "plan", toolCallId: string, plan: string | null, filePath: string | null, }
  | { "type": "permissionRequest" } & PermissionRequest | { "type": "permissionCancelled", id: string, }
  | { "type": "permissionDenied", toolUseId: string, toolName: string, message: string | null, reason: string | null, agentId: string | null, }
  | { "type": "modeChanged", mode: string, }
  | { "type": "modelChanged", model: string | null, }
  | { "type": "status", state: SessionState, }
  | { "type": "activity", activity: string | null, }
  | { "type": "apiRetry", attempt: number, maxRetries: number, delayMs: number, errorStatus: number | null, error: string, }
  | { "type": "rateLimit", status: string, resetsAt: number | null, limitType: string | null, }
  | { "type": "compacted", trigger: string | null, preTokens: number | null, }
  | { "type": "taskUpdate", taskId: string, toolUseId: string | null, status: string, description: string | null, summary: string | null, }
  | { "type": "mcpStatus", servers: Array<McpServerStatus>, }
  | { "type": "usage", inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number, costUsd: number | null, }
  | { "type": "done", subtype: string, isError: boolean, durationMs: number, numTurns: number, sessionId: string, result: string | null, stopReason: string | null, }
  | { "type": "error", kind: ErrorKind, severity: Severity, message: string, hint: string | null, 
/**
 * Whether starting again (resuming `session_id`) can pick up; set by the driver.
 */
retryable?: boolean | null, 
/**
 * The session to resume, when the agent had started one; set by the driver.
 */
sessionId?: string | null, };

export type ToolKind = "read" | "edit" | "execute" | "search" | "think" | "fetch" | "switch_mode" | "other";

export type Location = { path: string, 
/**
 * 1-based line, when the call targets one.
 */
line: number | null, };

export type TodoItem = { content: string, status: string, activeForm: string | null, };

/**
 * A tool call waiting for the user's (or the permission engine's) decision.
 */

export type PermissionRequest = { 
/**
 * Answer with this id.
 */
id: string, toolUseId: string | null, 
/**
 * The built-in name (`Write`, not `mcp__tether__Write`).
 */
toolName: string, 
/**
 * The name as the agent knows it.
 */
rawToolName: string, kind: ToolKind, input: JsonValue, 
/**
 * Set when a subagent asks.
 */
agentId: string | null, 
/**
 * Permission updates that "always allow" would apply (the agent's own shapes).
 */
suggestions: Array<JsonValue>, title: string | null, displayName: string | null, description: string | null, blockedPath: string | null, decisionReason: string | null, decisionReasonType: string | null, 
/**
 * The agent asks not to offer "always allow" for this call.
 */
suppressAlwaysAllow: boolean, 
/**
 * The tool itself is a question for the user (ExitPlanMode, AskUserQuestion).
 */
requiresUserInteraction: boolean, 
/**
 * What "Always allow" would add (a rule or a mode), when the permission engine offers it.
 */
alwaysLabel?: string | null, 
/**
 * Why the permission engine asks.
 */
reason?: string | null, 
/**
 * For file edits: the whole proposed file, so the user can review (and change) it.
 */
review?: EditReview | null, };

/**
 * A proposed file change shown for review before it is written.
 */

export type EditReview = { 
/**
 * The workspace path.
 */
path: string, 
/**
 * The text before; None for a new file.
 */
original: string | null, 
/**
 * The text after.
 */
proposed: string, 
/**
 * The change as `structuredPatch` hunks (none when it is too large to diff).
 */
hunks: Array<Hunk>, };

/**
 * One hunk, as jsdiff's `structuredPatch` (and so Claude Code's `structuredPatch`) has it:
 * 1-based starts, and `lines` prefixed with `' '`, `'-'` or `'+'`, without their line break.
 */

export type Hunk = { oldStart: number, oldLines: number, newStart: number, newLines: number, lines: Array<string>, };

export type SessionState = "idle" | "running" | "requiresAction";

export type McpServerStatus = { name: string, status: string, };

export type ModelOption = { value: string, displayName: string | null, description: string | null, };

export type CommandInfo = { name: string, description: string | null, argumentHint: string | null, };

export type ErrorKind = "notLoggedIn" | "maxTurns" | "maxBudget" | "interrupted" | "api" | "executionError" | "controlRequestFailed" | "crash" | "other";

export type Severity = "notice" | "error";

/**
 * One thing for the driver to do (JS: `{type: "write", line}` / `{type: "event", event}`).
 */

export type AgentOutput = { "type": "write", line: string, }
  | { "type": "event", event: UiEvent, };

/**
 * What the driver passes to [`ClaudeAgent::new`] (JS: `AgentConfig`).
 */

export type AgentConfig = { 
/**
 * The workspace root (the remote path for a remote workspace).
 */
root: string, 
/**
 * The CLI's local working directory; paths under it map onto `root`.
 */
mirror?: string, 
/**
 * For `~/` in permission rules and commands.
 */
homeDir: string, 
/**
 * The text of the user's `~/.claude/settings.json`, read by the driver.
 */
userSettings?: string, 
/**
 * `default`, `acceptEdits`, `plan`, `dontAsk` or `bypassPermissions`; when absent, the
 * settings' `defaultMode` applies.
 */
mode?: PermissionMode, model?: string, 
/**
 * A session id to resume.
 */
resume?: string, 
/**
 * Extra environment for the CLI (not for the commands the tools run).
 */
env?: { [key in string]: string }, remote?: RemoteConfig, 
/**
 * More system prompt, e.g. the remote project's CLAUDE.md.
 */
extraSystemPrompt?: string, 
/**
 * The project's `.claude/agents/*.md` files, read by the driver: offered to the model as
 * subagents.
 */
agentFiles?: Array<AgentFile>, 
/**
 * Extra built-ins for `--tools`.
 */
allowedTools?: Array<string>, 
/**
 * Extra entries for `--disallowedTools`.
 */
disallowedTools?: Array<string>, };

/**
 * One of the project's `.claude/agents/*.md` files.
 */

export type AgentFile = { 
/**
 * The file name (`reviewer.md`).
 */
name: string, text: string, };

/**
 * What the model is told about the machine the workspace is on.
 */

export type RemoteConfig = { os?: string, shell?: string, gitBranch?: string, };

/**
 * Claude Code's permission modes.
 */

export type PermissionMode = "default" | "acceptEdits" | "plan" | "dontAsk" | "bypassPermissions";

/**
 * The user's answer to a `permissionRequest` event (JS: `PermissionAnswer`).
 */

export type PermissionAnswer = { decision: UserDecision, 
/**
 * Why the user refused; the model reads it.
 */
reason?: string, 
/**
 * Edits only: the file content the user left in the review editor; that is what is written.
 */
userContent?: string, };

export type UserDecision = "allow" | "always" | "deny";

/** Every permission mode, in the order the pickers show them. */
export const PERMISSION_MODES: readonly PermissionMode[] = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"];

/** Tether's tools, by the built-in names the model knows. */
export const TOOL_NAMES = ["Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep", "LS", "Bash", "BashOutput", "KillShell"] as const;

/** How an agent sees Tether's tools: `mcp__tether__Read`, ... */
export const MCP_PREFIX = "mcp__tether__";
