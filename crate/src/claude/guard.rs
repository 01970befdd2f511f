//! The PreToolUse guard hook. It sees every tool call that can execute, in every agent (main,
//! subagents, forks, workflow agents, forked skills), before any permission prompt, and keeps
//! everything that would act on this machine from running.

use super::builtin_name;
use crate::claude::protocol::HookOutput;
use crate::mcp::{is_ide_tool, MCP_PREFIX};
use serde_json::Value;

/// The callback id registered for the guard in `initialize.hooks`.
pub const GUARD_CALLBACK_ID: &str = "tether-guard";

/// Tether tools that only read; everything else Tether serves writes or runs commands.
pub const READ_ONLY_TETHER_TOOLS: &[&str] = &["Read", "Glob", "Grep", "LS"];

/// Agent types that must stay read-only: the built-in types that Tether redefines with read-only
/// tools (and that, left alone, would get Tether's write tools, since their exclusion list names
/// only built-ins).
pub const READ_ONLY_AGENT_TYPES: &[&str] = &["Explore", "Plan"];

/// Decide one PreToolUse call. `input` is the hook input (`tool_name`, `tool_input`,
/// `agent_type`, ...); `allowed_builtins` is the `--tools` allowlist; `project_servers` the
/// project's MCP servers the CLI was given (they run on the workspace, so their tools may run).
pub fn decide(input: &Value, allowed_builtins: &[String], project_servers: &[String]) -> HookOutput {
    let tool = input.get("tool_name").and_then(Value::as_str).unwrap_or_default();
    let agent_type = input.get("agent_type").and_then(Value::as_str);
    if is_project_server_tool(tool, project_servers) {
        return HookOutput::proceed();
    }
    if let Some(name) = tool.strip_prefix(MCP_PREFIX) {
        if let Some(agent) = agent_type.filter(|a| READ_ONLY_AGENT_TYPES.contains(a)) {
            if !READ_ONLY_TETHER_TOOLS.contains(&name) {
                return HookOutput::deny_tool(format!(
                    "Tether policy: the {agent} agent is read-only; {name} is not available to it."
                ));
            }
        }
        return HookOutput::proceed();
    }
    // The extension's IDE tools read what VS Code knows of the workspace (and show a file).
    if is_ide_tool(tool) {
        return HookOutput::proceed();
    }
    let is_agent_tool = tool == "Agent" || tool == "Task";
    let allowed = allowed_builtins
        .iter()
        .any(|a| a == tool || (is_agent_tool && (a == "Agent" || a == "Task")));
    if !allowed {
        return HookOutput::deny_tool(format!(
            "Tether policy: {} would run on this machine, not in the workspace. Use the {MCP_PREFIX}* tools instead.",
            builtin_name(tool)
        ));
    }
    let isolation = input.pointer("/tool_input/isolation").filter(|v| !v.is_null());
    if is_agent_tool && isolation.is_some() {
        return HookOutput::deny_tool(
            "Tether policy: isolation is not available (the files live in the remote workspace, not in a local git checkout). Call Agent again without isolation.",
        );
    }
    HookOutput::proceed()
}

/// `mcp__<server>__<tool>` of one of `servers`.
fn is_project_server_tool(tool: &str, servers: &[String]) -> bool {
    let Some(rest) = tool.strip_prefix("mcp__") else {
        return false;
    };
    servers
        .iter()
        .any(|server| rest.strip_prefix(server.as_str()).is_some_and(|r| r.starts_with("__")))
}
