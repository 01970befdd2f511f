/**
 * The messages between the Tether extension and the chat webview. Types only; the extension and the
 * webview (and its tests) import them from here.
 *
 * The chat renders the core's events as the core emits them (`UiEvent`, generated from the Rust
 * types into extension/src/generated/core.ts, imported as `@tether/core`). This file adds only what
 * is not an agent event: the user's turns, the answers to permission requests, the header state,
 * history, file suggestions and attachments.
 *
 * Direction:
 *  - {@link ExtensionToWebview}: the extension `postMessage`s these to the webview. It batches
 *    `events` every ~30 ms; the webview additionally coalesces them per animation frame.
 *  - {@link WebviewToExtension}: the webview posts these through `acquireVsCodeApi().postMessage`.
 */

import type { AgentOption, AuthMethodInfo, CanvasAction, CommandInfo, McpServerEntry, OffItem, PermissionAnswer, RewindPreview, RuleScope, SessionOpKind, UiEvent, UserDecision } from "@tether/core";

// ---------------------------------------------------------------------------------------------
// Header state
// ---------------------------------------------------------------------------------------------

/** Where the agent's process runs relative to the files (the header badge). */
export type Where = "local" | "ui-remote" | "workspace";

export interface ModelInfo {
  id: string;
  label: string;
}

export interface ModeInfo {
  /** A permission mode for Claude Code; other agents may bring their own modes. */
  id: string;
  label: string;
  description: string;
}

/** An agent the picker offers (the agent registry's entries). */
export interface AgentInfo {
  id: string;
  label: string;
}

/** How much of the model's context the session uses, what fills it, and what the session cost. */
export interface ContextInfo {
  used: number;
  size: number;
  cost?: number;
  currency?: string;
  /** The used part by category (Claude Code's `/context`), where the agent says. */
  breakdown?: { name: string; tokens: number }[];
}

export interface UiState {
  sessionId?: string;
  mode: string;
  model: string;
  models: ModelInfo[];
  modes: ModeInfo[];
  /** The agent new sessions start with, and the agents to pick from. */
  agent?: string;
  agents?: AgentInfo[];
  /** What the chat calls the agent ("Claude", "Gemini CLI"). */
  agentLabel?: string;
  /** The agent's own options (its model, reasoning effort, its modes, …), as pickers. */
  agentOptions?: AgentOption[];
  /** The agent's slash commands, for the composer. */
  commands?: CommandInfo[];
  /** The project's own commands (`.claude/commands` on the workspace) the agent does not list:
   * Tether expands them when sent. */
  projectCommands?: CommandInfo[];
  /** The ways the agent offers to log in. */
  authMethods?: AuthMethodInfo[];
  /** Which key sends the composer's message (`tether.sendWith`; the other starts a new line). */
  sendWith?: "enter" | "shiftEnter";
  context?: ContextInfo;
  /** The session's title, when the agent gives one. */
  title?: string;
  where: Where;
  /** Shown next to the badge, e.g. "ssh: gpu-box:/data/proj". */
  workspaceLabel: string;
  /** The workspace folder's path as the agent names files (tool rows show paths relative to it). */
  workspaceRoot?: string;
  connected: boolean;
  busy: boolean;
  /** The session operations the agent offers (fork and close show in the history where offered). */
  offers?: SessionOpKind[];
  /** Messages sent while a turn ran, waiting for it to end (oldest first). */
  queue?: QueuedMessage[];
  /** What a user message offers: rewinding the files to before it (checkpoints on), a new
   * session from it (where the agent can fork at a message). */
  messageActions?: { rewind: boolean; fork: boolean };
  /** A gateway backend's connection (OpenClaw): its state and why, for the header and status bar. */
  gateway?: { state: "disconnected" | "connecting" | "connected" | "error"; message?: string };
  /** The project's setup in this session: its MCP servers, and what is off with the reason. */
  projectSetup?: ProjectSetupInfo;
}

/** How a server of the project's `.mcp.json` runs in this session. */
export interface ProjectServerInfo {
  name: string;
  transport: McpServerEntry["type"];
  running: boolean;
  /** Where it runs, or why it does not. */
  detail: string;
}

/** What the project configures, as this session runs it: its servers, and what is off, and why. */
export interface ProjectSetupInfo {
  servers: ProjectServerInfo[];
  off: OffItem[];
}

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
// The chat: the core's events, plus what the extension adds to them
// ---------------------------------------------------------------------------------------------

/** A message the user sent while a turn ran: it waits for the turn to end. */
export interface QueuedMessage {
  id: string;
  text: string;
  attachments?: Attachment[];
}

/** A turn the user sent. */
export interface UserMessage {
  type: "userMessage";
  id: string;
  text: string;
  attachments?: Attachment[];
}

/** How a permission request was answered (by the user, or withdrawn). */
export interface PermissionResolved {
  type: "permissionResolved";
  requestId: string;
  outcome: "allowed" | "denied" | "cancelled";
  /** The user chose "always": the request's rule was added. */
  always?: boolean;
  /** Where "always" saved its rules. */
  destination?: RuleScope;
  /** What the user typed when rejecting. */
  reason?: string;
}

/** One entry of the chat, in order: an agent event, a user turn, or a permission's answer. */
export type ChatEntry = UiEvent | UserMessage | PermissionResolved;

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

/** One of the open sessions, for the sidebar's session strip (and the editor tabs' titles). */
export interface OpenSessionInfo {
  /** Tether's own id of the open session (not the agent's). */
  key: string;
  title: string;
  agentLabel: string;
  /** A permission question waits for the user. */
  waiting: boolean;
  /** A turn ended while no view showing the session was visible. */
  unread: boolean;
  busy: boolean;
  /** Shown in an editor tab. */
  inEditor: boolean;
}

/** What the history list may do with its sessions (where the agent allows it). */
export interface HistoryActions {
  rename: boolean;
  delete: boolean;
}

export interface FileSuggestion {
  /** A file or folder: its workspace path; a terminal: its name. */
  path: string;
  label: string;
  /** What the mention names (a file when absent). */
  kind?: "file" | "folder" | "terminal" | "problems";
  /** What is shown after the label (a folder's place, a terminal's kind). */
  detail?: string;
}

export type ExtensionToWebview =
  | { type: "init"; state: UiState }
  | { type: "events"; events: ChatEntry[] }
  | ({ type: "state" } & Partial<UiState>)
  | { type: "history"; sessions: HistorySession[]; actions?: HistoryActions }
  | { type: "fileSuggestions"; requestId: string; items: FileSuggestion[] }
  /** Resume: replaces the transcript with a past session, rendered in one go. */
  | { type: "replay"; events: ChatEntry[] }
  | { type: "clear" }
  /** Add a chip to the composer, e.g. from "Ask about selection" / "Add file to chat". */
  | { type: "addAttachment"; attachment: Attachment }
  /** Put text in the composer (appended to the draft) and focus it. */
  | { type: "prefill"; text: string }
  /** Focus the composer (e.g. the "focus chat" keybinding). */
  | { type: "focus" }
  /** The view now shows the open session `key`: the messages after this one are its. The page
   * keeps each session's chat, so showing one again sends only what it missed. */
  | { type: "showSession"; key: string; surface: "sidebar" | "editor" }
  /** The open sessions (the sidebar's strip). */
  | { type: "openSessions"; sessions: OpenSessionInfo[] }
  /** The open session `key` was closed: the page may drop what it kept of it. */
  | { type: "forgetSession"; key: string }
  /** What rewinding to before a user message would do, asked for by `messageAction` (or why not). */
  | { type: "rewindPreview"; messageId: string; fork: boolean; preview?: RewindPreview; error?: string }
  /** How a rewind ended: what was put back, or why nothing was. */
  | { type: "rewindDone"; messageId: string; ok: boolean; message: string };

// ---------------------------------------------------------------------------------------------
// Webview → extension
// ---------------------------------------------------------------------------------------------

export type WebviewToExtension =
  | { type: "ready" }
  | { type: "sendPrompt"; text: string; attachments: Attachment[] }
  | { type: "stop" }
  /** A new session: in this view, or in an editor tab. */
  | { type: "newSession"; where?: "editor" }
  | { type: "resume"; sessionId: string }
  /** A new session from a past one (where the agent offers fork). */
  | { type: "forkSession"; sessionId: string }
  /** End the current session in the agent (where it offers close). */
  | { type: "closeSession" }
  | { type: "requestHistory" }
  | { type: "setMode"; mode: string }
  | { type: "setModel"; model: string }
  /** Start new sessions with this agent (the current one ends). */
  | { type: "setAgent"; agent: string }
  /** One of the agent's own options (`agentOptions`). */
  | { type: "setAgentOption"; id: string; value: string }
  /** Log in with one of the agent's methods. */
  | { type: "authenticate"; methodId: string }
  /** The answer to the permission request `requestId` (the `id` of its permissionRequest event). */
  | { type: "permission"; requestId: string; decision: UserDecision; reason?: string; answers?: PermissionAnswer["answers"]; destination?: RuleScope; acceptedHunks?: number[] }
  /** `line` is 1-based. */
  | { type: "openFile"; path: string; line?: number }
  | { type: "openDiff"; requestId: string }
  | { type: "suggestFiles"; requestId: string; query: string }
  | { type: "retry" }
  /** The user acted in the canvas panel (a surface's Button or FileTree, a document to reload). */
  | { type: "canvasAction"; action: CanvasAction }
  /** Read the session's board again. */
  | { type: "canvasRefresh" }
  /** Open an http(s) link a canvas widget asked for, outside VS Code. */
  | { type: "openExternal"; url: string }
  /** Show the page of the session's messages before those shown (a gateway's paged history). */
  | { type: "loadOlder" }
  /** A queued message's new text. */
  | { type: "editQueued"; id: string; text: string }
  | { type: "removeQueued"; id: string }
  /** A queued message into the running turn now (steered in where the agent can, else the turn
   * is stopped and the message goes first). */
  | { type: "sendNow"; id: string }
  /** Stop a subagent or background task (the id of its taskUpdate event). */
  | { type: "stopTask"; taskId: string }
  /** The sidebar shows the open session `key`. */
  | { type: "selectSession"; key: string }
  /** Close the open session `key` (its agent stops; it stays in the history). */
  | { type: "dismissSession"; key: string }
  /** Open this view's session in an editor tab. */
  | { type: "openInEditor" }
  /** Rename the open session `key`, or the past session `sessionId` (the extension asks for the title). */
  | { type: "renameSession"; key?: string; sessionId?: string }
  /** Delete the past session `sessionId` (the extension asks to confirm). */
  | { type: "deleteSession"; sessionId: string }
  /** A user message's action: preview a rewind of the files (`rewind`, `both`), or fork from it. */
  | { type: "messageAction"; messageId: string; action: "rewind" | "fork" | "both" }
  /** Rewind the files to before `messageId` (after its preview), then fork from it if `fork`. */
  | { type: "rewindConfirm"; messageId: string; fork: boolean }
  /** Show the permission rules in effect (the rules view). */
  | { type: "permissionRules" };

/** The state the webview keeps with `vscode.setState` (survives the view being hidden). */
export interface PersistedWebviewState {
  draft: string;
  attachments: Attachment[];
  /** The open session an editor tab shows (its serializer binds the tab to it after a reload). */
  session?: string;
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
  /** Origins (`http(s)://host:port`) the webview may frame: the OpenClaw gateway's, for its board widgets. */
  frameOrigins?: string[];
}
