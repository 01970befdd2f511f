//! The hook events Tether fires itself for an agent that fires none (ACP agents; Claude Code
//! fires them through `hook_callback`): UserPromptSubmit before a prompt goes, PreToolUse and
//! PostToolUse around Tether's tools, Stop when a turn ends — with Claude Code's effects: a
//! blocked prompt is not sent, a denied call does not run and the model reads why, a Stop hook
//! that blocks keeps the turn going with its reason.

use super::{notice, Agent, AgentOutput};
use crate::backend::{Backend, ImageInput, Output};
use crate::events::UiEvent;
use crate::hooks::{HookEvent, PermissionDecision};
use crate::host::Host;
use crate::mcp::ToolCall;
use crate::tools::{Content, ToolOutput};
use serde_json::{json, Map, Value};

/// What the PreToolUse hooks said about a call of one of Tether's tools.
pub(super) enum BeforeTool {
    /// Run it; `Some(Allow)`: without asking, `Some(Ask)`: asking the user whatever the rules.
    Run(Option<PermissionDecision>),
    /// Do not run it; the model reads this.
    Refused(ToolOutput),
}

impl<H: Host, B: Backend + ?Sized> Agent<H, B> {
    /// A user turn, after the project's UserPromptSubmit hooks (when the agent does not run
    /// them itself); what SessionStart hooks added goes with the first one.
    pub async fn submit(&self, text: &str, images: &[ImageInput]) -> Vec<AgentOutput> {
        let mut text = text.to_string();
        if let Some(context) = self.hooks.take_start_context() {
            text = format!("{}\n\n{text}", tagged("session-start-hook", &context));
        }
        let mut out = Vec::new();
        if !self.backend.borrow().fires_hooks() {
            let mut fields = Map::new();
            fields.insert("prompt".into(), json!(text));
            let (outcome, told) = self.fire(HookEvent::UserPromptSubmit, fields).await;
            out.extend(told);
            if let Some(reason) = outcome.block.clone().or(outcome.stop.clone()) {
                out.push(notice(format!("UserPromptSubmit operation blocked by hook: {reason}")));
                out.push(AgentOutput::Event { event: blocked_turn() });
                return out;
            }
            if let Some(context) = outcome.context() {
                text = format!("{text}\n\n{}", tagged("user-prompt-submit-hook", &context));
            }
        }
        out.extend(self.prompt(&text, images));
        out
    }

    /// PreToolUse for a call of one of Tether's tools that reached it over MCP; it may rewrite
    /// the call's input.
    pub(super) async fn before_tool(&self, call: &mut ToolCall, tool_use_id: &str) -> (BeforeTool, Vec<AgentOutput>) {
        if self.backend.borrow().fires_hooks() {
            return (BeforeTool::Run(None), Vec::new());
        }
        let mut fields = Map::new();
        fields.insert("tool_name".into(), json!(call.name));
        fields.insert("tool_input".into(), call.arguments.clone());
        fields.insert("tool_use_id".into(), json!(tool_use_id));
        let (outcome, out) = self.fire(HookEvent::PreToolUse, fields).await;
        if let Some(input) = outcome.updated_input {
            call.arguments = input;
        }
        let verdict = match outcome.permission {
            Some((PermissionDecision::Deny, reason)) => BeforeTool::Refused(ToolOutput::error(format!(
                "PreToolUse:{} hook error: {reason}",
                call.name
            ))),
            _ if outcome.stop.is_some() => BeforeTool::Refused(ToolOutput::error(format!(
                "PreToolUse:{} hook stopped the agent: {}",
                call.name,
                outcome.stop.unwrap_or_default()
            ))),
            decision => BeforeTool::Run(decision.map(|(d, _)| d)),
        };
        (verdict, out)
    }

    /// PostToolUse after one of Tether's tools ran over MCP: the hooks see the built-in tool's
    /// response; what they block with or add reaches the model with the result.
    pub(super) async fn after_tool(
        &self,
        call: &ToolCall,
        tool_use_id: &str,
        mut output: ToolOutput,
    ) -> (ToolOutput, Vec<AgentOutput>) {
        if output.is_error || self.backend.borrow().fires_hooks() {
            return (output, Vec::new());
        }
        self.hooks.remember(tool_use_id, &output);
        let mut fields = Map::new();
        fields.insert("tool_name".into(), json!(call.name));
        fields.insert("tool_input".into(), call.arguments.clone());
        fields.insert(
            "tool_response".into(),
            output
                .structured
                .clone()
                .unwrap_or_else(|| Value::String(output.text_content())),
        );
        fields.insert("tool_use_id".into(), json!(tool_use_id));
        let (outcome, out) = self.fire(HookEvent::PostToolUse, fields).await;
        if let Some(reason) = &outcome.block {
            output.content.push(Content::Text(format!(
                "PostToolUse:{} hook feedback:\n{reason}",
                call.name
            )));
        }
        if let Some(context) = outcome.context() {
            output
                .content
                .push(Content::Text(tagged("post-tool-use-hook", &context)));
        }
        (output, out)
    }

    /// Stop, when a turn ended (`out` holds its `done`). A hook that blocks keeps the turn
    /// going: its reason goes to the agent as the next message, and the `done` is held back.
    pub(super) async fn turn_ended(&self, out: &mut Vec<AgentOutput>) {
        if self.backend.borrow().fires_hooks() {
            return;
        }
        let mut fields = Map::new();
        fields.insert("stop_hook_active".into(), json!(self.hooks.stop_hook_active()));
        let (outcome, told) = self.fire(HookEvent::Stop, fields).await;
        out.extend(told);
        let Some(reason) = outcome.block.filter(|_| outcome.stop.is_none()) else {
            self.hooks.set_stop_hook_active(false);
            return;
        };
        self.hooks.set_stop_hook_active(true);
        out.retain(|o| {
            !matches!(
                o,
                AgentOutput::Event {
                    event: UiEvent::Done { .. }
                }
            )
        });
        let outputs: Vec<Output> = self.backend().prompt(&format!("Stop hook feedback:\n{reason}"), &[]);
        out.extend(self.emit(outputs));
    }
}

fn tagged(tag: &str, text: &str) -> String {
    format!("<{tag}>\n{text}\n</{tag}>")
}

/// The end of a turn a UserPromptSubmit hook blocked before it reached the agent.
fn blocked_turn() -> UiEvent {
    UiEvent::Done {
        subtype: "blocked_by_hook".into(),
        is_error: true,
        duration_ms: 0,
        num_turns: 0,
        session_id: String::new(),
        result: None,
        stop_reason: None,
    }
}
