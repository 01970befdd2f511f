//! Reading the `permissions` block of Claude Code settings files, and writing "always allow"
//! rules into one (or taking a rule out: [`super::scope`]) without disturbing anything else in it.

use super::rules::Rule;
use super::{Diagnostic, PermissionMode, SettingsKind, SettingsSource};
use serde_json::{Map, Value};
use std::fmt;

/// What one settings file contributes.
#[derive(Default)]
pub(super) struct ParsedSettings {
    pub allow: Vec<Rule>,
    pub deny: Vec<Rule>,
    pub ask: Vec<Rule>,
    pub default_mode: Option<PermissionMode>,
    /// As written (resolved by the engine against the source's base directory).
    pub additional_directories: Vec<String>,
    pub disable_bypass: bool,
}

/// Parse one source; problems become diagnostics and the rest of the file still applies. A
/// file that is not JSON contributes nothing.
pub(super) fn parse(source: &SettingsSource, diagnostics: &mut Vec<Diagnostic>) -> ParsedSettings {
    let mut parsed = ParsedSettings::default();
    let mut report = |message: String| {
        diagnostics.push(Diagnostic {
            source: source.kind,
            message,
        })
    };
    if source.text.trim().is_empty() {
        return parsed;
    }
    let value: Value = match serde_json::from_str(&source.text) {
        Ok(value) => value,
        Err(e) => {
            report(format!("not valid JSON ({e}); none of its permission settings apply"));
            return parsed;
        }
    };
    let Some(object) = value.as_object() else {
        report("the file does not hold a JSON object; none of its permission settings apply".into());
        return parsed;
    };
    let Some(permissions) = object.get("permissions") else {
        return parsed;
    };
    let Some(permissions) = permissions.as_object() else {
        report("\"permissions\" is not an object; it is ignored".into());
        return parsed;
    };
    for (key, list) in [
        ("allow", &mut parsed.allow),
        ("deny", &mut parsed.deny),
        ("ask", &mut parsed.ask),
    ] {
        let Some(entries) = permissions.get(key) else {
            continue;
        };
        let Some(entries) = entries.as_array() else {
            report(format!("permissions.{key} is not a list; it is ignored"));
            continue;
        };
        for entry in entries {
            match entry.as_str().map(|text| (text, Rule::parse(text))) {
                Some((_, Some(rule))) => list.push(rule),
                Some((text, None)) => report(format!(
                    "permissions.{key}: {text:?} is not a valid rule; it is ignored"
                )),
                None => report(format!("permissions.{key}: {entry} is not a string; it is ignored")),
            }
        }
    }
    match permissions.get("defaultMode") {
        None => {}
        Some(Value::String(mode)) => match PermissionMode::parse(mode) {
            Some(PermissionMode::BypassPermissions)
                if matches!(source.kind, SettingsKind::Project | SettingsKind::Local) =>
            {
                report(
                    "defaultMode \"bypassPermissions\" is ignored: only user settings may grant it \
                     (project files are controlled by the repository)"
                        .into(),
                )
            }
            Some(mode) => parsed.default_mode = Some(mode),
            None => report(format!("defaultMode {mode:?} is not a known mode; it is ignored")),
        },
        Some(other) => report(format!("defaultMode {other} is not a string; it is ignored")),
    }
    match permissions.get("additionalDirectories") {
        None => {}
        Some(Value::Array(dirs)) => {
            for dir in dirs {
                match dir.as_str() {
                    Some(dir) if !dir.trim().is_empty() => parsed.additional_directories.push(dir.trim().to_string()),
                    _ => report(format!(
                        "additionalDirectories: {dir} is not a directory path; it is ignored"
                    )),
                }
            }
        }
        Some(other) => report(format!("additionalDirectories {other} is not a list; it is ignored")),
    }
    parsed.disable_bypass = permissions.get("disableBypassPermissionsMode").and_then(Value::as_str) == Some("disable");
    parsed
}

/// Why "always allow" rules could not be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PersistError {
    /// The existing file is not valid JSON; it is left as it is.
    Malformed(String),
    /// The existing file (or its `permissions` / `permissions.allow`) has the wrong shape.
    WrongShape(&'static str),
}

impl fmt::Display for PersistError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PersistError::Malformed(e) => write!(
                f,
                "The existing settings file is not valid JSON ({e}); it was not changed. Fix or remove it, then try again."
            ),
            PersistError::WrongShape(what) => write!(
                f,
                "The existing settings file has {what}; it was not changed. Fix it, then try again."
            ),
        }
    }
}

impl std::error::Error for PersistError {}

/// The new text of a settings file with `rules` appended to `permissions.allow`:
/// rules already there (compared in their normalised form) are not repeated, every other key
/// keeps its value and place, and the result is pretty-printed with 2 spaces.
pub fn persist_rules(existing: Option<&str>, rules: &[Rule]) -> Result<String, PersistError> {
    // serde_json is built with `preserve_order`, so every key keeps its place in the file.
    let mut root = match existing.map(str::trim).filter(|t| !t.is_empty()) {
        None => Value::Object(Map::new()),
        Some(text) => serde_json::from_str::<Value>(text).map_err(|e| PersistError::Malformed(e.to_string()))?,
    };
    let Value::Object(root_entries) = &mut root else {
        return Err(PersistError::WrongShape("a top level that is not an object"));
    };
    let permissions = root_entries
        .entry("permissions")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(permission_entries) = permissions else {
        return Err(PersistError::WrongShape(
            "a \"permissions\" value that is not an object",
        ));
    };
    let allow = permission_entries
        .entry("allow")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Value::Array(allow) = allow else {
        return Err(PersistError::WrongShape(
            "a \"permissions.allow\" value that is not a list",
        ));
    };
    let mut present: Vec<String> = allow
        .iter()
        .filter_map(Value::as_str)
        .map(|s| Rule::parse(s).map_or_else(|| s.to_string(), |r| r.to_string()))
        .collect();
    for rule in rules {
        let text = rule.to_string();
        if !present.contains(&text) {
            allow.push(Value::String(text.clone()));
            present.push(text);
        }
    }
    let mut text = serde_json::to_string_pretty(&root).map_err(|e| PersistError::Malformed(e.to_string()))?;
    text.push('\n');
    Ok(text)
}
