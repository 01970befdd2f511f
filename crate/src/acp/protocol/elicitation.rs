//! `elicitation/create`, agent to client (when the client advertises `elicitation.form` or
//! `.url`): the agent asks the user for structured input through a form, or sends them to a URL
//! and later says it is done with `elicitation/complete`. Scoped to a session (and perhaps a tool
//! call) or to a pending request.

use super::lenient::{open_enum, Meta};
use super::{Notification, Request};
use crate::json::{read_object, read_struct};
use crate::rpc::Id;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Read flat: the mode decides which of the optional fields are set.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateElicitationRequest {
    pub mode: ElicitationMode,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Set instead of the session when the question belongs to a pending request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<Id>,
    /// `form`: what to ask.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<ElicitationSchema>,
    /// `url`: the id `elicitation/complete` will name, and where to send the user.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(CreateElicitationRequest {
    mode: required "mode",
    message: required "message",
    session_id: or_default "sessionId",
    tool_call_id: or_default "toolCallId",
    request_id: or_default "requestId",
    requested_schema: or_default "requestedSchema",
    elicitation_id: or_default "elicitationId",
    url: or_default "url",
    meta: or_default "_meta",
});

open_enum! {
    #[derive(Default)]
    pub enum ElicitationMode {
        #[default]
        Form = "form",
        Url = "url",
    }
}

/// A flat JSON Schema object: named properties of primitive types (strings, numbers, integers,
/// booleans, multi-select arrays).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ElicitationSchema {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Property name → its schema (`type`, `title`, `description`, `default`, `enum`, `oneOf`,
    /// bounds, `items`), kept as sent.
    pub properties: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl<'de> Deserialize<'de> for ElicitationSchema {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_object(d, "struct ElicitationSchema", |fields| {
            Ok(Self {
                // The schema's `type` is always `object`: a missing one, or one not a string, reads as that.
                kind: fields
                    .or_default::<Option<String>>("type")
                    .unwrap_or_else(|| "object".into()),
                title: fields.or_default("title"),
                description: fields.or_default("description"),
                properties: fields.or_default("properties"),
                required: fields.opt_list("required"),
                meta: fields.or_default("_meta"),
            })
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CreateElicitationResponse {
    pub action: ElicitationAction,
    /// `accept` of a form: property name → value (string, number, boolean, or list of strings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(CreateElicitationResponse {
    action: required "action",
    content: or_default "content",
    meta: or_default "_meta",
});

open_enum! {
    #[derive(Default)]
    pub enum ElicitationAction {
        Accept = "accept",
        Decline = "decline",
        #[default]
        Cancel = "cancel",
    }
}

impl Request for CreateElicitationRequest {
    const METHOD: &'static str = "elicitation/create";
    type Response = CreateElicitationResponse;
}

/// `elicitation/complete` (a notification): the URL flow it names is over.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteElicitationNotification {
    pub elicitation_id: String,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(CompleteElicitationNotification {
    elicitation_id: required "elicitationId",
    meta: or_default "_meta",
});

impl Notification for CompleteElicitationNotification {
    const METHOD: &'static str = "elicitation/complete";
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_a_form_and_a_url_elicitation() {
        let form: CreateElicitationRequest = crate::json::from_value(json!({
            "mode": "form", "message": "Which branch?", "sessionId": "s1", "toolCallId": "c1",
            "requestedSchema": {"type": "object", "properties": {"branch": {"type": "string", "enum": ["main", "dev"]}}, "required": ["branch"]}
        }))
        .unwrap();
        assert_eq!(form.mode, ElicitationMode::Form);
        let schema = form.requested_schema.unwrap();
        assert_eq!(schema.kind, "object");
        assert_eq!(schema.properties["branch"]["enum"][1], "dev");
        let url: CreateElicitationRequest = crate::json::from_value(json!({
            "mode": "url", "message": "Log in", "requestId": 7, "elicitationId": "e1", "url": "https://example.com/login"
        }))
        .unwrap();
        assert_eq!(url.request_id, Some(Id::Number(7.into())));
        assert_eq!(url.elicitation_id.as_deref(), Some("e1"));
    }

    #[test]
    fn an_accepted_form_is_written_exactly() {
        let mut content = Map::new();
        content.insert("branch".into(), json!("dev"));
        let answer = CreateElicitationResponse {
            action: ElicitationAction::Accept,
            content: Some(content),
            meta: None,
        };
        assert_eq!(
            serde_json::to_value(answer).unwrap(),
            json!({"action": "accept", "content": {"branch": "dev"}})
        );
        assert_eq!(
            serde_json::to_value(CreateElicitationResponse::default()).unwrap(),
            json!({"action": "cancel"})
        );
    }
}
