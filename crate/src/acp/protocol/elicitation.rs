//! `elicitation/create`, agent to client (when the client advertises `elicitation.form` or
//! `.url`): the agent asks the user for structured input through a form, or sends them to a URL
//! and later says it is done with `elicitation/complete`. Scoped to a session (and perhaps a tool
//! call) or to a pending request.

use super::lenient::{self, open_enum, Meta};
use super::{Notification, Request};
use crate::rpc::Id;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Read flat: the mode decides which of the optional fields are set.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateElicitationRequest {
    pub mode: ElicitationMode,
    pub message: String,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub session_id: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub tool_call_id: Option<String>,
    /// Set instead of the session when the question belongs to a pending request.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub request_id: Option<Id>,
    /// `form`: what to ask.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub requested_schema: Option<ElicitationSchema>,
    /// `url`: the id `elicitation/complete` will name, and where to send the user.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub elicitation_id: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub url: Option<String>,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationSchema {
    #[serde(rename = "type", default = "object_type", deserialize_with = "object_kind")]
    pub kind: String,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub title: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub description: Option<String>,
    /// Property name → its schema (`type`, `title`, `description`, `default`, `enum`, `oneOf`,
    /// bounds, `items`), kept as sent.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub properties: Map<String, Value>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::opt_list"
    )]
    pub required: Option<Vec<String>>,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

fn object_type() -> String {
    "object".into()
}

/// The schema's `type` is always `object`; anything else reads as that.
fn object_kind<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(kind) => kind,
        _ => object_type(),
    })
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CreateElicitationResponse {
    pub action: ElicitationAction,
    /// `accept` of a form: property name → value (string, number, boolean, or list of strings).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub content: Option<Map<String, Value>>,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteElicitationNotification {
    pub elicitation_id: String,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

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
