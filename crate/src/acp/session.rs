//! The session's life on the client side: `initialize`, opening a session (new, or an earlier one
//! loaded, resumed or forked) with Tether's MCP server, the force-local switches and the brief,
//! logging in when the agent asks for it, the turns one at a time, and the answers to what Tether
//! sent.

use super::profile::Profile;
use super::protocol::initialize::InitializeResponse;
use super::protocol::rpc::AUTH_REQUIRED;
use super::state::{AcpBackend, Open, Pending, Phase};
use crate::backend::{Backend, Output, Supported};
use crate::config::McpServerEntry;
use crate::events::{AuthMethodInfo, ErrorKind, SessionState, SessionSummary, Severity, UiEvent};
use crate::mcp::SERVER_NAME;
use crate::rpc::{RpcError, REQUEST_CANCELLED};
use serde_json::{json, Value};

impl AcpBackend {
    /// Tether's MCP server as the agent starts it (over the ACP connection when the agent offers
    /// that, else the bridge process), then the other servers of the config it can reach (the
    /// project's, the IDE tools).
    pub(super) fn mcp_servers(&self) -> Vec<Value> {
        let mut servers = self.tether_server();
        servers.extend(
            (self.project_servers.iter())
                .filter(|server| self.takes(server))
                .map(McpServerEntry::acp_config),
        );
        servers
    }

    /// Whether the agent can reach `server` (its `mcpCapabilities` for HTTP and SSE).
    fn takes(&self, server: &McpServerEntry) -> bool {
        match server {
            McpServerEntry::Stdio { .. } => true,
            McpServerEntry::Http { .. } => self.caps.mcp_capabilities.http,
            McpServerEntry::Sse { .. } => self.caps.mcp_capabilities.sse,
        }
    }

    /// A notice naming the project's servers the agent cannot reach, once, when it first opens.
    fn unreachable_servers_notice(&self) -> Option<Output> {
        let left: Vec<&str> = (self.project_servers.iter())
            .filter(|server| !self.takes(server))
            .map(McpServerEntry::name)
            .collect();
        (!left.is_empty()).then(|| {
            self.notice(format!(
                "{} cannot reach the project's MCP server{} {} (it takes no HTTP or SSE servers), so {} off in this session.",
                self.agent_name,
                if left.len() == 1 { "" } else { "s" },
                left.join(", "),
                if left.len() == 1 { "it is" } else { "they are" },
            ))
        })
    }

    fn tether_server(&self) -> Vec<Value> {
        if self.caps.mcp_capabilities.acp {
            return vec![json!({"type": "acp", "name": SERVER_NAME, "serverId": SERVER_NAME})];
        }
        match &self.config.bridge {
            Some(bridge) => {
                let env: Vec<Value> = bridge
                    .env
                    .iter()
                    .map(|(name, value)| json!({"name": name, "value": value}))
                    .collect();
                vec![json!({"name": SERVER_NAME, "command": bridge.command, "args": bridge.args, "env": env})]
            }
            None => Vec::new(),
        }
    }

    /// The params of `session/new`, `load`, `resume` or `fork`.
    pub(super) fn open_params(&self, id: Option<&str>) -> Value {
        let mut params = json!({"cwd": self.cwd, "mcpServers": self.mcp_servers()});
        if let Some(id) = id {
            params["sessionId"] = Value::from(id);
        }
        // The workspace's other folders, where the agent takes them (ACP's additionalDirectories).
        if !self.additional_directories.is_empty() && self.caps.session_capabilities.additional_directories.is_some() {
            params["additionalDirectories"] = json!(self.additional_directories);
        }
        if let Some(meta) = self.profile.as_ref().and_then(Profile::session_meta) {
            params["_meta"] = Value::Object(meta);
        }
        if let (Some(brief), Some(_)) = (&self.brief, &self.caps.session_capabilities.system_prompt) {
            params["systemPrompt"] = json!({"mode": "append", "content": [{"type": "text", "text": brief}]});
        }
        params
    }

    pub(super) fn open(&mut self, how: Open, id: Option<String>) -> Vec<Output> {
        self.phase = Phase::Opening;
        self.silent_replay = how == Open::Load { replay: false };
        // The brief goes with the first prompt where the agent takes no system prompt.
        self.brief_in_next_prompt = how == Open::New && self.caps.session_capabilities.system_prompt.is_none();
        let params = self.open_params(id.as_deref());
        let mut outputs: Vec<Output> = self.unreachable_servers_notice().into_iter().collect();
        outputs.push(self.request(how.method(), params, Pending::Open { how }));
        outputs
    }

    /// How to continue the session `id`: without a replay where the agent can.
    pub(super) fn reopen(&self, replay: bool) -> Option<Open> {
        let caps = &self.caps;
        match (replay, caps.session_capabilities.resume.is_some(), caps.load_session) {
            (true, _, true) => Some(Open::Load { replay: true }),
            (false, true, _) => Some(Open::Resume),
            (_, _, true) => Some(Open::Load { replay }),
            (_, true, false) => Some(Open::Resume),
            _ => None,
        }
    }

    pub(super) fn on_initialized(&mut self, result: Result<Value, RpcError>) -> Vec<Output> {
        let reply = match result {
            Ok(value) => crate::json::from_value::<InitializeResponse>(value).map_err(|e| e.to_string()),
            Err(error) => Err(error.to_string()),
        };
        let reply = match reply {
            Ok(reply) => reply,
            Err(why) => {
                let message = format!("{} did not start: initialize failed: {why}", self.agent_name);
                self.phase = Phase::Failed(message.clone());
                return vec![self.failure(ErrorKind::Other, message, None)];
            }
        };
        self.caps = reply.agent_capabilities;
        self.steering = super::steering::advertised(reply.meta.as_ref());
        self.agent_version = reply.agent_info.map(|info| match info.title {
            Some(title) => format!("{title} {}", info.version),
            None => format!("{} {}", info.name, info.version),
        });
        self.auth_methods = reply
            .auth_methods
            .iter()
            .filter_map(|m| {
                Some(AuthMethodInfo {
                    id: m.id()?.to_string(),
                    name: m.name().unwrap_or_default().to_string(),
                    description: None,
                })
            })
            .collect();
        let mut out = vec![Output::Event(UiEvent::SessionReady {
            agent_version: self.agent_version.clone(),
            models: Vec::new(),
            commands: Vec::new(),
            permission_mode: None,
        })];
        if !self.additional_directories.is_empty() && self.caps.session_capabilities.additional_directories.is_none() {
            out.push(self.notice(format!(
                "{} takes no additional directories, so the workspace's other folders ({}) are not offered to it; its tools still reach them by their full paths.",
                self.agent_name,
                self.additional_directories.join(", ")
            )));
        }
        if !self.auth_methods.is_empty() {
            out.push(Output::Event(UiEvent::AuthMethods {
                methods: self.auth_methods.clone(),
                required: false,
                message: None,
            }));
        }
        let open = match self.resume.clone() {
            None => (Open::New, None),
            Some(id) => match self.reopen(self.config.replay) {
                Some(how) => (how, Some(id)),
                None => {
                    out.push(self.notice(format!(
                        "{} cannot load or resume sessions: starting a new one.",
                        self.agent_name
                    )));
                    (Open::New, None)
                }
            },
        };
        out.extend(self.open(open.0, open.1));
        out
    }

    pub(super) fn on_opened(&mut self, how: Open, result: Result<Value, RpcError>) -> Vec<Output> {
        self.silent_replay = false;
        let value = match result {
            Ok(value) => value,
            Err(error) if error.code == AUTH_REQUIRED => {
                self.phase = Phase::NeedsAuth {
                    open: how,
                    id: self.resume.clone(),
                };
                let message = format!("{} needs you to log in: {}", self.agent_name, error.message);
                let mut out = vec![Output::Event(UiEvent::AuthMethods {
                    methods: self.auth_methods.clone(),
                    required: true,
                    message: Some(message.clone()),
                })];
                out.push(self.failure(
                    ErrorKind::NotLoggedIn,
                    message,
                    Some("Pick one of the ways to log in the agent offers, then send the prompt again.".into()),
                ));
                out.extend(self.fail_queued());
                return out;
            }
            Err(error) => {
                let message = format!(
                    "{} could not open a session ({}): {error}",
                    self.agent_name,
                    how.method()
                );
                self.phase = Phase::Failed(message.clone());
                let mut out = vec![self.failure(ErrorKind::Other, message, None)];
                out.extend(self.fail_queued());
                return out;
            }
        };
        if let Some(id) = value.get("sessionId").and_then(Value::as_str) {
            self.session = Some(id.to_string());
        } else if matches!(how, Open::New | Open::Fork) {
            let message = format!("{} opened a session without an id", self.agent_name);
            self.phase = Phase::Failed(message.clone());
            return vec![self.failure(ErrorKind::Other, message, None)];
        }
        self.options.replace_from(&value);
        self.phase = Phase::Ready;
        let mut out = vec![
            Output::Event(UiEvent::SessionInit {
                session_id: self.session.clone().unwrap_or_default(),
                model: self.options.model(),
                tools: Vec::new(),
                mcp_servers: Vec::new(),
                permission_mode: None,
                agent_version: self.agent_version.clone(),
            }),
            Output::Event(UiEvent::AgentOptions {
                options: self.options.to_events(),
            }),
        ];
        out.extend(self.sync_agent_mode());
        for (option, value) in std::mem::take(&mut self.pending_options) {
            match self.set_config_option(&option, Some(&value)) {
                Ok(outputs) => out.extend(outputs),
                Err(e) => out.push(self.notice(e.to_string())),
            }
        }
        out.extend(self.next_prompt());
        out
    }

    /// Prompts that cannot be sent (the session failed or needs a login): each ends its turn.
    pub(super) fn fail_queued(&mut self) -> Vec<Output> {
        let failed: Vec<Vec<Value>> = self.queued.drain(..).collect();
        failed.iter().map(|_| self.done("error", true, None)).collect()
    }

    /// Send the next queued prompt when the session is ready and no turn runs.
    pub(super) fn next_prompt(&mut self) -> Vec<Output> {
        if self.in_turn || self.phase != Phase::Ready {
            return Vec::new();
        }
        let Some(mut blocks) = self.queued.pop_front() else {
            return Vec::new();
        };
        if self.brief_in_next_prompt {
            self.brief_in_next_prompt = false;
            if let Some(brief) = &self.brief {
                blocks.insert(
                    0,
                    json!({"type": "text", "text": format!("<system-reminder>\n{brief}\n</system-reminder>")}),
                );
            }
        }
        self.in_turn = true;
        let params = json!({"sessionId": self.session, "prompt": blocks});
        vec![
            Output::Event(UiEvent::Status {
                state: SessionState::Running,
            }),
            self.request("session/prompt", params, Pending::Prompt),
        ]
    }

    pub(super) fn done(&self, subtype: &str, is_error: bool, stop_reason: Option<String>) -> Output {
        Output::Event(UiEvent::Done {
            subtype: subtype.to_string(),
            is_error,
            duration_ms: 0,
            num_turns: 1,
            session_id: self.session.clone().unwrap_or_default(),
            result: None,
            stop_reason,
        })
    }

    pub(super) fn on_prompt_answered(&mut self, result: Result<Value, RpcError>) -> Vec<Output> {
        self.in_turn = false;
        let mut out = self.close_message();
        out.extend(self.cancel_asks(REQUEST_CANCELLED));
        match result {
            Ok(value) => {
                let stop = value
                    .get("stopReason")
                    .and_then(Value::as_str)
                    .unwrap_or("end_turn")
                    .to_string();
                if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
                    let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
                    out.push(Output::Event(UiEvent::Usage {
                        input_tokens: count("inputTokens"),
                        output_tokens: count("outputTokens"),
                        cache_read_tokens: count("cachedReadTokens"),
                        cache_creation_tokens: count("cachedWriteTokens"),
                        cost_usd: None,
                    }));
                }
                let (subtype, is_error) = match stop.as_str() {
                    // Tether stopped the session (its error says why), not the user.
                    _ if matches!(self.phase, Phase::Failed(_)) => ("error", true),
                    "end_turn" => ("success", false),
                    "cancelled" => {
                        out.push(Output::Event(UiEvent::error(
                            ErrorKind::Interrupted,
                            Severity::Notice,
                            "Stopped.".into(),
                            None,
                        )));
                        ("cancelled", false)
                    }
                    "max_tokens" => ("error_max_tokens", true),
                    "max_turn_requests" => ("error_max_turns", true),
                    "refusal" => ("refusal", true),
                    _ => ("success", false),
                };
                out.push(self.done(subtype, is_error, Some(stop)));
            }
            Err(error) => {
                let kind = if error.code == AUTH_REQUIRED {
                    ErrorKind::NotLoggedIn
                } else {
                    ErrorKind::ExecutionError
                };
                if error.code == AUTH_REQUIRED {
                    out.push(Output::Event(UiEvent::AuthMethods {
                        methods: self.auth_methods.clone(),
                        required: true,
                        message: Some(error.message.clone()),
                    }));
                }
                out.push(self.failure(kind, format!("{} failed the turn: {error}", self.agent_name), None));
                out.push(self.done("error", true, None));
            }
        }
        out.push(Output::Event(UiEvent::Status {
            state: SessionState::Idle,
        }));
        out.extend(self.next_prompt());
        out
    }

    pub(super) fn on_response(
        &mut self,
        method: &str,
        pending: Pending,
        result: Result<Value, RpcError>,
    ) -> Vec<Output> {
        match pending {
            Pending::Initialize => self.on_initialized(result),
            Pending::Open { how } => self.on_opened(how, result),
            Pending::Prompt => self.on_prompt_answered(result),
            Pending::Steer { text } => self.on_steered(text, result),
            Pending::Authenticate => match result {
                Ok(_) => {
                    let mut out = vec![self.notice(format!("Logged in to {}.", self.agent_name))];
                    if let Phase::NeedsAuth { open, id } = self.phase.clone() {
                        out.extend(self.open(open, id));
                    }
                    out
                }
                Err(error) => vec![self.failure(ErrorKind::NotLoggedIn, format!("Logging in failed: {error}"), None)],
            },
            Pending::SetMode { mode } => match result {
                Ok(_) => {
                    self.options.set_mode(&mode);
                    self.options_changed()
                }
                Err(error) => vec![self.control_failed(method, error)],
            },
            Pending::SetConfigOption => match result {
                Ok(value) => {
                    self.options.replace_config(&value);
                    self.options_changed()
                }
                Err(error) => vec![self.control_failed(method, error)],
            },
            Pending::SetModel { model } => match result {
                Ok(_) => {
                    self.options.set_model(&model);
                    vec![
                        self.options_event(),
                        Output::Event(UiEvent::ModelChanged { model: Some(model) }),
                    ]
                }
                Err(error) => vec![self.control_failed(method, error)],
            },
            Pending::ListSessions => match result {
                Ok(value) => vec![Output::Event(UiEvent::SessionList {
                    sessions: session_list(&value),
                })],
                Err(error) => vec![self.control_failed(method, error)],
            },
            Pending::CloseSession => match result {
                Ok(_) => Vec::new(),
                Err(error) => vec![self.control_failed(method, error)],
            },
            Pending::DeleteSession { id } => vec![Output::Event(UiEvent::SessionDeleted {
                id,
                error: result
                    .err()
                    .map(|error| format!("{} refused {method}: {error}", self.agent_name)),
            })],
        }
    }

    pub(super) fn control_failed(&self, method: &str, error: RpcError) -> Output {
        Output::Event(UiEvent::error(
            ErrorKind::ControlRequestFailed,
            Severity::Error,
            format!("{} refused {method}: {error}", self.agent_name),
            None,
        ))
    }

    pub(super) fn options_event(&self) -> Output {
        Output::Event(UiEvent::AgentOptions {
            options: self.options.to_events(),
        })
    }

    /// The session must be open for `what`.
    pub(super) fn require_session(&self, what: &str) -> Supported<String> {
        self.session
            .clone()
            .ok_or_else(|| self.unsupported(format!("{what} before a session is open")))
    }
}

/// `session/list`'s sessions for the history.
fn session_list(value: &Value) -> Vec<SessionSummary> {
    let Some(sessions) = value.get("sessions").and_then(Value::as_array) else {
        return Vec::new();
    };
    let text = |s: &Value, key: &str| s.get(key).and_then(Value::as_str).map(str::to_string);
    sessions
        .iter()
        .filter_map(|s| {
            Some(SessionSummary {
                id: text(s, "sessionId")?,
                title: text(s, "title"),
                updated_at: text(s, "updatedAt"),
                cwd: text(s, "cwd"),
                running: false,
            })
        })
        .collect()
}
