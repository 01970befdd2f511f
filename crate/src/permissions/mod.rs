//! The permission engine: Claude Code's permission modes and settings rules applied to Tether's
//! tools (asked under their built-in names, `Edit`, or as `mcp__tether__Edit`). Pure logic: the
//! session layer reads the settings files through the host and hands their text in.
//!
//! Order of evaluation, as in the CLI (2.1.330): a tool-wide deny rule denies and a tool-wide
//! ask rule asks; then the tool's own check (path rules for Read/Edit, command rules for Bash,
//! modes, the working directories) may deny, or ask in a way nothing overrides (an ask rule, a
//! sensitive file, a dangerous removal); after that bypassPermissions allows, a tool-wide allow
//! rule allows, and otherwise the tool's own verdict stands. In dontAsk mode every ask becomes a
//! denial. Deny beats ask beats allow across all sources.

mod bash;
mod command_prefixes;
mod decide;
mod engine;
mod path_rules;
mod read_only;
mod request;
mod rules;
mod scope;
mod settings;
mod shell;
mod suggestions;

pub use engine::PermissionEngine;
pub use request::{Access, Target, ToolRequest};
pub use rules::{canonical_tool_name, Rule};
pub use scope::{remove_rule_from_settings, RuleBehavior, RuleEntry, RuleScope};
pub use settings::{persist_rules, PersistError};
pub use suggestions::{describe_suggestions, mirror_settings_rules, rewrite_suggestions, AlwaysAllow};

use std::fmt;

/// Claude Code's permission modes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase"))]
pub enum PermissionMode {
    #[default]
    Default,
    AcceptEdits,
    Plan,
    DontAsk,
    BypassPermissions,
}

impl PermissionMode {
    pub const ALL: [PermissionMode; 5] = [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::Plan,
        PermissionMode::DontAsk,
        PermissionMode::BypassPermissions,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::BypassPermissions => "bypassPermissions",
        }
    }

    /// The CLI's spelling; `manual` is its other name for `default`.
    pub fn parse(text: &str) -> Option<PermissionMode> {
        Some(match text {
            "default" | "manual" => PermissionMode::Default,
            "acceptEdits" => PermissionMode::AcceptEdits,
            "plan" => PermissionMode::Plan,
            "dontAsk" => PermissionMode::DontAsk,
            "bypassPermissions" => PermissionMode::BypassPermissions,
            _ => return None,
        })
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which settings file a source is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SettingsKind {
    /// `~/.claude/settings.json`
    User,
    /// `<project>/.claude/settings.json`
    Project,
    /// `<project>/.claude/settings.local.json`
    Local,
}

impl SettingsKind {
    pub fn file_label(self) -> &'static str {
        match self {
            SettingsKind::User => "~/.claude/settings.json",
            SettingsKind::Project => ".claude/settings.json",
            SettingsKind::Local => ".claude/settings.local.json",
        }
    }
}

/// One settings file's text. `base_dir` is the directory its `/path` rules and relative
/// `additionalDirectories` are relative to: the project root for project and local settings,
/// the directory holding the file (`~/.claude`) for user settings.
#[derive(Clone, Debug)]
pub struct SettingsSource {
    pub kind: SettingsKind,
    pub text: String,
    pub base_dir: String,
}

/// A problem in a settings file; the rest of it, and the other files, still apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub source: SettingsKind,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.source.file_label(), self.message)
    }
}

/// The engine's answer for one tool call. Every variant carries a short reason for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Allow {
        reason: String,
    },
    /// `message` is what the model reads as the tool result.
    Deny {
        message: String,
        reason: String,
    },
    /// Ask the user; `always_allow` is what "Always allow" on the card would do (None when the
    /// answer can only be given once).
    Ask {
        reason: String,
        always_allow: Option<AlwaysAllow>,
    },
}

impl Decision {
    pub fn reason(&self) -> &str {
        match self {
            Decision::Allow { reason } | Decision::Deny { reason, .. } | Decision::Ask { reason, .. } => reason,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModeError {
    /// `permissions.disableBypassPermissionsMode: "disable"` is set.
    BypassDisabled,
}

impl fmt::Display for ModeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModeError::BypassDisabled => {
                f.write_str("bypassPermissions mode is disabled by settings (permissions.disableBypassPermissionsMode)")
            }
        }
    }
}

impl std::error::Error for ModeError {}
