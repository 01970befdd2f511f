//! The node's pairing, as the backend runs it: looked for once both connections are up, asked
//! about once, approved from the operator connection.

use super::outputs::{error_event, log, notice};
use super::{OpenClawBackend, Request};
use crate::backend::{Output, Verdict};
use crate::openclaw::pairing::{find_node, pairing_question, Listing, Pairing};
use serde_json::{json, Value};

impl OpenClawBackend {
    /// Look for the node's pending surface request once both connections are up.
    pub(super) fn check_pairing(&mut self) {
        let operator_up = self.operator.is_connected();
        let Some(node) = self.node.as_mut() else { return };
        if operator_up && node.client.is_connected() && node.pairing.start() {
            self.list_nodes();
        }
    }

    pub(super) fn list_nodes(&mut self) {
        if self.request("node.list", json!({}), Request::NodeList).is_err() {
            let now = self.now_ms;
            if let Some(node) = self.node.as_mut() {
                node.pairing.retry_later(now);
            }
        }
    }

    pub(super) fn on_node_list(&mut self, payload: &Value, out: &mut Vec<Output>) {
        let now = self.now_ms;
        let Some(node) = self.node.as_mut() else { return };
        match find_node(payload, &node.id, &node.display_name) {
            Listing::Pending { request_id, commands } => self.ask_pairing(&request_id, &commands),
            Listing::Paired => {
                node.pairing = Pairing::Approved;
                out.push(log("the workspace's node is paired".into()));
            }
            Listing::Missing => {
                if !node.pairing.retry_later(now) {
                    out.push(notice(
                        "The gateway has not asked to pair this workspace's node; run Tether: Pair the Workspace with OpenClaw to try again."
                            .into(),
                    ));
                }
            }
        }
    }

    pub(super) fn ask_pairing(&mut self, request_id: &str, commands: &[String]) {
        if let Some(node) = self.node.as_mut() {
            if node.pairing.ask(request_id) {
                self.actions.push(pairing_question(request_id, &self.url, commands));
            }
        }
    }

    pub(super) fn on_pairing_answer(&mut self, request_id: &str, verdict: Verdict, out: &mut Vec<Output>) {
        let approved = match &verdict {
            Verdict::Allowed => true,
            Verdict::Chosen { option, .. } => option.kind.allows(),
            Verdict::Denied { .. } => false,
        };
        let Some(node) = self.node.as_mut() else { return };
        if !approved {
            node.pairing = Pairing::Declined(request_id.to_string());
            return out.push(notice(
                "The workspace was not paired: the gateway's agent cannot run commands or read files in it.".into(),
            ));
        }
        node.pairing = Pairing::Approving(request_id.to_string());
        let params = json!({"requestId": request_id});
        if let Err(error) = self.request("node.pair.approve", params, Request::PairApprove(request_id.into())) {
            out.push(error_event(format!("Could not pair the workspace: {error}")));
        }
    }
}
