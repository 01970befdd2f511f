//! The Claude Code CLI backend ([`ClaudeBackend`], behind [`crate::backend::Backend`]): its
//! stream-json protocol as types ([`protocol`]), its command line ([`launch`]), the `initialize`
//! request Tether sends ([`init`]), the guard hook ([`guard`]), the sans-IO session state machine
//! that speaks the control protocol ([`session`]) and turns the CLI's messages into UI events
//! (`events`); the project's own subagents ([`agents`]) and its part of the config ([`config`]).

pub mod agents;
mod backend;
mod config;
mod events;
pub mod guard;
pub mod init;
pub mod launch;
mod project_hooks;
pub mod protocol;
mod questions;
pub mod session;

pub use backend::ClaudeBackend;
pub use config::{AgentFile, ClaudeConfig, CLAUDE_KEYS};
pub use session::{Output, PermissionAnswer, Session, SessionConfig};

/// The Claude Code CLI, as the driver finds it.
pub const PROGRAM: AgentProgram = AgentProgram {
    display_name: "Claude Code",
    command: "claude",
    path_variable: "TETHER_CLAUDE_PATH",
    install_dirs: &["~/.claude/local", "~/.local/bin"],
    install_hint: "npm install -g @anthropic-ai/claude-code",
};

/// The in-process MCP server's name, as declared in `initialize.sdkMcpServers`.
pub const SERVER_NAME: &str = crate::mcp::SERVER_NAME;

use crate::backend::AgentProgram;
use crate::mcp::MCP_PREFIX;

/// The built-in name behind a model-visible tool name (`mcp__tether__Edit` → `Edit`); other
/// names are returned unchanged.
pub fn builtin_name(tool_name: &str) -> &str {
    tool_name.strip_prefix(MCP_PREFIX).unwrap_or(tool_name)
}
