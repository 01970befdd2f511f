//! placeholder
use super::{Host, ToolOutput, ToolResult, ToolSpec, Toolset};
use serde_json::{json, Value};

pub static EDIT_SPEC: ToolSpec = ToolSpec {
    name: "Edit",
    title: "Edit",
    description: "Edit",
    input_schema: || json!({"type": "object", "properties": {}}),
    read_only: false,
    destructive: false,
};

pub async fn run_edit<H: Host>(_ts: &Toolset<H>, _args: Value) -> ToolResult<ToolOutput> {
    Err(super::ToolError::new("Edit is not implemented yet"))
}

pub static MULTI_EDIT_SPEC: ToolSpec = ToolSpec {
    name: "MultiEdit",
    title: "MultiEdit",
    description: "MultiEdit",
    input_schema: || json!({"type": "object", "properties": {}}),
    read_only: false,
    destructive: false,
};

pub async fn run_multi_edit<H: Host>(_ts: &Toolset<H>, _args: Value) -> ToolResult<ToolOutput> {
    Err(super::ToolError::new("MultiEdit is not implemented yet"))
}
