//! MCP over ACP (unstable in v1): instead of spawning a process, the agent reaches an MCP server
//! the client declared as `{"type": "acp", "name", "serverId"}` in `session/new` through the ACP
//! connection itself — `mcp/connect` opens a connection, `mcp/message` carries each MCP request
//! (answered with the inner MCP result) or notification, `mcp/disconnect` closes it. Offered by
//! agents that advertise `mcpCapabilities.acp`; Tether's tools need no bridge process then.

use super::lenient::Meta;
use super::Request;
use crate::json::read_struct;
use serde::Serialize;
use serde_json::{Map, Value};

pub type McpConnectionId = String;

/// `mcp/connect`, agent to client: open a connection to the declared server `server_id`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectMcpRequest {
    pub server_id: String,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ConnectMcpRequest {
    server_id: required "serverId",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectMcpResponse {
    pub connection_id: McpConnectionId,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ConnectMcpResponse {
    connection_id: required "connectionId",
    meta: or_default "_meta",
});

impl Request for ConnectMcpRequest {
    const METHOD: &'static str = "mcp/connect";
    type Response = ConnectMcpResponse;
}

/// `mcp/message`, either way: one MCP message on a connection. Sent as a request, it is answered
/// with the inner MCP result; sent as a notification, with nothing.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpMessage {
    pub connection_id: McpConnectionId,
    /// The inner MCP method (`tools/call`, …).
    pub method: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(McpMessage {
    connection_id: required "connectionId",
    method: required "method",
    params: or_default "params",
    meta: or_default "_meta",
});

impl Request for McpMessage {
    const METHOD: &'static str = "mcp/message";
    /// The inner MCP result, as the MCP server gave it.
    type Response = Value;
}

/// `mcp/disconnect`, agent to client.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisconnectMcpRequest {
    pub connection_id: McpConnectionId,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(DisconnectMcpRequest {
    connection_id: required "connectionId",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DisconnectMcpResponse {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(DisconnectMcpResponse {
    meta: or_default "_meta",
});

impl Request for DisconnectMcpRequest {
    const METHOD: &'static str = "mcp/disconnect";
    type Response = DisconnectMcpResponse;
}

impl McpMessage {
    /// The inner MCP message as a JSON-RPC object, with `id` when it is a request.
    pub fn to_jsonrpc(&self, id: Option<Value>) -> Value {
        let mut message = Map::new();
        message.insert("jsonrpc".into(), Value::from("2.0"));
        if let Some(id) = id {
            message.insert("id".into(), id);
        }
        message.insert("method".into(), Value::from(self.method.clone()));
        if let Some(params) = &self.params {
            message.insert("params".into(), Value::Object(params.clone()));
        }
        Value::Object(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_message_carries_an_inner_mcp_call() {
        let message: McpMessage = crate::json::from_value(json!({
            "connectionId": "c1", "method": "tools/call", "params": {"name": "Read", "arguments": {"file_path": "/p/a"}}
        }))
        .unwrap();
        assert_eq!(
            message.to_jsonrpc(Some(json!(7))),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "Read", "arguments": {"file_path": "/p/a"}}})
        );
        let note: McpMessage = crate::json::from_value(
            json!({"connectionId": "c1", "method": "notifications/initialized", "params": null}),
        )
        .unwrap();
        assert_eq!(
            note.to_jsonrpc(None),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        );
    }

    #[test]
    fn connect_and_disconnect_are_written_exactly() {
        let connected = ConnectMcpResponse {
            connection_id: "c1".into(),
            meta: None,
        };
        assert_eq!(serde_json::to_value(connected).unwrap(), json!({"connectionId": "c1"}));
        assert_eq!(
            serde_json::to_value(DisconnectMcpResponse::default()).unwrap(),
            json!({})
        );
    }
}
