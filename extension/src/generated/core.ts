// Generated from the Rust types by `cargo test` (crate/src/typescript.rs). Do not edit: change the
// Rust type, then run `TETHER_UPDATE_GENERATED=1 cargo test -p tether-core --lib typescript`.

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

export type UiEvent = { "type": "sessionInit", sessionId: string, model: string | null, tools: Array<string>, mcpServers: Array<McpServerStatus>, permissionMode: string | null, agentVersion: string | null, }
  | { "type": "sessionReady", agentVersion: string | null, models: Array<ModelOption>, commands: Array<CommandInfo>, permissionMode: string | null, }
  | { "type": "messageStart", messageId: string, parentToolUseId: string | null, }
  | { "type": "textDelta", messageId: string | null, text: string, parentToolUseId: string | null, }
  | { "type": "thinkingDelta", messageId: string | null, text: string, parentToolUseId: string | null, }
  | { "type": "messageStop", messageId: string, stopReason: string | null, }
  | { "type": "messageReplace", messageId: string, text: string, }
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
  | { "type": "taskUpdate", taskId: string, toolUseId: string | null, status: string, description: string | null, summary: string | null, 
/**
 * A background shell's last lines of output (stdout and stderr as they came, bounded):
 * the whole tail each time. None for a subagent, whose output is its Agent call's.
 */
output: string | null, 
/**
 * How a background shell exited, when it did by itself.
 */
exitCode: number | null, }
  | { "type": "mcpStatus", servers: Array<McpServerStatus>, }
  | { "type": "usage", inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number, costUsd: number | null, }
  | { "type": "done", subtype: string, isError: boolean, durationMs: number, numTurns: number, sessionId: string, result: string | null, stopReason: string | null, }
  | { "type": "connectionState", channel: string, state: ConnectionStatus, message: string | null, }
  | { "type": "transcript", sessionId: string, messages: Array<TranscriptMessage>, hasMore: boolean, older: boolean, }
  | { "type": "canvas", update: CanvasUpdate, }
  | { "type": "error", kind: ErrorKind, severity: Severity, message: string, hint: string | null, 
/**
 * Whether starting again (resuming `session_id`) can pick up; set by the driver.
 */
retryable?: boolean | null, 
/**
 * The session to resume, when the agent had started one; set by the driver.
 */
sessionId?: string | null, }
  | { "type": "toolContent", id: string, content: Array<ToolContentItem>, }
  | { "type": "terminalOutput", terminalId: string, output: string, append: boolean, exited: boolean, exitCode: number | null, signal: string | null, }
  | { "type": "userMessageChunk", text: string, }
  | { "type": "commands", commands: Array<CommandInfo>, }
  | { "type": "agentOptions", options: Array<AgentOption>, }
  | { "type": "sessionInfo", title: string | null, updatedAt: string | null, }
  | { "type": "contextUsage", used: number, size: number, cost: number | null, currency: string | null, 
/**
 * What the used part is made of (system prompt, tools, messages…), where the agent says.
 */
breakdown: Array<ContextCategory>, }
  | { "type": "authMethods", methods: Array<AuthMethodInfo>, required: boolean, message: string | null, }
  | { "type": "sessionList", sessions: Array<SessionSummary>, }
  | { "type": "sessionDeleted", id: string, error: string | null, };

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
 * The rules "Always allow" would save (as written in settings), when it saves rules: the
 * user picks where.
 */
alwaysRules?: Array<string>, 
/**
 * Why the permission engine asks.
 */
reason?: string | null, 
/**
 * For file edits: the whole proposed file, so the user can review (and change) it.
 */
review?: EditReview | null, 
/**
 * The answers the agent offers, in the order to show them.
 */
options: Array<PermissionOption>, 
/**
 * The tool is a question for the user (AskUserQuestion, an ACP form elicitation): the
 * fields to fill in; the answer carries them (`answers`) with an allowing option.
 */
form?: QuestionForm | null, 
/**
 * A question that is not part of a turn (a gateway asking to pair): it stays open when
 * the turn ends.
 */
outlivesTurn?: boolean, };

/**
 * One answer to a permission request, as ACP offers them: an id to answer with, a label, and
 * what it means.
 */

export type PermissionOption = { optionId: string, name: string, kind: PermissionOptionKind, };

/**
 * Questions for the user, in the order to show them.
 */

export type QuestionForm = { 
/**
 * Said above the fields.
 */
message: string | null, fields: Array<FormField>, };

/**
 * One question of a form.
 */

export type FormField = { 
/**
 * The key its answer goes under.
 */
id: string, 
/**
 * A short label (AskUserQuestion's header, a schema's title).
 */
label: string | null, 
/**
 * The question itself.
 */
question: string | null, kind: FormFieldKind, 
/**
 * The choices of a single or multiple choice.
 */
options: Array<FormChoice>, 
/**
 * A free-text "Other" answer is offered beside the choices.
 */
other: boolean, required: boolean, };

export type FormFieldKind = "single" | "multiple" | "text";

export type FormChoice = { 
/**
 * What the answer carries.
 */
value: string, label: string, description: string | null, };

/**
 * One field's answer: the choice picked (or the text typed), or the choices picked.
 */

export type FormValue = string | Array<string>;

export type PermissionOptionKind = "allow_once" | "allow_always" | "reject_once" | "reject_always";

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

export type ConnectionStatus = "disconnected" | "connecting" | "connected" | "error";

export type SessionSummary = { 
/**
 * What to load it by (a gateway's canonical session key).
 */
id: string, title: string | null, 
/**
 * ISO 8601, when the agent says.
 */
updatedAt: string | null, cwd: string | null, 
/**
 * The agent is working in it now (a gateway says; an ACP agent does not).
 */
running: boolean, };

/**
 * One message of a [`UiEvent::Transcript`].
 */

export type TranscriptMessage = { 
/**
 * `user` or `assistant`.
 */
role: string, text: string, };

/**
 * One part of the context window's used tokens (Claude Code's `/context` categories).
 */

export type ContextCategory = { name: string, tokens: number, };

/**
 * A change to the canvas.
 */

export type CanvasUpdate = { "kind": "board", sessionId: string, revision: number, widgets: Array<CanvasWidget>, }
  | { "kind": "document", docId: string, html: string, }
  | { "kind": "surface", surfaceId: string, title: string | null, components: Array<SurfaceComponent>, }
  | { "kind": "surfaceData", surfaceId: string, model: JsonValue, }
  | { "kind": "widgetReply", widget: string, callId: string, ok: boolean, result: JsonValue, error: string | null, };

/**
 * A widget on a gateway's board.
 */

export type CanvasWidget = { name: string, title: string | null, 
/**
 * `html`, `mcp-app`, `plugin`.
 */
contentKind: string, revision: number, 
/**
 * Its page on the gateway's own origin (absolute); None when the gateway gave none there
 * (a widget waiting for approval or rejected has none).
 */
frameUrl: string | null, 
/**
 * The view ticket its page and its calls carry (the page gets it from the panel).
 */
viewTicket: string | null, 
/**
 * How long the ticket lasts from now, in milliseconds.
 */
viewTicketTtlMs: number | null, 
/**
 * `none`, `pending` (waiting for the user's approval), `granted`, `rejected`.
 */
grantState: string, 
/**
 * Which instance of the widget this revision is (a grant names it).
 */
instanceId: string | null, 
/**
 * What the widget asks for (network origins, tools), in the gateway's words, shown when the
 * user is asked to approve it.
 */
declaredSummary: Array<string>, };

/**
 * What the user did in the canvas panel, as the panel sends it back (a backend's `canvasAction`
 * command carries it as its arguments).
 */

export type CanvasAction = { "kind": "widgetCall", widget: string, callId: string, method: string, params: JsonValue, }
  | { "kind": "widgetGrant", widget: string, granted: boolean, revision: number, instanceId: string, }
  | { "kind": "document", docId: string, }
  | { "kind": "surface", surfaceId: string, action: string, context: JsonValue, };

/**
 * One component of an A2UI surface.
 */

export type SurfaceComponent = { id: string, 
/**
 * `Text`, `Button`, `CodeBlock`, `FileTree`; others are shown as a placeholder.
 */
type: string, props: JsonValue, };

export type McpServerStatus = { name: string, status: string, };

export type ModelOption = { value: string, displayName: string | null, description: string | null, };

export type CommandInfo = { name: string, description: string | null, argumentHint: string | null, };

/**
 * One piece of what a tool call shows.
 */

export type ToolContentItem = { "type": "text", text: string, }
  | { "type": "diff", path: string, oldText: string | null, newText: string, }
  | { "type": "terminal", terminalId: string, };

/**
 * One of the agent's own options, as a picker shows it.
 */

export type AgentOption = { 
/**
 * What to set (`setConfigOption(id, value)`).
 */
id: string, name: string, description: string | null, 
/**
 * `model`, `mode`, `thought_level`, … when the agent says.
 */
category: string | null, 
/**
 * `select` (one of `choices`) or `boolean` (`"true"` / `"false"`).
 */
kind: string, value: string, choices: Array<ModelOption>, };

export type AuthMethodInfo = { id: string, name: string, description: string | null, };

export type ErrorKind = "notLoggedIn" | "maxTurns" | "maxBudget" | "interrupted" | "api" | "executionError" | "controlRequestFailed" | "crash" | "other";

export type Severity = "notice" | "error";

/**
 * One thing for the driver to do (JS: `{type: "send", message}` / `{type: "event", event}`).
 */

export type AgentOutput = { "type": "send", message: string, }
  | { "type": "event", event: UiEvent, }
  | { "type": "mcpReply", connection: number, message: string, }
  | { "type": "transport", request: TransportRequest, }
  | { "type": "audit", record: AuditRecord, }
  | { "type": "saveUserRules", rules: Array<string>, }
  | { "type": "projectSettingsWritten", path: string, text: string, }
  | { "type": "watchShells", afterMs: number, };

/**
 * What a backend that steers its own connections asks of the driver. A connection is named by
 * its `channel` (the gateway's operator connection, the workspace's node connection); what the
 * driver sees happen comes back as a [`TransportEvent`].
 */

export type TransportRequest = { "kind": "open", channel: string, url: string, maxPayload: number, }
  | { "kind": "send", channel: string, text: string, }
  | { "kind": "close", channel: string, code: number, reason: string, }
  | { "kind": "sign", channel: string, payload: string, }
  | { "kind": "wakeAt", atMs: number | null, }
  | { "kind": "storeSecret", name: string, value: string, }
  | { "kind": "log", message: string, };

/**
 * What happened to a connection the backend asked for.
 */

export type TransportEvent = { "kind": "opened", channel: string, }
  | { "kind": "frame", channel: string, text: string, }
  | { "kind": "closed", channel: string, code: number, reason: string, }
  | { "kind": "signed", channel: string, signature: string, };

/**
 * One operation on the session (JS: `{op: "load", id}`, `{op: "setConfigOption", option,
 * value}`, …). Read by [`SessionOp::from_json`] rather than a serde derive: an internally
 * tagged enum's deserializer costs the wasm some 20 KB.
 */

export type SessionOp = { "op": "new" }
  | { "op": "load", id: string, }
  | { "op": "resume", id: string, }
  | { "op": "fork", id: string, }
  | { "op": "close" }
  | { "op": "list" }
  | { "op": "delete", id: string, }
  | { "op": "setMode", mode: PermissionMode, }
  | { "op": "setConfigOption", option: string, value: string | null, }
  | { "op": "authenticate", method: string, }
  | { "op": "interrupt" }
  | { "op": "steer", text: string, }
  | { "op": "stopTask", id: string, }
  | { "op": "command", name: string, args: JsonValue, };

/**
 * Which operation, without its arguments: what an agent offers.
 */

export type SessionOpKind = "new" | "load" | "resume" | "fork" | "close" | "list" | "delete" | "setMode" | "setConfigOption" | "authenticate" | "interrupt" | "steer" | "stopTask" | "command";

/**
 * Everything that makes an agent (JS: `AgentConfig`).
 */

export type AgentConfig = { 
/**
 * The workspace root (the remote path for a remote workspace).
 */
root: string, 
/**
 * The agent's local working directory; paths under it map onto `root`.
 */
mirror?: string, 
/**
 * The workspace's other folders, offered to the agent as additional directories.
 */
additionalFolders?: Array<FolderConfig>, 
/**
 * For `~/` in permission rules and commands.
 */
homeDir: string, 
/**
 * The text of the user's `~/.claude/settings.json`, read by the driver.
 */
userSettings?: string, 
/**
 * A permission mode; when absent, the settings' `defaultMode` applies.
 */
mode?: PermissionMode, model?: string, 
/**
 * A session id to resume.
 */
resume?: string, 
/**
 * Extra environment for the agent's program (not for the commands the tools run).
 */
env?: { [key in string]: string }, remote?: RemoteConfig, 
/**
 * Where the before-images of the files Tether changes are kept (on the workspace side).
 */
checkpoints?: CheckpointsConfig, 
/**
 * The project's MCP servers the agent is given besides Tether's own (`config/mcp.rs`).
 */
mcpServers?: Array<McpServerEntry>, 
/**
 * Whose hooks Tether runs on the workspace; absent: the project's, not the user's.
 */
hooks?: HooksConfig, } & ({ "backend": "claude" } & ClaudeConfig | { "backend": "acp" } & AcpConfig | { "backend": "openclaw" } & OpenClawConfig);

export type CommonConfig = { 
/**
 * The workspace root (the remote path for a remote workspace).
 */
root: string, 
/**
 * The agent's local working directory; paths under it map onto `root`.
 */
mirror?: string, 
/**
 * The workspace's other folders, offered to the agent as additional directories.
 */
additionalFolders?: Array<FolderConfig>, 
/**
 * For `~/` in permission rules and commands.
 */
homeDir: string, 
/**
 * The text of the user's `~/.claude/settings.json`, read by the driver.
 */
userSettings?: string, 
/**
 * A permission mode; when absent, the settings' `defaultMode` applies.
 */
mode?: PermissionMode, model?: string, 
/**
 * A session id to resume.
 */
resume?: string, 
/**
 * Extra environment for the agent's program (not for the commands the tools run).
 */
env?: { [key in string]: string }, remote?: RemoteConfig, 
/**
 * Where the before-images of the files Tether changes are kept (on the workspace side).
 */
checkpoints?: CheckpointsConfig, 
/**
 * The project's MCP servers the agent is given besides Tether's own (`config/mcp.rs`).
 */
mcpServers?: Array<McpServerEntry>, 
/**
 * Whose hooks Tether runs on the workspace; absent: the project's, not the user's.
 */
hooks?: HooksConfig, };

/**
 * What the model is told about the machine the workspace is on.
 */

export type RemoteConfig = { os?: string, shell?: string, gitBranch?: string, };

/**
 * The session's checkpoint folder and its retention.
 */

export type CheckpointsConfig = { 
/**
 * An absolute folder on the workspace's file system, this session's own.
 */
dir: string, 
/**
 * The checkpoints of at most this many user messages are kept, the oldest dropped first.
 */
keepMessages: number, };

/**
 * One MCP server for the agent's own MCP client, under its own name (the model sees its tools
 * as `mcp__<name>__<tool>`).
 */

export type McpServerEntry = { "type": "stdio", name: string, command: string, args: Array<string>, env: { [key in string]: string }, }
  | { "type": "http", name: string, url: string, headers: { [key in string]: string }, }
  | { "type": "sse", name: string, url: string, headers: { [key in string]: string }, };

/**
 * The project's MCP servers for a session: each with its decision, and the problems of the
 * servers that cannot be used.
 */

export type ProjectMcpPlan = { servers: Array<PlannedServer>, problems: Array<string>, };

/**
 * One server of `.mcp.json` and what the settings say about it.
 */

export type PlannedServer = { server: McpServerEntry, decision: McpDecision, };

/**
 * Whether a server may start.
 */

export type McpDecision = { "decision": "approved", reason: string, }
  | { "decision": "denied", reason: string, }
  | { "decision": "ask" };

/**
 * The user's answer to "use this server?", in Claude Code's three choices.
 */

export type McpChoice = "approve" | "approveAll" | "deny";

/**
 * One thing the project configures that does not run in this session.
 */

export type OffItem = { 
/**
 * What it is, for people: `hooks: PostToolUse (.claude/settings.json)`, `MCP server "db"`.
 */
what: string, reason: string, };

/**
 * One more folder of the workspace: its root, and the mirror the agent knows it by on a remote.
 */

export type FolderConfig = { root: string, mirror?: string, };

/**
 * Whose hooks Tether runs (on the workspace, for every backend).
 */

export type HooksConfig = { 
/**
 * The workspace's `.claude/settings.json` and `.claude/settings.local.json`.
 */
project: boolean, 
/**
 * The user's `~/.claude/settings.json` (the `userSettings` text).
 */
user: boolean, 
/**
 * The events those settings have hooks for, when the host read them before the start
 * (`hookEvents`): an agent that fires hooks through Tether is asked for these only. Absent:
 * every event (a change to the settings restarts the session, so the list stays true).
 */
events?: Array<string>, };

/**
 * What rewinding to a message would do (JS: `RewindPreview`).
 */

export type RewindPreview = { messageId: string, 
/**
 * False when no checkpoint was kept for this message (before checkpoints, or pruned).
 */
known: boolean, files: Array<RewindFile>, 
/**
 * Shell commands ran from this message on: what they changed is not rewound.
 */
shellCommands: boolean, };

/**
 * One file a rewind would put back.
 */

export type RewindFile = { 
/**
 * The workspace path.
 */
path: string, 
/**
 * The path from the workspace root, for people.
 */
relative: string, 
/**
 * `restore` the earlier content, or `delete` a file the turn created.
 */
action: RewindAction, 
/**
 * Lines the rewind brings back.
 */
insertions: number, 
/**
 * Lines the rewind takes away.
 */
deletions: number, 
/**
 * Why this file cannot be rewound (the rewind refuses as a whole).
 */
problem: string | null, };

export type RewindAction = "restore" | "delete";

/**
 * What a rewind did (JS: `RewindOutcome`).
 */

export type RewindOutcome = { restored: Array<string>, deleted: Array<string>, };

/**
 * The backend a session runs, with its own part of the config.
 */

export type BackendConfig = { "backend": "claude" } & ClaudeConfig | { "backend": "acp" } & AcpConfig | { "backend": "openclaw" } & OpenClawConfig;

export type ClaudeConfig = { 
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
disallowedTools?: Array<string>, 
/**
 * Resume as a new session (`--fork-session`), the conversation it resumes left as it was.
 */
forkSession?: boolean, 
/**
 * Resume only up to this message of the transcript (its uuid; `--resume-session-at`).
 */
resumeSessionAt?: string, 
/**
 * Plugin folders for `--plugin-dir`: a remote project's mirrored skills and output styles.
 */
pluginDirs?: Array<string>, 
/**
 * The output style by the name the CLI knows it (`project:<name>` for a mirrored one).
 */
outputStyle?: string, };

export type AcpConfig = { 
/**
 * What people call the agent ("Gemini CLI"), for messages.
 */
agentName?: string, 
/**
 * The arguments the user gave the agent's command (its `tether.agents` entry).
 */
agentArgs?: Array<string>, 
/**
 * The known agent whose force-local switches apply (`claude-agent-acp`, `gemini`, `codex`);
 * none for any other agent.
 */
profile?: string, 
/**
 * How the agent starts Tether's MCP server: the bridge process and its environment.
 */
bridge?: BridgeCommand, 
/**
 * A laptop folder of Tether's own for files the agent's launch names (settings).
 */
stateDir?: string, 
/**
 * Run an agent that cannot be closed on a remote workspace anyway (its tools that would act
 * on the laptop are refused one by one).
 */
allowLocalTools?: boolean, 
/**
 * When resuming: show the conversation the agent replays (a session picked from history).
 */
replay?: boolean, };

/**
 * A stdio MCP server for the agent to start.
 */

export type BridgeCommand = { command: string, args: Array<string>, env: { [key in string]: string }, };

/**
 * One of the project's `.claude/agents/*.md` files.
 */

export type AgentFile = { 
/**
 * The file name (`reviewer.md`).
 */
name: string, text: string, };

export type OpenClawConfig = { 
/**
 * `ws://` or `wss://`.
 */
gatewayUrl: string, 
/**
 * The gateway's shared token (`gateway.auth.token`).
 */
token?: string, 
/**
 * The operator connection's device key (its private half stays with the host, which signs).
 */
device?: DeviceConfig, 
/**
 * What the gateway issued to that device; used when there is no shared token.
 */
deviceToken?: string, 
/**
 * Offer the workspace as the gateway's node (its agent's `exec` and `file_fetch` then act
 * there, behind Tether's permission gate).
 */
node?: NodeConfig, 
/**
 * Unique per run of the driver: the idempotency keys and new session keys start with it.
 */
instanceId?: string, clientVersion?: string, 
/**
 * Reconnect timing (tests shorten it); default 1 s doubling to 30 s, 10 tries.
 */
backoff?: BackoffConfig, };

/**
 * The public half of a device key.
 */

export type DeviceConfig = { 
/**
 * Hex SHA-256 of the raw Ed25519 public key.
 */
id: string, 
/**
 * The raw public key, base64url.
 */
publicKey: string, };

/**
 * The workspace as the gateway's node.
 */

export type NodeConfig = { 
/**
 * The node's own device key (a node must have one).
 */
device: DeviceConfig, deviceToken?: string, 
/**
 * What the gateway shows for it.
 */
displayName?: string, 
/**
 * The workspace's OS as the gateway names platforms (`linux`, `darwin`, `win32`): on
 * another, the gateway drops `system.run`.
 */
platform?: string, };

export type BackoffConfig = { baseMs?: number, capMs?: number, maxTries?: number, };

/**
 * Claude Code's permission modes.
 */

export type PermissionMode = "default" | "acceptEdits" | "plan" | "dontAsk" | "bypassPermissions";

/**
 * The user's answer to a `permissionRequest` event (JS: `PermissionAnswer`): one of its options
 * by id, or a decision.
 */

export type PermissionAnswer = { decision?: UserDecision, 
/**
 * One of the request's `options`; wins over `decision`.
 */
optionId?: string, 
/**
 * Why the user refused; the model reads it.
 */
reason?: string, 
/**
 * Edits only: the file content the user left in the review editor; that is what is written.
 */
userContent?: string, 
/**
 * A request with a form: the user's answers, by field id.
 */
answers?: { [key in string]: FormValue }, 
/**
 * "Always allow": where its rules are saved (default: the project's local settings).
 */
destination?: RuleScope, 
/**
 * Edits only: the review's hunks (indices into its `hunks`) the user accepted; the others
 * are left out of what is written. None: all of them.
 */
acceptedHunks?: Array<number>, };

/**
 * The answers people give without naming an option: each stands for a kind of option.
 */

export type UserDecision = "allow" | "always" | "deny";

/**
 * Where a rule lives, named as Claude Code names a permission update's destination.
 */

export type RuleScope = "session" | "projectSettings" | "localSettings" | "userSettings";

/**
 * What a rule does, as the settings files' keys name it.
 */

export type RuleBehavior = "allow" | "deny" | "ask";

/**
 * One rule in effect, for the rules view.
 */

export type RuleEntry = { 
/**
 * As written in settings (`Bash(npm run test:*)`).
 */
rule: string, behavior: RuleBehavior, scope: RuleScope, };

/**
 * One line of the audit log.
 */

export type AuditRecord = { "kind": "toolCall", tool: string, toolUseId?: string, 
/**
 * The paths its input names (as given).
 */
paths: Array<string>, 
/**
 * Bash: the command line.
 */
command?: string, ok: boolean, 
/**
 * The size of the text the model got back.
 */
outputBytes: number, }
  | { "kind": "permission", tool: string, toolUseId?: string, requestId: string, decision: string, by: Decider, 
/**
 * The rule that decided, as `Bash(npm:*) in .claude/settings.json`.
 */
rule?: string, reason?: string, 
/**
 * The option the user picked.
 */
option?: string, 
/**
 * "Always allow": the rules it saved and where.
 */
savedRules?: Array<string>, scope?: RuleScope, 
/**
 * A per-hunk review: the hunks accepted (indices).
 */
acceptedHunks?: Array<number>, }
  | { "kind": "write", path: string, bytes: number, sha256: string, }
  | { "kind": "ruleRemoved", rule: string, behavior: RuleBehavior, scope: RuleScope, };

/**
 * Who made a permission decision.
 */

export type Decider = "user" | "rule" | "mode" | "hook" | "policy";

/**
 * What one line of the stream was.
 */

export type NdjsonFrame = { "kind": "line", line: string, }
  | { "kind": "oversized", bytes: number, }
  | { "kind": "invalidUtf8", bytes: number, validUpTo: number, };

export type FileKind = "file" | "directory" | "symlink" | "other";

/**
 * What a host's `stat` and `lstat` give (JS: `FileStat`).
 */

export type FileStat = { kind: FileKind, size: number, 
/**
 * Modification time, milliseconds since the Unix epoch.
 */
mtimeMs: number, };

export type DirEntry = { name: string, kind: FileKind, };

export type ExecRequest = { 
/**
 * Shell command line, run by the host's shell (`bash -c` on POSIX hosts).
 */
command: string, cwd: string, 
/**
 * Extra environment on top of the host's own, as [name, value] pairs.
 */
env: Array<[string, string]>, 
/**
 * For foreground runs: kill after this long. For background runs: the lifetime limit.
 */
timeoutMs: number, 
/**
 * Keep at most this many bytes of each stream; the rest is counted but dropped.
 */
maxOutputBytes: number, };

export type ExecOutput = { stdout: string, stderr: string, 
/**
 * None (JS: null) when the process was killed by a signal or timed out.
 */
exitCode: number | null, timedOut: boolean, 
/**
 * True when output beyond `max_output_bytes` was dropped.
 */
truncated: boolean, };

export type BackgroundStatus = { 
/**
 * Output produced since the previous `read_background` of this id.
 */
stdout: string, stderr: string, running: boolean, exitCode: number | null, };

/** Every permission mode, in the order the pickers show them. */
export const PERMISSION_MODES: readonly PermissionMode[] = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"];

/** Tether's tools, by the built-in names the model knows. */
export const TOOL_NAMES = ["Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep", "LS", "Bash", "BashOutput", "KillShell"] as const;

/** The agent programs the driver starts, by backend. */
export const AGENT_PROGRAMS = {
  "claude": {
    "displayName": "Claude Code",
    "command": "claude",
    "pathVariable": "TETHER_CLAUDE_PATH",
    "installDirs": [
      "~/.claude/local",
      "~/.local/bin"
    ],
    "installHint": "npm install -g @anthropic-ai/claude-code"
  },
  "acp": {
    "displayName": "ACP agent",
    "command": "",
    "pathVariable": "TETHER_ACP_AGENT_PATH",
    "installDirs": [],
    "installHint": "see the agent's own documentation; Tether knows claude-agent-acp, gemini and codex by name"
  }
} as const;

/** The ACP agents Tether knows by name, and what their force-local profile knows of them. */
export const ACP_AGENTS = [
  {
    "name": "claude-agent-acp",
    "displayName": "Claude Agent",
    "command": "claude-agent-acp",
    "args": [],
    "package": "@agentclientprotocol/claude-agent-acp",
    "closable": true,
    "loadInALaterMinute": false
  },
  {
    "name": "gemini",
    "displayName": "Gemini CLI",
    "command": "gemini",
    "args": [
      "--acp"
    ],
    "package": "@google/gemini-cli",
    "closable": true,
    "loadInALaterMinute": true
  },
  {
    "name": "codex",
    "displayName": "Codex",
    "command": "codex-acp",
    "args": [],
    "package": "@agentclientprotocol/codex-acp",
    "closable": false,
    "loadInALaterMinute": false
  }
] as const;

/** The backends the core connects to itself (no program), with their display names. */
export const CONNECTED_BACKENDS = {
  "openclaw": {
    "displayName": "OpenClaw"
  }
} as const;

/** How an agent sees Tether's tools: `mcp__tether__Read`, ... */
export const MCP_PREFIX = "mcp__tether__";

/** The MCP servers the extension's IDE tools are served as: `getDiagnostics` under `ide` (Claude Code offers
 * the model no other tool of a server so named), the language features under `vscode`. */
export const IDE_SERVERS = { diagnostics: "ide", language: "vscode" } as const;
