//! Plan mode: the model explores and presents a plan; nothing changes. A file change and a
//! command the read-only table does not accept are refused without asking (asking would let an
//! approval write the file), whatever allow rules say; a deny rule's own refusal still wins.
//! The first sentence is Claude Code's own (2.1.330 asks "Cannot write to PATH while in plan
//! mode.", which a headless run turns into the refusal; "Cannot call TOOL while in plan mode." for
//! other tools); the second tells the model what to do instead.

use super::Check;
use crate::permissions::request::{Access, Target, ToolRequest};
use crate::permissions::shell::split_commands;
use crate::permissions::{Decision, PermissionEngine};

/// What the model should do instead of changing things.
const PLAN_ADVICE: &str = "Plan mode is active: the user wants a plan before any change. Explore with read-only tools only, then present your plan to the user and wait for their approval before editing files or running commands.";

impl PermissionEngine {
    /// In plan mode, the refusal of a call that would change files or run a command that is not
    /// read-only; None for anything else, which is judged as in any other mode.
    pub(super) fn plan_refusal(&self, request: &ToolRequest) -> Option<Decision> {
        let tool = &request.tool;
        let (check, refusal) = match &request.access {
            Access::Write(target) => (
                self.check_edit(tool, target),
                format!("Cannot write to {} while in plan mode.", self.plan_target(target)),
            ),
            Access::Execute(line) if self.reads_only(line) => return None,
            Access::Execute(line) => (
                self.check_bash(tool, line),
                format!("Cannot call {tool} while in plan mode."),
            ),
            _ => return None,
        };
        if let Check::Deny { message, reason } = check {
            return Some(Decision::Deny { message, reason });
        }
        Some(Decision::Deny {
            message: format!("{refusal} {PLAN_ADVICE}"),
            reason: "plan mode: no file changes or commands until the plan is approved".into(),
        })
    }

    /// The path a write names, as the CLI shows it (absolute, in the workspace).
    fn plan_target(&self, target: &Target) -> String {
        match target {
            Target::Path { path, .. } | Target::PatternBase(path) => {
                self.paths.resolve(path).unwrap_or_else(|_| path.clone())
            }
            Target::Root => self.paths.root().to_string(),
            Target::Missing(field) => format!("a file (no {field} given)"),
        }
    }

    /// Every command of `line` is one the read-only table accepts.
    fn reads_only(&self, line: &str) -> bool {
        let commands = split_commands(line.trim());
        let mut cwd = self.shell_cwd.clone();
        !commands.is_empty()
            && commands.iter().all(|command| {
                let read_only = self.is_read_only_command(command, cwd.as_deref());
                cwd = self.cwd_after(command, cwd.take());
                read_only
            })
    }
}
