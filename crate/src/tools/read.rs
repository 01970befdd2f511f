//! Read: numbered lines like `cat -n`.
use super::{Host, ToolOutput, ToolResult, ToolSpec, Toolset};
use serde_json::{json, Value};

pub static SPEC: ToolSpec = ToolSpec {
    name: "Read",
    title: "Read",
    description: "Reads a file from the workspace.",
    input_schema: || json!({"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}),
    read_only: true,
    destructive: false,
};

pub async fn run<H: Host>(_ts: &Toolset<H>, _args: Value) -> ToolResult<ToolOutput> {
    Err(super::ToolError::new("Read is not implemented yet"))
}
