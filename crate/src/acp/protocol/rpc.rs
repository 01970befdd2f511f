//! Protocol-level pieces shared by both directions: request ids, `$/cancel_request`, and the
//! error codes ACP adds to JSON-RPC's. The JSON-RPC envelope itself (ids in flight, responses,
//! errors) belongs to the core's JSON-RPC peer, not to these types.

use super::lenient::{self, Meta};
use super::Notification;
use serde::{Deserialize, Serialize};

/// A JSON-RPC request id: a number or a string (`null` only in errors about unreadable requests).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(i64),
    String(String),
    Null,
}

/// `$/cancel_request` (a notification, either direction): the request with this id is no longer
/// wanted; its receiver should answer it with [`REQUEST_CANCELLED`] (claude-agent-acp sends one for
/// a pending permission request when its turn is cancelled).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelRequestNotification {
    pub request_id: RequestId,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

impl Notification for CancelRequestNotification {
    const METHOD: &'static str = "$/cancel_request";
}

/// JSON-RPC's own codes.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
/// Also the answer to any request this client does not serve (extension methods included).
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// ACP: the agent needs `authenticate` first.
pub const AUTH_REQUIRED: i64 = -32000;
/// ACP: a file or other resource does not exist (an `fs/read_text_file` of a missing file).
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// ACP: the request was cancelled (`$/cancel_request`).
pub const REQUEST_CANCELLED: i64 = -32800;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_ids_keep_their_type() {
        let ids: Vec<RequestId> = serde_json::from_value(json!([0, "a-1", null])).unwrap();
        assert_eq!(
            ids,
            [RequestId::Number(0), RequestId::String("a-1".into()), RequestId::Null]
        );
        assert_eq!(serde_json::to_value(&ids).unwrap(), json!([0, "a-1", null]));
    }

    #[test]
    fn reads_claude_agent_acps_cancel_request() {
        let cancel: CancelRequestNotification = serde_json::from_value(json!({"requestId": 0})).unwrap();
        assert_eq!(cancel.request_id, RequestId::Number(0));
    }
}
