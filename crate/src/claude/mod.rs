//! The Claude Code CLI backend: its stream-json protocol as types ([`protocol`]), its command line
//! ([`launch`]), the `initialize` request Tether sends ([`init`]), the guard hook ([`guard`]) and
//! the sans-IO session state machine that ties them together ([`session`]); the project's own
//! subagents ([`agents`]).

pub mod agents;
mod events;
pub mod guard;
pub mod init;
pub mod launch;
pub mod protocol;
pub mod session;

pub use session::{Output, PermissionAnswer, Session, SessionConfig};

/// The in-process MCP server's name, as declared in `initialize.sdkMcpServers`.
pub const SERVER_NAME: &str = crate::mcp::SERVER_NAME;

/// How the model sees Tether's tools: `mcp__tether__Read`, ...
pub const MCP_PREFIX: &str = "mcp__tether__";

/// The built-in name behind a model-visible tool name (`mcp__tether__Edit` → `Edit`); other
/// names are returned unchanged.
pub fn builtin_name(tool_name: &str) -> &str {
    tool_name.strip_prefix(MCP_PREFIX).unwrap_or(tool_name)
}
