//! The project's hooks: Claude Code's `hooks` in `.claude/settings.json` and
//! `.claude/settings.local.json` (and, when the user allows it, `~/.claude/settings.json`), run
//! on the workspace through the host's [`Exec`](crate::host::Exec) — the same path Tether's Bash
//! takes: the local folder on a local workspace, the remote executor on a remote one — never on
//! the laptop's mirror.
//!
//! The contract is Claude Code's: the event's JSON on stdin, `CLAUDE_PROJECT_DIR` in the
//! environment, the workspace root as the working directory, a timeout (60 s unless the hook
//! says `timeout` in seconds); exit 0 (stdout may be JSON), 2 (a blocking error, stderr the
//! reason), anything else (a non-blocking error the user is shown). Matchers as Claude Code
//! reads them ([`matcher`]). Tool events name Tether's tools by their built-in names (`Edit`,
//! `Bash`), so a project's `Edit|Write` matcher and its scripts see what they see with Claude
//! Code's own tools.
//!
//! Sans I/O apart from the host: [`config`] reads the settings texts, [`run`] runs the matching
//! commands, [`outcome`] folds their results into one [`HookOutcome`].

pub mod config;
pub mod matcher;
pub mod outcome;
pub mod run;

pub use config::{CommandHook, HookSet, HooksSource};
pub use outcome::{HookOutcome, PermissionDecision};
pub use run::{run_hooks, HookContext};

use serde_json::Value;

/// The events Tether runs hooks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    Stop,
    SubagentStop,
    SessionStart,
    Notification,
    PreCompact,
}

impl HookEvent {
    pub const ALL: [HookEvent; 8] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::UserPromptSubmit,
        HookEvent::Stop,
        HookEvent::SubagentStop,
        HookEvent::SessionStart,
        HookEvent::Notification,
        HookEvent::PreCompact,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::SessionStart => "SessionStart",
            HookEvent::Notification => "Notification",
            HookEvent::PreCompact => "PreCompact",
        }
    }

    pub fn parse(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// The input field a matcher is tested against (Claude Code's choice per event); None: the
    /// event takes no matcher, every group runs.
    pub fn subject(self, input: &Value) -> Option<&str> {
        let field = match self {
            HookEvent::PreToolUse | HookEvent::PostToolUse => "tool_name",
            HookEvent::SessionStart => "source",
            HookEvent::Notification => "notification_type",
            HookEvent::PreCompact => "trigger",
            HookEvent::SubagentStop => "agent_type",
            HookEvent::UserPromptSubmit | HookEvent::Stop => return None,
        };
        input.get(field).and_then(Value::as_str)
    }

    /// Whether a matcher may list names with `,` and spaces as well as `|` (Claude Code's
    /// events whose matchers name things: tools, sources, types).
    fn lists_names_loosely(self) -> bool {
        !matches!(self, HookEvent::UserPromptSubmit | HookEvent::Stop)
    }
}
