//! The MCP servers an agent is given besides Tether's own: the project's servers (`.mcp.json`),
//! as the agent reaches them. A stdio server the workspace runs reaches the agent through
//! Tether's bridge, so its entry names the bridge's command; an HTTP or SSE server is reached
//! from the laptop at its address.

use super::json::{string_map, JsonObject};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// One MCP server for the agent's own MCP client, under its own name (the model sees its tools
/// as `mcp__<name>__<tool>`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "camelCase")]
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
    /// One entry of the config's `mcpServers`, read strictly. Written out, as
    /// [`crate::backend::TransportEvent::from_json`] is: serde's derive would read it through its
    /// buffered `Content`.
    pub fn from_json(value: &Value) -> Result<McpServerEntry, String> {
        let what = "the entry";
        let kind = value.get("type").and_then(Value::as_str).unwrap_or_default();
        let fields: &[&str] = match kind {
            "stdio" => &["type", "name", "command", "args", "env"],
            "http" | "sse" => &["type", "name", "url", "headers"],
            _ => return Err(format!("{what} needs a `type`: stdio, http or sse")),
        };
        let entry = JsonObject::new(value, what, fields)?;
        let name = entry.string("name")?;
        let strings = |key: &str| match entry.get(key) {
            Some(map) => string_map(map, &format!("`{key}`")),
            None => Ok(BTreeMap::new()),
        };
        Ok(match kind {
            "stdio" => McpServerEntry::Stdio {
                name,
                command: entry.string("command")?,
                args: entry.opt_strings("args")?.unwrap_or_default(),
                env: strings("env")?,
            },
            "http" => McpServerEntry::Http {
                name,
                url: entry.string("url")?,
                headers: strings("headers")?,
            },
            _ => McpServerEntry::Sse {
                name,
                url: entry.string("url")?,
                headers: strings("headers")?,
            },
        })
    }

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
    let Some(list) = value.as_array() else {
        return Err("`mcpServers` must be a list".into());
    };
    list.iter()
        .enumerate()
        .map(|(at, entry)| McpServerEntry::from_json(entry).map_err(|e| format!("`mcpServers`[{at}]: {e}")))
        .collect()
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
        let entry = McpServerEntry::from_json(&json!({
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
        let entry = McpServerEntry::from_json(
            &json!({"type": "http", "name": "docs", "url": "https://x/mcp", "headers": {"A": "b"}}),
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

    #[test]
    fn an_entry_without_a_known_type_or_with_a_wrong_value_is_refused_with_its_place() {
        let sse = json!({"type": "sse", "name": "s", "url": "http://x"});
        assert_eq!(entries(&json!([sse.clone()])).unwrap()[0].name(), "s");
        assert_eq!(
            entries(&json!([sse, {"type": "ws", "name": "w"}])).unwrap_err(),
            "`mcpServers`[1]: the entry needs a `type`: stdio, http or sse"
        );
        assert_eq!(
            entries(&json!([{"type": "stdio", "name": "x", "command": "y", "env": {"A": 1}}])).unwrap_err(),
            "`mcpServers`[0]: `env`.A must be a string"
        );
        assert_eq!(entries(&json!({})).unwrap_err(), "`mcpServers` must be a list");
    }
}
