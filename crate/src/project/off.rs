//! "What is off, and why": what the project configures that Tether does not run for a session,
//! each with the reason, for the session's info. This part reads the settings files; the driver
//! adds what it learns while it starts (MCP servers denied, not yet approved, or failed).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One thing the project configures that does not run in this session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OffItem {
    /// What it is, for people: `hooks: PostToolUse (.claude/settings.json)`, `MCP server "db"`.
    pub what: String,
    pub reason: String,
}

/// Settings keys Tether does not apply, and why. One line each: a key Tether comes to run leaves
/// the table.
const SETTINGS_NOT_RUN: &[(&str, &str)] = &[
    (
        "statusLine",
        "Tether's chat has no status line, and its command would run on the laptop",
    ),
    (
        "enabledPlugins",
        "plugins are not loaded: their commands, hooks and servers would run on the laptop",
    ),
    (
        "apiKeyHelper",
        "Tether does not run the settings' key helper; the agent uses the key it is started with",
    ),
    (
        "env",
        "the settings' variables are not set: commands run on the workspace with its own environment",
    ),
];

/// Project folders Tether does not load, and why. None today: `.claude/skills` and
/// `.claude/output-styles` are mirrored as agent context (a plugin folder for Claude Code).
const FOLDERS_NOT_RUN: &[(&str, &str)] = &[];

/// What the settings files (label, text) and the project's folders that exist (`folders`, as
/// in [`FOLDERS_NOT_RUN`]) configure that Tether does not run. (The project's hooks run on the
/// workspace: `crate::hooks`, which lists the kinds of hook it does not run itself.)
pub fn from_settings(settings: &[(String, String)], folders: &[String]) -> Vec<OffItem> {
    let mut items = Vec::new();
    for (label, text) in settings {
        let Ok(Value::Object(root)) = serde_json::from_str::<Value>(text) else {
            continue;
        };
        for (key, reason) in SETTINGS_NOT_RUN {
            if root.get(*key).is_none_or(is_empty) {
                continue;
            }
            items.push(OffItem {
                what: format!("{key} ({label})"),
                reason: reason.to_string(),
            });
        }
    }
    for (folder, reason) in FOLDERS_NOT_RUN {
        if folders.iter().any(|f| f == folder) {
            items.push(OffItem {
                what: folder.to_string(),
                reason: reason.to_string(),
            });
        }
    }
    items
}

/// The folders [`from_settings`] asks about.
pub fn folders() -> impl Iterator<Item = &'static str> {
    FOLDERS_NOT_RUN.iter().map(|(folder, _)| *folder)
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        Value::Array(list) => list.is_empty(),
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_line_and_plugins_are_listed_with_their_file_and_hooks_are_not() {
        let settings = vec![(
            ".claude/settings.json".to_string(),
            r#"{"hooks": {"PostToolUse": [], "Stop": []}, "statusLine": {"type": "command", "command": "x"},
                "enabledPlugins": {"p@m": true}, "permissions": {"allow": []}, "env": {}}"#
                .to_string(),
        )];
        let items = from_settings(&settings, &[".claude/skills".to_string()]);
        let whats: Vec<&str> = items.iter().map(|i| i.what.as_str()).collect();
        assert_eq!(
            whats,
            [
                "statusLine (.claude/settings.json)",
                "enabledPlugins (.claude/settings.json)"
            ]
        );
        assert!(items[0].reason.contains("on the laptop"));
    }

    #[test]
    fn nothing_configured_is_nothing_off() {
        let settings = vec![
            ("x".to_string(), r#"{"permissions": {}}"#.to_string()),
            ("y".into(), "{".into()),
        ];
        assert!(from_settings(&settings, &[]).is_empty());
    }
}
