//! The normalized UI event model. Every backend (the Claude Code CLI, ACP agents, the OpenClaw
//! gateway) maps its wire messages to these events, so the webview renders one
//! model. Serialized as JSON objects tagged by `type`, with camelCase names.

use crate::diff::Hunk;
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod canvas;
mod form;
mod permission;
mod sessions;
pub use canvas::{CanvasAction, CanvasUpdate, CanvasWidget, SurfaceComponent};
pub use form::{answers_from_json, FormAnswers, FormChoice, FormField, FormFieldKind, FormValue, QuestionForm};
pub use permission::PermissionRequest;
pub use sessions::{
    AgentOption, AuthMethodInfo, CommandInfo, ConnectionStatus, ContextCategory, ModelOption, SessionSummary,
    TranscriptMessage,
};

// Events are built once, passed on and serialized; a permission request being the largest is no
// cost worth a box in every match.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum UiEvent {
    /// The agent's session (re)started a turn: its id, model, tools and MCP servers.
    SessionInit {
        session_id: String,
        model: Option<String>,
        tools: Vec<String>,
        mcp_servers: Vec<McpServerStatus>,
        permission_mode: Option<String>,
        agent_version: Option<String>,
    },
    /// The agent answered the handshake: what the pickers can offer.
    SessionReady {
        agent_version: Option<String>,
        models: Vec<ModelOption>,
        commands: Vec<CommandInfo>,
        permission_mode: Option<String>,
    },
    MessageStart {
        message_id: String,
        parent_tool_use_id: Option<String>,
    },
    TextDelta {
        message_id: Option<String>,
        text: String,
        parent_tool_use_id: Option<String>,
    },
    ThinkingDelta {
        message_id: Option<String>,
        text: String,
        parent_tool_use_id: Option<String>,
    },
    MessageStop {
        message_id: String,
        stop_reason: Option<String>,
    },
    /// A message's whole text changed other than by appending (the agent rewrote it): show `text`
    /// instead of what was streamed.
    MessageReplace {
        message_id: String,
        text: String,
    },
    /// A tool call appeared. `name` is the built-in name the model thinks it uses (Tether's
    /// `mcp__tether__Read` shows as `Read`). When the call is first seen while its input is still
    /// streaming, `input` is `{}` and a [`UiEvent::ToolCallUpdate`] brings the full input.
    ToolCallStart {
        id: String,
        name: String,
        input: Value,
        kind: ToolKind,
        title: String,
        locations: Vec<Location>,
        parent_tool_use_id: Option<String>,
    },
    /// A piece of a tool call's input JSON, as the model writes it.
    ToolInputDelta {
        id: String,
        partial_json: String,
    },
    /// The complete input of a tool call announced earlier.
    ToolCallUpdate {
        id: String,
        input: Value,
        title: String,
        locations: Vec<Location>,
    },
    ToolCallResult {
        id: String,
        is_error: bool,
        /// The model-facing result as text (text blocks joined; images left out).
        content: String,
        /// Structured result for rendering (for Claude: the CLI's `tool_use_result`).
        structured: Option<Value>,
        parent_tool_use_id: Option<String>,
    },
    /// A long-running tool is still working.
    ToolProgress {
        id: String,
        name: String,
        elapsed_seconds: u64,
    },
    TodoUpdate {
        todos: Vec<TodoItem>,
    },
    /// The agent proposes a plan and asks to leave plan mode.
    Plan {
        tool_call_id: String,
        plan: Option<String>,
        file_path: Option<String>,
    },
    PermissionRequest(PermissionRequest),
    /// The agent withdrew a permission request (for example after an interrupt): close its prompt.
    PermissionCancelled {
        id: String,
    },
    /// A tool call was refused without asking (mode or rule); the model was told why.
    PermissionDenied {
        tool_use_id: String,
        tool_name: String,
        message: Option<String>,
        reason: Option<String>,
        agent_id: Option<String>,
    },
    ModeChanged {
        mode: String,
    },
    ModelChanged {
        model: Option<String>,
    },
    Status {
        state: SessionState,
    },
    /// What the agent is busy with right now ("requesting", "compacting"), or None.
    Activity {
        activity: Option<String>,
    },
    ApiRetry {
        attempt: u32,
        max_retries: u32,
        delay_ms: u64,
        error_status: Option<u16>,
        error: String,
    },
    RateLimit {
        status: String,
        resets_at: Option<i64>,
        limit_type: Option<String>,
    },
    Compacted {
        trigger: Option<String>,
        pre_tokens: Option<u64>,
    },
    /// A subagent or background task started, ended, or (a background shell) printed more.
    /// `status`: `started` or `running` while it runs, then how it ended (`completed`, `failed`,
    /// `stopped`; a shell also `timed_out`).
    TaskUpdate {
        task_id: String,
        tool_use_id: Option<String>,
        status: String,
        description: Option<String>,
        summary: Option<String>,
        /// A background shell's last lines of output (stdout and stderr as they came, bounded):
        /// the whole tail each time. None for a subagent, whose output is its Agent call's.
        output: Option<String>,
        /// How a background shell exited, when it did by itself.
        exit_code: Option<i32>,
    },
    McpStatus {
        servers: Vec<McpServerStatus>,
    },
    Usage {
        input_tokens: u64,
        output_tokens: u64,
        cache_read_tokens: u64,
        cache_creation_tokens: u64,
        cost_usd: Option<f64>,
    },
    /// The turn ended (successfully or not); the session takes the next prompt.
    Done {
        subtype: String,
        is_error: bool,
        duration_ms: u64,
        num_turns: u32,
        session_id: String,
        result: Option<String>,
        stop_reason: Option<String>,
    },
    /// A connection the backend keeps to its agent (a gateway's), for the header and the status
    /// bar. `channel` names it (`gateway`, `node`); `message` says why, when there is a reason.
    ConnectionState {
        channel: String,
        state: ConnectionStatus,
        message: Option<String>,
    },
    /// A session's messages as the agent keeps them: the session switched to (`older` false: they
    /// replace the chat), or the page before the ones shown (`older` true).
    Transcript {
        session_id: String,
        messages: Vec<TranscriptMessage>,
        has_more: bool,
        older: bool,
    },
    /// What the agent's canvas shows (a gateway's board widgets, canvas documents, A2UI
    /// surfaces): data for the canvas panel, which renders it as untrusted content.
    Canvas {
        update: CanvasUpdate,
    },
    Error {
        kind: ErrorKind,
        severity: Severity,
        message: String,
        hint: Option<String>,
        /// Whether starting again (resuming `session_id`) can pick up; set by the driver.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retryable: Option<bool>,
        /// The session to resume, when the agent had started one; set by the driver.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
    },
    /// What a tool call shows besides its result, the whole list each time: text, file changes,
    /// terminals.
    ToolContent {
        id: String,
        content: Vec<ToolContentItem>,
    },
    /// Output of a terminal a tool call shows (one Tether runs for the agent, or the agent's own
    /// shell); `append` adds to what was shown, else it replaces it. `exited` once it ended.
    TerminalOutput {
        terminal_id: String,
        output: String,
        append: bool,
        exited: bool,
        exit_code: Option<i32>,
        signal: Option<String>,
    },
    /// A piece of a user message the agent sends back (replaying a loaded session).
    UserMessageChunk {
        text: String,
    },
    /// The agent's slash commands, the whole list each time.
    Commands {
        commands: Vec<CommandInfo>,
    },
    /// The agent's own options (model, reasoning effort, its modes, …), the whole list each time.
    AgentOptions {
        options: Vec<AgentOption>,
    },
    /// The session's title or last change.
    SessionInfo {
        title: Option<String>,
        updated_at: Option<String>,
    },
    /// How much of the model's context window the session uses, and what it cost so far.
    ContextUsage {
        used: u64,
        size: u64,
        cost: Option<f64>,
        currency: Option<String>,
        /// What the used part is made of (system prompt, tools, messages…), where the agent says.
        #[serde(default)]
        breakdown: Vec<ContextCategory>,
    },
    /// The ways the agent offers to log in; `required` when it refused to work without.
    AuthMethods {
        methods: Vec<AuthMethodInfo>,
        required: bool,
        message: Option<String>,
    },
    /// The agent's past sessions (for history), newest first as the agent lists them.
    SessionList {
        sessions: Vec<SessionSummary>,
    },
    /// A past session deleted at the user's request; `error` says why the agent refused.
    SessionDeleted {
        id: String,
        error: Option<String>,
    },
}

impl UiEvent {
    /// An error or notice from the core (the driver's own fields unset).
    pub fn error(kind: ErrorKind, severity: Severity, message: String, hint: Option<String>) -> UiEvent {
        UiEvent::Error {
            kind,
            severity,
            message,
            hint,
            retryable: None,
            session_id: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Read,
    Edit,
    Execute,
    Search,
    Think,
    Fetch,
    SwitchMode,
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Location {
    pub path: String,
    /// 1-based line, when the call targets one.
    pub line: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TodoItem {
    pub content: String,
    pub status: String,
    pub active_form: Option<String>,
}

/// One answer to a permission request, as ACP offers them: an id to answer with, a label, and
/// what it means.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PermissionOption {
    pub option_id: String,
    pub name: String,
    pub kind: PermissionOptionKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum PermissionOptionKind {
    AllowOnce,
    /// Allow, and the same next time (a rule, or a mode, says what "the same" covers).
    AllowAlways,
    RejectOnce,
    RejectAlways,
}

impl PermissionOptionKind {
    pub fn allows(self) -> bool {
        matches!(
            self,
            PermissionOptionKind::AllowOnce | PermissionOptionKind::AllowAlways
        )
    }
}

/// A proposed file change shown for review before it is written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EditReview {
    /// The workspace path.
    pub path: String,
    /// The text before; None for a new file.
    pub original: Option<String>,
    /// The text after.
    pub proposed: String,
    /// The change as `structuredPatch` hunks (none when it is too large to diff).
    pub hunks: Vec<Hunk>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum SessionState {
    Idle,
    Running,
    RequiresAction,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct McpServerStatus {
    pub name: String,
    pub status: String,
}

/// One piece of what a tool call shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum ToolContentItem {
    Text {
        text: String,
    },
    /// A file change: `old_text` None for a new file. `path` is a workspace path.
    Diff {
        path: String,
        old_text: Option<String>,
        new_text: String,
    },
    /// The output of a terminal, by id (its text comes in [`UiEvent::TerminalOutput`]).
    Terminal {
        terminal_id: String,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum ErrorKind {
    /// The agent has no credentials; `hint` says how to log in.
    NotLoggedIn,
    /// The turn hit the turn limit; the session goes on.
    MaxTurns,
    MaxBudget,
    /// The turn ended because the user stopped it.
    Interrupted,
    /// The model API failed (after the agent's own retries).
    Api,
    ExecutionError,
    /// A control request the host sent (set mode, set model, ...) was refused.
    ControlRequestFailed,
    /// The agent's process died; only the driver sees this.
    Crash,
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    /// Worth showing, but nothing failed (max turns reached, stopped by the user).
    Notice,
    Error,
}

/// How a tool call is shown: its kind, a one-line title and the places it touches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolDescription {
    pub kind: ToolKind,
    pub title: String,
    pub locations: Vec<Location>,
}

/// Describe a call to a tool by its built-in name (Claude Code's names, which ACP agents share).
/// Paths inside `cwd` are shown relative to it.
pub fn describe_tool(name: &str, input: &Value, cwd: Option<&str>) -> ToolDescription {
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    let number = |key: &str| input.get(key).and_then(Value::as_u64);
    let shown = |path: &str| display_path(path, cwd);
    let located = |path: Option<&str>, line: Option<u64>| -> Vec<Location> {
        path.map(|p| Location {
            path: p.to_string(),
            line,
        })
        .into_iter()
        .collect()
    };
    let in_path = |path: Option<&str>| path.map(|p| format!(" in {}", shown(p))).unwrap_or_default();
    let kind = tool_kind(name);
    let (title, locations) = match name {
        "Read" => {
            let path = text("file_path");
            let range = match (number("offset"), number("limit")) {
                (Some(offset), Some(limit)) if limit > 0 => {
                    format!(" (lines {offset}-{})", offset.saturating_add(limit - 1))
                }
                (Some(offset), _) => format!(" (from line {offset})"),
                (None, Some(limit)) => format!(" (first {limit} lines)"),
                (None, None) => String::new(),
            };
            (
                format!("Read {}{range}", path.map(shown).unwrap_or_default()),
                located(path, number("offset")),
            )
        }
        "Write" | "Edit" | "MultiEdit" => {
            let path = text("file_path");
            let verb = if name == "Write" { "Write" } else { "Edit" };
            (
                format!("{verb} {}", path.map(shown).unwrap_or_default()),
                located(path, None),
            )
        }
        "NotebookEdit" => {
            let path = text("notebook_path");
            (
                format!("Edit {}", path.map(shown).unwrap_or_default()),
                located(path, None),
            )
        }
        "LS" => {
            let path = text("path");
            (
                format!("List {}", path.map(shown).unwrap_or_default()),
                located(path, None),
            )
        }
        "Glob" => (
            format!("Find {}{}", text("pattern").unwrap_or_default(), in_path(text("path"))),
            located(text("path"), None),
        ),
        "Grep" => (
            format!(
                "Search {}{}",
                text("pattern").unwrap_or_default(),
                in_path(text("path"))
            ),
            located(text("path"), None),
        ),
        "Bash" | "PowerShell" => (first_line(text("command").unwrap_or_default(), 120), Vec::new()),
        "BashOutput" => ("Shell output".to_string(), Vec::new()),
        "KillShell" | "TaskStop" => ("Stop background task".to_string(), Vec::new()),
        "WebFetch" => (format!("Fetch {}", text("url").unwrap_or_default()), Vec::new()),
        "WebSearch" => (
            format!("Search the web: {}", text("query").unwrap_or_default()),
            Vec::new(),
        ),
        "Agent" | "Task" => (
            format!("Agent: {}", text("description").unwrap_or("subtask")),
            Vec::new(),
        ),
        "TodoWrite" => ("Update todos".to_string(), Vec::new()),
        "ExitPlanMode" => ("Ready to code?".to_string(), Vec::new()),
        "EnterPlanMode" => ("Plan first".to_string(), Vec::new()),
        "AskUserQuestion" => ("Question for you".to_string(), Vec::new()),
        _ => (name.to_string(), Vec::new()),
    };
    ToolDescription {
        kind,
        title: title.trim_end().to_string(),
        locations,
    }
}

pub fn tool_kind(name: &str) -> ToolKind {
    match name {
        "Read" | "LS" => ToolKind::Read,
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => ToolKind::Edit,
        "Bash" | "BashOutput" | "KillShell" | "TaskStop" | "Monitor" | "PowerShell" => ToolKind::Execute,
        "Glob" | "Grep" | "ToolSearch" => ToolKind::Search,
        "WebFetch" | "WebSearch" => ToolKind::Fetch,
        "Agent" | "Task" | "TodoWrite" => ToolKind::Think,
        "ExitPlanMode" | "EnterPlanMode" => ToolKind::SwitchMode,
        _ => ToolKind::Other,
    }
}

/// `path` relative to `cwd` when it lies inside it (either separator), else unchanged.
fn display_path(path: &str, cwd: Option<&str>) -> String {
    let Some(cwd) = cwd.map(|c| c.trim_end_matches(['/', '\\'])).filter(|c| !c.is_empty()) else {
        return path.to_string();
    };
    match path.strip_prefix(cwd) {
        Some("") => ".".to_string(),
        Some(rest) if rest.starts_with(['/', '\\']) => rest[1..].to_string(),
        _ => path.to_string(),
    }
}

/// The first line of `text`, cut to `max_chars` characters (with an ellipsis when cut).
fn first_line(text: &str, max_chars: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    let more_lines = text.trim_end().lines().nth(1).is_some();
    let mut out: String = line.chars().take(max_chars).collect();
    if more_lines || line.chars().count() > max_chars {
        out.push('…');
    }
    out
}
