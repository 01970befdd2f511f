//! The project's `.mcp.json` as Claude Code reads it: `{"mcpServers": {"<name>": {…}}}`, each
//! server stdio (`command`, `args`, `env`; `type` "stdio" or absent) or remote (`type` "http" or
//! "sse", `url`, `headers`). A server that cannot be used is a problem naming it; the others
//! still count.

use crate::config::McpServerEntry;
use crate::mcp::SERVER_NAME;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The servers of a `.mcp.json` text, in the file's order, and the problems of those left out.
/// A file that is not a JSON object with an `mcpServers` object is one problem and no servers.
pub fn parse(text: &str) -> (Vec<McpServerEntry>, Vec<String>) {
    let root: Value = match serde_json::from_str(text) {
        Ok(root) => root,
        Err(e) => {
            return (
                Vec::new(),
                vec![format!(".mcp.json is not valid JSON ({e}); none of its servers run.")],
            )
        }
    };
    let Some(servers) = root.get("mcpServers") else {
        return (Vec::new(), Vec::new());
    };
    let Value::Object(servers) = servers else {
        return (
            Vec::new(),
            vec![".mcp.json: `mcpServers` is not an object; none of its servers run.".into()],
        );
    };
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for (name, spec) in servers {
        match server(name, spec) {
            Ok(entry) => entries.push(entry),
            Err(why) => problems.push(format!(".mcp.json server \"{name}\": {why}")),
        }
    }
    (entries, problems)
}

/// Whether `name` can be an MCP server's name: Claude Code's rule (letters, digits, `_`, `-`),
/// and not Tether's own.
pub fn valid_name(name: &str) -> Result<(), String> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err("a server name may hold only letters, digits, `_` and `-`".into());
    }
    if name == SERVER_NAME {
        return Err(format!("\"{SERVER_NAME}\" is the name of Tether's own tools"));
    }
    Ok(())
}

fn server(name: &str, spec: &Value) -> Result<McpServerEntry, String> {
    valid_name(name)?;
    let Value::Object(spec) = spec else {
        return Err("not an object".into());
    };
    let kind = match spec.get("type") {
        None => "stdio",
        Some(Value::String(kind)) => kind.as_str(),
        Some(_) => return Err("`type` is not a string".into()),
    };
    let name = name.to_string();
    match kind {
        "stdio" => Ok(McpServerEntry::Stdio {
            name,
            command: string(spec, "command")?.ok_or("no `command`")?,
            args: strings(spec, "args")?,
            env: string_map(spec, "env")?,
        }),
        "http" | "sse" => {
            let url = string(spec, "url")?.ok_or("no `url`")?;
            let headers = string_map(spec, "headers")?;
            Ok(if kind == "http" {
                McpServerEntry::Http { name, url, headers }
            } else {
                McpServerEntry::Sse { name, url, headers }
            })
        }
        other => Err(format!("type \"{other}\" is not one Tether runs (stdio, http, sse)")),
    }
}

fn string(spec: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match spec.get(key) {
        None => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{key}` is not a non-empty string")),
    }
}

fn strings(spec: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    match spec.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_string)
                    .ok_or(format!("`{key}` holds a value that is not a string"))
            })
            .collect(),
        Some(_) => Err(format!("`{key}` is not a list of strings")),
    }
}

fn string_map(spec: &Map<String, Value>, key: &str) -> Result<BTreeMap<String, String>, String> {
    match spec.get(key) {
        None => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => {
            // Inserted one by one: collecting into a map compiles a sort of its own into the wasm.
            let mut strings = BTreeMap::new();
            for (k, v) in map {
                let text = v.as_str().ok_or(format!("`{key}.{k}` is not a string"))?;
                strings.insert(k.clone(), text.to_string());
            }
            Ok(strings)
        }
        Some(_) => Err(format!("`{key}` is not an object of strings")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdio_and_remote_servers_are_read_in_order() {
        let (servers, problems) = parse(
            r#"{"mcpServers": {
                "notes": {"command": "node", "args": ["server.js"], "env": {"LEVEL": "2"}},
                "docs": {"type": "http", "url": "https://docs.example/mcp", "headers": {"Authorization": "Bearer x"}},
                "feed": {"type": "sse", "url": "https://feed.example/sse"}
            }}"#,
        );
        assert!(problems.is_empty(), "{problems:?}");
        let names: Vec<&str> = servers.iter().map(McpServerEntry::name).collect();
        assert_eq!(names, ["notes", "docs", "feed"]);
        assert_eq!(
            servers[0],
            McpServerEntry::Stdio {
                name: "notes".into(),
                command: "node".into(),
                args: vec!["server.js".into()],
                env: [("LEVEL".to_string(), "2".to_string())].into(),
            }
        );
        assert!(matches!(&servers[2], McpServerEntry::Sse { url, .. } if url == "https://feed.example/sse"));
    }

    #[test]
    fn a_broken_server_is_a_problem_and_the_others_still_count() {
        let (servers, problems) = parse(
            r#"{"mcpServers": {"ok": {"command": "x"}, "nocmd": {"args": []}, "tether": {"command": "y"},
                "bad name": {"command": "z"}, "ws": {"type": "ws", "url": "ws://x"}}}"#,
        );
        assert_eq!(servers.len(), 1);
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(problems[0].contains("\"nocmd\": no `command`"));
        assert!(problems[1].contains("Tether's own tools"));
        assert!(problems[2].contains("letters, digits"));
        assert!(problems[3].contains("type \"ws\""));
    }

    #[test]
    fn a_file_that_is_not_json_is_one_problem() {
        let (servers, problems) = parse("{ nope");
        assert!(servers.is_empty());
        assert!(problems[0].starts_with(".mcp.json is not valid JSON"));
        assert_eq!(parse("{}"), (Vec::new(), Vec::new()));
    }
}
