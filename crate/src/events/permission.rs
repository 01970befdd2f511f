//! Building a permission question: every backend starts from the tool and its input, and sets
//! only what it knows beyond them.

use super::{tool_kind, PermissionRequest};
use serde_json::Value;

impl PermissionRequest {
    /// A question about `tool` with `input`, named as Tether names it, with nothing else said:
    /// no options, no review, no reason.
    pub fn for_tool(id: impl Into<String>, tool: &str, input: Value) -> PermissionRequest {
        PermissionRequest {
            id: id.into(),
            tool_use_id: None,
            tool_name: tool.to_string(),
            raw_tool_name: tool.to_string(),
            kind: tool_kind(tool),
            input,
            agent_id: None,
            suggestions: Vec::new(),
            title: None,
            display_name: None,
            description: None,
            blocked_path: None,
            decision_reason: None,
            decision_reason_type: None,
            suppress_always_allow: false,
            requires_user_interaction: false,
            always_label: None,
            reason: None,
            review: None,
            options: Vec::new(),
        }
    }
}
