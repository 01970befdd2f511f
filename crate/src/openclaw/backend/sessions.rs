//! The user's operations on the gateway's sessions: stopping the turn, listing, showing and
//! creating sessions (by their keys), and the backend's own commands (older history, connecting,
//! pairing the node, the canvas).

use super::outputs::{error_event, log, notice};
use super::{OpenClawBackend, Request};
use crate::backend::{Backend, Output, Supported};
use crate::events::{CanvasAction, UiEvent};
use crate::openclaw::pairing::Pairing;
use serde_json::{json, Value};

impl OpenClawBackend {
    pub(super) fn interrupt(&mut self) -> Vec<Output> {
        let mut out = Vec::new();
        if let Err(error) = self.operator.abort() {
            out.push(log(format!("nothing to stop: {error}")));
        }
        out.extend(self.flush());
        out
    }

    pub(super) fn list_sessions(&mut self) -> Vec<Output> {
        let mut out = Vec::new();
        if let Err(error) = self.request("sessions.list", json!({"limit": 50}), Request::ListSessions) {
            out.push(error_event(format!("Could not list the sessions: {error}")));
        }
        out.extend(self.flush());
        out
    }

    /// `sessions.delete` of the session `id` (a key); a request that cannot go answers at once.
    pub(super) fn delete_session(&mut self, id: String) -> Vec<Output> {
        let mut out = Vec::new();
        let params = json!({"key": id});
        if let Err(error) = self.request("sessions.delete", params, Request::DeleteSession(id.clone())) {
            out.push(Output::Event(UiEvent::SessionDeleted {
                id,
                error: Some(format!("The gateway was not asked to delete the session: {error}")),
            }));
        }
        out.extend(self.flush());
        out
    }

    /// Show the session `id` (a gateway session key) and its newest messages.
    pub(super) fn load_session(&mut self, id: &str) -> Vec<Output> {
        self.operator.watch(id);
        self.older_offset = None;
        let mut out = vec![Output::Event(self.session_init(None))];
        self.load_page(None, &mut out);
        self.refresh_canvas();
        out.extend(self.flush());
        out
    }

    /// Go on in the session `id` without showing its messages again.
    pub(super) fn resume_session(&mut self, id: &str) -> Vec<Output> {
        self.operator.watch(id);
        let mut out = vec![Output::Event(self.session_init(None))];
        out.extend(self.flush());
        out
    }

    pub(super) fn new_session(&mut self) -> Vec<Output> {
        self.sessions_made += 1;
        let key = format!("tether-{}-s{}", self.instance, self.sessions_made);
        // Sends go to the new key at once; the gateway's canonical name follows.
        self.operator.watch(&key);
        self.older_offset = None;
        let mut out = vec![Output::Event(self.session_init(None))];
        if let Err(error) = self.request("sessions.create", json!({"key": key}), Request::CreateSession) {
            out.push(log(format!(
                "sessions.create was not sent ({error}); chat.send creates the session"
            )));
        }
        out.extend(self.flush());
        out
    }

    pub(super) fn command(&mut self, name: &str, args: &Value) -> Supported<Vec<Output>> {
        let mut out = Vec::new();
        match name {
            "historyOlder" => match self.older_offset {
                Some(offset) => self.load_page(Some(offset), &mut out),
                None => out.push(log("no older messages".into())),
            },
            "connect" => self.connect(),
            "disconnect" => {
                self.operator.disconnect();
                if let Some(node) = self.node.as_mut() {
                    node.client.disconnect();
                }
            }
            "pairNode" => {
                if let Some(node) = self.node.as_mut() {
                    node.pairing = Pairing::Unknown;
                }
                self.check_pairing();
            }
            "canvasAction" => match super::canvas_action::canvas_action_from_json(args) {
                // An A2UI surface's action goes to the agent as a message from the user.
                Ok(CanvasAction::Surface {
                    surface_id,
                    action,
                    context,
                }) => {
                    let message = format!("[canvas] {action} on surface {surface_id}: {context}");
                    return Ok(self.prompt(&message, &[]));
                }
                Ok(action) => self.send_canvas_action(&action, &mut out),
                Err(error) => out.push(notice(format!("The canvas action was not sent: {error}."))),
            },
            "canvasRefresh" => self.refresh_canvas(),
            _ => return Err(self.unsupported(format!("The command {name}"))),
        }
        out.extend(self.flush());
        Ok(out)
    }
}
