//! The gateway client Tether drives: a [`Connection`] whose events go through the
//! [`ChatMapper`] for the watched session, a resync from `chat.history` whenever frames may have
//! been lost, and (as a node) [`NodeSession`] for `node.invoke.request`. Sans-IO like its
//! parts: the host carries out [`ClientOutput`]s and feeds back frames, signatures, closes and
//! the clock.

use super::chat::{ChatMapper, ChatOutput, RunEnd};
use super::connection::{Connection, ConnectionOutput, ConnectionState, ResyncReason, REQUEST_TIMEOUT_MS};
use super::frame::GatewayError;
use super::handshake::{ConnectOptions, Role};
use super::history::History;
use super::node::{
    self, Answer, FileFetch, NodeHandler, NodeSession, Reply, RunOutput, RunPlan, RunPrepare, RunRequest,
};
use super::reconnect::Backoff;
use crate::events::{ErrorKind, Severity, UiEvent};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// How many messages a resync reads back.
const RESYNC_HISTORY_LIMIT: u64 = 50;

// Outputs are made once and handed on at once; boxing the UI event would cost more than it saves.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum ClientOutput {
    /// Open a socket to the gateway URL; then `on_open`, or `on_close` when it fails.
    Open,
    Send(String),
    Close {
        code: u16,
        reason: String,
    },
    /// Sign with the device key, then `on_signed`.
    Sign {
        payload: String,
    },
    State {
        state: ConnectionState,
        message: Option<String>,
    },
    /// The gateway issued this device a token: store it (SecretStorage) for the next connect.
    DeviceToken(String),
    Ui(UiEvent),
    ReplaceText {
        message_id: String,
        text: String,
    },
    Canvas(Value),
    /// The gateway's transcript of the watched session (after `load_history` or a resync):
    /// what the chat view should match.
    History(History),
    /// The answer to a `request` the host made.
    Response {
        id: String,
        method: String,
        result: Result<Value, GatewayError>,
    },
    /// A node command for the host to serve; answer with `answer_node`.
    NodeInvoke {
        id: String,
        command: node::Command,
    },
    /// Something the log should show (a dropped frame, a gap).
    Log(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    /// Asked for by the host: its answer goes out as `Response`.
    Host,
    History {
        resync: bool,
    },
    Send,
    Abort,
    NodeResult,
}

pub struct OpenClawClient {
    connection: Connection,
    chat: ChatMapper,
    role: Role,
    /// The session shown, as the gateway names it (`agent:main:<key>`).
    session_key: Option<String>,
    default_agent: String,
    requests: BTreeMap<String, Purpose>,
    node: NodeSession,
    outputs: Vec<ClientOutput>,
}

impl OpenClawClient {
    pub fn new(options: ConnectOptions, backoff: Backoff) -> OpenClawClient {
        let role = options.role;
        let connection = Connection::new(options, backoff);
        OpenClawClient {
            chat: ChatMapper::new(connection.protocol()),
            connection,
            role,
            session_key: None,
            default_agent: "main".into(),
            requests: BTreeMap::new(),
            node: NodeSession::default(),
            outputs: Vec::new(),
        }
    }

    pub fn take_outputs(&mut self) -> Vec<ClientOutput> {
        self.pump();
        std::mem::take(&mut self.outputs)
    }

    pub fn connect(&mut self, now_ms: u64) {
        self.connection.connect(now_ms);
    }

    pub fn disconnect(&mut self) {
        self.connection.disconnect();
    }

    pub fn on_open(&mut self, now_ms: u64) {
        self.connection.on_open(now_ms);
    }

    /// One text frame. Never panics on garbage (the fuzz entry point).
    pub fn on_frame(&mut self, text: &str) {
        self.connection.on_frame(text);
        self.pump();
    }

    pub fn on_signed(&mut self, signature: &str) {
        self.connection.on_signed(signature);
    }

    pub fn on_close(&mut self, code: u16, reason: &str, now_ms: u64) {
        self.connection.on_close(code, reason, now_ms);
    }

    pub fn advance(&mut self, now_ms: u64) {
        self.connection.advance(now_ms);
    }

    pub fn next_wakeup(&self) -> Option<u64> {
        self.connection.next_wakeup()
    }

    pub fn is_connected(&self) -> bool {
        self.connection.is_connected()
    }

    /// Show this session (a key as given to `chat.send`, or canonical).
    pub fn watch(&mut self, session_key: &str) {
        let canonical = self.canonical_key(session_key);
        self.chat.watch(Some(canonical.clone()));
        self.session_key = Some(canonical);
    }

    /// Send a message to the watched session. The idempotency key makes a retried send run
    /// once (the gateway answers a replay with `status: "ok"` and starts nothing).
    pub fn send_message(&mut self, text: &str, idempotency_key: &str) -> Result<String, GatewayError> {
        let session_key = self.watched()?;
        let params = json!({"sessionKey": session_key, "message": text, "idempotencyKey": idempotency_key});
        self.request_for("chat.send", params, REQUEST_TIMEOUT_MS, Purpose::Send)
    }

    /// Stop the watched session's open runs.
    pub fn abort(&mut self) -> Result<(), GatewayError> {
        let session_key = self.watched()?;
        let runs: Vec<String> = self
            .chat
            .open_runs()
            .filter(|(_, key, _)| *key == session_key)
            .map(|(id, _, _)| id.to_string())
            .collect();
        let params = match runs.as_slice() {
            [run] => json!({"sessionKey": session_key, "runId": run}),
            _ => json!({"sessionKey": session_key}),
        };
        self.request_for("chat.abort", params, REQUEST_TIMEOUT_MS, Purpose::Abort)
            .map(|_| ())
    }

    /// Read the watched session's transcript; it comes as `ClientOutput::History`.
    pub fn load_history(&mut self, limit: u64) -> Result<String, GatewayError> {
        let session_key = self.watched()?;
        let params = json!({"sessionKey": session_key, "limit": limit});
        self.request_for(
            "chat.history",
            params,
            REQUEST_TIMEOUT_MS,
            Purpose::History { resync: false },
        )
    }

    /// Any other method (`sessions.list`, `sessions.create`, `node.pair.approve`, ...): the
    /// answer comes as `ClientOutput::Response`.
    pub fn request(&mut self, method: &str, params: Value, timeout_ms: u64) -> Result<String, GatewayError> {
        self.request_for(method, params, timeout_ms, Purpose::Host)
    }

    /// The host's answer to a `NodeInvoke`.
    pub fn answer_node(&mut self, id: &str, reply: Reply) {
        if let Some(params) = self.node.answer(id, reply) {
            self.send_node_result(params);
        }
    }

    fn watched(&self) -> Result<String, GatewayError> {
        self.session_key
            .clone()
            .ok_or_else(|| GatewayError::new("NO_SESSION", "no session is open"))
    }

    fn canonical_key(&self, key: &str) -> String {
        if key.starts_with("agent:") {
            key.to_string()
        } else {
            format!("agent:{}:{key}", self.default_agent)
        }
    }

    fn request_for(
        &mut self,
        method: &str,
        params: Value,
        timeout_ms: u64,
        purpose: Purpose,
    ) -> Result<String, GatewayError> {
        let id = self.connection.request(method, params, timeout_ms)?;
        self.requests.insert(id.clone(), purpose);
        self.pump();
        Ok(id)
    }

    fn send_node_result(&mut self, params: Value) {
        if let Err(error) = self.request_for("node.invoke.result", params, REQUEST_TIMEOUT_MS, Purpose::NodeResult) {
            self.outputs
                .push(ClientOutput::Log(format!("could not answer the gateway: {error}")));
        }
    }

    /// Turn the connection's outputs into the client's.
    fn pump(&mut self) {
        loop {
            let batch = self.connection.take_outputs();
            if batch.is_empty() {
                return;
            }
            for output in batch {
                self.on_connection_output(output);
            }
        }
    }

    fn on_connection_output(&mut self, output: ConnectionOutput) {
        match output {
            ConnectionOutput::Open => self.outputs.push(ClientOutput::Open),
            ConnectionOutput::Send(text) => self.outputs.push(ClientOutput::Send(text)),
            ConnectionOutput::Close { code, reason } => self.outputs.push(ClientOutput::Close { code, reason }),
            ConnectionOutput::Sign { payload } => self.outputs.push(ClientOutput::Sign { payload }),
            ConnectionOutput::State { state, message } => self.outputs.push(ClientOutput::State { state, message }),
            ConnectionOutput::Dropped { why } => {
                self.outputs.push(ClientOutput::Log(format!("dropped a frame: {why}")))
            }
            ConnectionOutput::Hello(hello) => {
                let protocol = hello.protocol.min(self.connection.protocol());
                self.chat.set_protocol(protocol);
                if let Some(agent) = hello
                    .main_session_key
                    .as_deref()
                    .and_then(|key| key.strip_prefix("agent:"))
                    .and_then(|rest| rest.split(':').next())
                {
                    self.default_agent = agent.to_string();
                }
                if let Some(token) = hello.device_token {
                    self.outputs.push(ClientOutput::DeviceToken(token));
                }
            }
            ConnectionOutput::Resync(reason) => self.resync(reason),
            ConnectionOutput::Response { id, method, result } => self.on_response(id, method, result),
            ConnectionOutput::Event(event) => {
                if self.role == Role::Node && event.event == "node.invoke.request" {
                    return self.on_invoke(&event.payload);
                }
                let mapped = self.chat.on_event(&event.event, &event.payload);
                self.push_chat(mapped);
            }
        }
    }

    fn push_chat(&mut self, mapped: Vec<ChatOutput>) {
        self.outputs.extend(mapped.into_iter().map(|output| match output {
            ChatOutput::Ui(event) => ClientOutput::Ui(event),
            ChatOutput::ReplaceText { message_id, text } => ClientOutput::ReplaceText { message_id, text },
            ChatOutput::Canvas(message) => ClientOutput::Canvas(message),
        }));
    }

    fn resync(&mut self, reason: ResyncReason) {
        self.outputs.push(ClientOutput::Log(match reason {
            ResyncReason::Gap { expected, received } => {
                format!("frames {expected}..{} were lost; reading the history", received - 1)
            }
            ResyncReason::Reconnected => "reconnected; reading the history".to_string(),
        }));
        if self.role != Role::Operator || self.session_key.is_none() {
            return;
        }
        let Ok(session_key) = self.watched() else { return };
        let params = json!({"sessionKey": session_key, "limit": RESYNC_HISTORY_LIMIT});
        if let Err(error) = self.request_for(
            "chat.history",
            params,
            REQUEST_TIMEOUT_MS,
            Purpose::History { resync: true },
        ) {
            self.outputs.push(ClientOutput::Log(format!("resync failed: {error}")));
        }
    }

    fn on_response(&mut self, id: String, method: String, result: Result<Value, GatewayError>) {
        match self.requests.remove(&id).unwrap_or(Purpose::Host) {
            Purpose::Host => self.outputs.push(ClientOutput::Response { id, method, result }),
            Purpose::History { resync } => match result {
                Ok(payload) => self.on_history(History::parse(&payload), resync),
                Err(error) => self.outputs.push(ClientOutput::Ui(UiEvent::error(
                    ErrorKind::Other,
                    Severity::Error,
                    format!("Could not read the session's history: {error}"),
                    None,
                ))),
            },
            Purpose::Send | Purpose::Abort => {
                if let Err(error) = result {
                    let what = if method == "chat.send" {
                        "send the message"
                    } else {
                        "stop the turn"
                    };
                    self.outputs.push(ClientOutput::Ui(UiEvent::error(
                        ErrorKind::Other,
                        Severity::Error,
                        format!("Could not {what}: {error}"),
                        None,
                    )));
                }
            }
            Purpose::NodeResult => {
                if let Err(error) = result {
                    self.outputs
                        .push(ClientOutput::Log(format!("the gateway refused a node result: {error}")));
                }
            }
        }
    }

    /// Runs open when frames were lost: the history's text catches them up; a run the gateway
    /// no longer runs ends (as it ended there, or interrupted).
    fn on_history(&mut self, history: History, resync: bool) {
        if resync {
            let open: Vec<(String, String)> = self
                .chat
                .open_runs()
                .map(|(id, _, shown)| (id.to_string(), shown.to_string()))
                .collect();
            for (run_id, shown) in open {
                // Only text that continues what was shown is added; anything else is the
                // history's to show (the `History` output below).
                if let Some(text) = history.run_texts(&run_id).into_iter().find(|t| t.starts_with(&shown)) {
                    let caught_up = self.chat.catch_up(&run_id, &text);
                    self.push_chat(caught_up);
                }
                if !history.active_run_ids.contains(&run_id) {
                    let end = if history.run_finished(&run_id) {
                        RunEnd::Final
                    } else {
                        RunEnd::Interrupted
                    };
                    let ended = self.chat.end_run(&run_id, end, None);
                    self.push_chat(ended);
                }
            }
        }
        self.outputs.push(ClientOutput::History(history));
    }

    fn on_invoke(&mut self, payload: &Value) {
        let mut deferred = DeferToHost::default();
        let answered = self.node.on_invoke(payload, &mut deferred);
        if let Some(params) = answered {
            self.send_node_result(params);
        }
        self.outputs.extend(
            deferred
                .asked
                .into_iter()
                .map(|(id, command)| ClientOutput::NodeInvoke { id, command }),
        );
    }
}

/// The node handler inside the client: every command goes to the host as `NodeInvoke`, and
/// its answer comes back through `answer_node` (the plan check stays in [`NodeSession`]).
#[derive(Default)]
struct DeferToHost {
    asked: Vec<(String, node::Command)>,
}

impl NodeHandler for DeferToHost {
    fn prepare(&mut self, id: &str, request: &RunPrepare) -> Answer<RunPlan> {
        self.asked
            .push((id.to_string(), node::Command::RunPrepare(request.clone())));
        Answer::Later
    }

    fn run(&mut self, id: &str, _plan: &RunPlan, request: &RunRequest) -> Answer<RunOutput> {
        self.asked.push((id.to_string(), node::Command::Run(request.clone())));
        Answer::Later
    }

    fn which(&mut self, id: &str, bins: &[String]) -> Answer<BTreeMap<String, String>> {
        self.asked
            .push((id.to_string(), node::Command::Which { bins: bins.to_vec() }));
        Answer::Later
    }

    fn fetch_file(&mut self, id: &str, request: &FileFetch) -> Answer<node::FileFetchReply> {
        self.asked
            .push((id.to_string(), node::Command::FileFetch(request.clone())));
        Answer::Later
    }
}
