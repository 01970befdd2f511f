/**
 * The contract between the Tether extension and the chat webview.
 *
 * This file has no runtime code and no imports: the extension imports the types from here
 * (`import type { ... } from "../webview/src/protocol"`), and so do the webview and its tests.
 *
 * Direction:
 *  - {@link ExtensionToWebview}: the extension `postMessage`s these to the webview. It batches
 *    `events` every ~16–50 ms; the webview additionally coalesces them per animation frame.
 *  - {@link WebviewToExtension}: the webview posts these through `acquireVsCodeApi().postMessage`.
 *
 * All tags and fields are camelCase.
 */

// ---------------------------------------------------------------------------------------------
// Shared shapes
// ---------------------------------------------------------------------------------------------

export type PermissionMode = "default" | "acceptEdits" | "plan" | "dontAsk" | "bypassPermissions";

/** Where the agent's process runs relative to the files (the header badge). */
export type Where = "local" | "ui-remote" | "workspace";

export interface ModelInfo {
  id: string;
  label: string;
}

export interface ModeInfo {
  /** Usually a {@link PermissionMode}; other agents may bring their own modes. */
  id: string;
  label: string;
  description: string;
}

export interface UiState {
  sessionId?: string;
  mode: string;
  model: string;
  models: ModelInfo[];
  modes: ModeInfo[];
  where: Where;
  /** Shown next to the badge, e.g. "ssh: gpu-box:/data/proj". */
  workspaceLabel: string;
  connected: boolean;
  busy: boolean;
}

/** One hunk in Claude Code's `structuredPatch` form. `lines` are prefixed with " ", "-" or "+". */
export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export type TodoStatus = "pending" | "in_progress" | "completed";

export interface TodoItem {
  content: string;
  status: TodoStatus;
  activeForm?: string;
}

/** ACP-style tool kinds. Free text is tolerated; the webview picks the renderer from `name`. */
export type ToolKind =
  | "read"
  | "edit"
  | "delete"
  | "move"
  | "search"
  | "execute"
  | "think"
  | "fetch"
  | "switch_mode"
  | "other"
  | (string & {});

export interface Attachment {
  kind: "file" | "selection" | "image";
  /** file and selection: the workspace path (as displayed / as the extension understands it). */
  path?: string;
  /** selection: the 1-based inclusive line range. */
  range?: { startLine: number; endLine: number };
  /** selection: the selected text. */
  text?: string;
  /** image: `data:<mime>;base64,...`. */
  dataUrl?: string;
  mimeType?: string;
}

// ---------------------------------------------------------------------------------------------
// Structured tool results (the CLI's `tool_use_result`) the webview knows how to render.
// Anything else is shown as text.
// ---------------------------------------------------------------------------------------------

export interface EditResult {
  filePath: string;
  structuredPatch: PatchHunk[];
  originalFile?: string | null;
  oldString?: string;
  newString?: string;
  replaceAll?: boolean;
  userModified?: boolean;
}

export interface WriteResult {
  type: "create" | "update" | (string & {});
  filePath: string;
  content: string;
  structuredPatch: PatchHunk[];
  originalFile?: string | null;
}

export interface ReadResult {
  type: "text" | (string & {});
  file: { filePath: string; numLines: number; startLine: number; totalLines: number; content?: string };
}

export interface BashResult {
  stdout: string;
  stderr: string;
  exitCode?: number;
  interrupted?: boolean;
}

export interface GlobResult {
  filenames: string[];
  numFiles: number;
  truncated?: boolean;
  durationMs?: number;
}

export interface GrepResult {
  mode?: "content" | "files_with_matches" | "count" | (string & {});
  numFiles: number;
  filenames: string[];
  content?: string;
  numMatches?: number;
  numLines?: number;
}

export type StructuredToolResult =
  | EditResult
  | WriteResult
  | ReadResult
  | BashResult
  | GlobResult
  | GrepResult
  | Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// UiEvent: the normalized event stream every backend maps to.
// ---------------------------------------------------------------------------------------------

export interface UserMessageEvent {
  type: "userMessage";
  id: string;
  text: string;
  attachments?: Attachment[];
}

export interface MessageStartEvent {
  type: "messageStart";
  id: string;
  role: "assistant";
  /** Set when a subagent speaks; its text is then shown inside the Task/Agent group. (addition) */
  parentToolCallId?: string;
}

export interface TextDeltaEvent {
  type: "textDelta";
  messageId: string;
  text: string;
}

export interface ThinkingDeltaEvent {
  type: "thinkingDelta";
  messageId: string;
  text: string;
}

export interface MessageStopEvent {
  type: "messageStop";
  messageId: string;
}

export interface ToolCallStartEvent {
  type: "toolCallStart";
  toolCallId: string;
  /** Built-in name (Read, Write, Edit, MultiEdit, NotebookEdit, Glob, Grep, LS, Bash, BashOutput,
   *  KillShell, TodoWrite, ExitPlanMode, Task, Agent, WebFetch, WebSearch, …) or an `mcp__server__tool` name. */
  name: string;
  input: unknown;
  kind: ToolKind;
  title: string;
  /** Subagent calls nest under their Task/Agent call. */
  parentToolCallId?: string;
  agentId?: string;
}

export interface ToolCallInputDeltaEvent {
  type: "toolCallInputDelta";
  toolCallId: string;
  /** A fragment of the input JSON (Anthropic `input_json_delta.partial_json`); fragments are
   *  concatenated in order. When the accumulated text parses, it replaces `input`. */
  partialJson: string;
}

export interface ToolCallResultEvent {
  type: "toolCallResult";
  toolCallId: string;
  isError: boolean;
  /** The model-facing result as text. */
  content: string;
  /** The CLI's `tool_use_result`. */
  structured?: StructuredToolResult;
}

export interface TodoUpdateEvent {
  type: "todoUpdate";
  todos: TodoItem[];
}

export interface PlanEvent {
  type: "plan";
  toolCallId: string;
  /** Markdown. */
  plan: string;
}

export interface PermissionRequestEvent {
  type: "permissionRequest";
  requestId: string;
  toolName: string;
  input: unknown;
  title?: string;
  description?: string;
  agentId?: string;
  /** The subagent's type/name, e.g. "code-reviewer". */
  agentType?: string;
  /** The rule text "Always allow" adds, e.g. "Bash(npm run test:*)". No rule → no "Always" button. */
  alwaysRule?: string;
  diff?: { path: string; hunks: PatchHunk[] };
  /** Why the CLI asks (e.g. "Path is outside allowed working directories"). */
  reason?: string;
  /** The tool call this request is about, when known; the call then shows "awaiting approval". (addition) */
  toolCallId?: string;
}

export interface PermissionResolvedEvent {
  type: "permissionResolved";
  requestId: string;
  outcome: "allowed" | "denied" | "cancelled";
  /** (addition) "always" when the rule was added, and the reason typed on reject. */
  always?: boolean;
  reason?: string;
}

export interface ModeChangeEvent {
  type: "modeChange";
  mode: string;
}

export interface StatusEvent {
  type: "status";
  state: "idle" | "running" | "requires_action";
}

export interface ApiRetryEvent {
  type: "apiRetry";
  attempt: number;
  maxRetries: number;
  delayMs: number;
  error: string;
}

export interface NoticeEvent {
  type: "notice";
  level: "info" | "warning";
  text: string;
}

export interface UsageEvent {
  type: "usage";
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
}

export interface DoneEvent {
  type: "done";
  subtype: string;
  isError: boolean;
  durationMs: number;
  numTurns: number;
}

export interface ErrorEvent {
  type: "error";
  kind: "login" | "crash" | "api" | "protocol" | "other";
  message: string;
  retryable: boolean;
}

export type UiEvent =
  | UserMessageEvent
  | MessageStartEvent
  | TextDeltaEvent
  | ThinkingDeltaEvent
  | MessageStopEvent
  | ToolCallStartEvent
  | ToolCallInputDeltaEvent
  | ToolCallResultEvent
  | TodoUpdateEvent
  | PlanEvent
  | PermissionRequestEvent
  | PermissionResolvedEvent
  | ModeChangeEvent
  | StatusEvent
  | ApiRetryEvent
  | NoticeEvent
  | UsageEvent
  | DoneEvent
  | ErrorEvent;

export type UiEventType = UiEvent["type"];

// ---------------------------------------------------------------------------------------------
// Extension → webview
// ---------------------------------------------------------------------------------------------

export interface HistorySession {
  id: string;
  title: string;
  /** Epoch milliseconds or an ISO-8601 string. */
  updatedAt: number | string;
  messageCount: number;
}

export interface FileSuggestion {
  path: string;
  label: string;
}

export type ExtensionToWebview =
  | { type: "init"; state: UiState }
  | { type: "events"; events: UiEvent[] }
  | ({ type: "state" } & Partial<UiState>)
  | { type: "history"; sessions: HistorySession[] }
  | { type: "fileSuggestions"; requestId: string; items: FileSuggestion[] }
  /** Resume: replaces the transcript with a past session, rendered in one go. */
  | { type: "replay"; events: UiEvent[] }
  | { type: "clear" }
  /** (addition) Add a chip to the composer, e.g. from "Ask about selection" / "Add file to chat". */
  | { type: "addAttachment"; attachment: Attachment }
  /** (addition) Put text in the composer (appended to the draft) and focus it. */
  | { type: "prefill"; text: string }
  /** (addition) Focus the composer (e.g. the "focus chat" keybinding). */
  | { type: "focus" };

// ---------------------------------------------------------------------------------------------
// Webview → extension
// ---------------------------------------------------------------------------------------------

export type PermissionDecision = "allow" | "always" | "deny";

export type WebviewToExtension =
  | { type: "ready" }
  | { type: "sendPrompt"; text: string; attachments: Attachment[] }
  | { type: "stop" }
  | { type: "newSession" }
  | { type: "resume"; sessionId: string }
  | { type: "requestHistory" }
  | { type: "setMode"; mode: string }
  | { type: "setModel"; model: string }
  | { type: "permission"; requestId: string; decision: PermissionDecision; reason?: string }
  /** `line` is 1-based. */
  | { type: "openFile"; path: string; line?: number }
  | { type: "openDiff"; requestId: string }
  | { type: "suggestFiles"; requestId: string; query: string }
  | { type: "retry" };

/** The state the webview keeps with `vscode.setState` (survives the view being hidden). */
export interface PersistedWebviewState {
  draft: string;
  attachments: Attachment[];
}

/** Arguments for {@link import("./html").renderWebviewHtml}. */
export interface WebviewHtmlOptions {
  /** `webview.cspSource`. */
  cspSource: string;
  /** A fresh random nonce (base64/alnum) per render. */
  nonce: string;
  /** `asWebviewUri(out/main.js)`. */
  scriptUri: string;
  /** `asWebviewUri(out/main.css)`. */
  styleUri: string;
  /** `asWebviewUri(out/codicon.css)` (its font `codicon.ttf` sits next to it). */
  codiconUri: string;
  /** Optional document title. */
  title?: string;
}
