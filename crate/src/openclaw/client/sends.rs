//! Sends that survive a lost connection: a message waits for the connection, a `chat.send` whose
//! answer was lost is sent again with the same idempotency key (the gateway runs it once and
//! answers a replay with `status: "ok"`; the run is then shown from the history), and a message
//! that cannot be sent ends its turn at once, so no one waits for it.

use super::{ClientOutput, OpenClawClient, Purpose, RESYNC_HISTORY_LIMIT};
use crate::events::{ErrorKind, SessionState, Severity, UiEvent};
use crate::openclaw::connection::REQUEST_TIMEOUT_MS;
use crate::openclaw::protocol::frame::GatewayError;
use serde_json::{json, Value};

/// How often a send whose answer never came is tried (with the same idempotency key).
const SEND_TRIES: u32 = 3;

/// A message for `chat.send`, kept until the gateway took it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct PendingSend {
    pub(super) session_key: String,
    pub(super) text: String,
    pub(super) idempotency_key: String,
    pub(super) tries: u32,
}

impl OpenClawClient {
    pub(super) fn start_send(&mut self, mut send: PendingSend) {
        send.tries += 1;
        let params =
            json!({"sessionKey": send.session_key, "message": send.text, "idempotencyKey": send.idempotency_key});
        let key = send.idempotency_key.clone();
        match self.request_for("chat.send", params, REQUEST_TIMEOUT_MS, Purpose::Send(key.clone())) {
            Ok(_) => {
                self.in_flight.insert(key, send);
            }
            Err(error) => self.end_unsent_turn(&send, Some(format!("Could not send the message: {error}"))),
        }
    }

    /// A message that never started a turn: the turn ends here (stopped, or failed), so nobody
    /// waits for it.
    pub(super) fn end_unsent_turn(&mut self, send: &PendingSend, failure: Option<String>) {
        let ui = |event| ClientOutput::Ui(event);
        let is_error = failure.is_some();
        match failure {
            Some(message) => self
                .outputs
                .push(ui(UiEvent::error(ErrorKind::Other, Severity::Error, message, None))),
            None => self.outputs.push(ui(UiEvent::error(
                ErrorKind::Interrupted,
                Severity::Notice,
                "Stopped before the message was sent.".into(),
                None,
            ))),
        }
        self.outputs.push(ui(UiEvent::Done {
            subtype: if is_error {
                "error_during_execution"
            } else {
                "interrupted"
            }
            .into(),
            is_error: true,
            duration_ms: 0,
            num_turns: 0,
            session_id: send.session_key.clone(),
            result: None,
            stop_reason: None,
        }));
        self.outputs.push(ui(UiEvent::Status {
            state: SessionState::Idle,
        }));
    }

    pub(super) fn fail_unsent(&mut self, why: &str) {
        let waiting: Vec<PendingSend> = std::mem::take(&mut self.unsent)
            .into_iter()
            .chain(self.in_flight.drain().into_iter().map(|(_, send)| send))
            .collect();
        for send in waiting {
            self.end_unsent_turn(
                &send,
                Some(format!("Could not send the message: {}.", why.trim_end_matches('.'))),
            );
        }
    }

    /// `chat.send`'s answer: a run started (its events follow), a replay of a run that ran while
    /// the connection was gone (shown from the history), a refusal (the turn ends), or no
    /// answer (tried again with the same key).
    pub(super) fn on_send_answer(&mut self, key: &str, result: Result<Value, GatewayError>) {
        let Some(send) = self.in_flight.remove(key) else { return };
        match result {
            Ok(payload) => {
                let run_id = payload.get("runId").and_then(Value::as_str).unwrap_or(key).to_string();
                let started = payload.get("status").and_then(Value::as_str) == Some("started");
                if !started && !self.chat.is_open(&run_id) && !self.chat.has_ended(&run_id) {
                    let params = json!({"sessionKey": send.session_key, "limit": RESYNC_HISTORY_LIMIT});
                    let purpose = Purpose::Settle { run_id };
                    if self
                        .request_for("chat.history", params, REQUEST_TIMEOUT_MS, purpose)
                        .is_err()
                    {
                        self.end_unsent_turn(
                            &send,
                            Some("The gateway ran the message, but its reply could not be read.".into()),
                        );
                    }
                }
            }
            Err(error) if matches!(error.code.as_str(), "DISCONNECTED" | "TIMEOUT") && send.tries < SEND_TRIES => {
                self.outputs.push(ClientOutput::Log(format!(
                    "chat.send got no answer ({error}); sending it again with the same idempotency key"
                )));
                if self.connection.is_connected() {
                    self.start_send(send);
                } else if self.connection.is_idle() {
                    self.end_unsent_turn(&send, Some(format!("Could not send the message: {error}")));
                } else {
                    self.unsent.push(send);
                }
            }
            // The gateway refuses a send that raced a change to its session (a session being
            // created) and asks for it again; the same idempotency key keeps it to one run.
            Err(error) if asks_for_retry(&error) && send.tries < SEND_TRIES && self.connection.is_connected() => {
                self.outputs.push(ClientOutput::Log(format!(
                    "chat.send refused for now ({error}); sending it again with the same idempotency key"
                )));
                self.start_send(send);
            }
            Err(error) => self.end_unsent_turn(&send, Some(format!("Could not send the message: {error}"))),
        }
    }
}

/// A refusal the gateway marks as worth repeating: `retryable`, or the wording of its
/// `SessionMutationAuthorizationChangedError` ("session changed before chat.send; retry the request").
fn asks_for_retry(error: &GatewayError) -> bool {
    error.retryable || error.message.contains("retry the request")
}
