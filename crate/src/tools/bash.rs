//! placeholder
use super::{Host, ToolOutput, ToolResult, ToolSpec, Toolset};
use serde_json::{json, Value};

pub static BASH_SPEC: ToolSpec = ToolSpec {
    name: "Bash",
    title: "Bash",
    description: "Bash",
    input_schema: || json!({"type": "object", "properties": {}}),
    read_only: false,
    destructive: false,
};

pub async fn run_bash<H: Host>(_ts: &Toolset<H>, _args: Value) -> ToolResult<ToolOutput> {
    Err(super::ToolError::new("Bash is not implemented yet"))
}

pub static BASH_OUTPUT_SPEC: ToolSpec = ToolSpec {
    name: "BashOutput",
    title: "BashOutput",
    description: "BashOutput",
    input_schema: || json!({"type": "object", "properties": {}}),
    read_only: false,
    destructive: false,
};

pub async fn run_bash_output<H: Host>(_ts: &Toolset<H>, _args: Value) -> ToolResult<ToolOutput> {
    Err(super::ToolError::new("BashOutput is not implemented yet"))
}

pub static KILL_SHELL_SPEC: ToolSpec = ToolSpec {
    name: "KillShell",
    title: "KillShell",
    description: "KillShell",
    input_schema: || json!({"type": "object", "properties": {}}),
    read_only: false,
    destructive: false,
};

pub async fn run_kill_shell<H: Host>(_ts: &Toolset<H>, _args: Value) -> ToolResult<ToolOutput> {
    Err(super::ToolError::new("KillShell is not implemented yet"))
}
