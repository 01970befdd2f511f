//! JSON-RPC 2.0 as pure message handling, for every peer Tether speaks it with: the MCP server
//! (server role) and the agent protocols that are JSON-RPC (ACP: client and server at once).
//!
//! [`Message`] is one message read strictly by the spec (ids are strings or numbers; an object,
//! array or null id is an invalid request), and the builders write the replies. [`Peer`] keeps
//! the requests this side sent until their responses arrive, with timeouts driven by a clock value
//! the caller passes in, and cancellation. Batches are the caller's affair: an array is a list of
//! messages to [`parse`] one by one.

mod peer;

pub use peer::{Expired, Incoming, Peer};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Number, Value};
use std::fmt;

// JSON-RPC's own error codes, for every peer (the protocols add theirs in their own modules:
// ACP's in `acp::protocol::rpc`).
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
/// Also the answer to any request a peer does not serve (extension methods included).
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// A request this side gave up on (timed out or cancelled); from the range the spec leaves to
/// implementations, as LSP's `RequestCancelled`.
pub const REQUEST_CANCELLED: i64 = -32800;

/// A request id: a string or a number, compared as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Id {
    Number(Number),
    String(String),
}

impl Id {
    /// The id of a message: None when absent (a notification); Err for a value that cannot be
    /// an id (null, a boolean, an object or an array).
    pub fn of(message: &Map<String, Value>) -> Result<Option<Id>, RpcError> {
        match message.get("id") {
            None => Ok(None),
            Some(Value::String(id)) => Ok(Some(Id::String(id.clone()))),
            Some(Value::Number(id)) => Ok(Some(Id::Number(id.clone()))),
            Some(_) => Err(RpcError::new(
                INVALID_REQUEST,
                "Invalid Request: id must be a string or a number",
            )),
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            Id::Number(n) => Value::Number(n.clone()),
            Id::String(s) => Value::String(s.clone()),
        }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Number(n) => write!(f, "{n}"),
            Id::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// A JSON-RPC error object.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn method_not_found(method: &str) -> RpcError {
        RpcError::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    fn to_value(&self) -> Value {
        let mut error = json!({"code": self.code, "message": self.message});
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        error
    }

    fn from_value(value: &Value) -> RpcError {
        RpcError {
            code: value.get("code").and_then(Value::as_i64).unwrap_or(INTERNAL_ERROR),
            message: value
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("(no message)")
                .to_string(),
            data: value.get("data").cloned(),
        }
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

/// One JSON-RPC message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Request { id: Id, method: String, params: Value },
    Notification { method: String, params: Value },
    Response { id: Id, result: Result<Value, RpcError> },
}

/// Why a message could not be read, and the error response it gets (None for a malformed
/// response, which is never answered).
#[derive(Clone, Debug, PartialEq)]
pub struct Malformed {
    pub reply: Option<Value>,
}

/// Read one message (not a batch). A request without a usable method or id, or anything that is
/// not an object, gets an Invalid Request error back.
pub fn parse(value: Value) -> Result<Message, Malformed> {
    let invalid = |id: Option<&Id>, message: &str| Malformed {
        reply: Some(error_response(id, &RpcError::new(INVALID_REQUEST, message))),
    };
    let Value::Object(mut object) = value else {
        return Err(invalid(None, "Invalid Request: not an object"));
    };
    let id = match Id::of(&object) {
        Ok(id) => id,
        Err(error) => {
            return Err(Malformed {
                reply: Some(error_response(None, &error)),
            })
        }
    };
    let params = object.remove("params").unwrap_or(Value::Null);
    match object.remove("method") {
        Some(Value::String(method)) => Ok(match id {
            Some(id) => Message::Request { id, method, params },
            None => Message::Notification { method, params },
        }),
        Some(_) => Err(invalid(id.as_ref(), "Invalid Request: method must be a string")),
        None => {
            let result = match (object.remove("result"), object.get("error")) {
                (Some(result), None) => Ok(result),
                (None, Some(error)) => Err(RpcError::from_value(error)),
                _ => return Err(invalid(id.as_ref(), "Invalid Request: missing method")),
            };
            match id {
                Some(id) => Ok(Message::Response { id, result }),
                // A response without an id answers a request that could not be read.
                None => Err(Malformed { reply: None }),
            }
        }
    }
}

/// `{"jsonrpc":"2.0","id":…,"result":…}`
pub fn response(id: &Id, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.to_value(), "result": result})
}

/// An error response; `id` is None (null) when the request's own id could not be read.
pub fn error_response(id: Option<&Id>, error: &RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id.map_or(Value::Null, Id::to_value), "error": error.to_value()})
}

/// The reply to a request: its result or its error.
pub fn reply(id: &Id, result: Result<Value, RpcError>) -> Value {
    match result {
        Ok(result) => response(id, result),
        Err(error) => error_response(Some(id), &error),
    }
}

pub fn request(id: &Id, method: &str, params: Value) -> Value {
    let mut message = json!({"jsonrpc": "2.0", "id": id.to_value(), "method": method});
    if !params.is_null() {
        message["params"] = params;
    }
    message
}

pub fn notification(method: &str, params: Value) -> Value {
    let mut message = json!({"jsonrpc": "2.0", "method": method});
    if !params.is_null() {
        message["params"] = params;
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply_of(value: Value) -> Value {
        parse(value).unwrap_err().reply.unwrap()
    }

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        assert_eq!(
            parse(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
            Ok(Message::Request {
                id: Id::Number(1.into()),
                method: "ping".into(),
                params: Value::Null
            })
        );
        assert_eq!(
            parse(json!({"jsonrpc": "2.0", "method": "initialized", "params": {"a": 1}})),
            Ok(Message::Notification {
                method: "initialized".into(),
                params: json!({"a": 1})
            })
        );
        assert_eq!(
            parse(json!({"jsonrpc": "2.0", "id": "x", "result": {}})),
            Ok(Message::Response {
                id: Id::String("x".into()),
                result: Ok(json!({}))
            })
        );
        let Ok(Message::Response { result: Err(error), .. }) =
            parse(json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -1, "message": "no"}}))
        else {
            panic!("an error response");
        };
        assert_eq!((error.code, error.message.as_str()), (-1, "no"));
    }

    #[test]
    fn an_object_array_or_null_id_is_an_invalid_request_answered_with_a_null_id() {
        for id in [json!({"a": 1}), json!([1]), Value::Null, json!(true)] {
            let reply = reply_of(json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
            assert_eq!(reply["id"], Value::Null);
            assert_eq!(reply["error"]["code"], INVALID_REQUEST, "{reply}");
        }
    }

    #[test]
    fn malformed_messages_get_the_specs_errors() {
        assert_eq!(reply_of(json!(7))["error"]["code"], INVALID_REQUEST);
        let missing = reply_of(json!({"jsonrpc": "2.0", "id": 3}));
        assert_eq!(
            (missing["id"].clone(), missing["error"]["code"].clone()),
            (json!(3), json!(INVALID_REQUEST))
        );
        assert_eq!(
            reply_of(json!({"jsonrpc": "2.0", "id": 3, "method": 5}))["error"]["message"],
            "Invalid Request: method must be a string"
        );
        // A response without an id is dropped, never answered.
        assert_eq!(
            parse(json!({"jsonrpc": "2.0", "result": 1})),
            Err(Malformed { reply: None })
        );
    }

    #[test]
    fn ids_are_echoed_as_written() {
        let id = Id::Number(serde_json::from_str("1.5").unwrap());
        assert_eq!(response(&id, json!(null))["id"], json!(1.5));
        assert_eq!(
            reply(&Id::String("a".into()), Err(RpcError::method_not_found("x"))),
            json!({"jsonrpc": "2.0", "id": "a", "error": {"code": METHOD_NOT_FOUND, "message": "Method not found: x"}})
        );
    }

    #[test]
    fn a_number_id_beyond_64_bits_reads_back_as_the_same_number() {
        // Found by the mcp_server fuzz target: without serde_json's float_roundtrip, the echoed
        // 1.7777777777777777e24 read back as another number than the request's.
        let request: Value = serde_json::from_str(r#"{"id": 1777777777777777777777777}"#).unwrap();
        let id = Id::of(request.as_object().unwrap()).unwrap().unwrap();
        let echoed: Value = serde_json::from_str(&response(&id, json!(null)).to_string()).unwrap();
        assert_eq!(echoed["id"], request["id"]);
    }
}
