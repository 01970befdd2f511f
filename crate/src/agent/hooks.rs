//! The project's hooks in a session ([`crate::hooks`]): read with the permission settings at
//! start, then run on the workspace for the events the agent fires itself (Claude Code's
//! `hook_callback`, [`Action::RunHooks`](crate::backend::Action::RunHooks)) and for the others
//! here: SessionStart when the session starts, Notification when a question waits for the user,
//! and, for an agent that fires none (ACP agents), PreToolUse and PostToolUse around Tether's
//! tools, UserPromptSubmit before a prompt and Stop when a turn ends. Scripts see Tether's tools
//! by their built-in names and inputs, and PostToolUse's `tool_response` in the built-in tool's
//! shape. What the hooks tell the user shows in the chat as notices.

use super::{notice, Agent, AgentOutput};
use crate::backend::{Backend, HookCall};
use crate::hooks::{run_hooks, HookContext, HookEvent, HookOutcome, HookSet, HooksSource};
use crate::host::Host;
use crate::mcp::MCP_PREFIX;
use crate::permissions::{SettingsKind, SettingsSource};
use crate::tools::{ToolOutput, TOOL_NAMES};
use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

/// How many tool results are kept for the PostToolUse hooks that follow them.
const KEPT_RESPONSES: usize = 32;

/// The session's hooks and what their events need to know.
#[derive(Default)]
pub(super) struct SessionHooks {
    set: RefCell<Rc<HookSet>>,
    session_id: RefCell<String>,
    /// Tether's tool results in the built-in tools' shape, by tool use id.
    responses: RefCell<VecDeque<(String, Value)>>,
    /// What SessionStart hooks added, for the model with the first prompt.
    start_context: RefCell<Option<String>>,
    /// The turn goes on because a Stop hook blocked its end (Claude Code's `stop_hook_active`).
    stop_hook_active: Cell<bool>,
}

impl SessionHooks {
    /// The agent's session id, once it told it.
    pub(super) fn set_session_id(&self, id: &str) {
        *self.session_id.borrow_mut() = id.to_string();
    }

    pub(super) fn stop_hook_active(&self) -> bool {
        self.stop_hook_active.get()
    }

    /// Whether the turn goes on because a Stop hook blocked its end.
    pub(super) fn set_stop_hook_active(&self, active: bool) {
        self.stop_hook_active.set(active);
    }

    /// SessionStart's context, once.
    pub(super) fn take_start_context(&self) -> Option<String> {
        self.start_context.borrow_mut().take()
    }

    /// Tether's result of a tool use, for a PostToolUse hook that follows it.
    pub(super) fn remember(&self, tool_use_id: &str, output: &ToolOutput) {
        let response = match &output.structured {
            Some(structured) => structured.clone(),
            None => Value::String(output.text_content()),
        };
        let mut responses = self.responses.borrow_mut();
        if responses.len() == KEPT_RESPONSES {
            responses.pop_front();
        }
        responses.push_back((tool_use_id.to_string(), response));
    }

    fn response(&self, tool_use_id: &str) -> Option<Value> {
        let responses = self.responses.borrow();
        responses
            .iter()
            .rev()
            .find(|(id, _)| id == tool_use_id)
            .map(|(_, r)| r.clone())
    }
}

impl<H: Host, B: Backend + ?Sized> Agent<H, B> {
    /// Read the hooks of the settings the gate loaded (the user's only when allowed).
    pub(super) fn load_hooks(&self, sources: &[SettingsSource]) -> Vec<String> {
        if self.backend.borrow().runs_settings_hooks_itself() {
            return Vec::new();
        }
        let allowed = self.config.hooks.clone().unwrap_or_default();
        let texts: Vec<(HooksSource, &str)> = sources
            .iter()
            .filter_map(|source| {
                let (kind, on) = match source.kind {
                    SettingsKind::User => (HooksSource::User, allowed.user),
                    SettingsKind::Project => (HooksSource::Project, allowed.project),
                    SettingsKind::Local => (HooksSource::Local, allowed.project),
                };
                on.then_some((kind, source.text.as_str()))
            })
            .collect();
        let (set, notices) = HookSet::from_settings(&texts);
        *self.hooks.set.borrow_mut() = Rc::new(set);
        notices
    }

    fn hook_context(&self) -> HookContext {
        HookContext {
            root: self.toolset().paths.root().to_string(),
            session_id: self.hooks.session_id.borrow().clone(),
            transcript_path: String::new(),
            permission_mode: self.mode().as_str().to_string(),
        }
    }

    /// Run `event`'s hooks for `input` (complete, as the scripts read it); what they tell the
    /// user as notices.
    async fn run_event(&self, event: HookEvent, input: Value) -> (HookOutcome, Vec<AgentOutput>) {
        let set = self.hooks.set.borrow().clone();
        if !set.has(event) {
            return (HookOutcome::default(), Vec::new());
        }
        let tools = self.toolset();
        // The agent's paths (a mirror's, for an agent in one) are the workspace's to the scripts.
        let input = on_workspace(input, &|text| tools.paths.rewrite_command(text));
        let outcome = run_hooks(&tools.host, &set, event, &input, tools.paths.root()).await;
        let mut out: Vec<AgentOutput> = outcome.messages.iter().cloned().map(notice).collect();
        if let Some(reason) = &outcome.stop {
            out.push(notice(format!("{} hook stopped the agent: {reason}", event.as_str())));
        }
        (outcome, out)
    }

    /// Fire `event` with its own `fields` (the common ones added).
    pub(super) async fn fire(&self, event: HookEvent, fields: Map<String, Value>) -> (HookOutcome, Vec<AgentOutput>) {
        let input = self.hook_context().input(event, fields);
        self.run_event(event, input).await
    }

    /// A hook event the agent fired: the project's hooks for it, and the backend's answer.
    pub(super) async fn run_hook_call(&self, call: HookCall) -> Vec<AgentOutput> {
        let mut fields = match call.input {
            Value::Object(fields) => self.as_builtin(call.event, fields),
            _ => Map::new(),
        };
        // The CLI's own mode is `default` whenever Tether's is not plan: Tether's is the session's.
        fields.insert("permission_mode".into(), json!(self.mode().as_str()));
        let input = self.hook_context().input(call.event, fields);
        let (outcome, mut out) = self.run_event(call.event, input).await;
        let outputs = self.backend().hook_result(&call.call, call.event, &outcome);
        out.extend(self.emit(outputs));
        out
    }

    /// The agent's hook input as the scripts would see it with the built-in tools: Tether's
    /// tools by their built-in names, and a tool's response in the built-in shape.
    fn as_builtin(&self, event: HookEvent, mut fields: Map<String, Value>) -> Map<String, Value> {
        let tool = fields.get("tool_name").and_then(Value::as_str).map(str::to_string);
        let Some(builtin) = tool.as_deref().and_then(tether_builtin) else {
            return fields;
        };
        fields.insert("tool_name".into(), json!(builtin));
        fields.remove("mcp_server");
        if event == HookEvent::PostToolUse {
            let use_id = fields.get("tool_use_id").and_then(Value::as_str).unwrap_or_default();
            if let Some(response) = self.hooks.response(use_id) {
                fields.insert("tool_response".into(), response);
            }
        }
        fields
    }

    /// SessionStart, once the settings are read: what its hooks add goes to the model with the
    /// first prompt.
    pub(super) async fn session_start(&self) -> Vec<AgentOutput> {
        let source = if self.config.resume.is_some() {
            "resume"
        } else {
            "startup"
        };
        let mut fields = Map::new();
        fields.insert("source".into(), json!(source));
        let (outcome, out) = self.fire(HookEvent::SessionStart, fields).await;
        *self.hooks.start_context.borrow_mut() = outcome.context();
        out
    }

    /// Notification: a question waits for the user.
    pub(super) async fn notify_permission(&self, tool: &str) -> Vec<AgentOutput> {
        let mut fields = Map::new();
        let agent = self.backend.borrow().name();
        fields.insert(
            "message".into(),
            json!(format!("{agent} needs your permission to use {tool}")),
        );
        fields.insert("notification_type".into(), json!("permission_prompt"));
        self.fire(HookEvent::Notification, fields).await.1
    }
}

/// `value` with `map` applied to every string in it.
fn on_workspace(value: Value, map: &dyn Fn(&str) -> String) -> Value {
    match value {
        Value::String(text) => Value::String(map(&text)),
        Value::Array(items) => Value::Array(items.into_iter().map(|v| on_workspace(v, map)).collect()),
        Value::Object(fields) => Value::Object(fields.into_iter().map(|(k, v)| (k, on_workspace(v, map))).collect()),
        other => other,
    }
}

/// The built-in name of one of Tether's tools as the agent names it (`mcp__tether__Edit`).
fn tether_builtin(name: &str) -> Option<&'static str> {
    let short = name.strip_prefix(MCP_PREFIX)?;
    TOOL_NAMES.iter().copied().find(|tool| *tool == short)
}
