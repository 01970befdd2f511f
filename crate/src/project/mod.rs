//! What a project configures for its agent beyond its context files, and what Tether does with
//! it: the MCP servers of its `.mcp.json` (read, checked, approved as Claude Code approves them:
//! [`mcp_json`], [`approval`]) and the list of what Tether does not run for a session, with the
//! reason ([`off`]). Pure: the driver reads the files and starts the servers.

pub mod approval;
pub mod mcp_json;
pub mod off;

pub use approval::{McpChoice, McpDecision, PlannedServer, ProjectMcpPlan};
pub use off::OffItem;
