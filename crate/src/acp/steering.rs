//! Steering: a message from the user for the running turn. claude-agent-acp 0.101.0 advertises
//! `_meta.steering.supported` in its `initialize` answer and takes `_session/steering
//! {sessionId, prompt}`: the message goes into the running turn (its generation is cut short and
//! the turn goes on with the message; the turn's one `session/prompt` answer ends both), and the
//! answer is `{outcome: "injected"}`. With `idleBehavior: "promptRequired"` an agent with no turn
//! running answers `promptRequired` and leaves the message to the client, which then sends it as
//! a prompt of its own (as here, also when the request fails: nothing the user typed is lost).

use super::protocol::lenient::Meta;
use super::state::{AcpBackend, Pending};
use crate::backend::Output;
use crate::rpc::RpcError;
use serde_json::{json, Value};

const STEER_METHOD: &str = "_session/steering";

/// Whether the agent's `initialize` answer offers steering.
pub(super) fn advertised(meta: Option<&Meta>) -> bool {
    meta.and_then(|m| m.get("steering"))
        .and_then(|s| s.get("supported"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

impl AcpBackend {
    /// The message into the running turn, or a prompt of its own when no turn runs.
    pub(super) fn steer(&mut self, text: String) -> Vec<Output> {
        let Some(session) = self.session.clone().filter(|_| self.in_turn) else {
            return self.prompt_of_its_own(text);
        };
        let params = json!({
            "sessionId": session,
            "prompt": [{"type": "text", "text": text}],
            "_meta": {"steering": {"idleBehavior": "promptRequired"}},
        });
        vec![self.request(STEER_METHOD, params, Pending::Steer { text })]
    }

    pub(super) fn on_steered(&mut self, text: String, result: Result<Value, RpcError>) -> Vec<Output> {
        let injected =
            matches!(&result, Ok(answer) if answer.get("outcome").and_then(Value::as_str) == Some("injected"));
        if injected {
            return Vec::new();
        }
        let mut out = Vec::new();
        if let Err(error) = result {
            out.push(self.notice(format!(
                "{} did not take the message into the turn ({error}); it goes as the next prompt.",
                self.agent_name
            )));
        }
        out.extend(self.prompt_of_its_own(text));
        out
    }

    fn prompt_of_its_own(&mut self, text: String) -> Vec<Output> {
        self.queued.push_back(vec![json!({"type": "text", "text": text})]);
        self.next_prompt()
    }
}
