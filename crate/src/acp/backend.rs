//! An ACP agent behind the backend seam, sans I/O: the client side of one connection. It
//! initializes the agent, opens a session (new, or an earlier one loaded or resumed) with Tether's
//! tools as its MCP server and the agent's force-local switches, sends the user's turns, and
//! turns what the agent sends into UI events ([`super::updates`]) and into work for Tether: its
//! permission questions, file reads and writes, terminals and MCP messages ([`super::requests`]).
//! Anything it cannot read gets a clear error and the session goes on.

use super::calls::ToolCalls;
use super::config::AcpConfig;
use super::profile::{known_agent, Profile};
use super::prompt::{prompt_blocks, workspace_brief};
use super::protocol::capabilities::AgentCapabilities;
use super::protocol::dispatch::{AgentNotification, AgentRequest};
use super::session_state::SessionOptions;
use super::state::{AcpBackend, Open, Pending, Phase};
use super::terminals::Terminals;
use crate::backend::{
    Action, Backend, ImageInput, Launch, Output, SessionContext, SessionOp, SessionOpKind, Supported, Verdict,
    WorkspaceAnswer,
};
use crate::events::{ErrorKind, Severity, UiEvent};
use crate::id_table::IdTable;
use crate::mcp::Manifest;
use crate::paths::PathMapper;
use crate::permissions::PermissionMode;
use crate::rpc::{self, Id, Incoming, Peer, RpcError, INVALID_PARAMS, METHOD_NOT_FOUND, REQUEST_CANCELLED};
use crate::tools::ToolOutput;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};

impl AcpBackend {
    pub fn new(context: &SessionContext, config: AcpConfig) -> Result<AcpBackend, String> {
        let common = context.config;
        let mut paths = PathMapper::new(context.root).map_err(|e| e.to_string())?;
        if let Some(mirror) = &common.mirror {
            paths = paths.with_mirror(mirror).map_err(|e| e.to_string())?;
        }
        let folders = common.additional_folders.clone().unwrap_or_default();
        for folder in &folders {
            paths = paths
                .with_folder(&folder.root, folder.mirror.as_deref())
                .map_err(|e| e.to_string())?;
        }
        let cwd = common.mirror.clone().unwrap_or_else(|| context.root.to_string());
        let remote = paths.mirror_root().is_some_and(|m| m != paths.root());
        let agent = config.profile.as_deref().map(|name| {
            known_agent(name).ok_or_else(|| {
                let names: Vec<&str> = super::profile::KNOWN_AGENTS.iter().map(|a| a.name).collect();
                format!("unknown ACP profile {name:?}; use one of {}", names.join(", "))
            })
        });
        let profile = agent.transpose()?.map(|agent| Profile { agent, closed: remote });
        let agent_name = config
            .agent_name
            .clone()
            .or_else(|| profile.as_ref().map(|p| p.agent.display_name.to_string()))
            .unwrap_or_else(|| "the ACP agent".to_string());
        if let Some(profile) = &profile {
            if remote && !profile.agent.closable && !config.allow_local_tools {
                return Err(format!(
                    "{agent_name} cannot work on a remote workspace: it keeps a tool of its own (codex's apply_patch, for the models it knows) \
                     that writes files in its local folder on this computer instead of on the remote, so Tether refuses to start it here. \
                     It works on local folders. To run it anyway, set \"allowLocalTools\": true in its tether.agents entry: Tether then \
                     refuses each of those tool calls."
                ));
            }
        }
        let remote_config = common.remote.clone().unwrap_or_default();
        let brief = remote.then(|| {
            workspace_brief(
                context.root,
                &cwd,
                remote_config.os.as_deref(),
                remote_config.shell.as_deref(),
                remote_config.git_branch.as_deref(),
                context.windows,
            )
        });
        Ok(AcpBackend {
            name: "ACP agent",
            agent_name,
            profile,
            cwd,
            additional_directories: folders.iter().map(|f| f.agent_path().to_string()).collect(),
            paths,
            remote,
            windows: context.windows,
            brief,
            env: common.env.clone().unwrap_or_default(),
            project_servers: common.mcp_servers.clone().unwrap_or_default(),
            resume: common.resume.clone(),
            peer: Peer::new(),
            phase: Phase::Starting,
            caps: AgentCapabilities::default(),
            steering: false,
            agent_version: None,
            auth_methods: Vec::new(),
            session: None,
            options: SessionOptions::default(),
            queued: VecDeque::new(),
            in_turn: false,
            brief_in_next_prompt: false,
            silent_replay: false,
            asks: IdTable::new(),
            ops: IdTable::new(),
            next_op: 0,
            calls: ToolCalls::default(),
            terminals: Terminals::default(),
            follow: Vec::new(),
            open_message: None,
            next_message: 0,
            approved_writes: HashMap::new(),
            notices: Vec::new(),
            pending_options: Vec::new(),
            mode: context.mode,
            config,
        })
    }

    // -- sending ---------------------------------------------------------------------------------

    pub(super) fn request(&mut self, method: &str, params: Value, pending: Pending) -> Output {
        let (_, message) = self.peer.request(method, params, pending, None);
        Output::Send(message.to_string())
    }

    pub(super) fn respond(&self, id: &Id, result: Result<Value, RpcError>) -> Output {
        Output::Send(rpc::reply(id, result).to_string())
    }

    pub(super) fn notify(&self, method: &str, params: Value) -> Output {
        Output::Send(rpc::notification(method, params).to_string())
    }

    pub(super) fn notice(&self, message: String) -> Output {
        Output::Event(UiEvent::error(ErrorKind::Other, Severity::Notice, message, None))
    }

    pub(super) fn failure(&self, kind: ErrorKind, message: String, hint: Option<String>) -> Output {
        Output::Event(UiEvent::error(kind, Severity::Error, message, hint))
    }
}

impl Backend for AcpBackend {
    fn name(&self) -> &'static str {
        self.name
    }

    fn launch(&self, parent_env: Vec<(String, String)>) -> Launch {
        let mut env = crate::sort::map_of(
            parent_env
                .into_iter()
                .filter(|(name, _)| !super::REMOVED_ENV.iter().any(|r| r.eq_ignore_ascii_case(name))),
        );
        env.extend(self.env.clone());
        let mut args = self.config.agent_args.clone().unwrap_or_default();
        if let Some(profile) = &self.profile {
            let extra = profile.extra_args(self.config.state_dir.as_deref(), self.windows);
            // A flag the user gave already is not repeated; one with a value always comes.
            let (flags, valued): (Vec<Vec<String>>, Vec<Vec<String>>) = extra.into_iter().partition(|a| a.len() == 1);
            for flag in flags.into_iter().flatten() {
                if !args.contains(&flag) {
                    args.push(flag);
                }
            }
            args.extend(valued.into_iter().flatten());
            // A failure here is reported by `notices`; the switch is then missing, not wrong.
            let _ = profile.env(&mut env, self.config.state_dir.as_deref(), self.windows);
        }
        Launch { args, env }
    }

    fn launch_files(&self) -> Vec<(String, String)> {
        self.profile
            .as_ref()
            .map(|p| p.files(self.config.state_dir.as_deref(), self.windows))
            .unwrap_or_default()
    }

    fn refused_in_cwd(&self) -> &'static [&'static str] {
        self.profile.as_ref().map(|p| p.refused_in_cwd()).unwrap_or_default()
    }

    fn start(&mut self, _tools: &Manifest) -> Vec<Output> {
        let params = json!({
            "protocolVersion": super::protocol::PROTOCOL_VERSION,
            "clientCapabilities": {
                "fs": {"readTextFile": true, "writeTextFile": true},
                "terminal": true,
                "auth": {"terminal": false},
                "session": {"configOptions": {"boolean": {}}},
                // Forms only (AskUserQuestion and the like); a URL to open is declined.
                "elicitation": {"form": {}},
                // Agents that run their own shell send its output along (claude-agent-acp, codex-acp).
                "_meta": {"terminal_output": true},
            },
            "clientInfo": {"name": "tether", "title": "Tether", "version": env!("CARGO_PKG_VERSION")},
        });
        vec![self.request("initialize", params, Pending::Initialize)]
    }

    fn notices(&self) -> Vec<String> {
        let mut notices = self.notices.clone();
        if let Some(profile) = &self.profile {
            let mut env = BTreeMap::new();
            if let Err(why) = profile.env(&mut env, self.config.state_dir.as_deref(), self.windows) {
                notices.push(format!("{}: {why}", self.agent_name));
            }
        }
        if self.config.bridge.is_none() {
            notices.push(format!(
                "{} runs without Tether's tools (no MCP bridge was given).",
                self.agent_name
            ));
        }
        notices
    }

    fn prompt(&mut self, text: &str, images: &[ImageInput]) -> Vec<Output> {
        let (blocks, dropped) = prompt_blocks(text, images, &self.caps.prompt_capabilities, &self.paths);
        let mut out = Vec::new();
        if dropped > 0 {
            out.push(self.notice(format!(
                "{} takes no images; {dropped} image(s) were left out of the prompt.",
                self.agent_name
            )));
        }
        match &self.phase {
            Phase::Failed(why) => {
                out.push(self.failure(ErrorKind::Other, why.clone(), None));
                out.push(self.done("error", true, None));
            }
            Phase::NeedsAuth { .. } => {
                out.push(self.failure(
                    ErrorKind::NotLoggedIn,
                    format!("{} needs you to log in first.", self.agent_name),
                    None,
                ));
                out.push(self.done("error", true, None));
            }
            _ => {
                self.queued.push_back(blocks);
                out.extend(self.next_prompt());
            }
        }
        out
    }

    fn on_message(&mut self, message: &str) -> Vec<Action> {
        let value: Value = match serde_json::from_str(message) {
            Ok(value) => value,
            Err(e) => {
                let shown: String = message.chars().take(120).collect();
                return vec![Action::Output(self.notice(format!(
                    "{} sent a line that is not JSON ({e}); ignored: {shown}",
                    self.agent_name
                )))];
            }
        };
        match self.peer.receive(value) {
            Incoming::Response {
                method,
                context,
                result,
                ..
            } => self
                .on_response(&method, context, result)
                .into_iter()
                .map(Action::Output)
                .collect(),
            Incoming::Request { id, method, params } => match AgentRequest::parse(&method, params) {
                Ok(AgentRequest::Unknown { method, .. }) => vec![Action::Output(self.respond(
                    &id,
                    Err(RpcError::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))),
                ))],
                Ok(request) => self.on_request(id, request),
                Err(invalid) => vec![
                    Action::Output(self.respond(&id, Err(RpcError::new(INVALID_PARAMS, invalid.to_string())))),
                    Action::Output(self.notice(format!("{} sent an unreadable request: {invalid}", self.agent_name))),
                ],
            },
            Incoming::Notification { method, params } => match AgentNotification::parse(&method, params) {
                Ok(AgentNotification::SessionUpdate(update)) => self.on_update(update),
                Ok(AgentNotification::CancelRequest(cancel)) => self.on_cancel_request(cancel),
                Ok(AgentNotification::McpMessage(message)) => vec![Action::ServeMcp {
                    call: String::new(),
                    message: message.to_jsonrpc(None),
                }],
                // Elicitations are not offered; unknown notifications are ignored, as the spec says.
                Ok(AgentNotification::CompleteElicitation(_) | AgentNotification::Unknown { .. }) => Vec::new(),
                Err(invalid) => vec![Action::Output(self.notice(format!(
                    "{} sent an unreadable notification: {invalid}",
                    self.agent_name
                )))],
            },
            Incoming::Unmatched(id) => vec![Action::Output(self.notice(format!(
                "{} answered a request Tether never sent or no longer waits for (id {id}); ignored.",
                self.agent_name
            )))],
            Incoming::Malformed(reply) => {
                let mut out: Vec<Action> = reply
                    .map(|r| Action::Output(Output::Send(r.to_string())))
                    .into_iter()
                    .collect();
                out.push(Action::Output(self.notice(format!(
                    "{} sent a message that is not JSON-RPC; ignored.",
                    self.agent_name
                ))));
                out
            }
        }
    }

    fn tool_result(&mut self, call: &str, output: ToolOutput) -> Vec<Output> {
        self.on_tool_result(call, output)
    }

    fn answer_permission(&mut self, id: &str, verdict: Verdict) -> Vec<Output> {
        self.on_verdict(id, verdict)
    }

    fn follow_ups(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.follow)
    }

    fn workspace_result(&mut self, call: &str, answer: WorkspaceAnswer) -> Vec<Output> {
        self.on_workspace_answer(call, answer)
    }

    fn mcp_reply(&mut self, call: &str, reply: Option<Value>) -> Vec<Output> {
        self.on_mcp_reply(call, reply)
    }

    /// What the agent's capabilities allow (read from its `initialize` answer).
    fn offers(&self) -> Vec<SessionOpKind> {
        let sessions = &self.caps.session_capabilities;
        let mut offered = vec![
            SessionOpKind::SetConfigOption,
            SessionOpKind::Authenticate,
            SessionOpKind::Interrupt,
        ];
        let optional = [
            (SessionOpKind::Load, self.caps.load_session),
            (SessionOpKind::Resume, self.reopen(false).is_some()),
            (SessionOpKind::Fork, sessions.fork.is_some()),
            (SessionOpKind::Close, sessions.close.is_some()),
            (SessionOpKind::List, sessions.list.is_some()),
            (SessionOpKind::Delete, sessions.delete.is_some()),
            (SessionOpKind::Steer, self.steering),
        ];
        offered.extend(optional.into_iter().filter(|(_, can)| *can).map(|(kind, _)| kind));
        offered
    }

    fn operate(&mut self, op: SessionOp) -> Supported<Vec<Output>> {
        match op {
            SessionOp::SetMode { mode } => Ok(self.set_mode(mode)),
            SessionOp::SetConfigOption { option, value } => self.set_config_option(&option, value.as_deref()),
            SessionOp::Authenticate { method } => Ok(vec![self.request(
                "authenticate",
                json!({"methodId": method}),
                Pending::Authenticate,
            )]),
            SessionOp::Interrupt => Ok(self.interrupt()),
            SessionOp::List => Ok(self.list_sessions()),
            SessionOp::Delete { id } => Ok(vec![self.request(
                "session/delete",
                json!({"sessionId": id}),
                Pending::DeleteSession { id },
            )]),
            SessionOp::Load { id } => Ok(self.load_session(&id)),
            SessionOp::Resume { id } => Ok(self.resume_session(&id)),
            SessionOp::Fork { id } => Ok(self.open(Open::Fork, Some(id))),
            SessionOp::Close => self.close_session(),
            SessionOp::Steer { text } => Ok(self.steer(text)),
            op => Err(self.refuse(&op)),
        }
    }
}

/// The session operations, each once [`Backend::offers`] allowed it.
impl AcpBackend {
    /// Tether's permission mode is Tether's gate's; the agent follows it into and out of its
    /// own plan mode, where it has one.
    fn set_mode(&mut self, mode: PermissionMode) -> Vec<Output> {
        self.mode = mode;
        self.sync_agent_mode()
    }

    pub(super) fn set_config_option(&mut self, option: &str, value: Option<&str>) -> Supported<Vec<Output>> {
        let Some(value) = value else {
            return Err(self.unsupported(format!("Returning {option} to the agent's default")));
        };
        if self.session.is_none() && matches!(self.phase, Phase::Starting | Phase::Opening) {
            // Set once the session is open (the agent's options are known then).
            self.pending_options.push((option.to_string(), value.to_string()));
            return Ok(Vec::new());
        }
        let session = self.require_session("Changing an option")?;
        match self.options.change(option, value) {
            Some(super::session_state::Change::ConfigOption(params)) => {
                let mut params = params;
                params["sessionId"] = Value::from(session);
                Ok(vec![self.request(
                    "session/set_config_option",
                    params,
                    Pending::SetConfigOption,
                )])
            }
            Some(super::session_state::Change::Mode) => Ok(vec![self.request(
                "session/set_mode",
                json!({"sessionId": session, "modeId": value}),
                Pending::SetMode {
                    mode: value.to_string(),
                },
            )]),
            Some(super::session_state::Change::Model) => Ok(vec![self.request(
                "session/set_model",
                json!({"sessionId": session, "modelId": value}),
                Pending::SetModel {
                    model: value.to_string(),
                },
            )]),
            None => Err(self.unsupported(format!("The option {option}"))),
        }
    }

    /// `session/cancel`, and every question of the agent still open answered `cancelled`, as the
    /// spec wants; prompts not sent yet are dropped.
    fn interrupt(&mut self) -> Vec<Output> {
        let mut out: Vec<Output> = Vec::new();
        let dropped = self.queued.len();
        self.queued.clear();
        for _ in 0..dropped {
            out.push(self.done("cancelled", false, Some("cancelled".into())));
        }
        if self.in_turn {
            if let Some(session) = &self.session {
                out.push(self.notify("session/cancel", json!({"sessionId": session})));
            }
            out.extend(self.cancel_asks(REQUEST_CANCELLED));
        }
        out
    }

    fn list_sessions(&mut self) -> Vec<Output> {
        let params = json!({"cwd": self.cwd});
        vec![self.request("session/list", params, Pending::ListSessions)]
    }

    fn load_session(&mut self, id: &str) -> Vec<Output> {
        self.resume = Some(id.to_string());
        self.open(Open::Load { replay: true }, Some(id.to_string()))
    }

    fn resume_session(&mut self, id: &str) -> Vec<Output> {
        // Offered only when there is a way.
        let how = self.reopen(false).unwrap_or(Open::Resume);
        self.resume = Some(id.to_string());
        self.open(how, Some(id.to_string()))
    }

    fn close_session(&mut self) -> Supported<Vec<Output>> {
        let session = self.require_session("Closing the session")?;
        self.session = None;
        self.phase = Phase::Opening;
        Ok(vec![self.request(
            "session/close",
            json!({"sessionId": session}),
            Pending::CloseSession,
        )])
    }
}
