//! Reading the `permissions` block of Claude Code settings files, and writing "always allow"
//! rules into `.claude/settings.local.json` without disturbing anything else in it.

use super::rules::Rule;
use super::{Diagnostic, PermissionMode, SettingsKind, SettingsSource};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;
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
                "The existing .claude/settings.local.json is not valid JSON ({e}); it was not changed. Fix or remove it, then try again."
            ),
            PersistError::WrongShape(what) => write!(
                f,
                "The existing .claude/settings.local.json has {what}; it was not changed. Fix it, then try again."
            ),
        }
    }
}

impl std::error::Error for PersistError {}

/// The new text of `.claude/settings.local.json` with `rules` appended to `permissions.allow`:
/// rules already there (compared in their normalised form) are not repeated, every other key
/// keeps its value and place, and the result is pretty-printed with 2 spaces.
pub fn persist_rules(existing: Option<&str>, rules: &[Rule]) -> Result<String, PersistError> {
    let mut root = match existing.map(str::trim).filter(|t| !t.is_empty()) {
        None => Json::Object(Vec::new()),
        Some(text) => serde_json::from_str::<Json>(text).map_err(|e| PersistError::Malformed(e.to_string()))?,
    };
    let Json::Object(root_entries) = &mut root else {
        return Err(PersistError::WrongShape("a top level that is not an object"));
    };
    let permissions = entry(root_entries, "permissions", || Json::Object(Vec::new()));
    let Json::Object(permission_entries) = permissions else {
        return Err(PersistError::WrongShape(
            "a \"permissions\" value that is not an object",
        ));
    };
    let allow = entry(permission_entries, "allow", || Json::Array(Vec::new()));
    let Json::Array(allow) = allow else {
        return Err(PersistError::WrongShape(
            "a \"permissions.allow\" value that is not a list",
        ));
    };
    let mut present: Vec<String> = allow
        .iter()
        .filter_map(|v| match v {
            Json::String(s) => Some(Rule::parse(s).map_or_else(|| s.clone(), |r| r.to_string())),
            _ => None,
        })
        .collect();
    for rule in rules {
        let text = rule.to_string();
        if !present.contains(&text) {
            allow.push(Json::String(text.clone()));
            present.push(text);
        }
    }
    let mut text = serde_json::to_string_pretty(&root).map_err(|e| PersistError::Malformed(e.to_string()))?;
    text.push('\n');
    Ok(text)
}

fn entry<'a>(entries: &'a mut Vec<(String, Json)>, key: &str, make: impl FnOnce() -> Json) -> &'a mut Json {
    let index = match entries.iter().position(|(k, _)| k == key) {
        Some(index) => index,
        None => {
            entries.push((key.to_string(), make()));
            entries.len() - 1
        }
    };
    &mut entries[index].1
}

/// JSON that keeps object keys in file order (serde_json's map sorts them without its
/// `preserve_order` feature, which would change every other user of the crate).
enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct JsonVisitor;
        impl<'de> Visitor<'de> for JsonVisitor {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Json, E> {
                Ok(Json::Bool(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Json, E> {
                Ok(Json::Number(v.into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Json, E> {
                Ok(Json::Number(v.into()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
                serde_json::Number::from_f64(v)
                    .map(Json::Number)
                    .ok_or_else(|| E::custom("a number JSON cannot hold"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Json, E> {
                Ok(Json::String(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Json, E> {
                Ok(Json::String(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut entries = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, Json>()? {
                    entries.push((key, value));
                }
                Ok(Json::Object(entries))
            }
        }
        deserializer.deserialize_any(JsonVisitor)
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(n) => n.serialize(serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}
