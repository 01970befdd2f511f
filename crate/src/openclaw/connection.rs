//! One gateway connection over its whole life, sans-IO: the host opens and closes the socket,
//! passes in every text frame and the clock, and carries out the [`ConnectionOutput`]s. It runs
//! the handshake, matches responses to requests (with timeouts), drops duplicate frames and
//! reports lost ones, honours `hello-ok.policy`, and reconnects by [`reconnect::next_step`].

use super::pending::PendingRequests;
use super::protocol::frame::{parse_frame, request_text, EventFrame, Frame, GatewayError, Response};
use super::protocol::handshake::{
    classify_refusal, connect_params, device_signature_payload, Challenge, ConnectOptions, Hello, Policy, Refusal,
    LEGACY_PROTOCOL, PROTOCOL,
};
use super::reconnect::{next_step, Backoff, CloseCause, Reconnect};
use super::sequence::{SeqCheck, SeqTracker};
use serde_json::Value;

/// How long the socket may take to open and the handshake to finish.
pub const HANDSHAKE_TIMEOUT_MS: u64 = 15_000;
/// A request's default timeout (the seed's 30 s).
pub const REQUEST_TIMEOUT_MS: u64 = 30_000;

/// What the header and the status bar show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnectionState {
    Disconnected,
    Connecting,
    Connected,
    /// Refused for good, or gave up after the last try; the message says why.
    Error,
}

impl ConnectionState {
    pub fn as_str(self) -> &'static str {
        match self {
            ConnectionState::Disconnected => "disconnected",
            ConnectionState::Connecting => "connecting",
            ConnectionState::Connected => "connected",
            ConnectionState::Error => "error",
        }
    }
}

/// Why the client should check what it shows against the gateway's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResyncReason {
    /// Frames of this connection never arrived.
    Gap { expected: u64, received: u64 },
    /// A new connection after a lost one: whatever happened in between was not seen.
    Reconnected,
}

/// What a connection asks of its socket, which the driver owns. It passes unchanged through the
/// client to the backend, which names the connection's channel for the driver
/// ([`crate::backend::TransportRequest`]).
#[derive(Clone, Debug, PartialEq)]
pub enum SocketOp {
    /// Open a socket to the gateway; then call `on_open`, or `on_close` if it fails.
    Open,
    /// One text frame.
    Send(String),
    /// Close the socket; then call `on_close`.
    Close { code: u16, reason: String },
    /// Sign `payload` with the device's Ed25519 key, then call `on_signed`.
    Sign { payload: String },
}

#[derive(Clone, Debug, PartialEq)]
pub enum ConnectionOutput {
    Socket(SocketOp),
    State {
        state: ConnectionState,
        message: Option<String>,
    },
    /// The handshake succeeded.
    Hello(Hello),
    /// The answer to a request made with `request` (a timeout or a lost connection is an error
    /// with code `TIMEOUT` or `DISCONNECTED`).
    Response {
        id: String,
        method: String,
        result: Result<Value, GatewayError>,
    },
    /// An event of the connected gateway, in order and once.
    Event(EventFrame),
    Resync(ResyncReason),
    /// A frame that was not used, and why (for the log).
    Dropped {
        why: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
enum Phase {
    /// Not connected and nothing planned (disconnected, or in error).
    Idle,
    Opening {
        since_ms: u64,
    },
    AwaitingChallenge {
        since_ms: u64,
    },
    AwaitingSignature {
        challenge: Challenge,
        since_ms: u64,
    },
    AwaitingHello {
        request_id: String,
    },
    Connected,
    /// Closed; the next try is due at `at_ms`.
    Waiting {
        at_ms: u64,
    },
    /// `Close` was asked for; `on_close` will follow.
    Closing,
}

pub struct Connection {
    options: ConnectOptions,
    backoff: Backoff,
    phase: Phase,
    now_ms: u64,
    protocol: u64,
    policy: Policy,
    pending: PendingRequests,
    seq: SeqTracker,
    /// Reconnect tries made since the last successful handshake.
    retries: u32,
    /// Why the socket is being closed, when this side decided it.
    close_cause: Option<CloseCause>,
    /// The `restartExpectedMs` of a `shutdown` event on this connection.
    shutdown: Option<Option<u64>>,
    ever_connected: bool,
    last_frame_ms: u64,
    outputs: Vec<ConnectionOutput>,
}

impl Connection {
    pub fn new(options: ConnectOptions, backoff: Backoff) -> Connection {
        Connection {
            options,
            backoff,
            phase: Phase::Idle,
            now_ms: 0,
            protocol: PROTOCOL,
            policy: Policy::default(),
            pending: PendingRequests::default(),
            seq: SeqTracker::default(),
            retries: 0,
            close_cause: None,
            shutdown: None,
            ever_connected: false,
            last_frame_ms: 0,
            outputs: Vec::new(),
        }
    }

    pub fn take_outputs(&mut self) -> Vec<ConnectionOutput> {
        std::mem::take(&mut self.outputs)
    }

    pub fn is_connected(&self) -> bool {
        self.phase == Phase::Connected
    }

    /// Not connected and no try planned: disconnected by the user, refused, or given up.
    pub fn is_idle(&self) -> bool {
        self.phase == Phase::Idle
    }

    /// The protocol of the current (or last) handshake.
    pub fn protocol(&self) -> u64 {
        self.protocol
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Start connecting (the user asked to): tries counted afresh.
    pub fn connect(&mut self, now_ms: u64) {
        self.now_ms = self.now_ms.max(now_ms);
        if !matches!(self.phase, Phase::Idle | Phase::Waiting { .. }) {
            return;
        }
        self.retries = 0;
        self.open();
    }

    /// The user disconnects: no reconnect follows.
    pub fn disconnect(&mut self) {
        match self.phase {
            Phase::Idle => {}
            // Already closing for another reason (a refusal, a timeout): the user's wins, so
            // no reconnect follows the close.
            Phase::Closing => self.close_cause = Some(CloseCause::Manual),
            Phase::Waiting { .. } => {
                self.phase = Phase::Idle;
                self.state(ConnectionState::Disconnected, None);
            }
            _ => self.close(1000, "disconnected by the user", CloseCause::Manual),
        }
    }

    /// The socket opened.
    pub fn on_open(&mut self, now_ms: u64) {
        self.advance_clock(now_ms);
        if matches!(self.phase, Phase::Opening { .. }) {
            self.seq.reset();
            self.shutdown = None;
            self.last_frame_ms = self.now_ms;
            self.phase = Phase::AwaitingChallenge { since_ms: self.now_ms };
        }
    }

    /// One text frame from the socket. Never panics, whatever the text.
    pub fn on_frame(&mut self, text: &str) {
        if matches!(self.phase, Phase::Closing | Phase::Idle | Phase::Waiting { .. }) {
            // The socket is going (or gone): what it still delivers changes nothing, least of
            // all why it closes (a refusal arriving after the user's disconnect).
            return self.dropped("frame after the socket was closed".into());
        }
        self.last_frame_ms = self.now_ms;
        match parse_frame(text, self.policy.max_payload) {
            Err(error) => self.dropped(error.to_string()),
            Ok(Frame::Event(event)) => self.on_event(event),
            Ok(Frame::Response(response)) => self.on_response(response),
            Ok(Frame::Request { method, .. }) => self.dropped(format!("request {method:?} from the gateway")),
        }
    }

    /// The host signed the payload of the last `Sign`.
    pub fn on_signed(&mut self, signature: &str) {
        if let Phase::AwaitingSignature { challenge, .. } = &self.phase {
            let challenge = challenge.clone();
            self.send_connect(Some((&challenge, signature)));
        }
    }

    /// The socket closed (or never opened).
    pub fn on_close(&mut self, code: u16, reason: &str, now_ms: u64) {
        self.advance_clock(now_ms);
        if matches!(self.phase, Phase::Idle | Phase::Waiting { .. }) {
            return;
        }
        self.fail_pending("DISCONNECTED", "the connection to the gateway closed");
        let cause = match (self.close_cause.take(), self.shutdown.take()) {
            (Some(cause), _) => cause,
            (None, Some(restart_expected_ms)) => CloseCause::Shutdown { restart_expected_ms },
            (None, None) => CloseCause::Lost,
        };
        let why = match reason {
            "" => format!("closed ({code})"),
            reason => format!("closed ({code}: {reason})"),
        };
        match next_step(&self.backoff, &cause, self.retries) {
            Reconnect::After { ms } => {
                if matches!(
                    cause,
                    CloseCause::Lost
                        | CloseCause::RetryAfter { .. }
                        | CloseCause::Shutdown {
                            restart_expected_ms: None
                        }
                ) {
                    self.retries += 1;
                }
                self.phase = Phase::Waiting {
                    at_ms: self.now_ms.saturating_add(ms),
                };
                let message = match cause {
                    CloseCause::Renegotiate => format!("speaking protocol {} instead", self.protocol),
                    CloseCause::Shutdown {
                        restart_expected_ms: Some(_),
                    } => format!("{why}; the gateway restarts; next try in {ms} ms"),
                    _ => format!("{why}; try {} of {} in {ms} ms", self.retries, self.backoff.max_tries),
                };
                self.state(ConnectionState::Connecting, Some(message));
            }
            Reconnect::GiveUp => {
                self.phase = Phase::Idle;
                let message = format!("gave up after {} tries; last: {why}", self.retries);
                self.state(ConnectionState::Error, Some(message));
            }
            Reconnect::Stop => {
                self.phase = Phase::Idle;
                if cause == CloseCause::Manual {
                    self.state(ConnectionState::Disconnected, None);
                }
            }
        }
    }

    /// Move the clock and fire what is due: a planned reconnect, timeouts, the tick watchdog.
    pub fn advance(&mut self, now_ms: u64) {
        self.advance_clock(now_ms);
        let now = self.now_ms;
        match self.phase.clone() {
            Phase::Waiting { at_ms } if now >= at_ms => self.open(),
            Phase::Opening { since_ms }
            | Phase::AwaitingChallenge { since_ms }
            | Phase::AwaitingSignature { since_ms, .. }
                if now.saturating_sub(since_ms) >= HANDSHAKE_TIMEOUT_MS =>
            {
                self.close(4008, "handshake timed out", CloseCause::Lost)
            }
            Phase::Connected if now.saturating_sub(self.last_frame_ms) > 2 * self.policy.tick_interval_ms => {
                self.close(4000, "tick timeout", CloseCause::Lost)
            }
            _ => {}
        }
        for (id, pending) in self.pending.expire(now) {
            if matches!(&self.phase, Phase::AwaitingHello { request_id } if *request_id == id) {
                self.close(4008, "handshake timed out", CloseCause::Lost);
            } else {
                let error = GatewayError::new("TIMEOUT", format!("{} got no answer in time", pending.method));
                self.outputs.push(ConnectionOutput::Response {
                    id,
                    method: pending.method,
                    result: Err(error),
                });
            }
        }
    }

    /// When `advance` next has something to do.
    pub fn next_wakeup(&self) -> Option<u64> {
        let phase = match &self.phase {
            Phase::Waiting { at_ms } => Some(*at_ms),
            Phase::Opening { since_ms }
            | Phase::AwaitingChallenge { since_ms }
            | Phase::AwaitingSignature { since_ms, .. } => Some(since_ms + HANDSHAKE_TIMEOUT_MS),
            Phase::Connected => Some(self.last_frame_ms + 2 * self.policy.tick_interval_ms + 1),
            _ => None,
        };
        [phase, self.pending.next_deadline()].into_iter().flatten().min()
    }

    /// Send a request; its answer comes as `ConnectionOutput::Response` with the returned id.
    pub fn request(&mut self, method: &str, params: Value, timeout_ms: u64) -> Result<String, GatewayError> {
        if self.phase != Phase::Connected {
            return Err(GatewayError::new("NOT_CONNECTED", "not connected to the gateway"));
        }
        let id = self.pending.start(method, self.now_ms, timeout_ms);
        let text = request_text(&id, method, &params);
        if text.len() > self.policy.max_payload {
            self.pending.finish(&id);
            return Err(GatewayError::new(
                "PAYLOAD_TOO_LARGE",
                format!(
                    "{method} is {} bytes, over the gateway's limit of {} bytes",
                    text.len(),
                    self.policy.max_payload
                ),
            ));
        }
        self.outputs.push(ConnectionOutput::Socket(SocketOp::Send(text)));
        Ok(id)
    }

    fn advance_clock(&mut self, now_ms: u64) {
        self.now_ms = self.now_ms.max(now_ms);
    }

    fn open(&mut self) {
        self.phase = Phase::Opening { since_ms: self.now_ms };
        self.outputs.push(ConnectionOutput::Socket(SocketOp::Open));
        self.state(ConnectionState::Connecting, None);
    }

    fn close(&mut self, code: u16, reason: &str, cause: CloseCause) {
        self.close_cause = Some(cause);
        self.phase = Phase::Closing;
        self.outputs.push(ConnectionOutput::Socket(SocketOp::Close {
            code,
            reason: reason.to_string(),
        }));
    }

    fn state(&mut self, state: ConnectionState, message: Option<String>) {
        self.outputs.push(ConnectionOutput::State { state, message });
    }

    fn dropped(&mut self, why: String) {
        self.outputs.push(ConnectionOutput::Dropped { why });
    }

    fn fail_pending(&mut self, code: &str, message: &str) {
        for (id, pending) in self.pending.drain() {
            if pending.method != "connect" {
                self.outputs.push(ConnectionOutput::Response {
                    id,
                    method: pending.method,
                    result: Err(GatewayError::new(code, message)),
                });
            }
        }
    }

    fn on_event(&mut self, event: EventFrame) {
        if event.event == "connect.challenge" {
            return self.on_challenge(&event.payload);
        }
        if self.phase != Phase::Connected {
            return self.dropped(format!("event {:?} before the handshake ended", event.event));
        }
        if let Some(seq) = event.seq {
            match self.seq.check(seq) {
                SeqCheck::InOrder => {}
                SeqCheck::Duplicate => return self.dropped(format!("duplicate frame seq {seq}")),
                SeqCheck::Gap { expected, received } => self
                    .outputs
                    .push(ConnectionOutput::Resync(ResyncReason::Gap { expected, received })),
            }
        }
        if event.event == "shutdown" {
            self.shutdown = Some(event.payload.get("restartExpectedMs").and_then(Value::as_u64));
        }
        self.outputs.push(ConnectionOutput::Event(event));
    }

    fn on_challenge(&mut self, payload: &Value) {
        let Phase::AwaitingChallenge { since_ms } = self.phase else {
            return self.dropped("connect.challenge outside the handshake".into());
        };
        let Some(challenge) = Challenge::parse(payload) else {
            return self.dropped("connect.challenge without a nonce".into());
        };
        match &self.options.device {
            Some(device) => {
                let payload = device_signature_payload(&self.options, device, &challenge);
                self.phase = Phase::AwaitingSignature { challenge, since_ms };
                self.outputs.push(ConnectionOutput::Socket(SocketOp::Sign { payload }));
            }
            None => self.send_connect(None),
        }
    }

    fn send_connect(&mut self, signed: Option<(&Challenge, &str)>) {
        let params = connect_params(&self.options, self.protocol, signed);
        let id = self.pending.start("connect", self.now_ms, HANDSHAKE_TIMEOUT_MS);
        let text = request_text(&id, "connect", &params);
        self.outputs.push(ConnectionOutput::Socket(SocketOp::Send(text)));
        self.phase = Phase::AwaitingHello { request_id: id };
    }

    fn on_response(&mut self, response: Response) {
        let Some(pending) = self.pending.finish(&response.id) else {
            return self.dropped(format!("response to unknown request {:?}", response.id));
        };
        if pending.method == "connect" {
            return self.on_hello(response.result);
        }
        self.outputs.push(ConnectionOutput::Response {
            id: response.id,
            method: pending.method,
            result: response.result,
        });
    }

    fn on_hello(&mut self, result: Result<Value, GatewayError>) {
        let hello = match result {
            Ok(payload) => match Hello::parse(&payload) {
                Some(hello) => hello,
                None => return self.close(1002, "connect answered without hello-ok", CloseCause::Lost),
            },
            Err(error) => {
                return match classify_refusal(&error) {
                    Refusal::ProtocolMismatch { expected } if expected != self.protocol => {
                        self.protocol = expected;
                        self.close(1000, "protocol mismatch", CloseCause::Renegotiate)
                    }
                    Refusal::ProtocolMismatch { .. } => self.refuse_for_good(format!(
                        "the gateway and Tether share no protocol version (Tether speaks {PROTOCOL} and {LEGACY_PROTOCOL}): {error}"
                    )),
                    Refusal::Retry { after_ms } => {
                        self.close(1013, "gateway not ready", CloseCause::RetryAfter { ms: after_ms })
                    }
                    Refusal::Fatal { message } => self.refuse_for_good(message),
                };
            }
        };
        self.retries = 0;
        self.policy = hello.policy.clone();
        self.phase = Phase::Connected;
        let reconnected = self.ever_connected;
        self.ever_connected = true;
        self.state(ConnectionState::Connected, hello.server_version.clone());
        self.outputs.push(ConnectionOutput::Hello(hello));
        if reconnected {
            self.outputs.push(ConnectionOutput::Resync(ResyncReason::Reconnected));
        }
    }

    fn refuse_for_good(&mut self, message: String) {
        self.state(ConnectionState::Error, Some(message));
        self.close(1000, "refused", CloseCause::Fatal);
    }
}
