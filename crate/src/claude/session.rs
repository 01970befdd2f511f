//! The Claude Code session as a sans-IO state machine: it takes the CLI's stdout lines and the
//! host's decisions, and returns what to write to the CLI's stdin, the UI events, the MCP calls
//! to run and the permission questions to answer. The driver (the extension's glue) owns the
//! process, the MCP server and the UI.

use super::guard::{self, GUARD_CALLBACK_ID};
use super::init::{initialize_request, RemoteEnvironment};
use super::launch::{PermissionMode, ALLOWED_BUILTIN_TOOLS};
use super::protocol::{
    mcp_notification_ack, tool_result_text, user_message_line, AgentDefinition, AssistantMessage, CanUseTool,
    CliMessage, CliRequest, ContentBlock, ControlResponse, Delta, HookCallback, HookOutput, HostRequest, ImageInput,
    IncomingControlRequest, McpManifest, PermissionResult, ResultMessage, StreamEvent, StreamEventMessage,
    SystemMessage, UserMessage,
};
use super::{builtin_name, SERVER_NAME};
use crate::events::{
    describe_tool, tool_kind, CommandInfo, ErrorKind, McpServerStatus, ModelOption, PermissionRequest, SessionState,
    Severity, TodoItem, UiEvent,
};
use crate::mcp::STRUCTURED_META_KEY;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

/// What the driver must do.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// Write this line (a newline is to be added) to the CLI's stdin.
    WriteLine(String),
    Event(UiEvent),
    /// Run this JSON-RPC message through the MCP server, then call [`Session::mcp_reply`].
    McpCall {
        request_id: String,
        message: Value,
    },
    /// Decide, then call [`Session::answer_permission`]. No UI event is emitted for it: the
    /// permission engine may answer by itself, and shows `UiEvent::PermissionRequest(request)`
    /// only when the user has to choose.
    PermissionRequest(PermissionRequest),
}

#[derive(Clone, Debug, PartialEq)]
pub enum PermissionAnswer {
    Allow {
        /// The input to run with, if the user edited it (otherwise the original).
        updated_input: Option<Value>,
        /// "Always allow": the permission updates to apply (normally the request's suggestions).
        updated_permissions: Option<Vec<Value>>,
    },
    Deny {
        message: String,
        /// Also stop the turn.
        interrupt: bool,
    },
}

pub struct SessionConfig {
    pub environment: RemoteEnvironment,
    /// The `--tools` allowlist the CLI was started with; the guard lets exactly these built-ins run.
    pub allowed_builtins: Vec<String>,
    /// More text for the system prompt after Tether's own, e.g. the remote project's CLAUDE.md
    /// (the CLI reads none under the launch Tether uses).
    pub extra_system_prompt: Option<String>,
    /// The project's own subagents (`.claude/agents`), next to Tether's read-only Explore/Plan.
    pub project_agents: BTreeMap<String, AgentDefinition>,
}

impl SessionConfig {
    pub fn new(environment: RemoteEnvironment) -> SessionConfig {
        SessionConfig {
            environment,
            allowed_builtins: ALLOWED_BUILTIN_TOOLS.iter().map(|s| s.to_string()).collect(),
            extra_system_prompt: None,
            project_agents: BTreeMap::new(),
        }
    }
}

/// Decides where an "always allow" permission update goes before it reaches the CLI; `None`
/// drops it (for instance because the permission engine stored the rule itself).
pub type PermissionUpdateRoute = Box<dyn Fn(Value) -> Option<Value>>;

/// Until the permission engine routes updates itself: the CLI would persist `localSettings` and
/// `projectSettings` rules into its *local* working directory (the mirror), where they mean
/// nothing for the remote workspace, so keep them for this session instead.
pub fn session_only_route(mut update: Value) -> Option<Value> {
    if let Some(destination) = update.get_mut("destination") {
        if matches!(destination.as_str(), Some("localSettings" | "projectSettings")) {
            *destination = json!("session");
        }
    }
    Some(update)
}

#[derive(Clone, Debug)]
enum OwnRequest {
    Initialize,
    Interrupt,
    SetMode,
    SetModel(Option<String>),
    McpStatus,
    McpNotification,
}

impl OwnRequest {
    fn label(&self) -> &'static str {
        match self {
            OwnRequest::Initialize => "initialize",
            OwnRequest::Interrupt => "interrupt",
            OwnRequest::SetMode => "set_permission_mode",
            OwnRequest::SetModel(_) => "set_model",
            OwnRequest::McpStatus => "mcp_status",
            OwnRequest::McpNotification => "mcp_message",
        }
    }
}

struct PendingPermission {
    tool_use_id: Option<String>,
    input: Value,
}

/// Per-turn bookkeeping for turning messages into events exactly once.
#[derive(Default)]
struct TurnState {
    /// Messages whose text arrived as stream deltas (their final `assistant` copy is not re-sent).
    streamed_messages: HashSet<String>,
    started_messages: HashSet<String>,
    /// The message the latest stream events belong to (when they carry no `api_message_id`).
    current_message: Option<String>,
    stop_reasons: HashMap<String, String>,
    /// (message id, block index) → tool call id, to route `input_json_delta`s.
    block_tools: HashMap<(String, u64), String>,
}

pub struct Session {
    config: SessionConfig,
    route_update: PermissionUpdateRoute,
    next_request: u64,
    own_requests: HashMap<String, OwnRequest>,
    permissions: HashMap<String, PendingPermission>,
    mcp_calls: HashSet<String>,
    turn: TurnState,
    /// Tool calls announced and not yet answered: id → built-in name.
    open_tools: HashMap<String, String>,
    mode: Option<String>,
    /// The user asked to stop; the turn's error result is then a notice, not a failure.
    interrupted: bool,
}

impl Session {
    pub fn new(config: SessionConfig) -> Session {
        Session {
            config,
            route_update: Box::new(session_only_route),
            next_request: 0,
            own_requests: HashMap::new(),
            permissions: HashMap::new(),
            mcp_calls: HashSet::new(),
            turn: TurnState::default(),
            open_tools: HashMap::new(),
            mode: None,
            interrupted: false,
        }
    }

    /// Install the permission engine's routing of "always allow" updates (see
    /// [`session_only_route`] for the default).
    pub fn set_permission_update_route(&mut self, route: PermissionUpdateRoute) {
        self.route_update = route;
    }

    /// The first line to send: `initialize`, declaring the MCP server that `manifest` describes.
    pub fn start(&mut self, manifest: McpManifest) -> Vec<Output> {
        let request = initialize_request(
            manifest,
            &self.config.environment,
            self.config.extra_system_prompt.as_deref(),
            &self.config.project_agents,
        );
        self.request(HostRequest::Initialize(request), OwnRequest::Initialize)
    }

    pub fn send_prompt(&mut self, text: &str, images: &[ImageInput]) -> Vec<Output> {
        // A stop pressed while idle must not turn the next turn's real failure into a notice.
        self.interrupted = false;
        vec![Output::WriteLine(user_message_line(text, images))]
    }

    pub fn interrupt(&mut self) -> Vec<Output> {
        self.interrupted = true;
        self.request(HostRequest::Interrupt, OwnRequest::Interrupt)
    }

    pub fn set_mode(&mut self, mode: PermissionMode) -> Vec<Output> {
        let request = HostRequest::SetPermissionMode {
            mode: mode.as_str().into(),
        };
        self.request(request, OwnRequest::SetMode)
    }

    /// `None` returns to the default model.
    pub fn set_model(&mut self, model: Option<&str>) -> Vec<Output> {
        let model = model.map(str::to_string);
        let request = HostRequest::SetModel { model: model.clone() };
        self.request(request, OwnRequest::SetModel(model))
    }

    pub fn mcp_status(&mut self) -> Vec<Output> {
        self.request(HostRequest::McpStatus, OwnRequest::McpStatus)
    }

    /// Tell the CLI that Tether's tool list changed; it fetches `tools/list` again at once.
    pub fn notify_tools_changed(&mut self) -> Vec<Output> {
        let request = HostRequest::McpMessage {
            server_name: SERVER_NAME.into(),
            message: json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        };
        self.request(request, OwnRequest::McpNotification)
    }

    fn request(&mut self, request: HostRequest, kind: OwnRequest) -> Vec<Output> {
        self.next_request += 1;
        let id = format!("tether-{}", self.next_request);
        let line = request.to_line(&id);
        self.own_requests.insert(id, kind);
        vec![Output::WriteLine(line)]
    }

    /// The answer of the MCP server to an [`Output::McpCall`]. `None` (the server had nothing to
    /// say) still answers the CLI, which waits for every request. Calls the CLI withdrew are
    /// dropped.
    pub fn mcp_reply(&mut self, request_id: &str, response: Option<Value>) -> Vec<Output> {
        if !self.mcp_calls.remove(request_id) {
            return Vec::new();
        }
        let mcp_response = response.unwrap_or_else(mcp_notification_ack);
        vec![success(request_id, json!({ "mcp_response": mcp_response }))]
    }

    /// Answer a [`PermissionRequest`] by its id. Requests already answered or withdrawn are
    /// ignored.
    pub fn answer_permission(&mut self, id: &str, answer: PermissionAnswer) -> Vec<Output> {
        let Some(pending) = self.permissions.remove(id) else {
            return Vec::new();
        };
        let result = match answer {
            PermissionAnswer::Allow {
                updated_input,
                updated_permissions,
            } => {
                let updates: Option<Vec<Value>> = updated_permissions
                    .map(|updates| updates.into_iter().filter_map(|u| (self.route_update)(u)).collect())
                    .filter(|u: &Vec<Value>| !u.is_empty());
                PermissionResult::Allow {
                    updated_input: updated_input.unwrap_or(pending.input),
                    decision_classification: updates.as_ref().map(|_| "user_permanent".to_string()),
                    updated_permissions: updates,
                    tool_use_id: pending.tool_use_id,
                }
            }
            PermissionAnswer::Deny { message, interrupt } => PermissionResult::Deny {
                message,
                interrupt: interrupt.then_some(true),
                tool_use_id: pending.tool_use_id,
            },
        };
        let response = serde_json::to_value(result).unwrap_or(Value::Null);
        vec![success(id, response)]
    }

    /// One line from the CLI's stdout. Lines that are not JSON objects are ignored.
    pub fn on_line(&mut self, line: &str) -> Vec<Output> {
        match CliMessage::parse(line) {
            Ok(message) => self.on_message(message),
            Err(_) => Vec::new(),
        }
    }

    pub fn on_message(&mut self, message: CliMessage) -> Vec<Output> {
        match message {
            CliMessage::System(system) => self.on_system(system),
            CliMessage::Assistant(assistant) => self.on_assistant(assistant),
            CliMessage::User(user) => self.on_user(user),
            CliMessage::StreamEvent(event) => self.on_stream_event(event),
            CliMessage::Result(result) => self.on_result(result),
            CliMessage::RateLimit(event) => vec![Output::Event(UiEvent::RateLimit {
                status: event.rate_limit_info.status,
                resets_at: event.rate_limit_info.resets_at,
                limit_type: event.rate_limit_info.rate_limit_type,
            })],
            CliMessage::ToolProgress(progress) => vec![Output::Event(UiEvent::ToolProgress {
                id: progress.tool_use_id,
                name: builtin_name(&progress.tool_name).to_string(),
                elapsed_seconds: progress.elapsed_time_seconds,
            })],
            CliMessage::ControlRequest(request) => self.on_control_request(request),
            CliMessage::ControlResponse(response) => self.on_control_response(response),
            CliMessage::ControlCancelRequest { request_id } => self.on_cancel(&request_id),
            CliMessage::KeepAlive | CliMessage::Unknown(_) => Vec::new(),
        }
    }

    // -- control requests from the CLI -----------------------------------------------------------

    fn on_control_request(&mut self, incoming: IncomingControlRequest) -> Vec<Output> {
        let id = incoming.request_id;
        match incoming.request {
            CliRequest::CanUseTool(request) => self.on_can_use_tool(id, request),
            CliRequest::McpMessage { server_name, message } => {
                if server_name != SERVER_NAME {
                    return vec![error(&id, &format!("Unknown MCP server: {server_name}"))];
                }
                let is_request = message.get("method").is_some() && message.get("id").is_some_and(|i| !i.is_null());
                if is_request {
                    self.mcp_calls.insert(id.clone());
                    vec![Output::McpCall {
                        request_id: id,
                        message,
                    }]
                } else {
                    // Notifications (and stray responses) still need a control_response.
                    vec![success(&id, json!({ "mcp_response": mcp_notification_ack() }))]
                }
            }
            CliRequest::HookCallback(hook) => self.on_hook(&id, hook),
            CliRequest::Other { subtype, .. } if subtype == "elicitation" => {
                // Tether has no UI for MCP elicitation; decline as the Agent SDK does by default.
                vec![success(&id, json!({"action": "decline"}))]
            }
            CliRequest::Other { subtype, .. } => {
                vec![error(&id, &format!("Unsupported control request subtype: {subtype}"))]
            }
        }
    }

    fn on_can_use_tool(&mut self, id: String, request: CanUseTool) -> Vec<Output> {
        let tool_name = builtin_name(&request.tool_name).to_string();
        self.permissions.insert(
            id.clone(),
            PendingPermission {
                tool_use_id: request.tool_use_id.clone(),
                input: request.input.clone(),
            },
        );
        vec![Output::PermissionRequest(PermissionRequest {
            id,
            tool_use_id: request.tool_use_id,
            kind: tool_kind(&tool_name),
            tool_name,
            raw_tool_name: request.tool_name,
            input: request.input,
            agent_id: request.agent_id,
            suggestions: request.permission_suggestions,
            title: request.title,
            display_name: request.display_name,
            description: request.description,
            blocked_path: request.blocked_path,
            decision_reason: request.decision_reason,
            decision_reason_type: request.decision_reason_type,
            suppress_always_allow: request.suppress_always_allow_rule,
            requires_user_interaction: request.requires_user_interaction,
            always_label: None,
            reason: None,
            review: None,
        })]
    }

    fn on_hook(&mut self, id: &str, hook: HookCallback) -> Vec<Output> {
        if hook.callback_id != GUARD_CALLBACK_ID {
            return vec![error(id, &format!("Unknown hook callback: {}", hook.callback_id))];
        }
        let event = hook.input.get("hook_event_name").and_then(Value::as_str);
        let output = if event == Some("PreToolUse") {
            guard::decide(&hook.input, &self.config.allowed_builtins)
        } else {
            HookOutput::proceed()
        };
        vec![success(id, serde_json::to_value(output).unwrap_or(Value::Null))]
    }

    fn on_cancel(&mut self, request_id: &str) -> Vec<Output> {
        if self.permissions.remove(request_id).is_some() {
            return vec![Output::Event(UiEvent::PermissionCancelled {
                id: request_id.to_string(),
            })];
        }
        self.mcp_calls.remove(request_id);
        Vec::new()
    }

    // -- responses to our own requests --------------------------------------------------------

    fn on_control_response(&mut self, response: ControlResponse) -> Vec<Output> {
        // Responses for ids we do not own (e.g. echoes with --replay-user-messages) are ignored.
        let Some(kind) = self.own_requests.remove(response.request_id()) else {
            return Vec::new();
        };
        let response = match response {
            ControlResponse::Success { response, .. } => response,
            ControlResponse::Error { error, .. } => {
                return vec![Output::Event(UiEvent::error(
                    ErrorKind::ControlRequestFailed,
                    Severity::Error,
                    format!("{} failed: {error}", kind.label()),
                    None,
                ))];
            }
        };
        match kind {
            OwnRequest::Initialize => self.on_initialized(&response),
            OwnRequest::SetMode => {
                let mode = response.get("mode").and_then(Value::as_str).map(str::to_string);
                mode.map(|m| self.mode_changed(m)).unwrap_or_default()
            }
            OwnRequest::SetModel(requested) => {
                let model = response.get("model").and_then(Value::as_str).map(str::to_string);
                vec![Output::Event(UiEvent::ModelChanged {
                    model: model.or(requested),
                })]
            }
            OwnRequest::McpStatus => {
                let servers = response.get("mcpServers").map(mcp_servers).unwrap_or_default();
                vec![Output::Event(UiEvent::McpStatus { servers })]
            }
            OwnRequest::Interrupt | OwnRequest::McpNotification => Vec::new(),
        }
    }

    fn on_initialized(&mut self, response: &Value) -> Vec<Output> {
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
        let list = |key: &str| response.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
        let models = list("models")
            .iter()
            .filter_map(|m| {
                Some(ModelOption {
                    value: text(m, "value")?,
                    display_name: text(m, "displayName"),
                    description: text(m, "description"),
                })
            })
            .collect();
        let commands = list("commands")
            .iter()
            .filter_map(|c| {
                Some(CommandInfo {
                    name: text(c, "name")?,
                    description: text(c, "description"),
                    argument_hint: text(c, "argumentHint").filter(|h| !h.is_empty()),
                })
            })
            .collect();
        let mode = text(response, "current_permission_mode");
        if mode.is_some() {
            self.mode = mode.clone();
        }
        vec![Output::Event(UiEvent::SessionReady {
            agent_version: text(response, "claude_code_version"),
            models,
            commands,
            permission_mode: mode,
        })]
    }

    fn mode_changed(&mut self, mode: String) -> Vec<Output> {
        if self.mode.as_deref() == Some(mode.as_str()) {
            return Vec::new();
        }
        self.mode = Some(mode.clone());
        vec![Output::Event(UiEvent::ModeChanged { mode })]
    }

    // -- stdout messages -----------------------------------------------------------------------

    fn on_system(&mut self, system: SystemMessage) -> Vec<Output> {
        let event = match system {
            SystemMessage::Init(init) => {
                if init.permission_mode.is_some() {
                    self.mode = init.permission_mode.clone();
                }
                UiEvent::SessionInit {
                    session_id: init.session_id,
                    model: init.model,
                    tools: init.tools,
                    mcp_servers: init
                        .mcp_servers
                        .into_iter()
                        .map(|s| McpServerStatus {
                            name: s.name,
                            status: s.status,
                        })
                        .collect(),
                    permission_mode: init.permission_mode,
                    agent_version: init.claude_code_version,
                }
            }
            SystemMessage::Status(status) => {
                let mut out = status.permission_mode.map(|m| self.mode_changed(m)).unwrap_or_default();
                out.push(Output::Event(UiEvent::Activity {
                    activity: status.status,
                }));
                return out;
            }
            SystemMessage::ApiRetry(retry) => UiEvent::ApiRetry {
                attempt: retry.attempt,
                max_retries: retry.max_retries,
                delay_ms: retry.retry_delay_ms,
                error_status: retry.error_status,
                error: match retry.error {
                    Value::String(s) => s,
                    Value::Null => String::new(),
                    other => other.to_string(),
                },
            },
            SystemMessage::SessionStateChanged { state } => {
                let state = match state.as_str() {
                    "idle" => SessionState::Idle,
                    "running" => SessionState::Running,
                    "requires_action" => SessionState::RequiresAction,
                    _ => return Vec::new(),
                };
                UiEvent::Status { state }
            }
            SystemMessage::PermissionDenied(denied) => UiEvent::PermissionDenied {
                tool_name: builtin_name(&denied.tool_name).to_string(),
                tool_use_id: denied.tool_use_id,
                message: denied.message,
                reason: denied.decision_reason_type,
                agent_id: denied.agent_id,
            },
            SystemMessage::CompactBoundary(boundary) => UiEvent::Compacted {
                trigger: boundary.compact_metadata.trigger,
                pre_tokens: boundary.compact_metadata.pre_tokens,
            },
            SystemMessage::TaskStarted(task) => UiEvent::TaskUpdate {
                task_id: task.task_id,
                tool_use_id: task.tool_use_id,
                status: "started".into(),
                description: task.description,
                summary: None,
            },
            SystemMessage::TaskNotification(task) => UiEvent::TaskUpdate {
                task_id: task.task_id,
                tool_use_id: task.tool_use_id,
                status: task.status,
                description: None,
                summary: task.summary,
            },
            SystemMessage::Other { .. } => return Vec::new(),
        };
        vec![Output::Event(event)]
    }

    fn message_started(&mut self, message_id: &str, parent_tool_use_id: &Option<String>) -> Vec<Output> {
        if message_id.is_empty() || !self.turn.started_messages.insert(message_id.to_string()) {
            return Vec::new();
        }
        vec![Output::Event(UiEvent::MessageStart {
            message_id: message_id.to_string(),
            parent_tool_use_id: parent_tool_use_id.clone(),
        })]
    }

    fn on_stream_event(&mut self, message: StreamEventMessage) -> Vec<Output> {
        let parent = message.parent_tool_use_id;
        if let StreamEvent::MessageStart { id } = &message.event {
            self.turn.current_message = Some(id.clone());
        }
        let Some(message_id) = message.api_message_id.or_else(|| self.turn.current_message.clone()) else {
            return Vec::new();
        };
        self.turn.streamed_messages.insert(message_id.clone());
        match message.event {
            StreamEvent::MessageStart { .. } => self.message_started(&message_id, &parent),
            StreamEvent::ContentBlockStart {
                index,
                block: ContentBlock::ToolUse { id, name, input },
            } => {
                self.turn.block_tools.insert((message_id, index), id.clone());
                self.tool_use(id, &name, input, &parent)
            }
            StreamEvent::ContentBlockDelta { index, delta } => {
                let event = match delta {
                    Delta::Text(text) => UiEvent::TextDelta {
                        message_id: Some(message_id),
                        text,
                        parent_tool_use_id: parent,
                    },
                    Delta::Thinking(text) => UiEvent::ThinkingDelta {
                        message_id: Some(message_id),
                        text,
                        parent_tool_use_id: parent,
                    },
                    Delta::InputJson(partial_json) => {
                        let Some(id) = self.turn.block_tools.get(&(message_id, index)) else {
                            return Vec::new();
                        };
                        UiEvent::ToolInputDelta {
                            id: id.clone(),
                            partial_json,
                        }
                    }
                    Delta::Signature | Delta::Other(_) => return Vec::new(),
                };
                vec![Output::Event(event)]
            }
            StreamEvent::MessageDelta { stop_reason } => {
                if let Some(reason) = stop_reason {
                    self.turn.stop_reasons.insert(message_id, reason);
                }
                Vec::new()
            }
            StreamEvent::MessageStop => {
                let stop_reason = self.turn.stop_reasons.remove(&message_id);
                vec![Output::Event(UiEvent::MessageStop {
                    message_id,
                    stop_reason,
                })]
            }
            StreamEvent::ContentBlockStart { .. }
            | StreamEvent::ContentBlockStop { .. }
            | StreamEvent::Ping
            | StreamEvent::Other(_) => Vec::new(),
        }
    }

    /// A tool_use block, from the stream (input still `{}`) or from the final assistant message.
    fn tool_use(&mut self, id: String, raw_name: &str, input: Value, parent: &Option<String>) -> Vec<Output> {
        let name = builtin_name(raw_name).to_string();
        let cwd = Some(self.config.environment.cwd.as_str()).filter(|c| !c.is_empty());
        let described = describe_tool(&name, &input, cwd);
        let mut out = Vec::new();
        if name == "TodoWrite" {
            if let Some(todos) = todo_items(&input) {
                out.push(Output::Event(UiEvent::TodoUpdate { todos }));
            }
        }
        if self.open_tools.contains_key(&id) {
            out.insert(
                0,
                Output::Event(UiEvent::ToolCallUpdate {
                    id,
                    input,
                    title: described.title,
                    locations: described.locations,
                }),
            );
            return out;
        }
        self.open_tools.insert(id.clone(), name.clone());
        out.insert(
            0,
            Output::Event(UiEvent::ToolCallStart {
                id,
                name,
                input,
                kind: described.kind,
                title: described.title,
                locations: described.locations,
                parent_tool_use_id: parent.clone(),
            }),
        );
        out
    }

    fn on_assistant(&mut self, assistant: AssistantMessage) -> Vec<Output> {
        let message_id = assistant.message.id;
        let parent = assistant.parent_tool_use_id;
        let mut out = self.message_started(&message_id, &parent);
        // Text and thinking that were streamed must not be shown twice.
        let streamed = self.turn.streamed_messages.contains(&message_id);
        let id = Some(message_id.clone()).filter(|m| !m.is_empty());
        for block in assistant.message.content {
            match block {
                ContentBlock::Text { text } if !streamed => out.push(Output::Event(UiEvent::TextDelta {
                    message_id: id.clone(),
                    text,
                    parent_tool_use_id: parent.clone(),
                })),
                ContentBlock::Thinking { thinking } if !streamed => out.push(Output::Event(UiEvent::ThinkingDelta {
                    message_id: id.clone(),
                    text: thinking,
                    parent_tool_use_id: parent.clone(),
                })),
                ContentBlock::ToolUse { id, name, input } => out.extend(self.tool_use(id, &name, input, &parent)),
                _ => {}
            }
        }
        out
    }

    fn on_user(&mut self, user: UserMessage) -> Vec<Output> {
        if user.is_replay {
            return Vec::new();
        }
        let results: Vec<(String, Value, bool)> = user
            .message
            .content
            .into_iter()
            .filter_map(|block| match block {
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                } => Some((tool_use_id, content, is_error)),
                _ => None,
            })
            .collect();
        // The structured result belongs to the message, so it is only unambiguous for one result.
        let structured = if results.len() == 1 {
            user.tool_use_result.map(tether_structured_result)
        } else {
            None
        };
        let mut out = Vec::new();
        for (id, content, is_error) in results {
            let is_plan = self.open_tools.remove(&id).as_deref() == Some("ExitPlanMode");
            out.push(Output::Event(UiEvent::ToolCallResult {
                id: id.clone(),
                is_error,
                content: tool_result_text(&content),
                structured: structured.clone(),
                parent_tool_use_id: user.parent_tool_use_id.clone(),
            }));
            if is_plan && !is_error {
                // The plan lives in a file; the tool's structured result carries its text.
                let field = |key: &str| {
                    structured
                        .as_ref()
                        .and_then(|s| s.get(key))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                };
                out.push(Output::Event(UiEvent::Plan {
                    tool_call_id: id,
                    plan: field("plan"),
                    file_path: field("filePath"),
                }));
            }
        }
        out
    }

    fn on_result(&mut self, result: ResultMessage) -> Vec<Output> {
        let mut out = Vec::new();
        if let Some(usage) = &result.usage {
            out.push(Output::Event(UiEvent::Usage {
                input_tokens: usage.input_tokens,
                output_tokens: usage.output_tokens,
                cache_read_tokens: usage.cache_read_input_tokens,
                cache_creation_tokens: usage.cache_creation_input_tokens,
                cost_usd: result.total_cost_usd,
            }));
        }
        if let Some(event) = self.result_error(&result) {
            out.push(Output::Event(event));
        }
        out.push(Output::Event(UiEvent::Done {
            subtype: result.subtype,
            is_error: result.is_error,
            duration_ms: result.duration_ms,
            num_turns: result.num_turns,
            session_id: result.session_id,
            result: result.result,
            stop_reason: result.stop_reason,
        }));
        self.interrupted = false;
        self.turn = TurnState::default();
        out
    }

    fn result_error(&self, result: &ResultMessage) -> Option<UiEvent> {
        let text = result.result.clone().unwrap_or_default();
        let event = |kind, severity, message: String, hint: Option<&str>| {
            UiEvent::error(kind, severity, message, hint.map(str::to_string))
        };
        let aborted = matches!(
            result.terminal_reason.as_deref(),
            Some("aborted_tools" | "aborted_streaming")
        );
        Some(match result.subtype.as_str() {
            "success" if !result.is_error => return None,
            "success" if text.contains("Not logged in") => event(
                ErrorKind::NotLoggedIn,
                Severity::Error,
                text,
                Some("Claude Code has no credentials. Set an API key in Tether's settings, or run `claude` in a terminal on this machine and log in with /login."),
            ),
            "success" if text.starts_with("API Error") => event(ErrorKind::Api, Severity::Error, text, None),
            "error_max_turns" => event(
                ErrorKind::MaxTurns,
                Severity::Notice,
                format!("Stopped after the maximum number of turns ({}).", result.num_turns),
                None,
            ),
            "error_max_budget_usd" => event(
                ErrorKind::MaxBudget,
                Severity::Notice,
                "Stopped: the spending limit for this session was reached.".into(),
                None,
            ),
            "error_during_execution" if self.interrupted || aborted => {
                event(ErrorKind::Interrupted, Severity::Notice, "Stopped.".into(), None)
            }
            "error_during_execution" => {
                let message = if result.errors.is_empty() {
                    "The turn failed while running.".to_string()
                } else {
                    result.errors.join("\n")
                };
                event(ErrorKind::ExecutionError, Severity::Error, message, None)
            }
            _ => {
                let message = [text, result.errors.join("\n")]
                    .into_iter()
                    .find(|m| !m.is_empty())
                    .unwrap_or_else(|| format!("The turn ended with {}.", result.subtype));
                event(ErrorKind::Other, Severity::Error, message, None)
            }
        })
    }
}

fn success(request_id: &str, response: Value) -> Output {
    Output::WriteLine(
        ControlResponse::Success {
            request_id: request_id.to_string(),
            response,
        }
        .to_line(),
    )
}

fn error(request_id: &str, message: &str) -> Output {
    Output::WriteLine(
        ControlResponse::Error {
            request_id: request_id.to_string(),
            error: message.to_string(),
            error_code: None,
        }
        .to_line(),
    )
}

/// For Tether's tools the CLI passes the MCP result through (`{content, _meta}`); the
/// built-in-shaped structured result is under `_meta["tether/toolResult"]`.
fn tether_structured_result(tool_use_result: Value) -> Value {
    match tool_use_result.get("_meta").and_then(|m| m.get(STRUCTURED_META_KEY)) {
        Some(structured) => structured.clone(),
        None => tool_use_result,
    }
}

fn mcp_servers(value: &Value) -> Vec<McpServerStatus> {
    value
        .as_array()
        .map(|servers| {
            servers
                .iter()
                .filter_map(|s| {
                    Some(McpServerStatus {
                        name: s.get("name")?.as_str()?.to_string(),
                        status: s.get("status").and_then(Value::as_str).unwrap_or("unknown").to_string(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

fn todo_items(input: &Value) -> Option<Vec<TodoItem>> {
    let todos = input.get("todos")?.as_array()?;
    Some(
        todos
            .iter()
            .filter_map(|t| {
                let text = |key: &str| t.get(key).and_then(Value::as_str).map(str::to_string);
                Some(TodoItem {
                    content: text("content")?,
                    status: text("status").unwrap_or_else(|| "pending".into()),
                    active_form: text("activeForm"),
                })
            })
            .collect(),
    )
}
