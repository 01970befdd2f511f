//! MCP servers the client hands the agent in `session/new` (and again in `load`/`resume`): Tether's
//! own tools reach the agent this way. Stdio is always supported; http and sse only when the agent
//! advertises them in `mcpCapabilities`.

use super::lenient::{self, Meta};
use crate::json::read_struct;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum McpServer {
    Http(McpServerHttp),
    Sse(McpServerHttp),
    /// Unstable: a server reached over the ACP connection itself (`mcp/connect`, `mcp/message`),
    /// when the agent advertises `mcpCapabilities.acp`.
    Acp(McpServerAcp),
    /// Written without a `type`, as the schema has it (agents accept `"type": "stdio"` as well).
    #[serde(untagged)]
    Stdio(McpServerStdio),
    /// A server of a transport this version does not know, as sent.
    #[serde(untagged)]
    Unknown(Value),
}

impl<'de> Deserialize<'de> for McpServer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Ok(match value.get("type").and_then(Value::as_str) {
            None | Some("stdio") => McpServer::Stdio(lenient::variant(value, "stdio")?),
            Some("http") => McpServer::Http(lenient::variant(value, "http")?),
            Some("sse") => McpServer::Sse(lenient::variant(value, "sse")?),
            Some("acp") => McpServer::Acp(lenient::variant(value, "acp")?),
            Some(_) => McpServer::Unknown(value),
        })
    }
}

/// A process the agent spawns and talks MCP to over its stdio.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct McpServerStdio {
    /// The name the agent prefixes the tools with (`mcp__<name>__<tool>`, `mcp_<name>_<tool>`).
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    /// Secrets go here rather than in `args`: they stay out of process listings.
    pub env: Vec<EnvVariable>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(McpServerStdio {
    name: required "name",
    command: required "command",
    args: list "args",
    env: list "env",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct McpServerHttp {
    pub name: String,
    pub url: String,
    pub headers: Vec<HttpHeader>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(McpServerHttp {
    name: required "name",
    url: required "url",
    headers: list "headers",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServerAcp {
    pub name: String,
    /// The id the agent's `mcp/connect` will name.
    pub server_id: String,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(McpServerAcp {
    name: required "name",
    server_id: required "serverId",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EnvVariable {
    pub name: String,
    pub value: String,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(EnvVariable {
    name: required "name",
    value: required "value",
    meta: or_default "_meta",
});

impl EnvVariable {
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        EnvVariable {
            name: name.into(),
            value: value.into(),
            meta: None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HttpHeader {
    pub name: String,
    pub value: String,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(HttpHeader {
    name: required "name",
    value: required "value",
    meta: or_default "_meta",
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_stdio_server_is_written_without_a_type_and_http_with_one() {
        let servers = vec![
            McpServer::Stdio(McpServerStdio {
                name: "tether".into(),
                command: "/usr/bin/node".into(),
                args: vec!["/x/dist/tether-mcp-bridge.js".into()],
                env: vec![EnvVariable::new("TETHER_BRIDGE_TOKEN", "t0k3n")],
                meta: None,
            }),
            McpServer::Http(McpServerHttp {
                name: "docs".into(),
                url: "http://127.0.0.1:9/mcp".into(),
                headers: vec![],
                meta: None,
            }),
            McpServer::Acp(McpServerAcp {
                name: "tether".into(),
                server_id: "tether-1".into(),
                meta: None,
            }),
        ];
        let written = serde_json::to_value(&servers).unwrap();
        assert_eq!(
            written,
            json!([
                {"name": "tether", "command": "/usr/bin/node", "args": ["/x/dist/tether-mcp-bridge.js"],
                 "env": [{"name": "TETHER_BRIDGE_TOKEN", "value": "t0k3n"}]},
                {"type": "http", "name": "docs", "url": "http://127.0.0.1:9/mcp", "headers": []},
                {"type": "acp", "name": "tether", "serverId": "tether-1"},
            ])
        );
        assert_eq!(crate::json::from_value::<Vec<McpServer>>(written).unwrap(), servers);
    }

    #[test]
    fn stdio_with_an_explicit_type_and_unknown_transports_are_read() {
        let servers: Vec<McpServer> = crate::json::from_value(json!([
            {"type": "stdio", "name": "a", "command": "x", "args": [], "env": []},
            {"type": "websocket", "name": "b", "url": "ws://127.0.0.1:1"},
        ]))
        .unwrap();
        assert!(matches!(&servers[0], McpServer::Stdio(s) if s.name == "a"));
        assert!(matches!(&servers[1], McpServer::Unknown(_)));
    }
}
