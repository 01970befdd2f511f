//! What the permission engine judges: one tool call described without any backend's wire shape —
//! the name rules are written against, and what the call touches (paths read or written, a
//! command line run). A backend describes its agent's calls this way; Tether's own tools are
//! described by [`ToolRequest::for_tool`].

use super::rules::canonical_tool_name;
use crate::mcp::is_ide_tool;
use serde_json::Value;

/// One tool call, as the engine sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolRequest {
    /// The name rules name it by: a built-in name (`Edit`; Tether's `mcp__tether__Edit` is the
    /// same tool), `mcp__server__tool`, or the agent's own.
    pub tool: String,
    pub access: Access,
}

/// What a call touches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// Reads, lists or searches these places (all of them are judged; the strictest verdict holds).
    Read(Vec<Target>),
    /// Writes this file.
    Write(Target),
    /// Runs this command line in the workspace's shell.
    Execute(String),
    /// Touches nothing the rules guard (the output of a command already allowed, stopping it).
    Harmless,
    /// Anything else: tool-wide rules decide, else the user.
    Other,
}

/// A place a call reads or writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A path as the call gave it (mirror paths included). `directory` when it names a directory
    /// to list or search: "always allow" then offers that directory rather than its parent.
    Path { path: String, directory: bool },
    /// The fixed start of an absolute search pattern (`/etc` of `/etc/**/*.conf`): judged where
    /// it points even when it names no workspace path.
    PatternBase(String),
    /// The workspace root (a search given no path).
    Root,
    /// The argument that names the path is missing or empty (its name, for the reason).
    Missing(String),
}

impl ToolRequest {
    pub fn new(tool: &str, access: Access) -> ToolRequest {
        ToolRequest {
            tool: canonical_tool_name(tool),
            access,
        }
    }

    /// A call to `tool` with `input`: Tether's tools (by their built-in names, with or without
    /// the `mcp__tether__` prefix) by what their inputs name; any other tool as [`Access::Other`].
    pub fn for_tool(tool: &str, input: &Value) -> ToolRequest {
        let tool = canonical_tool_name(tool);
        let text = |key: &str| {
            input
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|p| !p.is_empty())
        };
        let path = |key: &str, directory: bool| match text(key) {
            Some(path) => Target::Path {
                path: path.to_string(),
                directory,
            },
            None => Target::Missing(key.to_string()),
        };
        let search_path = || match text("path") {
            Some(path) => Target::Path {
                path: path.to_string(),
                directory: true,
            },
            None => Target::Root,
        };
        let access = match tool.as_str() {
            "Read" => Access::Read(vec![path("file_path", false)]),
            "LS" => Access::Read(vec![path("path", true)]),
            "Grep" => Access::Read(vec![search_path()]),
            "Glob" => {
                let mut targets = vec![search_path()];
                targets.extend(text("pattern").and_then(pattern_base).map(Target::PatternBase));
                Access::Read(targets)
            }
            "Write" | "Edit" | "MultiEdit" => Access::Write(path("file_path", false)),
            "NotebookEdit" => Access::Write(path("notebook_path", false)),
            "Bash" => Access::Execute(text("command").unwrap_or_default().to_string()),
            "BashOutput" | "KillShell" => Access::Harmless,
            name if is_ide_tool(name) => {
                // The IDE tools read what the language servers know of a file (or of the whole
                // workspace when they name none): judged as reads of that place.
                let place = text("uri").or_else(|| text("filePath"));
                let target = match place {
                    Some(place) => Target::Path {
                        path: place.strip_prefix("file://").unwrap_or(place).to_string(),
                        directory: false,
                    },
                    None => Target::Root,
                };
                Access::Read(vec![target])
            }
            _ => Access::Other,
        };
        ToolRequest { tool, access }
    }
}

/// The directory an absolute glob pattern starts from (`/etc/**/*.conf` → `/etc`); None for a
/// relative pattern, which searches below the search path.
fn pattern_base(pattern: &str) -> Option<String> {
    crate::paths::PathStyle::of_absolute(pattern)?;
    let literal = &pattern[..pattern.find(['*', '?', '[', '{']).unwrap_or(pattern.len())];
    let base = match literal.rfind(['/', '\\']) {
        Some(0) => &literal[..1],
        Some(end) => &literal[..end],
        None => literal,
    };
    Some(base.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tether_tools_are_described_by_what_their_inputs_name() {
        assert_eq!(
            ToolRequest::for_tool("mcp__tether__Edit", &json!({"file_path": " /w/a "})),
            ToolRequest {
                tool: "Edit".into(),
                access: Access::Write(Target::Path {
                    path: "/w/a".into(),
                    directory: false
                })
            }
        );
        assert_eq!(
            ToolRequest::for_tool("Glob", &json!({"pattern": "/etc/**/*.conf"})).access,
            Access::Read(vec![Target::Root, Target::PatternBase("/etc".into())])
        );
        assert_eq!(
            ToolRequest::for_tool("mcp__ide__getDiagnostics", &json!({"uri": "file:///w/a.ts"})).access,
            Access::Read(vec![Target::Path {
                path: "/w/a.ts".into(),
                directory: false
            }])
        );
        assert_eq!(
            ToolRequest::for_tool("mcp__vscode__getWorkspaceSymbols", &json!({"query": "x"})).access,
            Access::Read(vec![Target::Root])
        );
        assert_eq!(
            ToolRequest::for_tool("mcp__vscode__getDefinition", &json!({"filePath": "/w/a.ts", "line": 2})).access,
            Access::Read(vec![Target::Path {
                path: "/w/a.ts".into(),
                directory: false
            }])
        );
        assert_eq!(
            ToolRequest::for_tool("Read", &json!({})).access,
            Access::Read(vec![Target::Missing("file_path".into())])
        );
        assert_eq!(
            ToolRequest::for_tool("Bash", &json!({"command": "ls"})).access,
            Access::Execute("ls".into())
        );
        assert_eq!(ToolRequest::for_tool("KillShell", &json!({})).access, Access::Harmless);
        assert_eq!(
            ToolRequest::for_tool("mcp__github__x", &json!({})).access,
            Access::Other
        );
    }
}
