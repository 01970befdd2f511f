//! Where a permission rule lives (this session, or one of the three settings files), the rules in
//! effect as the rules view lists them, and taking one rule out of a settings file's text without
//! disturbing anything else in it.

use super::engine::{Origin, PermissionEngine};
use super::rules::{Behavior, Rule};
use super::settings::PersistError;
use super::SettingsKind;
use crate::json::{read_struct, read_unit_enum};
use serde::Serialize;
use serde_json::Value;

/// Where a rule lives, named as Claude Code names a permission update's destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum RuleScope {
    /// Until the session ends; written nowhere.
    Session,
    /// The project's shared `.claude/settings.json` (on the workspace).
    ProjectSettings,
    /// The project's `.claude/settings.local.json` (on the workspace; git-ignored by Claude Code).
    LocalSettings,
    /// `~/.claude/settings.json` where Claude's user settings live (the machine the CLI runs on).
    UserSettings,
}

read_unit_enum!(RuleScope {
    Session = "session",
    ProjectSettings = "projectSettings",
    LocalSettings = "localSettings",
    UserSettings = "userSettings",
});

impl RuleScope {
    pub const ALL: [RuleScope; 4] = [
        RuleScope::Session,
        RuleScope::ProjectSettings,
        RuleScope::LocalSettings,
        RuleScope::UserSettings,
    ];

    /// The settings file, or None for the session.
    pub fn settings_kind(self) -> Option<SettingsKind> {
        match self {
            RuleScope::Session => None,
            RuleScope::ProjectSettings => Some(SettingsKind::Project),
            RuleScope::LocalSettings => Some(SettingsKind::Local),
            RuleScope::UserSettings => Some(SettingsKind::User),
        }
    }

    pub fn of_kind(kind: SettingsKind) -> RuleScope {
        match kind {
            SettingsKind::Project => RuleScope::ProjectSettings,
            SettingsKind::Local => RuleScope::LocalSettings,
            SettingsKind::User => RuleScope::UserSettings,
        }
    }

    /// For people: "this session", ".claude/settings.json", …
    pub fn label(self) -> &'static str {
        self.settings_kind().map_or("this session", SettingsKind::file_label)
    }

    pub fn parse(text: &str) -> Option<RuleScope> {
        Some(match text {
            "session" => RuleScope::Session,
            "projectSettings" => RuleScope::ProjectSettings,
            "localSettings" => RuleScope::LocalSettings,
            "userSettings" => RuleScope::UserSettings,
            _ => return None,
        })
    }
}

/// What a rule does, as the settings files' keys name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum RuleBehavior {
    Allow,
    Deny,
    Ask,
}

read_unit_enum!(RuleBehavior {
    Allow = "allow",
    Deny = "deny",
    Ask = "ask",
});

impl RuleBehavior {
    fn key(self) -> &'static str {
        match self {
            RuleBehavior::Allow => "allow",
            RuleBehavior::Deny => "deny",
            RuleBehavior::Ask => "ask",
        }
    }

    pub(super) fn of(behavior: Behavior) -> RuleBehavior {
        match behavior {
            Behavior::Allow => RuleBehavior::Allow,
            Behavior::Deny => RuleBehavior::Deny,
            Behavior::Ask => RuleBehavior::Ask,
        }
    }
}

/// One rule in effect, for the rules view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RuleEntry {
    /// As written in settings (`Bash(npm run test:*)`).
    pub rule: String,
    pub behavior: RuleBehavior,
    pub scope: RuleScope,
}

read_struct!(RuleEntry {
    rule: required "rule",
    behavior: required "behavior",
    scope: required "scope",
});

impl PermissionEngine {
    /// Every rule in effect: the settings files' (in the order loaded), then the session's.
    pub fn rule_entries(&self) -> Vec<RuleEntry> {
        let mut entries: Vec<RuleEntry> = Vec::new();
        for stored in self.all_rules() {
            let entry = RuleEntry {
                rule: stored.rule.to_string(),
                behavior: RuleBehavior::of(stored.behavior),
                scope: match stored.origin {
                    Origin::Settings(kind) => RuleScope::of_kind(kind),
                    Origin::Session => RuleScope::Session,
                },
            };
            if !entries.contains(&entry) {
                entries.push(entry);
            }
        }
        entries
    }

    /// Take a session rule out; false when there is none like it.
    pub fn remove_session_rule(&mut self, rule: &Rule) -> bool {
        let before = self.session_rules.len();
        self.session_rules.retain(|stored| stored.rule != *rule);
        self.session_rules.len() != before
    }
}

/// The settings file's new text without `rule` in `permissions.<behavior>` (compared in its
/// normalised form); every other key keeps its value and place. `Ok(None)` when the file does not
/// hold the rule.
pub fn remove_rule_from_settings(
    existing: &str,
    behavior: RuleBehavior,
    rule: &Rule,
) -> Result<Option<String>, PersistError> {
    let mut root: Value = serde_json::from_str(existing).map_err(|e| PersistError::Malformed(e.to_string()))?;
    let wanted = rule.to_string();
    let Some(list) = root
        .get_mut("permissions")
        .and_then(|p| p.get_mut(behavior.key()))
        .and_then(Value::as_array_mut)
    else {
        return Ok(None);
    };
    let before = list.len();
    list.retain(|value| {
        let Some(text) = value.as_str() else { return true };
        Rule::parse(text).map_or_else(|| text.to_string(), |r| r.to_string()) != wanted
    });
    if list.len() == before {
        return Ok(None);
    }
    let mut text = serde_json::to_string_pretty(&root).map_err(|e| PersistError::Malformed(e.to_string()))?;
    text.push('\n');
    Ok(Some(text))
}
