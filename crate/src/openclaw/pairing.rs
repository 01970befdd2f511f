//! Pairing the workspace's node, in one step: once the operator and the node are both
//! connected, the node's pending command-surface request is looked up (`node.list`; the gateway
//! lists a new node a moment after it connects, so the look is repeated a few times), the user is
//! asked once, and the operator's `node.pair.approve` (which takes the operator.pairing and
//! operator.admin scopes) approves it.

use super::workspace_node::PAIR_PREFIX;
use crate::backend::{Action, AskPolicy, PermissionAsk};
use crate::events::{PermissionOption, PermissionOptionKind, ToolKind};
use crate::permissions::{Access, ToolRequest};
use serde_json::{json, Value};

/// How often, and how far apart, `node.list` is read before giving up.
const CHECKS: u32 = 20;
const CHECK_MS: u64 = 500;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pairing {
    /// Not looked at (a connection is missing, or the looks gave up).
    Unknown,
    /// Looking for the node's pending request; the next look at `at_ms` (None: one is on its way).
    Checking {
        tries: u32,
        at_ms: Option<u64>,
    },
    /// The user is asked about this request.
    Asked(String),
    Approving(String),
    Approved,
    Declined(String),
}

/// What `node.list` says of the node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listing {
    /// Its command surface waits for an operator's approval.
    Pending { request_id: String, commands: Vec<String> },
    /// `system.run` is among its effective commands.
    Paired,
    /// Not listed (yet), or listed with nothing to approve.
    Missing,
}

impl Pairing {
    /// Both connections are up: start looking, unless the user was asked already. True when a
    /// `node.list` should go out now.
    pub fn start(&mut self) -> bool {
        if !matches!(self, Pairing::Unknown | Pairing::Checking { .. }) {
            return false;
        }
        *self = Pairing::Checking { tries: 0, at_ms: None };
        true
    }

    /// Look again later; false when the looks gave up.
    pub fn retry_later(&mut self, now_ms: u64) -> bool {
        let Pairing::Checking { tries, .. } = *self else {
            return true;
        };
        if tries + 1 >= CHECKS {
            *self = Pairing::Unknown;
            return false;
        }
        *self = Pairing::Checking {
            tries: tries + 1,
            at_ms: Some(now_ms + CHECK_MS),
        };
        true
    }

    /// Whether the next look is due now (then it is on its way).
    pub fn due(&mut self, now_ms: u64) -> bool {
        match *self {
            Pairing::Checking { tries, at_ms: Some(at) } if at <= now_ms => {
                *self = Pairing::Checking { tries, at_ms: None };
                true
            }
            _ => false,
        }
    }

    pub fn wake_at(&self) -> Option<u64> {
        match self {
            Pairing::Checking { at_ms, .. } => *at_ms,
            _ => None,
        }
    }

    /// The gateway's request `request_id` was found: true when the user is to be asked (once).
    pub fn ask(&mut self, request_id: &str) -> bool {
        let already =
            matches!(self, Pairing::Asked(id) | Pairing::Approving(id) | Pairing::Declined(id) if id == request_id);
        if !already {
            *self = Pairing::Asked(request_id.to_string());
        }
        !already
    }
}

/// The node in `node.list`'s answer: by its id, else by what it connected as.
pub fn find_node(payload: &Value, node_id: &str, display_name: &str) -> Listing {
    let text = |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    let nodes = payload
        .get("nodes")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let ours = nodes
        .iter()
        .find(|n| text(n, "nodeId").as_deref() == Some(node_id))
        .or_else(|| {
            nodes.iter().find(|n| {
                text(n, "clientId").as_deref() == Some("node-host")
                    && text(n, "displayName").as_deref() == Some(display_name)
                    && n.get("connected").and_then(Value::as_bool) == Some(true)
            })
        });
    let Some(entry) = ours else { return Listing::Missing };
    let strings = |key: &str| -> Vec<String> {
        entry
            .get(key)
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    };
    if let Some(request_id) = text(entry, "pendingRequestId") {
        return Listing::Pending {
            request_id,
            commands: strings("pendingDeclaredCommands"),
        };
    }
    if strings("commands").iter().any(|c| c == "system.run") {
        return Listing::Paired;
    }
    Listing::Missing
}

/// The one question of pairing: let the gateway's agent use this workspace as its node.
pub fn pairing_question(request_id: &str, gateway: &str, commands: &[String]) -> Action {
    let option = |id: &str, name: &str, kind| PermissionOption {
        option_id: id.into(),
        name: name.into(),
        kind,
    };
    let mut request = super::workspace_node::permission_request(
        &format!("{PAIR_PREFIX}{request_id}"),
        "PairNode",
        json!({"gateway": gateway, "commands": commands}),
        ToolKind::Other,
    );
    request.raw_tool_name = "node.pair.approve".into();
    request.title = Some("Let the OpenClaw gateway's agent work in this workspace".into());
    request.description = Some(format!(
        "{gateway} asks to use this workspace as its node ({}). Each command and file read still \
         comes to Tether's permission prompts and rules first.",
        commands.join(", ")
    ));
    request.requires_user_interaction = true;
    request.suppress_always_allow = true;
    request.outlives_turn = true;
    request.options = vec![
        option("approve", "Approve", PermissionOptionKind::AllowOnce),
        option("decline", "Not now", PermissionOptionKind::RejectOnce),
    ];
    Action::AskPermission(PermissionAsk {
        request,
        access: ToolRequest::new("PairNode", Access::Other),
        policy: AskPolicy::User {
            reason: "pairing gives the gateway's agent this workspace".into(),
            always: None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_repeat_then_give_up_and_a_request_is_asked_about_once() {
        let mut pairing = Pairing::Unknown;
        assert!(pairing.start());
        for n in 0..CHECKS - 1 {
            assert!(pairing.retry_later(1_000 * n as u64));
        }
        assert!(!pairing.retry_later(0));
        assert_eq!(pairing, Pairing::Unknown);
        assert!(pairing.start());
        assert!(pairing.ask("r1"));
        assert!(!pairing.ask("r1"));
        assert!(!pairing.start(), "asked: no more looks");
        assert!(pairing.ask("r2"), "a new request is asked about");
    }

    #[test]
    fn the_node_is_found_by_id_or_by_what_it_connected_as() {
        let listed = json!({"nodes": [
            {"nodeId": "other", "clientId": "node-host", "displayName": "x", "connected": true, "commands": []},
            {"nodeId": "n1", "pendingRequestId": "r", "pendingDeclaredCommands": ["system.run"]},
        ]});
        assert_eq!(
            find_node(&listed, "n1", "x"),
            Listing::Pending {
                request_id: "r".into(),
                commands: vec!["system.run".into()]
            }
        );
        assert_eq!(find_node(&listed, "n9", "x"), Listing::Missing);
        let paired = json!({"nodes": [{"nodeId": "n1", "commands": ["system.run", "file.fetch"]}]});
        assert_eq!(find_node(&paired, "n1", "x"), Listing::Paired);
    }
}
