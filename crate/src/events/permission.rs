//! Building a permission question: every backend starts from the tool and its input, and sets
//! only what it knows beyond them.

use super::{tool_kind, EditReview, PermissionOption, QuestionForm, ToolKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool call waiting for the user's (or the permission engine's) decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PermissionRequest {
    /// Answer with this id.
    pub id: String,
    pub tool_use_id: Option<String>,
    /// The built-in name (`Write`, not `mcp__tether__Write`).
    pub tool_name: String,
    /// The name as the agent knows it.
    pub raw_tool_name: String,
    pub kind: ToolKind,
    pub input: Value,
    /// Set when a subagent asks.
    pub agent_id: Option<String>,
    /// Permission updates that "always allow" would apply (the agent's own shapes).
    pub suggestions: Vec<Value>,
    pub title: Option<String>,
    pub display_name: Option<String>,
    pub description: Option<String>,
    pub blocked_path: Option<String>,
    pub decision_reason: Option<String>,
    pub decision_reason_type: Option<String>,
    /// The agent asks not to offer "always allow" for this call.
    pub suppress_always_allow: bool,
    /// The tool itself is a question for the user (ExitPlanMode, AskUserQuestion).
    pub requires_user_interaction: bool,
    /// What "Always allow" would add (a rule or a mode), when the permission engine offers it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub always_label: Option<String>,
    /// The rules "Always allow" would save (as written in settings), when it saves rules: the
    /// user picks where.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub always_rules: Vec<String>,
    /// Why the permission engine asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For file edits: the whole proposed file, so the user can review (and change) it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<Box<EditReview>>,
    /// The answers the agent offers, in the order to show them.
    #[serde(default)]
    pub options: Vec<PermissionOption>,
    /// The tool is a question for the user (AskUserQuestion, an ACP form elicitation): the
    /// fields to fill in; the answer carries them (`answers`) with an allowing option.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<QuestionForm>,
    /// A question that is not part of a turn (a gateway asking to pair): it stays open when
    /// the turn ends.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outlives_turn: bool,
}

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
            always_rules: Vec::new(),
            reason: None,
            review: None,
            options: Vec::new(),
            form: None,
            outlives_turn: false,
        }
    }
}
