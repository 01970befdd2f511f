//! The stream-json wire protocol of the Claude Code CLI as data types, apart from any behaviour.
//!
//! Parsing is lenient: unknown fields are ignored, missing fields take defaults, and a message
//! (or block, event, request) of an unknown kind, or whose known fields have unexpected types,
//! becomes an `Other`/`Unknown` variant holding the raw JSON. Nothing here panics on input.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The fields of a JSON object, read as serde's derive with `#[serde(default)]` reads them: a missing
/// or null field takes its default, a field of another type fails the whole view (the message then
/// stays raw JSON). Written out because the derive costs about 70 KB of wasm for these types.
struct Fields<'a>(&'a serde_json::Map<String, Value>);

impl<'a> Fields<'a> {
    fn of(value: &'a Value) -> Option<Fields<'a>> {
        value.as_object().map(Fields)
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    /// A field that must be there: `None` when missing.
    fn required_string(&self, key: &str) -> Option<String> {
        self.get(key)?.as_str().map(str::to_string)
    }

    fn string(&self, key: &str) -> Option<String> {
        Some(self.opt_string(key)?.unwrap_or_default())
    }

    fn opt_string(&self, key: &str) -> Option<Option<String>> {
        match self.get(key) {
            None => Some(None),
            Some(v) => v.as_str().map(|s| Some(s.to_string())),
        }
    }

    fn bool(&self, key: &str) -> Option<bool> {
        Some(self.opt_bool(key)?.unwrap_or_default())
    }

    fn opt_bool(&self, key: &str) -> Option<Option<bool>> {
        match self.get(key) {
            None => Some(None),
            Some(v) => v.as_bool().map(Some),
        }
    }

    /// An integer that fits `T`.
    fn number<T: TryFrom<i64> + TryFrom<u64> + Default>(&self, key: &str) -> Option<T> {
        Some(self.opt_number(key)?.unwrap_or_default())
    }

    fn opt_number<T: TryFrom<i64> + TryFrom<u64>>(&self, key: &str) -> Option<Option<T>> {
        let Some(v) = self.get(key) else {
            return Some(None);
        };
        match (v.as_u64(), v.as_i64()) {
            (Some(n), _) => T::try_from(n).ok().map(Some),
            (None, Some(n)) => T::try_from(n).ok().map(Some),
            _ => None,
        }
    }

    fn opt_f64(&self, key: &str) -> Option<Option<f64>> {
        match self.get(key) {
            None => Some(None),
            Some(v) => v.as_f64().map(Some),
        }
    }

    /// The raw value (null when missing).
    fn value(&self, key: &str) -> Value {
        self.get(key).cloned().unwrap_or(Value::Null)
    }

    fn object<T: Default>(&self, key: &str, parse: fn(&Value) -> Option<T>) -> Option<T> {
        Some(self.opt_object(key, parse)?.unwrap_or_default())
    }

    fn opt_object<T>(&self, key: &str, parse: fn(&Value) -> Option<T>) -> Option<Option<T>> {
        match self.get(key) {
            None => Some(None),
            Some(v) => parse(v).map(Some),
        }
    }

    fn list<T>(&self, key: &str, parse: impl Fn(&Value) -> Option<T>) -> Option<Vec<T>> {
        match self.get(key) {
            None => Some(Vec::new()),
            Some(v) => v.as_array()?.iter().map(parse).collect(),
        }
    }

    fn strings(&self, key: &str) -> Option<Vec<String>> {
        self.list(key, |v| v.as_str().map(str::to_string))
    }
}

fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

// ---------------------------------------------------------------------------------------------
// CLI → host (stdout)

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
    PermissionDenied(PermissionDenied),
    CompactBoundary(CompactBoundary),
    TaskStarted(TaskStarted),
    TaskNotification(TaskNotification),
    Other { subtype: String, raw: Value },
}

impl SystemMessage {
    fn from_value(value: &Value) -> SystemMessage {
        let subtype = str_field(value, "subtype").unwrap_or_default();
        let parsed = match subtype {
            "init" => SystemInit::parse(value).map(SystemMessage::Init),
            "status" => SystemStatus::parse(value).map(SystemMessage::Status),
            "api_retry" => ApiRetry::parse(value).map(SystemMessage::ApiRetry),
            "session_state_changed" => {
                str_field(value, "state").map(|s| SystemMessage::SessionStateChanged { state: s.into() })
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
    fn parse(value: &Value) -> Option<SystemInit> {
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
    fn parse(value: &Value) -> Option<McpServerInfo> {
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
    fn parse(value: &Value) -> Option<SystemStatus> {
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
    fn parse(value: &Value) -> Option<ApiRetry> {
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
    fn parse(value: &Value) -> Option<PermissionDenied> {
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
    fn parse(value: &Value) -> Option<CompactBoundary> {
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
    fn parse(value: &Value) -> Option<CompactMetadata> {
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
    fn parse(value: &Value) -> Option<TaskStarted> {
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
    fn parse(value: &Value) -> Option<TaskNotification> {
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
    fn parse(value: &Value) -> Option<AssistantMessage> {
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
    fn parse(value: &Value) -> Option<ApiMessage> {
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
    fn parse(value: &Value) -> Option<Usage> {
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
    fn parse(value: &Value) -> Option<UserMessage> {
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
    fn parse(value: &Value) -> Option<UserContent> {
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

#[derive(Clone, Debug, PartialEq)]
pub enum ContentBlock {
    Text {
        text: String,
    },
    Thinking {
        thinking: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        /// A string or a list of content blocks.
        content: Value,
        is_error: bool,
    },
    Other(Value),
}

impl ContentBlock {
    pub fn from_value(value: Value) -> ContentBlock {
        let text = |key: &str| str_field(&value, key).map(str::to_string);
        let parsed = match str_field(&value, "type") {
            Some("text") => text("text").map(|text| ContentBlock::Text { text }),
            Some("thinking") => Some(ContentBlock::Thinking {
                thinking: text("thinking").unwrap_or_default(),
            }),
            Some("tool_use") => match (text("id"), text("name")) {
                (Some(id), Some(name)) => Some(ContentBlock::ToolUse {
                    id,
                    name,
                    input: value.get("input").cloned().unwrap_or(Value::Null),
                }),
                _ => None,
            },
            Some("tool_result") => text("tool_use_id").map(|tool_use_id| ContentBlock::ToolResult {
                tool_use_id,
                content: value.get("content").cloned().unwrap_or(Value::Null),
                is_error: value.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            }),
            _ => None,
        };
        parsed.unwrap_or(ContentBlock::Other(value))
    }
}

/// The text of a tool_result `content` (a string, or text blocks joined by newlines).
pub fn tool_result_text(content: &Value) -> String {
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter(|b| str_field(b, "type") == Some("text"))
            .filter_map(|b| str_field(b, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    // The tags the CLI (and Tether's tools, like it) put around an input error are for the model.
    match text
        .strip_prefix("<tool_use_error>")
        .and_then(|t| t.strip_suffix("</tool_use_error>"))
    {
        Some(inner) => inner.to_string(),
        None => text,
    }
}

/// A raw Messages API streaming event, wrapped (`--include-partial-messages`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StreamEventMessage {
    pub event: StreamEvent,
    pub parent_tool_use_id: Option<String>,
    pub session_id: String,
    /// The API message these events build (absent in older builds; then message_start tells).
    pub api_message_id: Option<String>,
}

impl StreamEventMessage {
    fn parse(value: &Value) -> Option<StreamEventMessage> {
        let f = Fields::of(value)?;
        Some(StreamEventMessage {
            event: f.get("event").cloned().map(StreamEvent::from_value).unwrap_or_default(),
            parent_tool_use_id: f.opt_string("parent_tool_use_id")?,
            session_id: f.string("session_id")?,
            api_message_id: f.opt_string("api_message_id")?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub enum StreamEvent {
    MessageStart {
        id: String,
    },
    ContentBlockStart {
        index: u64,
        block: ContentBlock,
    },
    ContentBlockDelta {
        index: u64,
        delta: Delta,
    },
    ContentBlockStop {
        index: u64,
    },
    MessageDelta {
        stop_reason: Option<String>,
    },
    MessageStop,
    #[default]
    Ping,
    Other(Value),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Delta {
    Text(String),
    Thinking(String),
    InputJson(String),
    Signature,
    Other(Value),
}

impl StreamEvent {
    pub fn from_value(value: Value) -> StreamEvent {
        let index = value.get("index").and_then(Value::as_u64);
        let parsed = match (str_field(&value, "type"), index) {
            (Some("message_start"), _) => value
                .pointer("/message/id")
                .and_then(Value::as_str)
                .map(|id| StreamEvent::MessageStart { id: id.into() }),
            (Some("content_block_start"), Some(index)) => {
                value.get("content_block").map(|b| StreamEvent::ContentBlockStart {
                    index,
                    block: ContentBlock::from_value(b.clone()),
                })
            }
            (Some("content_block_delta"), Some(index)) => value.get("delta").map(|d| StreamEvent::ContentBlockDelta {
                index,
                delta: Delta::from_value(d),
            }),
            (Some("content_block_stop"), Some(index)) => Some(StreamEvent::ContentBlockStop { index }),
            (Some("message_delta"), _) => Some(StreamEvent::MessageDelta {
                stop_reason: value
                    .pointer("/delta/stop_reason")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            }),
            (Some("message_stop"), _) => Some(StreamEvent::MessageStop),
            (Some("ping"), _) => Some(StreamEvent::Ping),
            _ => None,
        };
        parsed.unwrap_or(StreamEvent::Other(value))
    }
}

impl Delta {
    fn from_value(value: &Value) -> Delta {
        let text = |key: &str| str_field(value, key).map(str::to_string);
        let parsed = match str_field(value, "type") {
            Some("text_delta") => text("text").map(Delta::Text),
            Some("thinking_delta") => text("thinking").map(Delta::Thinking),
            Some("input_json_delta") => text("partial_json").map(Delta::InputJson),
            Some("signature_delta") => Some(Delta::Signature),
            _ => None,
        };
        parsed.unwrap_or_else(|| Delta::Other(value.clone()))
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
    fn parse(value: &Value) -> Option<ResultMessage> {
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
    fn parse(value: &Value) -> Option<RateLimitEvent> {
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
    fn parse(value: &Value) -> Option<RateLimitInfo> {
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
    fn parse(value: &Value) -> Option<ToolProgress> {
        let f = Fields::of(value)?;
        Some(ToolProgress {
            tool_use_id: f.string("tool_use_id")?,
            tool_name: f.string("tool_name")?,
            parent_tool_use_id: f.opt_string("parent_tool_use_id")?,
            elapsed_time_seconds: f.number("elapsed_time_seconds")?,
        })
    }
}

/// A control request the CLI sends: `{"type":"control_request","request_id":..,"request":{..}}`.
#[derive(Clone, Debug, PartialEq)]
pub struct IncomingControlRequest {
    pub request_id: String,
    pub request: CliRequest,
}

impl IncomingControlRequest {
    fn from_value(value: &Value) -> Option<IncomingControlRequest> {
        let request_id = str_field(value, "request_id")?.to_string();
        let request = value.get("request").cloned().unwrap_or(Value::Null);
        Some(IncomingControlRequest {
            request_id,
            request: CliRequest::from_value(request),
        })
    }
}

/// Requests the CLI makes of the host.
#[derive(Clone, Debug, PartialEq)]
pub enum CliRequest {
    CanUseTool(CanUseTool),
    McpMessage {
        server_name: String,
        message: Value,
    },
    HookCallback(HookCallback),
    /// Any other subtype (elicitation, request_user_dialog, ...), or a known one in an
    /// unexpected shape. `subtype` is empty when there was none.
    Other {
        subtype: String,
        raw: Value,
    },
}

impl CliRequest {
    pub fn subtype(&self) -> &str {
        match self {
            CliRequest::CanUseTool(_) => "can_use_tool",
            CliRequest::McpMessage { .. } => "mcp_message",
            CliRequest::HookCallback(_) => "hook_callback",
            CliRequest::Other { subtype, .. } => subtype,
        }
    }

    pub fn from_value(value: Value) -> CliRequest {
        let subtype = str_field(&value, "subtype").unwrap_or_default().to_string();
        let parsed = match subtype.as_str() {
            "can_use_tool" => CanUseTool::parse(&value).map(CliRequest::CanUseTool),
            "mcp_message" => match (str_field(&value, "server_name"), value.get("message")) {
                (Some(server), Some(message)) => Some(CliRequest::McpMessage {
                    server_name: server.into(),
                    message: message.clone(),
                }),
                _ => None,
            },
            "hook_callback" => HookCallback::parse(&value).map(CliRequest::HookCallback),
            _ => None,
        };
        parsed.unwrap_or(CliRequest::Other { subtype, raw: value })
    }
}

/// `can_use_tool`: the CLI asks whether a tool call may run (with `--permission-prompt-tool stdio`).
#[derive(Clone, Debug, PartialEq)]
pub struct CanUseTool {
    pub tool_name: String,
    pub input: Value,
    pub tool_use_id: Option<String>,
    /// PermissionUpdate objects, kept verbatim so they can be echoed back.
    pub permission_suggestions: Vec<Value>,
    pub blocked_path: Option<String>,
    pub decision_reason: Option<String>,
    pub decision_reason_type: Option<String>,
    pub title: Option<String>,
    pub display_name: Option<String>,
    pub description: Option<String>,
    pub agent_id: Option<String>,
    pub suppress_always_allow_rule: bool,
    pub requires_user_interaction: bool,
}

impl CanUseTool {
    fn parse(value: &Value) -> Option<CanUseTool> {
        let f = Fields::of(value)?;
        Some(CanUseTool {
            tool_name: f.required_string("tool_name")?,
            input: f.value("input"),
            tool_use_id: f.opt_string("tool_use_id")?,
            permission_suggestions: f.list("permission_suggestions", |s| Some(s.clone()))?,
            blocked_path: f.opt_string("blocked_path")?,
            decision_reason: f.opt_string("decision_reason")?,
            decision_reason_type: f.opt_string("decision_reason_type")?,
            title: f.opt_string("title")?,
            display_name: f.opt_string("display_name")?,
            description: f.opt_string("description")?,
            agent_id: f.opt_string("agent_id")?,
            suppress_always_allow_rule: f.bool("suppress_always_allow_rule")?,
            requires_user_interaction: f.bool("requires_user_interaction")?,
        })
    }
}

/// `hook_callback`: a hook registered in `initialize.hooks` fired.
#[derive(Clone, Debug, PartialEq)]
pub struct HookCallback {
    pub callback_id: String,
    pub input: Value,
    pub tool_use_id: Option<String>,
}

impl HookCallback {
    fn parse(value: &Value) -> Option<HookCallback> {
        let f = Fields::of(value)?;
        Some(HookCallback {
            callback_id: f.required_string("callback_id")?,
            input: f.value("input"),
            tool_use_id: f.opt_string("tool_use_id")?,
        })
    }
}

/// The answer to a control request, either direction.
#[derive(Clone, Debug, PartialEq)]
pub enum ControlResponse {
    Success {
        request_id: String,
        response: Value,
    },
    Error {
        request_id: String,
        error: String,
        error_code: Option<String>,
    },
}

impl ControlResponse {
    pub fn request_id(&self) -> &str {
        match self {
            ControlResponse::Success { request_id, .. } | ControlResponse::Error { request_id, .. } => request_id,
        }
    }

    fn from_value(value: &Value) -> Option<ControlResponse> {
        let body = value.get("response")?;
        let request_id = str_field(body, "request_id")?.to_string();
        match str_field(body, "subtype")? {
            "success" => Some(ControlResponse::Success {
                request_id,
                response: body.get("response").cloned().unwrap_or(Value::Null),
            }),
            "error" => Some(ControlResponse::Error {
                request_id,
                error: match body.get("error") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                },
                error_code: str_field(body, "error_code").map(str::to_string),
            }),
            _ => None,
        }
    }

    /// The stdin line carrying this response.
    pub fn to_line(&self) -> String {
        let body = match self {
            ControlResponse::Success { request_id, response } => {
                json!({"subtype": "success", "request_id": request_id, "response": response})
            }
            ControlResponse::Error {
                request_id,
                error,
                error_code,
            } => {
                let mut body = json!({"subtype": "error", "request_id": request_id, "error": error});
                if let Some(code) = error_code {
                    body["error_code"] = json!(code);
                }
                body
            }
        };
        json!({"type": "control_response", "response": body}).to_string()
    }
}

// ---------------------------------------------------------------------------------------------
// host → CLI (stdin)

/// Requests the host makes of the CLI.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum HostRequest {
    Initialize(InitializeRequest),
    Interrupt,
    SetPermissionMode {
        mode: String,
    },
    /// `None` goes back to the default model.
    SetModel {
        model: Option<String>,
    },
    McpStatus,
    /// A message from an in-process MCP server to the CLI (e.g. `notifications/tools/list_changed`).
    McpMessage {
        server_name: String,
        message: Value,
    },
}

impl HostRequest {
    /// The stdin line carrying this request.
    pub fn to_line(&self, request_id: &str) -> String {
        json!({"type": "control_request", "request_id": request_id, "request": self}).to_string()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequest {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sdk_mcp_servers: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sdk_mcp_server_manifests: BTreeMap<String, McpManifest>,
    /// Hook event name (PreToolUse, ...) → matchers.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hooks: BTreeMap<String, Vec<HookMatcher>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append_system_prompt: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub agents: BTreeMap<String, AgentDefinition>,
    /// A tool name the model may emit → the tool that runs it instead (one hop).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tool_aliases: BTreeMap<String, String>,
}

/// The MCP `initialize` and `tools/list` results, sent ahead so no handshake crosses the wire.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpManifest {
    pub initialize_result: Value,
    pub tools_list_result: Value,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookMatcher {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    pub hook_callback_ids: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentDefinition {
    pub description: String,
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disallowed_tools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// The answer to `can_use_tool`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
pub enum PermissionResult {
    Allow {
        /// Replaces the tool's input (the host may have edited it).
        #[serde(rename = "updatedInput")]
        updated_input: Value,
        #[serde(rename = "updatedPermissions", default, skip_serializing_if = "Option::is_none")]
        updated_permissions: Option<Vec<Value>>,
        #[serde(rename = "toolUseID", default, skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<String>,
        /// user_temporary, user_permanent or user_reject (the CLI infers it when absent).
        #[serde(rename = "decisionClassification", default, skip_serializing_if = "Option::is_none")]
        decision_classification: Option<String>,
    },
    Deny {
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        interrupt: Option<bool>,
        #[serde(rename = "toolUseID", default, skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<String>,
    },
}

/// The answer to a `hook_callback`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HookOutput {
    #[serde(rename = "continue", default, skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    #[serde(rename = "hookSpecificOutput", default, skip_serializing_if = "Option::is_none")]
    pub hook_specific_output: Option<PreToolUseDecision>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreToolUseDecision {
    /// Always "PreToolUse".
    pub hook_event_name: String,
    /// allow, deny or ask.
    pub permission_decision: String,
    pub permission_decision_reason: String,
}

impl HookOutput {
    /// No opinion: the CLI goes on with its normal permission flow.
    pub fn proceed() -> HookOutput {
        HookOutput {
            continue_: Some(true),
            hook_specific_output: None,
        }
    }

    pub fn deny_tool(reason: impl Into<String>) -> HookOutput {
        HookOutput {
            continue_: None,
            hook_specific_output: Some(PreToolUseDecision {
                hook_event_name: "PreToolUse".into(),
                permission_decision: "deny".into(),
                permission_decision_reason: reason.into(),
            }),
        }
    }
}

/// An image attached to a prompt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageInput {
    /// image/png, image/jpeg, image/gif or image/webp.
    pub media_type: String,
    pub data_base64: String,
}

/// The stdin line for a user prompt: images first (the model reads them before the question),
/// then the text.
pub fn user_message_line(text: &str, images: &[ImageInput]) -> String {
    let mut content: Vec<Value> = images
        .iter()
        .map(|image| {
            json!({"type": "image", "source": {"type": "base64", "media_type": image.media_type, "data": image.data_base64}})
        })
        .collect();
    if !text.is_empty() || content.is_empty() {
        content.push(json!({"type": "text", "text": text}));
    }
    json!({
        "type": "user",
        "session_id": "",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": null,
    })
    .to_string()
}

/// What an MCP notification sent over `mcp_message` gets back: the SDK's dummy reply.
pub fn mcp_notification_ack() -> Value {
    json!({"jsonrpc": "2.0", "result": {}, "id": 0})
}
