//! The agent's own permission questions (`session/request_permission`): a question about one of
//! Tether's tools is allowed at once (Tether's gate judges the call when it reaches Tether's
//! server); one about the agent's own tool is judged by Tether's rules and mode as an edit, a
//! command or a tool of its own, and shown with the agent's own options when the user must choose.
//! On a remote workspace, an agent that cannot be closed has its own tools refused.

use super::protocol::permission::{PermissionOption as AcpOption, RequestPermissionRequest};
use super::protocol::tool_call::ToolCallContent;
use super::state::{AcpBackend, AgentAsk};
use super::updates::tether_tool;
use crate::backend::{Action, AskPolicy, Output, PermissionAsk};
use crate::events::{PermissionOption, PermissionOptionKind, PermissionRequest};
use crate::gate::standard_options;
use crate::permissions::{Access, Target, ToolRequest};
use crate::rpc::Id;
use serde_json::{json, Value};

impl AcpBackend {
    /// `session/request_permission`.
    pub(super) fn on_permission(&mut self, id: Id, request: RequestPermissionRequest) -> Vec<Action> {
        let call = request.tool_call;
        let mut actions: Vec<Action> = self
            .track_update(call.clone())
            .into_iter()
            .map(Action::Output)
            .collect();
        let tracked = self
            .calls
            .get(&call.tool_call_id)
            .cloned()
            .unwrap_or_else(|| call.clone().into());
        let allow = pick(&request.options, PermissionOptionKind::AllowOnce);
        if tether_tool(&tracked).is_some() {
            // Tether's gate asks when the call reaches Tether's server.
            actions.push(Action::Output(self.answer_option(&id, allow)));
            return actions;
        }
        if self.own_tool_breaks_closure(&tracked) {
            let reject = pick(&request.options, PermissionOptionKind::RejectOnce);
            actions.push(Action::Output(self.answer_option(&id, reject)));
            let stop = self.stop_not_closed(&tracked, "asked to run");
            actions.extend(stop.into_iter().map(Action::Output));
            return actions;
        }
        if self.remote && self.profile.as_ref().is_some_and(|p| !p.agent.closable) {
            let reject = pick(&request.options, PermissionOptionKind::RejectOnce);
            actions.push(Action::Output(self.answer_option(&id, reject)));
            actions.push(Action::Output(self.notice(format!(
                "Refused {}'s own tool \"{}\": on a remote workspace it would act on this computer, not on the remote.",
                self.agent_name, tracked.title
            ))));
            return actions;
        }
        let writes: Vec<(String, String)> = tracked
            .content
            .iter()
            .filter_map(|c| match c {
                ToolCallContent::Diff(diff) => Some((self.paths.resolve(&diff.path).ok()?, diff.new_text.clone())),
                _ => None,
            })
            .collect();
        let input = tracked.raw_input.clone().unwrap_or_else(|| json!({}));
        let access = agent_access(&tracked.kind, &input, writes.first().map(|w| w.0.as_str()));
        let ui_id = format!("acp-permission-{id}");
        let title = if tracked.title.is_empty() {
            "Use a tool".to_string()
        } else {
            tracked.title.clone()
        };
        let options: Vec<PermissionOption> = request
            .options
            .iter()
            .filter_map(|o| {
                let kind = match o.kind.as_str() {
                    "allow_once" => PermissionOptionKind::AllowOnce,
                    "allow_always" => PermissionOptionKind::AllowAlways,
                    "reject_once" => PermissionOptionKind::RejectOnce,
                    "reject_always" => PermissionOptionKind::RejectAlways,
                    // A kind this version does not know is never offered.
                    _ => return None,
                };
                Some(PermissionOption {
                    option_id: o.option_id.clone(),
                    name: o.name.clone(),
                    kind,
                })
            })
            .collect();
        let name = self.calls.name_of(&call.tool_call_id).unwrap_or_else(|| title.clone());
        let ui_request = PermissionRequest {
            tool_use_id: Some(call.tool_call_id.clone()),
            tool_name: name.clone(),
            raw_tool_name: name,
            kind: super::updates::event_kind(&tracked.kind),
            input,
            options,
            description: self
                .remote
                .then(|| "This is the agent's own tool: it acts where the agent runs.".to_string()),
            ..blank_request(&ui_id, title)
        };
        self.asks.insert(
            ui_id,
            AgentAsk::Permission {
                id,
                options: request.options,
                writes,
            },
        );
        // A plan to approve (ExitPlanMode) is the user's question, with no rule to remember.
        let policy = match tracked.kind {
            super::protocol::tool_call::ToolKind::SwitchMode => AskPolicy::User {
                reason: "the plan needs your approval".into(),
                always: None,
            },
            _ => AskPolicy::Engine,
        };
        actions.push(Action::AskPermission(PermissionAsk {
            request: ui_request,
            access,
            policy,
        }));
        actions
    }

    pub(super) fn answer_option(&self, id: &Id, option: Option<&AcpOption>) -> Output {
        let outcome = match option {
            Some(option) => json!({"outcome": "selected", "optionId": option.option_id}),
            None => json!({"outcome": "cancelled"}),
        };
        self.respond(id, Ok(json!({ "outcome": outcome })))
    }
}

/// The first option of `kind`, else the first of its sort (allowing or rejecting).
pub(super) fn pick(options: &[AcpOption], kind: PermissionOptionKind) -> Option<&AcpOption> {
    let exact = options.iter().find(|o| o.kind.as_str() == permission_kind_name(kind));
    exact.or_else(|| {
        options.iter().find(|o| {
            if kind.allows() {
                o.kind.allows()
            } else {
                o.kind.rejects()
            }
        })
    })
}

fn permission_kind_name(kind: PermissionOptionKind) -> &'static str {
    match kind {
        PermissionOptionKind::AllowOnce => "allow_once",
        PermissionOptionKind::AllowAlways => "allow_always",
        PermissionOptionKind::RejectOnce => "reject_once",
        PermissionOptionKind::RejectAlways => "reject_always",
    }
}

/// What the agent's own tool touches, for Tether's rules: a file it edits (path rules and modes
/// apply as to an edit), a command it runs (command rules apply); anything else by tool-wide
/// rules. Named apart from Tether's tools: the agent runs these itself, so there is no change of
/// Tether's to review.
fn agent_access(kind: &super::protocol::tool_call::ToolKind, input: &Value, written: Option<&str>) -> ToolRequest {
    use super::protocol::tool_call::ToolKind as Kind;
    let command = input.get("command").and_then(|c| match c {
        Value::String(s) => Some(s.clone()),
        Value::Array(words) => Some(words.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" ")),
        _ => None,
    });
    match (kind, written, command) {
        (Kind::Edit | Kind::Delete | Kind::Move, Some(path), _) => ToolRequest::new(
            "AgentEdit",
            Access::Write(Target::Path {
                path: path.to_string(),
                directory: false,
            }),
        ),
        (Kind::Execute, _, Some(command)) => ToolRequest::new("AgentCommand", Access::Execute(command)),
        _ => ToolRequest::new("AgentTool", Access::Other),
    }
}

/// A permission request with nothing but its id and title (the rest filled by the caller).
pub(super) fn blank_request(id: &str, title: String) -> PermissionRequest {
    PermissionRequest {
        title: Some(title),
        options: standard_options(true),
        ..PermissionRequest::for_tool(id, "", json!({}))
    }
}
