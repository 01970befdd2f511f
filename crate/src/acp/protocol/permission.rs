//! `session/request_permission`, agent to client: the agent asks before a tool runs and offers
//! its own options (allow once, allow always, reject, …); the client answers with one of them, or
//! `cancelled` — which it must send for every pending request once it has cancelled the turn.

use super::lenient::{open_enum, Meta};
use super::session::SessionId;
use super::tool_call::ToolCallUpdate;
use super::Request;
use crate::json::{read_object, read_struct};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestPermissionRequest {
    pub session_id: SessionId,
    /// The call in question; may carry its title, kind, input and diff, and may be the first
    /// time the client hears of it.
    pub tool_call: ToolCallUpdate,
    pub options: Vec<PermissionOption>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(RequestPermissionRequest {
    session_id: required "sessionId",
    tool_call: required "toolCall",
    options: list "options",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RequestPermissionResponse {
    pub outcome: RequestPermissionOutcome,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(RequestPermissionResponse {
    outcome: required "outcome",
    meta: or_default "_meta",
});

impl Request for RequestPermissionRequest {
    const METHOD: &'static str = "session/request_permission";
    type Response = RequestPermissionResponse;
}

impl RequestPermissionResponse {
    pub fn selected(option_id: impl Into<String>) -> Self {
        RequestPermissionResponse {
            outcome: RequestPermissionOutcome::Selected {
                option_id: option_id.into(),
            },
            meta: None,
        }
    }

    /// The answer to every pending request after `session/cancel`.
    pub fn cancelled() -> Self {
        RequestPermissionResponse {
            outcome: RequestPermissionOutcome::Cancelled,
            meta: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum RequestPermissionOutcome {
    Cancelled,
    Selected {
        #[serde(rename = "optionId")]
        option_id: String,
    },
}

impl<'de> Deserialize<'de> for RequestPermissionOutcome {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_object(
            d,
            "internally tagged enum RequestPermissionOutcome",
            |fields| match fields.required::<String>("outcome")?.as_str() {
                "cancelled" => Ok(Self::Cancelled),
                "selected" => Ok(Self::Selected {
                    option_id: fields.required("optionId")?,
                }),
                other => Err(serde::de::Error::unknown_variant(other, &["cancelled", "selected"])),
            },
        )
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionOption {
    pub option_id: String,
    /// The agent's label ("Yes, allow all edits during this session").
    pub name: String,
    pub kind: PermissionOptionKind,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(PermissionOption {
    option_id: required "optionId",
    name: required "name",
    kind: required "kind",
    meta: or_default "_meta",
});

open_enum! {
    /// What choosing an option means, for icons and for answering without asking (an option of an
    /// unknown kind is shown by its name and never chosen automatically).
    pub enum PermissionOptionKind {
        AllowOnce = "allow_once",
        AllowAlways = "allow_always",
        RejectOnce = "reject_once",
        RejectAlways = "reject_always",
    }
}

impl PermissionOptionKind {
    pub fn allows(&self) -> bool {
        matches!(
            self,
            PermissionOptionKind::AllowOnce | PermissionOptionKind::AllowAlways
        )
    }

    pub fn rejects(&self) -> bool {
        matches!(
            self,
            PermissionOptionKind::RejectOnce | PermissionOptionKind::RejectAlways
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_written_as_the_spec_has_them() {
        assert_eq!(
            serde_json::to_value(RequestPermissionResponse::selected("allow-once")).unwrap(),
            json!({"outcome": {"outcome": "selected", "optionId": "allow-once"}})
        );
        assert_eq!(
            serde_json::to_value(RequestPermissionResponse::cancelled()).unwrap(),
            json!({"outcome": {"outcome": "cancelled"}})
        );
    }

    /// codex-acp's MCP approval (reference/acp-gemini-codex-offline.md §6), with an option of a kind
    /// this version does not know.
    #[test]
    fn reads_the_agents_own_options() {
        let request: RequestPermissionRequest = crate::json::from_value(json!({
            "sessionId": "s1",
            "toolCall": {"toolCallId": "call_2", "title": "mcp.tether.Write", "kind": "execute"},
            "options": [
                {"optionId": "allow_once", "name": "Allow", "kind": "allow_once"},
                {"optionId": "allow_session", "name": "Allow for this session", "kind": "allow_always"},
                {"optionId": "cancel", "name": "Cancel", "kind": "reject_once"},
                {"optionId": "ask_later", "name": "Later", "kind": "defer"},
                {"name": "broken"},
            ],
            "_meta": {"is_mcp_tool_approval": true}
        }))
        .unwrap();
        assert_eq!(request.options.len(), 4);
        assert!(request.options[1].kind.allows() && request.options[2].kind.rejects());
        let odd = &request.options[3].kind;
        assert!(!odd.allows() && !odd.rejects());
        assert_eq!(request.tool_call.title.as_deref(), Some("mcp.tether.Write"));
    }
}
