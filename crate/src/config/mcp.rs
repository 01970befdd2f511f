//! The MCP servers an agent is given besides Tether's own: the project's servers (`.mcp.json`),
//! as the agent reaches them. A stdio server the workspace runs reaches the agent through
//! Tether's bridge, so its entry names the bridge's command; an HTTP or SSE server is reached
//! from the laptop at its address.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// One MCP server for the agent's own MCP client, under its own name (the model sees its tools
/// as `mcp__<name>__<tool>`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum McpServerEntry {
    Stdio {
        name: String,
        command: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        env: BTreeMap<String, String>,
    },
    Http {
        name: String,
        url: String,
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
    Sse {
        name: String,
        url: String,
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
}

impl McpServerEntry {
    pub fn name(&self) -> &str {
        match self {
            McpServerEntry::Stdio { name, .. }
            | McpServerEntry::Http { name, .. }
            | McpServerEntry::Sse { name, .. } => name,
        }
    }

    /// Its value in Claude Code's `--mcp-config` `mcpServers` map (keyed by the name).
    pub fn claude_config(&self) -> Value {
        match self {
            McpServerEntry::Stdio { command, args, env, .. } => {
                json!({"type": "stdio", "command": command, "args": args, "env": env})
            }
            McpServerEntry::Http { url, headers, .. } => json!({"type": "http", "url": url, "headers": headers}),
            McpServerEntry::Sse { url, headers, .. } => json!({"type": "sse", "url": url, "headers": headers}),
        }
    }

    /// Its entry in ACP's `session/new` `mcpServers` (environment and headers as name/value
    /// lists; a stdio server has no `type`).
    pub fn acp_config(&self) -> Value {
        let pairs = |map: &BTreeMap<String, String>| -> Vec<Value> {
            map.iter()
                .map(|(name, value)| json!({"name": name, "value": value}))
                .collect()
        };
        match self {
            McpServerEntry::Stdio {
                name,
                command,
                args,
                env,
            } => {
                json!({"name": name, "command": command, "args": args, "env": pairs(env)})
            }
            McpServerEntry::Http { name, url, headers } => {
                json!({"type": "http", "name": name, "url": url, "headers": pairs(headers)})
            }
            McpServerEntry::Sse { name, url, headers } => {
                json!({"type": "sse", "name": name, "url": url, "headers": pairs(headers)})
            }
        }
    }
}

/// The `mcpServers` key of the config: a list of entries.
pub fn entries(value: &Value) -> Result<Vec<McpServerEntry>, String> {
    crate::json::from_value(value.clone()).map_err(|e| format!("`mcpServers`: {e}"))
}

/// Claude Code's `--mcp-config` value for `entries` (none: None).
pub fn claude_mcp_config(entries: &[McpServerEntry]) -> Option<String> {
    if entries.is_empty() {
        return None;
    }
    let servers: serde_json::Map<String, Value> = entries
        .iter()
        .map(|e| (e.name().to_string(), e.claude_config()))
        .collect();
    Some(json!({"mcpServers": servers}).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stdio_entry_becomes_claude_and_acp_config() {
        let entry: McpServerEntry = crate::json::from_value(json!({
            "type": "stdio", "name": "db", "command": "node", "args": ["bridge.js"], "env": {"T": "1"}
        }))
        .unwrap();
        assert_eq!(
            claude_mcp_config(std::slice::from_ref(&entry)).unwrap(),
            r#"{"mcpServers":{"db":{"type":"stdio","command":"node","args":["bridge.js"],"env":{"T":"1"}}}}"#
        );
        assert_eq!(
            entry.acp_config(),
            json!({"name": "db", "command": "node", "args": ["bridge.js"], "env": [{"name": "T", "value": "1"}]})
        );
    }

    #[test]
    fn an_http_entry_keeps_its_address_and_headers() {
        let entry: McpServerEntry = crate::json::from_value(
            json!({"type": "http", "name": "docs", "url": "https://x/mcp", "headers": {"A": "b"}}),
        )
        .unwrap();
        assert_eq!(
            entry.acp_config(),
            json!({"type": "http", "name": "docs", "url": "https://x/mcp", "headers": [{"name": "A", "value": "b"}]})
        );
        assert_eq!(entry.claude_config()["type"], "http");
    }

    #[test]
    fn an_entry_with_an_unknown_key_is_refused() {
        let error = entries(&json!([{"type": "stdio", "name": "x", "command": "y", "cwd": "/"}])).unwrap_err();
        assert!(error.contains("cwd"), "{error}");
    }
}
