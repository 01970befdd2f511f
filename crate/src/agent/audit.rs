//! The audit log's records: every tool call Tether runs, every permission decision (and who made
//! it), every file written, every rule saved or removed. Paths, decisions, sizes and hashes, never
//! a file's contents. The driver appends them, with the time, to the session's JSONL file.

use super::AgentOutput;
use crate::backend::Verdict;
use crate::events::PermissionRequest;
use crate::gate::Judgement;
use crate::permissions::{RuleBehavior, RuleScope};
use crate::tools::{ToolOutput, WriteNote};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who made a permission decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum Decider {
    /// The user, on the card or in the review.
    User,
    /// A settings or session rule (named in `rule`).
    Rule,
    /// The permission mode (acceptEdits, plan, bypassPermissions, dontAsk).
    Mode,
    /// A hook of the agent's (its PreToolUse hook refused).
    Hook,
    /// The agent itself, or Tether's defaults (a read inside the workspace needs no permission).
    Policy,
}

/// One line of the audit log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum AuditRecord {
    /// One of Tether's tools ran.
    ToolCall {
        tool: String,
        tool_use_id: Option<String>,
        /// The paths its input names (as given).
        paths: Vec<String>,
        /// Bash: the command line.
        command: Option<String>,
        ok: bool,
        /// The size of the text the model got back.
        output_bytes: u64,
    },
    /// A permission question decided (`allow`, `deny`), or put to the user (`ask`).
    Permission {
        tool: String,
        tool_use_id: Option<String>,
        request_id: String,
        decision: String,
        by: Decider,
        /// The rule that decided, as `Bash(npm:*) in .claude/settings.json`.
        rule: Option<String>,
        reason: Option<String>,
        /// The option the user picked.
        option: Option<String>,
        /// "Always allow": the rules it saved and where.
        saved_rules: Option<Vec<String>>,
        scope: Option<RuleScope>,
        /// A per-hunk review: the hunks accepted (indices).
        accepted_hunks: Option<Vec<u32>>,
    },
    /// A file written (by a tool, a reviewed change, or a settings file).
    Write { path: String, bytes: u64, sha256: String },
    /// A rule taken out in the rules view.
    RuleRemoved {
        rule: String,
        behavior: RuleBehavior,
        scope: RuleScope,
    },
}

impl AuditRecord {
    pub fn tool_call(tool: &str, tool_use_id: Option<&str>, input: &Value, output: &ToolOutput) -> AuditRecord {
        let paths = ["file_path", "notebook_path", "path"]
            .iter()
            .filter_map(|key| input.get(key).and_then(Value::as_str))
            .map(str::to_string)
            .collect();
        AuditRecord::ToolCall {
            tool: tool.to_string(),
            tool_use_id: tool_use_id.map(str::to_string),
            paths,
            command: (tool == "Bash")
                .then(|| input.get("command").and_then(Value::as_str).map(str::to_string))
                .flatten(),
            ok: !output.is_error,
            output_bytes: output.text_content().len() as u64,
        }
    }

    pub fn write(note: WriteNote) -> AuditRecord {
        AuditRecord::Write {
            path: note.path,
            bytes: note.bytes,
            sha256: note.sha256,
        }
    }

    /// A decision the permission engine (or the agent's own check) made without the user.
    pub fn decided(
        tool: &str,
        tool_use_id: Option<&str>,
        request_id: &str,
        decision: &str,
        reason: &str,
    ) -> AuditRecord {
        let (by, rule) = decider_of(reason);
        AuditRecord::Permission {
            tool: tool.to_string(),
            tool_use_id: tool_use_id.map(str::to_string),
            request_id: request_id.to_string(),
            decision: decision.to_string(),
            by,
            rule,
            reason: Some(reason.to_string()),
            option: None,
            saved_rules: None,
            scope: None,
            accepted_hunks: None,
        }
    }
}

/// Who decided, read from the engine's reason ("allowed by rule Bash(ls) in this session",
/// "acceptEdits mode: …", "bypassPermissions mode").
fn decider_of(reason: &str) -> (Decider, Option<String>) {
    for marker in ["by rule ", "ask rule "] {
        if let Some(at) = reason.find(marker) {
            let rule = reason[at + marker.len()..].split(" covers ").next().unwrap_or_default();
            return (Decider::Rule, Some(rule.to_string()));
        }
    }
    let lower = reason.to_lowercase();
    if lower.starts_with("hook") || lower.contains(" hook") {
        return (Decider::Hook, None);
    }
    if reason.contains(" mode") || reason.contains("mode:") {
        return (Decider::Mode, None);
    }
    (Decider::Policy, None)
}

/// What the audit log says of a permission question: its tool and ids.
#[derive(Clone)]
pub(crate) struct Asked {
    pub(crate) tool: String,
    pub(crate) tool_use_id: Option<String>,
    request_id: String,
}

impl Asked {
    pub(crate) fn of(request: &PermissionRequest) -> Asked {
        Asked {
            tool: request.tool_name.clone(),
            tool_use_id: request.tool_use_id.clone(),
            request_id: request.id.clone(),
        }
    }

    /// The record of the gate's judgement: its decision, or that it asked the user.
    pub(crate) fn record(&self, judgement: &Judgement) -> AgentOutput {
        let (decision, reason) = match judgement {
            Judgement::Answered { verdict, reason, .. } => {
                let decision = match verdict {
                    Verdict::Denied { .. } => "deny",
                    _ => "allow",
                };
                (decision, reason.as_str())
            }
            Judgement::Ask(request) => ("ask", request.reason.as_deref().unwrap_or("")),
        };
        let record = AuditRecord::decided(
            &self.tool,
            self.tool_use_id.as_deref(),
            &self.request_id,
            decision,
            reason,
        );
        AgentOutput::Audit { record }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decider_is_read_from_the_reason() {
        assert_eq!(
            decider_of("allowed by rule Bash(npm run:*) in .claude/settings.json"),
            (Decider::Rule, Some("Bash(npm run:*) in .claude/settings.json".into()))
        );
        assert_eq!(
            decider_of("ask rule Edit(src/**) in this session covers src/a.js"),
            (Decider::Rule, Some("Edit(src/**) in this session".into()))
        );
        assert_eq!(
            decider_of("acceptEdits mode: src/a.js is inside the workspace").0,
            Decider::Mode
        );
        assert_eq!(decider_of("bypassPermissions mode").0, Decider::Mode);
        assert_eq!(decider_of("reading a.js inside the workspace").0, Decider::Policy);
        assert_eq!(decider_of("Hook PreToolUse:Bash denied this tool").0, Decider::Hook);
    }

    #[test]
    fn a_tool_call_record_names_paths_and_sizes_not_contents() {
        let input = serde_json::json!({"file_path": "/w/a.txt", "content": "SECRET"});
        let record = AuditRecord::tool_call("Write", Some("t1"), &input, &ToolOutput::text("done"));
        let line = serde_json::to_string(&record).unwrap();
        assert!(!line.contains("SECRET"), "{line}");
        assert_eq!(
            record,
            AuditRecord::ToolCall {
                tool: "Write".into(),
                tool_use_id: Some("t1".into()),
                paths: vec!["/w/a.txt".into()],
                command: None,
                ok: true,
                output_bytes: 4,
            }
        );
    }
}
