//! The tool calls of a session as the agent reported them so far, merged by id.

use super::protocol::tool_call::ToolCall;
use std::collections::HashMap;

/// The tool calls of the session, as the agent reported them so far.
#[derive(Debug, Default)]
pub struct ToolCalls {
    pub map: HashMap<String, Tracked>,
}

#[derive(Debug)]
pub struct Tracked {
    pub call: ToolCall,
    /// The name shown (Tether's tool's built-in name, or the agent's).
    pub name: String,
    pub finished: bool,
}

impl ToolCalls {
    pub fn get(&self, id: &str) -> Option<&ToolCall> {
        self.map.get(id).map(|t| &t.call)
    }

    pub fn name_of(&self, id: &str) -> Option<String> {
        self.map.get(id).map(|t| t.name.clone())
    }
}
