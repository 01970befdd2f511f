//! What the hooks that ran for one event decided, folded into one [`HookOutcome`] by Claude
//! Code's contract: exit 0 with stdout that may be JSON (`continue`, `stopReason`,
//! `systemMessage`, `decision` `block`/`approve`, `reason`, `hookSpecificOutput` with
//! `permissionDecision`, `permissionDecisionReason`, `updatedInput`, `additionalContext`), exit 2
//! a blocking error whose stderr is the reason, any other exit (or a timeout) a non-blocking
//! error the user is shown. Among several PreToolUse hooks deny wins over ask over allow.

use super::HookEvent;
use crate::host::ExecOutput;
use serde_json::{json, Map, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PermissionDecision {
    Allow,
    Ask,
    Deny,
}

impl PermissionDecision {
    fn parse(text: &str) -> Option<PermissionDecision> {
        match text {
            "allow" | "approve" => Some(PermissionDecision::Allow),
            "ask" => Some(PermissionDecision::Ask),
            "deny" | "block" => Some(PermissionDecision::Deny),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PermissionDecision::Allow => "allow",
            PermissionDecision::Ask => "ask",
            PermissionDecision::Deny => "deny",
        }
    }
}

/// One hook's run: its command and what the host reported (Err: it could not be started).
pub struct HookRun<'a> {
    pub command: &'a str,
    pub timeout_secs: f64,
    pub result: Result<ExecOutput, String>,
}

/// What the event's hooks decided together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookOutcome {
    /// How many hooks ran.
    pub ran: usize,
    /// PreToolUse: the strongest decision and its reason.
    pub permission: Option<(PermissionDecision, String)>,
    /// PreToolUse: the tool's input as a hook rewrote it.
    pub updated_input: Option<Value>,
    /// The other events' blocking answer (exit 2 or `decision: "block"`): the reason, which
    /// the model reads (PostToolUse, Stop) or the user does (UserPromptSubmit).
    pub block: Option<String>,
    /// Text the model gets with the event (`additionalContext`; a UserPromptSubmit or
    /// SessionStart hook's plain stdout).
    pub additional_context: Vec<String>,
    /// `continue: false`: the agent stops, with this reason for the user.
    pub stop: Option<String>,
    /// For the user, in the chat: `systemMessage`s, blocks, failures.
    pub messages: Vec<String>,
}

impl HookOutcome {
    /// Fold the runs of `event`'s hooks; `subject` names what they ran for (`Bash`), as Claude
    /// Code's messages do (`PreToolUse:Bash`).
    pub fn fold(event: HookEvent, subject: Option<&str>, runs: Vec<HookRun>) -> HookOutcome {
        let label = match subject {
            Some(subject) => format!("{}:{subject}", event.as_str()),
            None => event.as_str().to_string(),
        };
        let mut outcome = HookOutcome {
            ran: runs.len(),
            ..HookOutcome::default()
        };
        for run in runs {
            match run.result {
                Err(message) => outcome
                    .messages
                    .push(format!("{label} hook error: {}: {message}", run.command)),
                Ok(output) if output.timed_out => outcome.messages.push(format!(
                    "{label} hook timed out after {} s: {}",
                    run.timeout_secs, run.command
                )),
                Ok(output) => match output.exit_code {
                    Some(0) => outcome.take_stdout(event, &label, &output.stdout),
                    Some(2) => outcome.take_blocking_error(event, &label, run.command, output.stderr.trim()),
                    code => outcome.messages.push(format!(
                        "{label} hook error: {}: {}",
                        run.command,
                        failure_text(code, output.stderr.trim())
                    )),
                },
            }
        }
        outcome
    }

    fn take_blocking_error(&mut self, event: HookEvent, label: &str, command: &str, stderr: &str) {
        let reason = if stderr.is_empty() {
            format!("{command} exited with code 2")
        } else {
            stderr.to_string()
        };
        match event {
            // The refused call's row shows the reason the model reads: no second notice.
            HookEvent::PreToolUse => return self.decide(PermissionDecision::Deny, reason),
            HookEvent::PostToolUse | HookEvent::Stop | HookEvent::SubagentStop | HookEvent::UserPromptSubmit => {
                self.add_block(reason.clone())
            }
            // Nothing to block: the user reads it.
            HookEvent::SessionStart | HookEvent::Notification | HookEvent::PreCompact => {}
        }
        self.messages.push(format!("{label} hook blocking error: {reason}"));
    }

    fn take_stdout(&mut self, event: HookEvent, label: &str, stdout: &str) {
        let trimmed = stdout.trim();
        let Some(fields) = trimmed
            .starts_with('{')
            .then(|| match serde_json::from_str(trimmed) {
                Ok(Value::Object(fields)) => Some(fields),
                _ => None,
            })
            .flatten()
        else {
            // Plain stdout is context for the model only where Claude Code makes it so.
            if matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart) && !trimmed.is_empty() {
                self.additional_context.push(trimmed.to_string());
            }
            return;
        };
        let text = |name: &str| fields.get(name).and_then(Value::as_str).map(str::to_string);
        if let Some(message) = text("systemMessage").filter(|m| !m.trim().is_empty()) {
            self.messages.push(message);
        }
        if fields.get("continue") == Some(&Value::Bool(false)) {
            self.stop = Some(text("stopReason").unwrap_or_default());
        }
        let reason = text("reason").unwrap_or_default();
        match (event, text("decision").as_deref()) {
            (HookEvent::PreToolUse, Some(decision)) => {
                if let Some(decision) = PermissionDecision::parse(decision) {
                    self.decide(decision, reason.clone());
                }
            }
            (_, Some("block")) => {
                let reason = if reason.is_empty() {
                    format!("blocked by the {label} hook")
                } else {
                    reason
                };
                self.messages.push(format!("{label} hook blocked: {reason}"));
                self.add_block(reason);
            }
            _ => {}
        }
        let Some(specific) = fields.get("hookSpecificOutput").and_then(Value::as_object) else {
            return;
        };
        let specific_text = |name: &str| specific.get(name).and_then(Value::as_str);
        if let Some(decision) = specific_text("permissionDecision").and_then(PermissionDecision::parse) {
            if event == HookEvent::PreToolUse {
                let reason = specific_text("permissionDecisionReason").unwrap_or_default();
                self.decide(decision, reason.to_string());
            }
        }
        if let Some(input) = specific.get("updatedInput").filter(|i| i.is_object()) {
            if event == HookEvent::PreToolUse {
                self.updated_input = Some(input.clone());
            }
        }
        if let Some(context) = specific_text("additionalContext").filter(|c| !c.trim().is_empty()) {
            self.additional_context.push(context.to_string());
        }
    }

    fn decide(&mut self, decision: PermissionDecision, reason: String) {
        if self.permission.as_ref().is_none_or(|(current, _)| decision > *current) {
            self.permission = Some((decision, reason));
        }
    }

    fn add_block(&mut self, reason: String) {
        self.block = Some(match self.block.take() {
            Some(earlier) => format!("{earlier}\n{reason}"),
            None => reason,
        });
    }

    /// The additional context as one text, if any.
    pub fn context(&self) -> Option<String> {
        (!self.additional_context.is_empty()).then(|| self.additional_context.join("\n"))
    }

    /// The answer to Claude Code's `hook_callback` for `event`: the same JSON a command hook
    /// prints, so the CLI does with it what it does with its own hooks' output.
    pub fn to_claude(&self, event: HookEvent) -> Value {
        let mut answer = Map::new();
        if let Some(reason) = &self.stop {
            answer.insert("continue".into(), Value::Bool(false));
            answer.insert("stopReason".into(), Value::String(reason.clone()));
        }
        if let Some(reason) = &self.block {
            answer.insert("decision".into(), json!("block"));
            answer.insert("reason".into(), Value::String(reason.clone()));
        }
        let mut specific = Map::new();
        if let Some((decision, reason)) = &self.permission {
            specific.insert("permissionDecision".into(), json!(decision.as_str()));
            specific.insert("permissionDecisionReason".into(), json!(reason));
        }
        if let Some(input) = &self.updated_input {
            specific.insert("updatedInput".into(), input.clone());
        }
        if let Some(context) = self.context() {
            specific.insert("additionalContext".into(), Value::String(context));
        }
        if !specific.is_empty() {
            specific.insert("hookEventName".into(), json!(event.as_str()));
            answer.insert("hookSpecificOutput".into(), Value::Object(specific));
        }
        Value::Object(answer)
    }
}

fn failure_text(code: Option<i32>, stderr: &str) -> String {
    let status = match code {
        Some(code) => format!("Failed with non-blocking status code {code}"),
        None => "Killed by a signal".to_string(),
    };
    if stderr.is_empty() {
        status
    } else {
        format!("{status}: {stderr}")
    }
}
