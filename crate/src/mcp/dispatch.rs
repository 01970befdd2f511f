//! The MCP methods Tether's server answers, by name, without running anything: every answer but a
//! tool's result is known here, and a `tools/call` comes out as a [`ToolCall`] for the caller to
//! run and answer with [`super::tool_call_response`].

use super::{Manifest, SUPPORTED_VERSIONS, TOOL_USE_ID_META};
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

impl ToolCall {
    /// The tool use of the model this call is for, where the client names it.
    pub fn tool_use_id(&self) -> Option<&str> {
        self.meta.as_ref()?.get(TOOL_USE_ID_META)?.as_str()
    }
}

/// The tool use a raw `tools/call` message is for, where the client names it.
pub fn tool_use_id_of(message: &Value) -> Option<&str> {
    message.pointer("/params/_meta")?.get(TOOL_USE_ID_META)?.as_str()
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
            "initialize" => Ok(self.initialize(&params)),
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

impl Dispatch {
    /// The `initialize` result in the version the client asked for when the server speaks it,
    /// else in the server's own.
    fn initialize(&self, params: &Value) -> Value {
        let mut result = self.manifest.initialize_result.clone();
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        if let Some(version) = asked.filter(|v| SUPPORTED_VERSIONS.contains(v)) {
            result["protocolVersion"] = Value::from(version);
        }
        result
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::PROTOCOL_VERSION;

    fn initialize(version: Value) -> Value {
        let dispatch = Dispatch::new(Manifest::of_workspace("/w"));
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
        match dispatch.receive(message) {
            Step::Reply(Some(reply)) => reply["result"]["protocolVersion"].clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn initialize_answers_the_version_the_client_asked_for_when_it_is_supported() {
        // gemini-cli's MCP client asks for 2025-06-18 and refuses a server that answers newer.
        assert_eq!(initialize(json!("2025-06-18")), "2025-06-18");
        assert_eq!(initialize(json!("2024-11-05")), "2024-11-05");
        assert_eq!(initialize(json!(PROTOCOL_VERSION)), PROTOCOL_VERSION);
    }

    #[test]
    fn initialize_answers_its_own_version_to_one_it_does_not_know() {
        assert_eq!(initialize(json!("2099-01-01")), PROTOCOL_VERSION);
        assert_eq!(initialize(json!(3)), PROTOCOL_VERSION);
        assert_eq!(initialize(Value::Null), PROTOCOL_VERSION);
    }
}
