//! What the CLI writes on stdout: one message a line, by type.

use super::{str_field, ContentBlock, ControlResponse, Fields, IncomingControlRequest, StreamEventMessage};
use serde_json::Value;

/// One line the CLI writes on stdout.
#[derive(Clone, Debug, PartialEq)]
pub enum CliMessage {
    System(SystemMessage),
    Assistant(AssistantMessage),
    User(UserMessage),
    StreamEvent(StreamEventMessage),
    Result(ResultMessage),
    RateLimit(RateLimitEvent),
    ToolProgress(ToolProgress),
    ControlRequest(IncomingControlRequest),
    ControlResponse(ControlResponse),
    ControlCancelRequest {
        request_id: String,
    },
    KeepAlive,
    /// Any other message type (or a known one in an unexpected shape). Tolerated, never an error.
    Unknown(Value),
}

/// A stdout line that is not a JSON object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotJsonObject;

impl CliMessage {
    pub fn parse(line: &str) -> Result<CliMessage, NotJsonObject> {
        match serde_json::from_str::<Value>(line.trim()) {
            Ok(value @ Value::Object(_)) => Ok(CliMessage::from_value(value)),
            _ => Err(NotJsonObject),
        }
    }

    pub fn from_value(value: Value) -> CliMessage {
        let parsed = match str_field(&value, "type") {
            Some("system") => Some(CliMessage::System(SystemMessage::from_value(&value))),
            Some("assistant") => AssistantMessage::parse(&value).map(CliMessage::Assistant),
            Some("user") => UserMessage::parse(&value).map(CliMessage::User),
            Some("stream_event") => StreamEventMessage::parse(&value).map(CliMessage::StreamEvent),
            Some("result") => ResultMessage::parse(&value).map(CliMessage::Result),
            Some("rate_limit_event") => RateLimitEvent::parse(&value).map(CliMessage::RateLimit),
            Some("tool_progress") => ToolProgress::parse(&value).map(CliMessage::ToolProgress),
            Some("control_request") => IncomingControlRequest::from_value(&value).map(CliMessage::ControlRequest),
            Some("control_response") => ControlResponse::from_value(&value).map(CliMessage::ControlResponse),
            Some("control_cancel_request") => {
                str_field(&value, "request_id").map(|id| CliMessage::ControlCancelRequest { request_id: id.into() })
            }
            Some("keep_alive") => Some(CliMessage::KeepAlive),
            _ => None,
        };
        parsed.unwrap_or(CliMessage::Unknown(value))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum SystemMessage {
    Init(SystemInit),
    Status(SystemStatus),
    ApiRetry(ApiRetry),
    SessionStateChanged { state: String },
    SessionTitleChanged { title: String },
    PermissionDenied(PermissionDenied),
    CompactBoundary(CompactBoundary),
    TaskStarted(TaskStarted),
    TaskNotification(TaskNotification),
    Other { subtype: String, raw: Value },
}

impl SystemMessage {
    pub(super) fn from_value(value: &Value) -> SystemMessage {
        let subtype = str_field(value, "subtype").unwrap_or_default();
        let parsed = match subtype {
            "init" => SystemInit::parse(value).map(SystemMessage::Init),
            "status" => SystemStatus::parse(value).map(SystemMessage::Status),
            "api_retry" => ApiRetry::parse(value).map(SystemMessage::ApiRetry),
            "session_state_changed" => {
                str_field(value, "state").map(|s| SystemMessage::SessionStateChanged { state: s.into() })
            }
            // The session's title changed (CLI 2.1.330 sends it after `rename_session`).
            "session_title_changed" => {
                str_field(value, "title").map(|t| SystemMessage::SessionTitleChanged { title: t.into() })
            }
            "permission_denied" => PermissionDenied::parse(value).map(SystemMessage::PermissionDenied),
            "compact_boundary" => CompactBoundary::parse(value).map(SystemMessage::CompactBoundary),
            "task_started" => TaskStarted::parse(value).map(SystemMessage::TaskStarted),
            "task_notification" => TaskNotification::parse(value).map(SystemMessage::TaskNotification),
            _ => None,
        };
        parsed.unwrap_or_else(|| SystemMessage::Other {
            subtype: subtype.to_string(),
            raw: value.clone(),
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SystemInit {
    pub session_id: String,
    pub cwd: Option<String>,
    pub model: Option<String>,
    pub tools: Vec<String>,
    pub mcp_servers: Vec<McpServerInfo>,
    pub permission_mode: Option<String>,
    pub claude_code_version: Option<String>,
    pub agents: Vec<String>,
    pub slash_commands: Vec<String>,
}

impl SystemInit {
    pub(super) fn parse(value: &Value) -> Option<SystemInit> {
        let f = Fields::of(value)?;
        Some(SystemInit {
            session_id: f.string("session_id")?,
            cwd: f.opt_string("cwd")?,
            model: f.opt_string("model")?,
            tools: f.strings("tools")?,
            mcp_servers: f.list("mcp_servers", McpServerInfo::parse)?,
            permission_mode: f.opt_string("permissionMode")?,
            claude_code_version: f.opt_string("claude_code_version")?,
            agents: f.strings("agents")?,
            slash_commands: f.strings("slash_commands")?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct McpServerInfo {
    pub name: String,
    pub status: String,
}

impl McpServerInfo {
    pub(super) fn parse(value: &Value) -> Option<McpServerInfo> {
        let f = Fields::of(value)?;
        Some(McpServerInfo {
            name: f.string("name")?,
            status: f.string("status")?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SystemStatus {
    /// "requesting", "compacting", ... or null when idle again.
    pub status: Option<String>,
    pub permission_mode: Option<String>,
}

impl SystemStatus {
    pub(super) fn parse(value: &Value) -> Option<SystemStatus> {
        let f = Fields::of(value)?;
        Some(SystemStatus {
            status: f.opt_string("status")?,
            permission_mode: f.opt_string("permissionMode")?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ApiRetry {
    pub attempt: u32,
    pub max_retries: u32,
    pub retry_delay_ms: u64,
    pub error_status: Option<u16>,
    /// A short category ("overloaded", "rate_limit", ...); may also be an object in odd builds.
    pub error: Value,
}

impl ApiRetry {
    pub(super) fn parse(value: &Value) -> Option<ApiRetry> {
        let f = Fields::of(value)?;
        Some(ApiRetry {
            attempt: f.number("attempt")?,
            max_retries: f.number("max_retries")?,
            retry_delay_ms: f.number("retry_delay_ms")?,
            error_status: f.opt_number("error_status")?,
            error: f.value("error"),
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PermissionDenied {
    pub tool_name: String,
    pub tool_use_id: String,
    pub agent_id: Option<String>,
    pub decision_reason_type: Option<String>,
    pub message: Option<String>,
}

impl PermissionDenied {
    pub(super) fn parse(value: &Value) -> Option<PermissionDenied> {
        let f = Fields::of(value)?;
        Some(PermissionDenied {
            tool_name: f.string("tool_name")?,
            tool_use_id: f.string("tool_use_id")?,
            agent_id: f.opt_string("agent_id")?,
            decision_reason_type: f.opt_string("decision_reason_type")?,
            message: f.opt_string("message")?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompactBoundary {
    pub compact_metadata: CompactMetadata,
}

impl CompactBoundary {
    pub(super) fn parse(value: &Value) -> Option<CompactBoundary> {
        let f = Fields::of(value)?;
        Some(CompactBoundary {
            compact_metadata: f.object("compact_metadata", CompactMetadata::parse)?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompactMetadata {
    pub trigger: Option<String>,
    pub pre_tokens: Option<u64>,
}

impl CompactMetadata {
    pub(super) fn parse(value: &Value) -> Option<CompactMetadata> {
        let f = Fields::of(value)?;
        Some(CompactMetadata {
            trigger: f.opt_string("trigger")?,
            pre_tokens: f.opt_number("pre_tokens")?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskStarted {
    pub task_id: String,
    pub tool_use_id: Option<String>,
    pub description: Option<String>,
    pub subagent_type: Option<String>,
    pub is_backgrounded: Option<bool>,
}

impl TaskStarted {
    pub(super) fn parse(value: &Value) -> Option<TaskStarted> {
        let f = Fields::of(value)?;
        Some(TaskStarted {
            task_id: f.string("task_id")?,
            tool_use_id: f.opt_string("tool_use_id")?,
            description: f.opt_string("description")?,
            subagent_type: f.opt_string("subagent_type")?,
            is_backgrounded: f.opt_bool("is_backgrounded")?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskNotification {
    pub task_id: String,
    pub tool_use_id: Option<String>,
    /// completed, failed or stopped.
    pub status: String,
    pub summary: Option<String>,
}

impl TaskNotification {
    pub(super) fn parse(value: &Value) -> Option<TaskNotification> {
        let f = Fields::of(value)?;
        Some(TaskNotification {
            task_id: f.string("task_id")?,
            tool_use_id: f.opt_string("tool_use_id")?,
            status: f.string("status")?,
            summary: f.opt_string("summary")?,
        })
    }
}

/// One assistant content block per line; a reply of text + tool_use gives two lines with the same
/// `message.id`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AssistantMessage {
    pub message: ApiMessage,
    pub parent_tool_use_id: Option<String>,
    pub session_id: String,
    pub agent_id: Option<String>,
}

impl AssistantMessage {
    pub(super) fn parse(value: &Value) -> Option<AssistantMessage> {
        let f = Fields::of(value)?;
        Some(AssistantMessage {
            message: f.object("message", ApiMessage::parse)?,
            parent_tool_use_id: f.opt_string("parent_tool_use_id")?,
            session_id: f.string("session_id")?,
            agent_id: f.opt_string("agent_id")?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ApiMessage {
    pub id: String,
    pub model: Option<String>,
    pub content: Vec<ContentBlock>,
    pub stop_reason: Option<String>,
    pub usage: Option<Usage>,
}

impl ApiMessage {
    pub(super) fn parse(value: &Value) -> Option<ApiMessage> {
        let f = Fields::of(value)?;
        Some(ApiMessage {
            id: f.string("id")?,
            model: f.opt_string("model")?,
            content: f.list("content", |b| Some(ContentBlock::from_value(b.clone())))?,
            stop_reason: f.opt_string("stop_reason")?,
            usage: f.opt_object("usage", Usage::parse)?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
}

impl Usage {
    pub(super) fn parse(value: &Value) -> Option<Usage> {
        let f = Fields::of(value)?;
        Some(Usage {
            input_tokens: f.number("input_tokens")?,
            output_tokens: f.number("output_tokens")?,
            cache_creation_input_tokens: f.number("cache_creation_input_tokens")?,
            cache_read_input_tokens: f.number("cache_read_input_tokens")?,
        })
    }
}

/// A tool result or other user-side message the CLI reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UserMessage {
    pub message: UserContent,
    pub parent_tool_use_id: Option<String>,
    pub session_id: String,
    pub agent_id: Option<String>,
    /// The structured result of the tool call this message answers (built-in shapes; the MCP
    /// `content` array for MCP tools).
    pub tool_use_result: Option<Value>,
    pub tool_result_meta: Option<Value>,
    /// Echo of the host's own message (with `--replay-user-messages`).
    pub is_replay: bool,
}

impl UserMessage {
    pub(super) fn parse(value: &Value) -> Option<UserMessage> {
        let f = Fields::of(value)?;
        Some(UserMessage {
            message: f.object("message", UserContent::parse)?,
            parent_tool_use_id: f.opt_string("parent_tool_use_id")?,
            session_id: f.string("session_id")?,
            agent_id: f.opt_string("agent_id")?,
            tool_use_result: f.get("tool_use_result").cloned(),
            tool_result_meta: f.get("tool_result_meta").cloned(),
            is_replay: f.bool("isReplay")?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct UserContent {
    pub content: Vec<ContentBlock>,
}

impl UserContent {
    pub(super) fn parse(value: &Value) -> Option<UserContent> {
        let f = Fields::of(value)?;
        // `content` is either a plain string or a list of blocks.
        let content = match f.get("content") {
            Some(Value::String(text)) => vec![ContentBlock::Text { text: text.clone() }],
            Some(Value::Array(items)) => items.iter().cloned().map(ContentBlock::from_value).collect(),
            _ => Vec::new(),
        };
        Some(UserContent { content })
    }
}

/// The end of a turn. Subtypes: success, error_during_execution, error_max_turns,
/// error_max_budget_usd, error_max_structured_output_retries. An auth failure is
/// `success` + `is_error` + "Not logged in · Please run /login".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResultMessage {
    pub subtype: String,
    pub is_error: bool,
    pub duration_ms: u64,
    pub duration_api_ms: u64,
    pub num_turns: u32,
    pub session_id: String,
    pub result: Option<String>,
    pub errors: Vec<String>,
    pub stop_reason: Option<String>,
    pub terminal_reason: Option<String>,
    pub total_cost_usd: Option<f64>,
    pub usage: Option<Usage>,
    pub permission_denials: Vec<Value>,
}

impl ResultMessage {
    pub(super) fn parse(value: &Value) -> Option<ResultMessage> {
        let f = Fields::of(value)?;
        Some(ResultMessage {
            subtype: f.string("subtype")?,
            is_error: f.bool("is_error")?,
            duration_ms: f.number("duration_ms")?,
            duration_api_ms: f.number("duration_api_ms")?,
            num_turns: f.number("num_turns")?,
            session_id: f.string("session_id")?,
            result: f.opt_string("result")?,
            errors: f.strings("errors")?,
            stop_reason: f.opt_string("stop_reason")?,
            terminal_reason: f.opt_string("terminal_reason")?,
            total_cost_usd: f.opt_f64("total_cost_usd")?,
            usage: f.opt_object("usage", Usage::parse)?,
            permission_denials: f.list("permission_denials", |d| Some(d.clone()))?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RateLimitEvent {
    pub rate_limit_info: RateLimitInfo,
}

impl RateLimitEvent {
    pub(super) fn parse(value: &Value) -> Option<RateLimitEvent> {
        let f = Fields::of(value)?;
        Some(RateLimitEvent {
            rate_limit_info: f.object("rate_limit_info", RateLimitInfo::parse)?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RateLimitInfo {
    /// allowed, allowed_warning or rejected.
    pub status: String,
    pub resets_at: Option<i64>,
    pub rate_limit_type: Option<String>,
}

impl RateLimitInfo {
    pub(super) fn parse(value: &Value) -> Option<RateLimitInfo> {
        let f = Fields::of(value)?;
        Some(RateLimitInfo {
            status: f.string("status")?,
            resets_at: f.opt_number("resetsAt")?,
            rate_limit_type: f.opt_string("rateLimitType")?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolProgress {
    pub tool_use_id: String,
    pub tool_name: String,
    pub parent_tool_use_id: Option<String>,
    pub elapsed_time_seconds: u64,
}

impl ToolProgress {
    pub(super) fn parse(value: &Value) -> Option<ToolProgress> {
        let f = Fields::of(value)?;
        Some(ToolProgress {
            tool_use_id: f.string("tool_use_id")?,
            tool_name: f.string("tool_name")?,
            parent_tool_use_id: f.opt_string("parent_tool_use_id")?,
            elapsed_time_seconds: f.number("elapsed_time_seconds")?,
        })
    }
}
