//! An OpenClaw gateway behind the backend seam. The gateway is reached over WebSockets the
//! driver opens when asked ([`TransportRequest`]): the operator connection (`gateway`) that
//! chats, and, when the workspace is offered, the node connection (`node`) whose commands run
//! with Tether's tools behind the permission gate ([`NodeCommands`]). Both are
//! [`OpenClawClient`]s; this file turns their outputs into the seam's and keeps what is the
//! session's: the session shown (its canonical key), sends with idempotency keys, the sessions
//! list and the history pages, the canvas, and the pairing of the node.

mod canvas_action;
mod outputs;
mod pair;
mod sessions;

use super::canvas::{self, Canvas};
use super::client::{ClientOutput, OpenClawClient};
use super::config::OpenClawConfig;
use super::connection::REQUEST_TIMEOUT_MS;
use super::history::History;
use super::pairing::Pairing;
use super::protocol::frame::GatewayError;
use super::protocol::handshake::ConnectOptions;
use super::reconnect::Backoff;
use super::workspace_node::{NodeCommands, CALL_PREFIX, PAIR_PREFIX};
use crate::backend::{
    Action, Backend, FileBytes, ImageInput, Launch, Output, SessionContext, SessionOp, SessionOpKind, Supported,
    TransportEvent, TransportRequest, Verdict,
};
use crate::events::{TranscriptMessage, UiEvent};
use crate::id_table::IdTable;
use crate::mcp::Manifest;
use crate::tools::ToolOutput;
use outputs::{error_event, field, identity, log, notice, session_list, strings, transport};
use serde_json::Value;
use std::collections::BTreeMap;

/// The operator connection's channel.
pub const GATEWAY: &str = "gateway";
/// The node connection's channel.
pub const NODE: &str = "node";
/// Messages per history page.
const HISTORY_PAGE: u64 = 50;

/// What an operator request the backend made was for.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Request {
    ListSessions,
    CreateSession,
    /// `sessions.delete` of the session with this key.
    DeleteSession(String),
    NodeList,
    PairApprove(String),
    Canvas,
    /// A board widget's call, answered back to it.
    WidgetCall {
        widget: String,
        call_id: String,
    },
}

struct NodeLink {
    client: OpenClawClient,
    /// The node's id at the gateway (its device id).
    id: String,
    display_name: String,
    commands: NodeCommands,
    pairing: Pairing,
}

pub struct OpenClawBackend {
    url: String,
    operator: OpenClawClient,
    node: Option<NodeLink>,
    instance: String,
    sends: u64,
    sessions_made: u64,
    now_ms: u64,
    wake_at: Option<u64>,
    requests: IdTable<Request>,
    actions: Vec<Action>,
    /// Where the page before the oldest message shown starts.
    older_offset: Option<u64>,
    /// The session to show on the first connect (the config's `resume`).
    resume: Option<String>,
    connected_once: bool,
    /// The operator connection holds `operator.admin`, which `sessions.delete` takes (measured
    /// with 2026.9.6; node mode asks for it).
    admin: bool,
    canvas: Canvas,
}

impl OpenClawBackend {
    pub fn new(context: &SessionContext, config: OpenClawConfig) -> OpenClawBackend {
        let version = config.client_version.clone().unwrap_or_else(|| "0.0.0".into());
        let mut backoff = Backoff::default();
        if let Some(b) = config.backoff {
            backoff.base_ms = b.base_ms.unwrap_or(backoff.base_ms);
            backoff.cap_ms = b.cap_ms.unwrap_or(backoff.cap_ms);
            backoff.max_tries = b.max_tries.unwrap_or(backoff.max_tries);
        }
        let platform = if context.windows { "win32" } else { "linux" };
        let mut options = ConnectOptions::operator(config.token.clone(), &version, platform);
        options.device = config.device.as_ref().map(identity);
        options.device_token = config.device_token.clone();
        let node = config.node.as_ref().map(|node| {
            // Approving a node's command surface takes these scopes (node-mode reference).
            options
                .scopes
                .extend(["operator.admin".to_string(), "operator.pairing".to_string()]);
            let platform = node.platform.clone().unwrap_or_else(|| platform.to_string());
            let mut node_options =
                ConnectOptions::node(config.token.clone(), &version, &platform, identity(&node.device));
            node_options.device_token = node.device_token.clone();
            let display_name = node.display_name.clone().unwrap_or_else(|| "Tether workspace".into());
            node_options.display_name = Some(display_name.clone());
            NodeLink {
                client: OpenClawClient::new(node_options, backoff),
                id: node.device.id.clone(),
                display_name,
                commands: NodeCommands::default(),
                pairing: Pairing::Unknown,
            }
        });
        let instance = config.instance_id.clone().unwrap_or_else(|| "tether".into());
        let mut operator = OpenClawClient::new(options, backoff);
        let resume = context.config.resume.clone();
        operator.watch(resume.as_deref().unwrap_or(&format!("tether-{instance}")));
        OpenClawBackend {
            url: config.gateway_url.clone(),
            operator,
            node,
            instance,
            sends: 0,
            sessions_made: 0,
            now_ms: 0,
            wake_at: None,
            requests: IdTable::new(),
            actions: Vec::new(),
            older_offset: None,
            resume,
            connected_once: false,
            admin: false,
            canvas: Canvas::new(&config.gateway_url),
        }
    }

    fn connect(&mut self) {
        self.operator.connect(self.now_ms);
        if let Some(node) = self.node.as_mut() {
            node.client.connect(self.now_ms);
        }
    }

    /// Both clients' outputs as the seam's, until neither has more; then the timer.
    fn flush(&mut self) -> Vec<Output> {
        let mut out = Vec::new();
        loop {
            let operator = self.operator.take_outputs();
            let node = self.node.as_mut().map(|n| n.client.take_outputs()).unwrap_or_default();
            if operator.is_empty() && node.is_empty() {
                break;
            }
            for output in operator {
                self.on_operator(output, &mut out);
            }
            for output in node {
                self.on_node(output, &mut out);
            }
        }
        let pairing = self.node.as_ref().and_then(|n| n.pairing.wake_at());
        let next = [
            self.operator.next_wakeup(),
            self.node.as_ref().and_then(|n| n.client.next_wakeup()),
            pairing,
        ]
        .into_iter()
        .flatten()
        .min();
        if next != self.wake_at {
            self.wake_at = next;
            out.push(Output::Transport(TransportRequest::WakeAt { at_ms: next }));
        }
        out
    }

    fn on_operator(&mut self, output: ClientOutput, out: &mut Vec<Output>) {
        match output {
            ClientOutput::Connected { server_version, scopes } => {
                self.admin = scopes.iter().any(|scope| scope == "operator.admin");
                out.push(Output::Event(self.session_init(server_version)));
                if !self.connected_once {
                    self.connected_once = true;
                    if self.resume.is_some() {
                        self.load_page(None, out);
                    }
                }
                self.check_pairing();
                self.refresh_canvas();
            }
            ClientOutput::History { history, older, resync } => self.on_history(history, older, resync, out),
            ClientOutput::Response { id, method, result } => self.on_response(&id, &method, result, out),
            ClientOutput::Event { event, payload } => self.on_gateway_event(&event, &payload),
            ClientOutput::Canvas(message) => out.extend(self.canvas.on_surface_message(&message).map(Output::Event)),
            other => out.extend(transport(GATEWAY, &self.url, other)),
        }
    }

    fn on_node(&mut self, output: ClientOutput, out: &mut Vec<Output>) {
        let Some(node) = self.node.as_mut() else { return };
        match output {
            ClientOutput::Connected { .. } => self.check_pairing(),
            ClientOutput::NodeInvoke { id, command } => {
                out.push(log(format!("node: the gateway asks for {} ({id})", command.name())));
                let actions = node.commands.on_invoke(&mut node.client, &id, command);
                self.actions.extend(actions);
            }
            ClientOutput::Event { event, payload } => {
                if event == "node.pair.resolved" && payload.get("decision").and_then(Value::as_str) == Some("approved")
                {
                    node.pairing = Pairing::Approved;
                }
            }
            other => out.extend(transport(NODE, &self.url, other)),
        }
    }

    fn session_init(&self, server_version: Option<String>) -> UiEvent {
        UiEvent::SessionInit {
            session_id: self.operator.session_key().unwrap_or_default().to_string(),
            model: None,
            tools: Vec::new(),
            mcp_servers: Vec::new(),
            permission_mode: None,
            agent_version: server_version,
        }
    }

    fn load_page(&mut self, offset: Option<u64>, out: &mut Vec<Output>) {
        if let Err(error) = self.operator.load_history(HISTORY_PAGE, offset) {
            out.push(error_event(format!("Could not read the session's history: {error}")));
        }
    }

    fn on_history(&mut self, history: History, older: bool, resync: bool, out: &mut Vec<Output>) {
        if resync {
            out.push(log(format!(
                "resynced from the gateway's history ({} messages)",
                history.messages.len()
            )));
            return;
        }
        self.older_offset = history.next_offset.filter(|_| history.has_more);
        let messages = history
            .messages
            .iter()
            .filter(|m| matches!(m.role.as_str(), "user" | "assistant") && !m.text.trim().is_empty())
            .map(|m| TranscriptMessage {
                role: m.role.clone(),
                text: m.text.clone(),
            })
            .collect();
        out.push(Output::Event(UiEvent::Transcript {
            session_id: self.operator.session_key().unwrap_or(&history.session_key).to_string(),
            messages,
            has_more: self.older_offset.is_some(),
            older,
        }));
    }

    fn request(&mut self, method: &str, params: Value, purpose: Request) -> Result<(), GatewayError> {
        let id = self.operator.request(method, params, REQUEST_TIMEOUT_MS)?;
        self.requests.insert(id, purpose);
        Ok(())
    }

    fn on_response(&mut self, id: &str, method: &str, result: Result<Value, GatewayError>, out: &mut Vec<Output>) {
        let Some(purpose) = self.requests.remove(id) else {
            return out.push(log(format!("an answer to {method} nobody waits for")));
        };
        match (purpose, result) {
            (Request::ListSessions, Ok(payload)) => out.push(Output::Event(UiEvent::SessionList {
                sessions: session_list(&payload),
            })),
            (Request::CreateSession, Ok(payload)) => {
                if let Some(key) = payload.get("key").and_then(Value::as_str) {
                    self.operator.watch(key);
                }
                out.push(Output::Event(self.session_init(None)));
            }
            (Request::DeleteSession(id), result) => out.push(Output::Event(UiEvent::SessionDeleted {
                id,
                error: result
                    .err()
                    .map(|e| format!("The gateway refused to delete the session: {e}")),
            })),
            (Request::NodeList, Ok(payload)) => self.on_node_list(&payload, out),
            (Request::PairApprove(_), Ok(_)) => {
                if let Some(node) = self.node.as_mut() {
                    node.pairing = Pairing::Approved;
                }
                out.push(notice(
                    "This workspace is the gateway's node now: its agent's exec and file_fetch on it come to Tether's permission prompts."
                        .into(),
                ));
            }
            // The snapshot a grant returns has no views: read the board again for them.
            (Request::Canvas, Ok(_)) if method == "board.widget.grant" => self.refresh_canvas(),
            (Request::Canvas, result) => out.extend(self.canvas.on_response(method, result).map(Output::Event)),
            (Request::WidgetCall { widget, call_id }, result) => out.push(Output::Event(Canvas::widget_reply(
                widget,
                call_id,
                result.map_err(|e| e.to_string()),
            ))),
            (Request::ListSessions, Err(error)) => {
                out.push(error_event(format!("Could not list the sessions: {error}")))
            }
            (Request::CreateSession, Err(error)) => {
                out.push(error_event(format!("Could not create the session: {error}")))
            }
            (Request::NodeList, Err(error)) => {
                out.push(log(format!("node.list failed: {error}")));
                self.on_node_list(&Value::Null, out);
            }
            (Request::PairApprove(request_id), Err(error)) => {
                if let Some(node) = self.node.as_mut() {
                    node.pairing = Pairing::Declined(request_id);
                }
                out.push(error_event(format!(
                    "The gateway refused to pair the workspace: {error}. Approving needs an operator with the operator.pairing and operator.admin scopes."
                )));
            }
        }
    }

    fn on_gateway_event(&mut self, event: &str, payload: &Value) {
        match event {
            "node.pair.requested" => {
                let ours = self
                    .node
                    .as_ref()
                    .is_some_and(|n| field(payload, "nodeId") == Some(n.id.as_str()));
                if let (true, Some(request_id)) = (ours, field(payload, "requestId")) {
                    let commands = strings(payload.get("commands"));
                    self.ask_pairing(request_id, &commands);
                }
            }
            _ if event.starts_with("board.") => {
                if let Some(request) = Canvas::on_event(event, payload, self.operator.session_key()) {
                    self.canvas_request(request);
                }
            }
            _ => {}
        }
    }

    fn refresh_canvas(&mut self) {
        if let Some(key) = self.operator.session_key().map(str::to_string) {
            self.canvas_request(Canvas::refresh(&key));
        }
    }

    /// Send a canvas request; without a connection the next connect refreshes the canvas.
    fn canvas_request(&mut self, (method, params): canvas::Request) -> Option<GatewayError> {
        self.request(method, params, Request::Canvas).err()
    }

    fn next_key(&mut self) -> String {
        self.sends += 1;
        format!("tether-{}-{}", self.instance, self.sends)
    }
}

impl Backend for OpenClawBackend {
    fn name(&self) -> &'static str {
        "OpenClaw"
    }

    /// No program: the driver opens the gateway's sockets when asked.
    fn launch(&self, _parent_env: Vec<(String, String)>) -> Launch {
        Launch {
            args: Vec::new(),
            env: BTreeMap::new(),
        }
    }

    fn start(&mut self, _tools: &Manifest) -> Vec<Output> {
        self.connect();
        self.flush()
    }

    fn prompt(&mut self, text: &str, images: &[ImageInput]) -> Vec<Output> {
        let mut out = Vec::new();
        if !images.is_empty() {
            out.push(notice(
                "Images are not sent to an OpenClaw gateway; the text is.".into(),
            ));
        }
        let key = self.next_key();
        if let Err(error) = self.operator.send_message(text, &key) {
            out.push(error_event(format!("Could not send the message: {error}")));
            out.push(Output::Event(UiEvent::Done {
                subtype: "error_during_execution".into(),
                is_error: true,
                duration_ms: 0,
                num_turns: 0,
                session_id: self.operator.session_key().unwrap_or_default().to_string(),
                result: None,
                stop_reason: None,
            }));
        }
        out.extend(self.flush());
        out
    }

    fn on_message(&mut self, _message: &str) -> Vec<Action> {
        Vec::new()
    }

    fn tool_result(&mut self, call: &str, output: ToolOutput) -> Vec<Output> {
        if let (Some(id), Some(node)) = (call.strip_prefix(CALL_PREFIX), self.node.as_mut()) {
            node.commands.on_tool_result(&mut node.client, id, output);
        }
        self.flush()
    }

    fn answer_permission(&mut self, id: &str, verdict: Verdict) -> Vec<Output> {
        let mut out = Vec::new();
        if let Some(request_id) = id.strip_prefix(PAIR_PREFIX) {
            self.on_pairing_answer(request_id, verdict, &mut out);
        } else if let (Some(id), Some(node)) = (id.strip_prefix(CALL_PREFIX), self.node.as_mut()) {
            let actions = node.commands.on_verdict(&mut node.client, id, verdict);
            self.actions.extend(actions);
        }
        out.extend(self.flush());
        out
    }

    fn file_read(&mut self, call: &str, result: Result<FileBytes, String>) -> Vec<Output> {
        if let (Some(id), Some(node)) = (call.strip_prefix(CALL_PREFIX), self.node.as_mut()) {
            node.commands.on_file(&mut node.client, id, result);
        }
        self.flush()
    }

    fn follow_ups(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.actions)
    }

    fn set_clock(&mut self, now_ms: u64) {
        self.now_ms = self.now_ms.max(now_ms);
    }

    fn on_transport(&mut self, event: TransportEvent) -> Vec<Action> {
        let now = self.now_ms;
        let channel = match &event {
            TransportEvent::Opened { channel }
            | TransportEvent::Frame { channel, .. }
            | TransportEvent::Closed { channel, .. }
            | TransportEvent::Signed { channel, .. } => channel.clone(),
        };
        let client = match (channel.as_str(), self.node.as_mut()) {
            (GATEWAY, _) => &mut self.operator,
            (NODE, Some(node)) => &mut node.client,
            _ => {
                return vec![Action::Output(log(format!(
                    "an event for an unknown connection {channel:?}"
                )))]
            }
        };
        client.advance(now);
        match event {
            TransportEvent::Opened { .. } => client.on_open(now),
            TransportEvent::Frame { text, .. } => client.on_frame(&text),
            TransportEvent::Closed { code, reason, .. } => client.on_close(code, &reason, now),
            TransportEvent::Signed { signature, .. } => client.on_signed(&signature),
        }
        self.flush().into_iter().map(Action::Output).collect()
    }

    fn wake(&mut self) -> Vec<Action> {
        let now = self.now_ms;
        self.operator.advance(now);
        let mut due = false;
        if let Some(node) = self.node.as_mut() {
            node.client.advance(now);
            due = node.pairing.due(now);
        }
        if due {
            self.list_nodes();
        }
        // The driver's timer fired: it needs a new one even for the same time.
        self.wake_at = None;
        self.flush().into_iter().map(Action::Output).collect()
    }

    fn offers(&self) -> Vec<SessionOpKind> {
        use SessionOpKind::*;
        let mut offered = vec![New, Load, Resume, List, Interrupt, Command];
        if self.admin {
            offered.push(Delete);
        }
        offered
    }

    fn operate(&mut self, op: SessionOp) -> Supported<Vec<Output>> {
        match op {
            // Tether's mode governs the node's commands (the gate); the gateway has none to follow.
            SessionOp::SetMode { .. } => Ok(Vec::new()),
            SessionOp::Interrupt => Ok(self.interrupt()),
            SessionOp::List => Ok(self.list_sessions()),
            SessionOp::Delete { id } => Ok(self.delete_session(id)),
            SessionOp::Load { id } => Ok(self.load_session(&id)),
            SessionOp::Resume { id } => Ok(self.resume_session(&id)),
            SessionOp::New => Ok(self.new_session()),
            SessionOp::Command { name, args } => self.command(&name, &args),
            op => Err(self.refuse(&op)),
        }
    }
}
