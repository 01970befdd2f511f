//! Protocol-level pieces shared by both directions: `$/cancel_request`, and the error codes ACP
//! adds to JSON-RPC's. The JSON-RPC envelope itself (ids, responses, errors and JSON-RPC's own
//! codes) is [`crate::rpc`]'s.

use super::lenient::Meta;
use super::Notification;
use crate::json::read_struct;
use crate::rpc::Id;
use serde::Serialize;

/// `$/cancel_request` (a notification, either direction): the request with this id is no longer
/// wanted; its receiver should answer it with [`crate::rpc::REQUEST_CANCELLED`] (claude-agent-acp sends one for
/// a pending permission request when its turn is cancelled).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelRequestNotification {
    /// None for a null id.
    pub request_id: Option<Id>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(CancelRequestNotification {
    request_id: default "requestId",
    meta: or_default "_meta",
});

impl Notification for CancelRequestNotification {
    const METHOD: &'static str = "$/cancel_request";
}

/// ACP: the agent needs `authenticate` first.
pub const AUTH_REQUIRED: i64 = -32000;
/// ACP: a file or other resource does not exist (an `fs/read_text_file` of a missing file).
pub const RESOURCE_NOT_FOUND: i64 = -32002;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_ids_keep_their_type() {
        let ids: Vec<Option<Id>> = crate::json::from_value(json!([0, "a-1", null])).unwrap();
        assert_eq!(ids, [Some(Id::Number(0.into())), Some(Id::String("a-1".into())), None]);
        assert_eq!(serde_json::to_value(&ids).unwrap(), json!([0, "a-1", null]));
    }

    #[test]
    fn reads_claude_agent_acps_cancel_request() {
        let cancel: CancelRequestNotification = crate::json::from_value(json!({"requestId": 0})).unwrap();
        assert_eq!(cancel.request_id, Some(Id::Number(0.into())));
    }
}
