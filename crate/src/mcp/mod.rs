//! The MCP server Tether's tools are served by, as pure message handling over [`crate::rpc`]: one
//! JSON-RPC 2.0 message in, at most one out. [`Dispatch`] answers every method but `tools/call`
//! itself and hands tool calls to whoever runs them: [`McpServer`] runs them on its [`Toolset`]
//! (`dist/tether-mcp.js` over stdio); an agent backend hands them to the gate first (Claude Code
//! reaches the server over its `mcp_message` control requests: no port, no lock file).
//!
//! [`Toolset`]: crate::tools::Toolset

mod dispatch;
mod server;

pub use dispatch::{tool_use_id_of, Dispatch, Step, ToolCall};
pub use server::McpServer;

use crate::rpc::{self, Id};
use crate::tools::{self, ToolOutput};
use serde_json::{json, Value};

/// The newest MCP version Tether's server speaks, answered to a client that asks for one it does
/// not know.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// Every version the server answers as asked: they differ in nothing Tether's tools use. A
/// client that asks for one gets it back (the spec's negotiation); gemini-cli's MCP client, which
/// knows versions up to 2025-06-18, drops a server that answers a newer one.
pub const SUPPORTED_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", PROTOCOL_VERSION];
pub const SERVER_NAME: &str = "tether";
/// How an agent sees Tether's tools: `mcp__tether__Read`, … (MCP clients prefix a server's tools
/// with `mcp__<server>__`).
pub const MCP_PREFIX: &str = "mcp__tether__";
/// The extension's IDE tools (`extension/src/ide/tools.ts`) are served as two MCP servers.
/// `ide` holds `getDiagnostics`, named as the official extension names its own. Claude Code
/// 2.1.330 special-cases a server of that name: of its tools the model is offered only
/// `mcp__ide__getDiagnostics` and `mcp__ide__executeCode` (measured against the fake API: a
/// `getDefinition` served under `ide` is "No such tool available"). So the language tools
/// (definition, references, hover, symbols, open a file) are served under `vscode`, which the CLI
/// passes through as any other server.
pub const IDE_DIAGNOSTICS_SERVER: &str = "ide";
/// The IDE tools' language features (see [`IDE_DIAGNOSTICS_SERVER`]).
pub const IDE_LANGUAGE_SERVER: &str = "vscode";

/// A tool of the IDE servers as an agent names it (`mcp__ide__…`, `mcp__vscode__…`).
pub fn is_ide_tool(name: &str) -> bool {
    [IDE_DIAGNOSTICS_SERVER, IDE_LANGUAGE_SERVER].iter().any(|server| {
        name.strip_prefix("mcp__")
            .and_then(|rest| rest.strip_prefix(server))
            .is_some_and(|rest| rest.starts_with("__") && rest.len() > 2)
    })
}
/// Where Claude Code (and claude-agent-acp, which runs it) names the tool use a `tools/call` is
/// for, in its `_meta`: the permission card then joins the agent's tool card.
pub const TOOL_USE_ID_META: &str = "claudecode/toolUseId";

/// Key under `result._meta` that carries a tool's structured result for the UI.
pub const STRUCTURED_META_KEY: &str = "tether/toolResult";

/// The `initialize` and `tools/list` results: what a client learns in the handshake, also sent
/// ahead as a manifest so an agent's first turn does not wait for one.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    pub initialize_result: Value,
    pub tools_list_result: Value,
}

impl Manifest {
    /// The manifest of Tether's tools on the workspace at `root`.
    pub fn of_workspace(root: &str) -> Manifest {
        Manifest {
            initialize_result: json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {"tools": {"listChanged": true}},
                "serverInfo": {"name": SERVER_NAME, "title": "Tether", "version": env!("CARGO_PKG_VERSION")},
                "instructions": format!(
                    "Tether's tools work on the workspace at {root}. Use them for every file read, edit, search and shell command."
                ),
            }),
            tools_list_result: json!({"tools": tools::specs().iter().map(|s| s.to_json()).collect::<Vec<_>>()}),
        }
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

/// The response to the `tools/call` request `id`.
pub fn tool_call_response(id: &Id, output: ToolOutput) -> Value {
    rpc::response(id, tool_call_result(output))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_is_the_server_name_as_clients_write_it() {
        assert_eq!(MCP_PREFIX, format!("mcp__{SERVER_NAME}__"));
    }

    #[test]
    fn ide_tools_are_those_of_both_ide_servers() {
        assert!(is_ide_tool("mcp__ide__getDiagnostics"));
        assert!(is_ide_tool("mcp__vscode__getDefinition"));
        assert!(!is_ide_tool("mcp__vscode__"));
        assert!(!is_ide_tool("mcp__ideas__x"));
        assert!(!is_ide_tool("mcp__tether__Read"));
        assert!(!is_ide_tool("getDefinition"));
    }
}
