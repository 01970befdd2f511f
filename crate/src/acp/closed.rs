//! The backstop of a closed agent (force-local): whatever its switches say, the agent's own tool
//! that writes files or runs commands must never act while its working directory stands in for a
//! remote workspace. Asked about one, Tether refuses it; told one runs or ran, Tether has no way to
//! undo it. Either way the switch did not take, so the session stops at once with an error that
//! names the agent and the tool, and nothing more is sent to it.

use super::protocol::tool_call::{ToolCall, ToolCallStatus, ToolKind};
use super::state::{AcpBackend, Phase};
use super::updates::tether_tool;
use crate::backend::Output;
use crate::events::ErrorKind;
use serde_json::json;

impl AcpBackend {
    /// The profile switched the agent's own file and shell tools off.
    pub(super) fn closed(&self) -> bool {
        self.profile.as_ref().is_some_and(|p| p.closed && p.agent.closable)
    }

    /// `call` is the agent's own tool that changes files or runs a command, in a closed session.
    pub(super) fn own_tool_breaks_closure(&self, call: &ToolCall) -> bool {
        self.closed()
            && matches!(
                call.kind,
                ToolKind::Edit | ToolKind::Delete | ToolKind::Move | ToolKind::Execute
            )
            && tether_tool(call).is_none()
    }

    /// The tracked call `id` runs or ran although the agent is closed: stop (once).
    pub(super) fn check_still_closed(&mut self, id: &str) -> Vec<Output> {
        let Some(call) = self.calls.get(id) else {
            return Vec::new();
        };
        let acting = matches!(call.status, ToolCallStatus::InProgress | ToolCallStatus::Completed);
        if !acting || !self.own_tool_breaks_closure(call) || matches!(self.phase, Phase::Failed(_)) {
            return Vec::new();
        }
        let call = call.clone();
        self.stop_not_closed(&call, "ran")
    }

    /// End the session: its switches did not take. `what`: what the agent did with its tool.
    pub(super) fn stop_not_closed(&mut self, call: &ToolCall, what: &str) -> Vec<Output> {
        let named = if call.title.is_empty() {
            &call.tool_call_id
        } else {
            &call.title
        };
        // The agent's own words: a title of any length would otherwise fill the error.
        const MAX_TOOL_NAME: usize = 200;
        let tool: String = named.chars().take(MAX_TOOL_NAME).collect();
        let message = format!(
            "{} is not closed: its own tool \"{tool}\" ({}) {what} on this computer, although Tether switched the agent's \
             own file and shell tools off for this remote workspace. Tether stopped the session so that nothing more runs here.",
            self.agent_name,
            call.kind.as_str(),
        );
        let hint = "Its switches did not take (see the README, \"Force-local\"): check the agent's version against the one Tether \
                    was measured with, then start a new session.";
        self.phase = Phase::Failed(message.clone());
        let mut out = vec![self.failure(ErrorKind::Other, message, Some(hint.into()))];
        if self.in_turn {
            out.push(self.notify("session/cancel", json!({"sessionId": self.session})));
        }
        out.extend(self.fail_queued());
        out
    }
}
