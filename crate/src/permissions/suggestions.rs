//! The CLI's `permission_suggestions` (the `PermissionUpdate`s "always allow" would apply) and
//! Tether's own "always allow" offers: display text, and the rewrite that keeps the CLI from
//! writing settings into its local mirror folder.

use super::rules::Rule;
use super::PermissionMode;
use serde_json::Value;

/// What "Always allow" on a permission card does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AlwaysAllow {
    /// Add these allow rules (for the session, or persisted with
    /// [`persist_rules`](super::persist_rules)).
    Rules(Vec<Rule>),
    /// Switch the session to this mode (the CLI's offer for edits inside the workspace).
    Mode(PermissionMode),
}

impl AlwaysAllow {
    /// The button text, e.g. "Always allow `npm run:*`".
    pub fn label(&self) -> String {
        match self {
            AlwaysAllow::Rules(rules) => format!("Always allow {}", rule_list(rules)),
            AlwaysAllow::Mode(mode) => mode_label(*mode).to_string(),
        }
    }
}

fn rule_label(rule: &Rule) -> String {
    match (&rule.content, rule.tool_name.as_str()) {
        (Some(content), "Bash") => content.clone(),
        _ => rule.to_string(),
    }
}

fn rule_list(rules: &[Rule]) -> String {
    rules
        .iter()
        .map(|r| format!("`{}`", rule_label(r)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn mode_label(mode: PermissionMode) -> &'static str {
    match mode {
        PermissionMode::AcceptEdits => "Allow all edits for this session",
        PermissionMode::BypassPermissions => "Allow everything for this session",
        PermissionMode::Plan => "Switch to plan mode",
        PermissionMode::Default => "Ask before each edit",
        PermissionMode::DontAsk => "Refuse whatever would ask",
    }
}

/// Destinations that name files in the CLI's working directory, which for Tether is a local
/// mirror of the remote workspace: rules written there would never reach the workspace.
fn is_mirror_destination(destination: &str) -> bool {
    matches!(destination, "localSettings" | "projectSettings")
}

/// The suggestions with every `localSettings` / `projectSettings` destination turned into
/// `session`, so "always allow" answered back to the CLI lasts the session without writing the
/// mirror folder; Tether persists the rules on the workspace side itself.
pub fn rewrite_suggestions(suggestions: &Value) -> Value {
    let Some(items) = suggestions.as_array() else {
        return suggestions.clone();
    };
    Value::Array(
        items
            .iter()
            .map(|item| {
                let mut item = item.clone();
                if let Some(object) = item.as_object_mut() {
                    if object
                        .get("destination")
                        .and_then(Value::as_str)
                        .is_some_and(is_mirror_destination)
                    {
                        object.insert("destination".into(), Value::String("session".into()));
                    }
                }
                item
            })
            .collect(),
    )
}

fn update_rules(update: &Value) -> Vec<Rule> {
    update
        .get("rules")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| {
            let name = r.get("toolName")?.as_str()?;
            Some(match r.get("ruleContent").and_then(Value::as_str) {
                Some(content) => Rule::with_content(name, content),
                None => Rule::tool(name),
            })
        })
        .collect()
}

fn is_allow_rules(update: &Value) -> bool {
    let kind = update.get("type").and_then(Value::as_str);
    let behavior = update.get("behavior").and_then(Value::as_str).unwrap_or("allow");
    matches!(kind, Some("addRules") | Some("replaceRules")) && behavior == "allow"
}

/// The allow rules the CLI would have written into the project's settings files: what Tether
/// persists on the workspace side when the user picks "always allow".
pub fn mirror_settings_rules(suggestions: &Value) -> Vec<Rule> {
    let mut rules: Vec<Rule> = Vec::new();
    for update in suggestions.as_array().into_iter().flatten() {
        let destination = update.get("destination").and_then(Value::as_str).unwrap_or("");
        if is_allow_rules(update) && is_mirror_destination(destination) {
            for rule in update_rules(update) {
                if !rules.contains(&rule) {
                    rules.push(rule);
                }
            }
        }
    }
    rules
}

/// Display text for a `can_use_tool` request's suggestions, e.g. "Always allow `npm run:*`";
/// None when there is nothing to offer.
pub fn describe_suggestions(suggestions: &Value) -> Option<String> {
    let parts: Vec<String> = suggestions
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|update| {
            let session = update.get("destination").and_then(Value::as_str) == Some("session");
            match update.get("type").and_then(Value::as_str)? {
                "addRules" | "replaceRules" if is_allow_rules(update) => {
                    let rules = update_rules(update);
                    if rules.is_empty() {
                        return None;
                    }
                    Some(if session {
                        format!("Allow {} for this session", rule_list(&rules))
                    } else {
                        format!("Always allow {}", rule_list(&rules))
                    })
                }
                "setMode" => {
                    let mode = PermissionMode::parse(update.get("mode")?.as_str()?)?;
                    Some(mode_label(mode).to_string())
                }
                "addDirectories" => {
                    let dirs: Vec<String> = update
                        .get("directories")?
                        .as_array()?
                        .iter()
                        .filter_map(Value::as_str)
                        .map(|d| format!("`{d}`"))
                        .collect();
                    if dirs.is_empty() {
                        return None;
                    }
                    let scope = if session { " for this session" } else { "" };
                    Some(format!("Allow access to {}{scope}", dirs.join(", ")))
                }
                _ => None,
            }
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}
