//! The gateway client Tether drives: a [`Connection`] whose events go through the
//! [`ChatMapper`] for the watched session, a resync from `chat.history` whenever frames may have
//! been lost, sends that survive a lost connection (retried with their idempotency key, so a
//! send runs once), and (as a node) [`NodeSession`] for `node.invoke.request`. Sans-IO like its
//! parts: the host carries out [`ClientOutput`]s and feeds back frames, signatures, closes and
//! the clock.

use super::chat::{ChatMapper, ChatOutput, RunEnd};
use super::connection::{Connection, ConnectionOutput, ConnectionState, ResyncReason, SocketOp, REQUEST_TIMEOUT_MS};
use super::history::History;
use super::node::{
    self, Answer, FileFetch, NodeHandler, NodeSession, Reply, RunOutput, RunPlan, RunPrepare, RunRequest,
};
use super::protocol::frame::GatewayError;
use super::protocol::handshake::{ConnectOptions, Role};
use super::reconnect::Backoff;
use crate::events::{ErrorKind, Severity, UiEvent};
use crate::id_table::IdTable;
use sends::PendingSend;
use serde_json::{json, Value};
use std::collections::BTreeMap;

mod sends;

/// How many messages a resync reads back.
const RESYNC_HISTORY_LIMIT: u64 = 50;

// Outputs are made once and handed on at once; boxing the UI event would cost more than it saves.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum ClientOutput {
    /// For the connection's socket (to the gateway URL).
    Socket(SocketOp),
    State {
        state: ConnectionState,
        message: Option<String>,
    },
    /// The handshake succeeded (again).
    Connected {
        server_version: Option<String>,
        scopes: Vec<String>,
    },
    /// The gateway issued this device a token: store it (SecretStorage) for the next connect.
    DeviceToken(String),
    Ui(UiEvent),
    Canvas(Value),
    /// The gateway's transcript of the watched session: asked for (`load_history`; `older` for
    /// a page before the newest), or read for a resync (`resync`).
    History {
        history: History,
        older: bool,
        resync: bool,
    },
    /// The answer to a `request` the host made.
    Response {
        id: String,
        method: String,
        result: Result<Value, GatewayError>,
    },
    /// A gateway event the chat does not show, for the host (`node.pair.requested`, `board.*`).
    Event {
        event: String,
        payload: Value,
    },
    /// A node command for the host to serve; answer with `answer_node`.
    NodeInvoke {
        id: String,
        command: node::Command,
    },
    /// Something the log should show (a dropped frame, a gap).
    Log(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Purpose {
    /// Asked for by the host: its answer goes out as `Response`.
    Host,
    History {
        resync: bool,
        older: bool,
    },
    Send(String),
    /// The history read to show a replayed send's run that streamed while Tether was away.
    Settle {
        run_id: String,
    },
    Abort,
    NodeResult,
}

pub struct OpenClawClient {
    connection: Connection,
    chat: ChatMapper,
    role: Role,
    /// The session shown, as given and as the gateway names it (`agent:main:<key>`).
    requested_key: Option<String>,
    session_key: Option<String>,
    default_agent: String,
    requests: IdTable<Purpose>,
    /// Sends waiting for a connection, and sends made whose answer has not come.
    unsent: Vec<PendingSend>,
    in_flight: IdTable<PendingSend>,
    node: NodeSession,
    now_ms: u64,
    /// Why the connection is in error, for the sends it fails.
    problem: Option<String>,
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
            requested_key: None,
            session_key: None,
            default_agent: "main".into(),
            requests: IdTable::new(),
            unsent: Vec::new(),
            in_flight: IdTable::new(),
            node: NodeSession::default(),
            now_ms: 0,
            problem: None,
            outputs: Vec::new(),
        }
    }

    pub fn take_outputs(&mut self) -> Vec<ClientOutput> {
        self.pump();
        std::mem::take(&mut self.outputs)
    }

    pub fn connect(&mut self, now_ms: u64) {
        self.now_ms = self.now_ms.max(now_ms);
        self.connection.connect(now_ms);
    }

    /// The user disconnects: no reconnect, and sends still waiting fail.
    pub fn disconnect(&mut self) {
        self.connection.disconnect();
        self.pump();
        self.fail_unsent("disconnected from the gateway");
    }

    pub fn on_open(&mut self, now_ms: u64) {
        self.now_ms = self.now_ms.max(now_ms);
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
        self.now_ms = self.now_ms.max(now_ms);
        self.connection.on_close(code, reason, now_ms);
        self.pump();
        if self.connection.is_idle() {
            let why = self
                .problem
                .clone()
                .unwrap_or_else(|| format!("the gateway connection closed ({code})"));
            self.fail_unsent(&why);
        }
    }

    /// Move the clock; fires what is due (a reconnect, timeouts, the tick watchdog).
    pub fn advance(&mut self, now_ms: u64) {
        self.now_ms = self.now_ms.max(now_ms);
        self.connection.advance(now_ms);
    }

    pub fn next_wakeup(&self) -> Option<u64> {
        self.connection.next_wakeup()
    }

    pub fn is_connected(&self) -> bool {
        self.connection.is_connected()
    }

    /// The session shown, as the gateway names it.
    pub fn session_key(&self) -> Option<&str> {
        self.session_key.as_deref()
    }

    /// Whether a run of the watched session is streaming.
    pub fn is_running(&self) -> bool {
        let key = self.session_key.as_deref();
        self.chat.open_runs().any(|(_, session, _)| Some(session) == key)
    }

    /// Show this session (a key as given to `chat.send`, or canonical).
    pub fn watch(&mut self, session_key: &str) {
        self.requested_key = Some(session_key.to_string());
        let canonical = self.canonical_key(session_key);
        self.chat.watch(Some(canonical.clone()));
        self.session_key = Some(canonical);
    }

    /// Send a message to the watched session. The idempotency key makes a retried send run
    /// once (the gateway answers a replay with `status: "ok"` and starts nothing). Without a
    /// connection the message waits for the next one; a client that gave up refuses it.
    pub fn send_message(&mut self, text: &str, idempotency_key: &str) -> Result<(), GatewayError> {
        let session_key = self.watched()?;
        if self.connection.is_idle() {
            return Err(GatewayError::new("NOT_CONNECTED", "not connected to the gateway"));
        }
        let send = PendingSend {
            session_key,
            text: text.to_string(),
            idempotency_key: idempotency_key.to_string(),
            tries: 0,
        };
        if self.connection.is_connected() {
            self.start_send(send);
        } else {
            self.unsent.push(send);
        }
        Ok(())
    }

    /// Stop the watched session's open runs; messages not yet sent are dropped.
    pub fn abort(&mut self) -> Result<(), GatewayError> {
        let session_key = self.watched()?;
        for send in std::mem::take(&mut self.unsent) {
            self.end_unsent_turn(&send, None);
        }
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

    /// Read the watched session's newest messages (`offset` None), or the page `offset` messages
    /// back; it comes as `ClientOutput::History`.
    pub fn load_history(&mut self, limit: u64, offset: Option<u64>) -> Result<String, GatewayError> {
        let session_key = self.watched()?;
        let mut params = json!({"sessionKey": session_key, "limit": limit});
        if let Some(offset) = offset {
            params["offset"] = json!(offset);
        }
        let purpose = Purpose::History {
            resync: false,
            older: offset.is_some(),
        };
        self.request_for("chat.history", params, REQUEST_TIMEOUT_MS, purpose)
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
        self.connection.advance(self.now_ms);
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
            ConnectionOutput::Socket(op) => self.outputs.push(ClientOutput::Socket(op)),
            ConnectionOutput::State { state, message } => {
                self.problem = match state {
                    ConnectionState::Error => message.clone(),
                    _ => None,
                };
                let why = message
                    .clone()
                    .unwrap_or_else(|| "the gateway connection is closed".into());
                self.outputs.push(ClientOutput::State { state, message });
                if self.connection.is_idle() {
                    self.fail_unsent(&why);
                }
            }
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
                    if let Some(requested) = self.requested_key.clone() {
                        self.watch(&requested);
                    }
                }
                if let Some(token) = hello.device_token.clone() {
                    self.outputs.push(ClientOutput::DeviceToken(token));
                }
                self.outputs.push(ClientOutput::Connected {
                    server_version: hello.server_version.clone(),
                    scopes: hello.scopes.clone(),
                });
                for send in std::mem::take(&mut self.unsent) {
                    self.start_send(send);
                }
            }
            ConnectionOutput::Resync(reason) => self.resync(reason),
            ConnectionOutput::Response { id, method, result } => self.on_response(id, method, result),
            ConnectionOutput::Event(event) => {
                if self.role == Role::Node && event.event == "node.invoke.request" {
                    return self.on_invoke(&event.payload);
                }
                if matches!(event.event.as_str(), "chat" | "agent") {
                    let mapped = self.chat.on_event(&event.event, &event.payload);
                    self.push_chat(mapped);
                } else {
                    self.outputs.push(ClientOutput::Event {
                        event: event.event,
                        payload: event.payload,
                    });
                }
            }
        }
    }

    fn push_chat(&mut self, mapped: Vec<ChatOutput>) {
        self.outputs.extend(mapped.into_iter().map(|output| match output {
            ChatOutput::Ui(event) => ClientOutput::Ui(event),
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
        if self.role != Role::Operator {
            return;
        }
        let Ok(session_key) = self.watched() else { return };
        let params = json!({"sessionKey": session_key, "limit": RESYNC_HISTORY_LIMIT});
        let purpose = Purpose::History {
            resync: true,
            older: false,
        };
        if let Err(error) = self.request_for("chat.history", params, REQUEST_TIMEOUT_MS, purpose) {
            self.outputs.push(ClientOutput::Log(format!("resync failed: {error}")));
        }
    }

    fn on_response(&mut self, id: String, method: String, result: Result<Value, GatewayError>) {
        match self.requests.remove(&id).unwrap_or(Purpose::Host) {
            Purpose::Host => self.outputs.push(ClientOutput::Response { id, method, result }),
            Purpose::History { resync, older } => match result {
                Ok(payload) => self.on_history(History::parse(&payload), resync, older),
                Err(error) if resync => self.outputs.push(ClientOutput::Log(format!("resync failed: {error}"))),
                Err(error) => self.outputs.push(ClientOutput::Ui(UiEvent::error(
                    ErrorKind::Other,
                    Severity::Error,
                    format!("Could not read the session's history: {error}"),
                    None,
                ))),
            },
            Purpose::Send(key) => self.on_send_answer(&key, result),
            Purpose::Settle { run_id } => {
                if let Ok(payload) = result {
                    let history = History::parse(&payload);
                    let texts = history.run_texts(&run_id);
                    let end = match history.run_finished(&run_id) {
                        true => RunEnd::Final,
                        false => RunEnd::Interrupted,
                    };
                    let text = texts.first().cloned().unwrap_or_default();
                    let key = self.session_key.clone().unwrap_or_default();
                    let settled = self.chat.settle(&run_id, &key, &text, end);
                    self.push_chat(settled);
                }
            }
            Purpose::Abort => {
                if let Err(error) = result {
                    self.outputs.push(ClientOutput::Ui(UiEvent::error(
                        ErrorKind::Other,
                        Severity::Error,
                        format!("Could not stop the turn: {error}"),
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

    /// After a resync, runs open when frames were lost: the history's text catches them up; a
    /// run the gateway no longer runs ends (as it ended there, or interrupted).
    fn on_history(&mut self, history: History, resync: bool, older: bool) {
        if resync {
            let open: Vec<(String, String)> = self
                .chat
                .open_runs()
                .map(|(id, _, shown)| (id.to_string(), shown.to_string()))
                .collect();
            for (run_id, shown) in open {
                // Only text that continues what was shown is added; anything else is the
                // history's to show.
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
        self.outputs.push(ClientOutput::History { history, older, resync });
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
