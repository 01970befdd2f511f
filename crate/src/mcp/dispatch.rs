//! The MCP methods Tether's server answers, by name, without running anything: every answer but a
//! tool's result is known here, and a `tools/call` comes out as a [`ToolCall`] for the caller to
//! run and answer with [`super::tool_call_response`].

use super::Manifest;
use crate::rpc::{self, Id, Malformed, Message, RpcError, INVALID_PARAMS};
use crate::tools;
use serde_json::{json, Map, Value};

/// A valid `tools/call` request.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub id: Id,
    /// One of Tether's tools (checked).
    pub name: String,
    /// An object (`{}` when the request had none).
    pub arguments: Value,
    /// The request's `params._meta`, where clients put their own keys.
    pub meta: Option<Value>,
}

/// What one message needs.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Send this back; None for notifications and responses, which get no answer.
    Reply(Option<Value>),
    /// Run the tool, then send [`super::tool_call_response`].
    Call(ToolCall),
}

/// The server side of MCP for Tether's tools (the server sends no requests of its own).
pub struct Dispatch {
    manifest: Manifest,
}

impl Dispatch {
    pub fn new(manifest: Manifest) -> Dispatch {
        Dispatch { manifest }
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// One message (not a batch).
    pub fn receive(&self, message: Value) -> Step {
        let (id, method, params) = match rpc::parse(message) {
            Ok(Message::Request { id, method, params }) => (id, method, params),
            // Notifications (initialized, cancelled, ...) and responses (the server sends no
            // requests) need no answer.
            Ok(Message::Notification { .. } | Message::Response { .. }) => return Step::Reply(None),
            Err(Malformed { reply }) => return Step::Reply(reply),
        };
        let result = match method.as_str() {
            "initialize" => Ok(self.manifest.initialize_result.clone()),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(self.manifest.tools_list_result.clone()),
            "tools/call" => match tool_call(id.clone(), params) {
                Ok(call) => return Step::Call(call),
                Err(error) => Err(error),
            },
            "resources/list" => Ok(json!({"resources": []})),
            "prompts/list" => Ok(json!({"prompts": []})),
            other => Err(RpcError::method_not_found(other)),
        };
        Step::Reply(Some(rpc::reply(&id, result)))
    }
}

fn tool_call(id: Id, params: Value) -> Result<ToolCall, RpcError> {
    let invalid = |message: String| RpcError::new(INVALID_PARAMS, message);
    let Value::Object(mut params) = params else {
        return Err(invalid(
            "Invalid params: expected an object with name and arguments".into(),
        ));
    };
    let name = match params.remove("name") {
        Some(Value::String(s)) => s,
        _ => return Err(invalid("Invalid params: missing tool name".into())),
    };
    if !tools::is_known_tool(&name) {
        return Err(invalid(format!("Unknown tool: {name}")));
    }
    let arguments = match params.remove("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(v @ Value::Object(_)) => v,
        Some(_) => return Err(invalid("Invalid params: arguments must be an object".into())),
    };
    Ok(ToolCall {
        id,
        name,
        arguments,
        meta: params.remove("_meta"),
    })
}
