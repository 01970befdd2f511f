//! The MCP server as pure message handling: one JSON-RPC 2.0 message in, at most one out.
//! It is reached over the CLI's `mcp_message` control requests (no port, no lock file) or over
//! stdio (`dist/tether-mcp.js`).

use crate::host::Host;
use crate::tools::{self, ToolOutput, Toolset};
use serde_json::{json, Map, Value};

pub const PROTOCOL_VERSION: &str = "2025-11-25";
pub const SERVER_NAME: &str = "tether";

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

/// Key under `result._meta` that carries a tool's structured result for the UI.
pub const STRUCTURED_META_KEY: &str = "tether/toolResult";

pub struct McpServer<H: Host> {
    pub tools: Toolset<H>,
    version: String,
}

impl<H: Host> McpServer<H> {
    pub fn new(tools: Toolset<H>) -> Self {
        McpServer {
            tools,
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    /// The `initialize` result; also sent ahead as the server manifest so the CLI's first turn
    /// does not wait for a handshake.
    pub fn initialize_result(&self) -> Value {
        json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": {"name": SERVER_NAME, "title": "Tether", "version": self.version},
            "instructions": format!(
                "Tether's tools work on the workspace at {}. Use them for every file read, edit, search and shell command.",
                self.tools.paths.root()
            ),
        })
    }

    pub fn tools_list_result(&self) -> Value {
        json!({"tools": tools::specs().iter().map(|s| s.to_json()).collect::<Vec<_>>()})
    }

    /// Handle one serialized message. Returns the serialized response, or None for notifications
    /// and responses (which need none).
    pub async fn handle(&self, message: &str) -> Option<String> {
        let value: Value = match serde_json::from_str(message) {
            Ok(v) => v,
            Err(e) => return Some(error_response(Value::Null, PARSE_ERROR, &format!("Parse error: {e}")).to_string()),
        };
        self.handle_value(value).await.map(|v| v.to_string())
    }

    /// Handle one parsed message (or a batch).
    pub async fn handle_value(&self, message: Value) -> Option<Value> {
        if let Value::Array(batch) = message {
            if batch.is_empty() {
                return Some(error_response(
                    Value::Null,
                    INVALID_REQUEST,
                    "Invalid Request: empty batch",
                ));
            }
            let mut out = Vec::new();
            for item in batch {
                if let Some(r) = Box::pin(self.handle_value(item)).await {
                    out.push(r);
                }
            }
            return if out.is_empty() { None } else { Some(Value::Array(out)) };
        }
        let Value::Object(obj) = message else {
            return Some(error_response(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: not an object",
            ));
        };
        let id = obj.get("id").cloned();
        let Some(method) = obj.get("method").and_then(Value::as_str) else {
            // A response to something we sent (we send no requests) or garbage.
            let is_response = obj.contains_key("result") || obj.contains_key("error");
            return if is_response {
                None
            } else {
                Some(error_response(
                    id.unwrap_or(Value::Null),
                    INVALID_REQUEST,
                    "Invalid Request: missing method",
                ))
            };
        };
        let params = obj.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = id else {
            // Notifications (initialized, cancelled, ...) need no answer.
            return None;
        };
        let result = match method {
            "initialize" => Ok(self.initialize_result()),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(self.tools_list_result()),
            "tools/call" => self.call_tool(params).await,
            "resources/list" => Ok(json!({"resources": []})),
            "prompts/list" => Ok(json!({"prompts": []})),
            other => Err((METHOD_NOT_FOUND, format!("Method not found: {other}"))),
        };
        Some(match result {
            Ok(result) => success_response(id, result),
            Err((code, message)) => error_response(id, code, &message),
        })
    }

    async fn call_tool(&self, params: Value) -> Result<Value, (i64, String)> {
        let Value::Object(mut params) = params else {
            return Err((
                INVALID_PARAMS,
                "Invalid params: expected an object with name and arguments".into(),
            ));
        };
        let name = match params.remove("name") {
            Some(Value::String(s)) => s,
            _ => return Err((INVALID_PARAMS, "Invalid params: missing tool name".into())),
        };
        if !tools::is_known_tool(&name) {
            return Err((INVALID_PARAMS, format!("Unknown tool: {name}")));
        }
        let args = match params.remove("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v @ Value::Object(_)) => v,
            Some(_) => return Err((INVALID_PARAMS, "Invalid params: arguments must be an object".into())),
        };
        Ok(tool_call_result(self.tools.call(&name, args).await))
    }
}

/// A `tools/call` result: the model-facing content, and the structured result for the UI under
/// `_meta[STRUCTURED_META_KEY]`.
pub fn tool_call_result(output: ToolOutput) -> Value {
    let mut result = json!({
        "content": output.content.iter().map(|c| c.to_json()).collect::<Vec<_>>(),
        "isError": output.is_error,
    });
    if let Some(structured) = output.structured {
        result["_meta"] = json!({ STRUCTURED_META_KEY: structured });
    }
    result
}

pub fn success_response(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

pub fn error_response(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}
