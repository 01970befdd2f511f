//! The Agent Client Protocol (ACP) behind the backend seam: any ACP agent (claude-agent-acp,
//! gemini-cli, codex-acp, …) as [`AcpBackend`]. Its wire types are in [`protocol`]; the session
//! state machine in `backend`, the agent's requests in `requests`, its updates as UI events in
//! `updates`, terminals Tether runs for it in `terminals`, its options in `session_state`, plan mode kept in step with Tether's in `modes`, the
//! prompt and what the model is told in `prompt`, and the agents Tether knows with the switches
//! that close them in [`profile`].

mod backend;
mod calls;
mod closed;
mod commands;
mod config;
mod elicitation;
mod modes;
pub mod profile;
mod prompt;
pub mod protocol;
mod questions;
mod requests;
mod session;
mod session_state;
mod state;
mod steering;
mod terminals;
mod updates;

pub use config::{AcpConfig, BridgeCommand, ACP_KEYS};
pub use state::AcpBackend;

use crate::backend::AgentProgram;

/// An ACP agent as the driver starts it: the command always comes from the agent's entry
/// (`tether.agents`, `--agent`, `--agent-command`).
pub const PROGRAM: AgentProgram = AgentProgram {
    display_name: "ACP agent",
    command: "",
    path_variable: "TETHER_ACP_AGENT_PATH",
    install_dirs: &[],
    install_hint: "see the agent's own documentation; Tether knows claude-agent-acp, gemini and codex by name",
};

/// Environment the agent does not inherit from the host: it would change how a Node agent runs,
/// or tell Claude Code it runs inside another Claude Code.
const REMOVED_ENV: &[&str] = &["CLAUDECODE", "NODE_OPTIONS", "DEBUG", "ELECTRON_RUN_AS_NODE"];
