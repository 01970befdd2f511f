//! The Claude Code session as a sans-IO state machine: it takes the CLI's stdout lines and the
//! host's decisions, and returns what to write to the CLI's stdin, the UI events, the MCP calls
//! to run and the permission questions to answer. The driver (the extension's glue) owns the
//! process, the MCP server and the UI.

use super::events::EventMapper;
use super::guard::{self, GUARD_CALLBACK_ID};
use super::init::{initialize_request, RemoteEnvironment};
use super::launch::{PermissionMode, ALLOWED_BUILTIN_TOOLS};
use super::protocol::{
    mcp_notification_ack, steering_message_line, user_message_line, AgentDefinition, CanUseTool, CliMessage,
    CliRequest, ControlResponse, HookCallback, HookOutput, HostRequest, ImageInput, IncomingControlRequest,
    McpManifest, PermissionResult,
};
use super::{builtin_name, SERVER_NAME};
use crate::events::{
    tool_kind, CommandInfo, ContextCategory, ErrorKind, McpServerStatus, ModelOption, PermissionRequest, Severity,
    UiEvent,
};
use crate::hooks::HookEvent;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashSet};

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
    /// Run the project's hooks for `event`, then answer with [`Session::answer_hook`].
    RunHooks {
        request_id: String,
        event: HookEvent,
        input: Value,
    },
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
    /// The project's MCP servers the CLI was given (`--mcp-config`): the guard lets their tools
    /// run, since the servers run on the workspace.
    pub project_mcp_servers: Vec<String>,
    /// Register the project's hooks ([`super::project_hooks`]).
    pub project_hooks: bool,
    /// The events the settings have hooks for, when known before the start: only these are
    /// registered (None: every event the CLI fires for Tether).
    pub project_hook_events: Option<BTreeSet<HookEvent>>,
}

impl SessionConfig {
    pub fn new(environment: RemoteEnvironment) -> SessionConfig {
        SessionConfig {
            environment,
            allowed_builtins: ALLOWED_BUILTIN_TOOLS.iter().map(|s| s.to_string()).collect(),
            extra_system_prompt: None,
            project_agents: BTreeMap::new(),
            project_mcp_servers: Vec::new(),
            project_hooks: false,
            project_hook_events: None,
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
    ContextUsage,
    StopTask,
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
            OwnRequest::ContextUsage => "get_context_usage",
            OwnRequest::StopTask => "stop_task",
        }
    }
}

struct PendingPermission {
    tool_use_id: Option<String>,
    input: Value,
}

pub struct Session {
    config: SessionConfig,
    route_update: PermissionUpdateRoute,
    next_request: u64,
    usage_requests: u64,
    own_requests: crate::id_table::IdTable<OwnRequest>,
    permissions: crate::id_table::IdTable<PendingPermission>,
    mcp_calls: HashSet<String>,
    events: EventMapper,
    /// What this CLI process's turns cost so far (its `result.total_cost_usd` adds up per process).
    cost_usd: Option<f64>,
    /// The uuid the next prompt carries (the chat's user message, for a later fork).
    message_uuid: Option<String>,
}

impl Session {
    pub fn new(config: SessionConfig) -> Session {
        Session {
            events: EventMapper::new(config.environment.cwd.clone()),
            config,
            route_update: Box::new(session_only_route),
            next_request: 0,
            usage_requests: 0,
            own_requests: Default::default(),
            permissions: Default::default(),
            mcp_calls: HashSet::new(),
            cost_usd: None,
            message_uuid: None,
        }
    }

    /// Whether the project's hooks are registered with the CLI.
    pub fn project_hooks(&self) -> bool {
        self.config.project_hooks
    }

    /// The answer to a project hook's `hook_callback`: the hooks' output as Claude Code reads it.
    pub fn answer_hook(&mut self, request_id: &str, output: Value) -> Vec<Output> {
        vec![success(request_id, output)]
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
            self.config.project_hooks,
            self.config.project_hook_events.as_ref(),
        );
        self.request(HostRequest::Initialize(request), OwnRequest::Initialize)
    }

    pub fn send_prompt(&mut self, text: &str, images: &[ImageInput]) -> Vec<Output> {
        // A stop pressed while idle must not turn the next turn's real failure into a notice.
        self.events.interrupted = false;
        let uuid = self.message_uuid.take();
        vec![Output::WriteLine(user_message_line(text, images, uuid.as_deref()))]
    }

    /// The uuid the next prompt carries: the CLI keeps it as the message's uuid in its transcript.
    pub fn set_message_uuid(&mut self, uuid: String) {
        self.message_uuid = Some(uuid);
    }

    pub fn interrupt(&mut self) -> Vec<Output> {
        self.events.interrupted = true;
        self.request(HostRequest::Interrupt, OwnRequest::Interrupt)
    }

    /// A user message into the running turn. The turn the CLI cuts short for it ends without a
    /// `done`: the message's own turn ends the prompt the user is waiting on.
    pub fn steer(&mut self, text: &str) -> Vec<Output> {
        self.events.steered = true;
        vec![Output::WriteLine(steering_message_line(text))]
    }

    pub fn stop_task(&mut self, task_id: &str) -> Vec<Output> {
        let request = HostRequest::StopTask {
            task_id: task_id.to_string(),
        };
        self.request(request, OwnRequest::StopTask)
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
        // The meter's requests are numbered apart, so the others keep the ids a recording has.
        let id = if matches!(kind, OwnRequest::ContextUsage) {
            self.usage_requests += 1;
            format!("tether-usage-{}", self.usage_requests)
        } else {
            self.next_request += 1;
            format!("tether-{}", self.next_request)
        };
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
            CliMessage::ControlRequest(request) => self.on_control_request(request),
            CliMessage::ControlResponse(response) => self.on_control_response(response),
            CliMessage::ControlCancelRequest { request_id } => self.on_cancel(&request_id),
            CliMessage::Result(result) => {
                self.cost_usd = result.total_cost_usd.or(self.cost_usd);
                let events = self.events.on_message(CliMessage::Result(result));
                let ended = events.iter().any(|e| matches!(e, UiEvent::Done { .. }));
                let mut out: Vec<Output> = events.into_iter().map(Output::Event).collect();
                // The turn ended (not one cut short for a steering message): how full the context
                // is now, for the header's meter.
                if ended {
                    out.extend(self.request(HostRequest::GetContextUsage, OwnRequest::ContextUsage));
                }
                out
            }
            other => self.events.on_message(other).into_iter().map(Output::Event).collect(),
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
            always_rules: Vec::new(),
            reason: None,
            review: None,
            // The backend offers Claude Code's answers.
            options: Vec::new(),
            form: None,
            outlives_turn: false,
        })]
    }

    fn on_hook(&mut self, id: &str, hook: HookCallback) -> Vec<Output> {
        if let Some(event) = super::project_hooks::event_of(&hook.callback_id) {
            return vec![Output::RunHooks {
                request_id: id.to_string(),
                event,
                input: hook.input,
            }];
        }
        if hook.callback_id != GUARD_CALLBACK_ID {
            return vec![error(id, &format!("Unknown hook callback: {}", hook.callback_id))];
        }
        let event = hook.input.get("hook_event_name").and_then(Value::as_str);
        let output = if event == Some("PreToolUse") {
            guard::decide(
                &hook.input,
                &self.config.allowed_builtins,
                &self.config.project_mcp_servers,
            )
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
            // The meter is a nicety: a CLI that cannot count (logged out, offline) says nothing.
            ControlResponse::Error { .. } if matches!(kind, OwnRequest::ContextUsage) => return Vec::new(),
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
                mode.map(|m| self.events.mode_changed(m))
                    .unwrap_or_default()
                    .into_iter()
                    .map(Output::Event)
                    .collect()
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
            OwnRequest::ContextUsage => context_usage(&response, self.cost_usd)
                .map(Output::Event)
                .into_iter()
                .collect(),
            OwnRequest::Interrupt | OwnRequest::McpNotification | OwnRequest::StopTask => Vec::new(),
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
        if let Some(mode) = &mode {
            self.events.note_mode(mode);
        }
        vec![Output::Event(UiEvent::SessionReady {
            agent_version: text(response, "claude_code_version"),
            models,
            commands,
            permission_mode: mode,
        })]
    }
}

/// The meter's event from a `get_context_usage` answer: the used tokens of the window, with the
/// categories that fill it (the free space and the autocompact buffer are not "used").
fn context_usage(response: &Value, cost_usd: Option<f64>) -> Option<UiEvent> {
    let used = response.get("totalTokens")?.as_u64()?;
    let size = response.get("maxTokens")?.as_u64()?;
    let breakdown = response
        .get("categories")
        .and_then(Value::as_array)
        .map(|categories| {
            categories
                .iter()
                .filter(|c| c.get("kind").and_then(Value::as_str) == Some("used"))
                .filter_map(|c| {
                    Some(ContextCategory {
                        name: c.get("name")?.as_str()?.to_string(),
                        tokens: c.get("tokens")?.as_u64()?,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Some(UiEvent::ContextUsage {
        used,
        size,
        cost: cost_usd,
        currency: cost_usd.map(|_| "USD".to_string()),
        breakdown,
    })
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
