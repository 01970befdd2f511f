//! placeholder
use super::{Host, ToolOutput, ToolResult, ToolSpec, Toolset};
use serde_json::{json, Value};

pub static SPEC: ToolSpec = ToolSpec {
    name: "Grep",
    title: "Grep",
    description: "Grep",
    input_schema: || json!({"type": "object", "properties": {}}),
    read_only: false,
    destructive: false,
};

pub async fn run<H: Host>(_ts: &Toolset<H>, _args: Value) -> ToolResult<ToolOutput> {
    Err(super::ToolError::new("Grep is not implemented yet"))
}
