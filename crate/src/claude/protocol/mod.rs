//! The stream-json wire protocol of the Claude Code CLI as data types, apart from any behaviour.
//!
//! Parsing is lenient: unknown fields are ignored, missing fields take defaults, and a message
//! (or block, event, request) of an unknown kind, or whose known fields have unexpected types,
//! becomes an `Other`/`Unknown` variant holding the raw JSON. Nothing here panics on input.
//!
//! By direction and concept: the CLI's stdout messages ([`messages`]), the content blocks and
//! streaming events inside them ([`content`]), the control requests and responses either side
//! sends ([`control`]), and the lines of a prompt ([`prompt`]).

mod content;
mod control;
mod messages;
mod prompt;

pub use content::*;
pub use control::*;
pub use messages::*;
pub use prompt::*;

use serde_json::Value;

/// The fields of a JSON object, read as serde's derive with `#[serde(default)]` reads them: a missing
/// or null field takes its default, a field of another type fails the whole view (the message then
/// stays raw JSON). Written out because the derive costs about 70 KB of wasm for these types.
struct Fields<'a>(&'a serde_json::Map<String, Value>);

impl<'a> Fields<'a> {
    fn of(value: &'a Value) -> Option<Fields<'a>> {
        value.as_object().map(Fields)
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    /// A field that must be there: `None` when missing.
    fn required_string(&self, key: &str) -> Option<String> {
        self.get(key)?.as_str().map(str::to_string)
    }

    fn string(&self, key: &str) -> Option<String> {
        Some(self.opt_string(key)?.unwrap_or_default())
    }

    fn opt_string(&self, key: &str) -> Option<Option<String>> {
        match self.get(key) {
            None => Some(None),
            Some(v) => v.as_str().map(|s| Some(s.to_string())),
        }
    }

    fn bool(&self, key: &str) -> Option<bool> {
        Some(self.opt_bool(key)?.unwrap_or_default())
    }

    fn opt_bool(&self, key: &str) -> Option<Option<bool>> {
        match self.get(key) {
            None => Some(None),
            Some(v) => v.as_bool().map(Some),
        }
    }

    /// An integer that fits `T`.
    fn number<T: TryFrom<i64> + TryFrom<u64> + Default>(&self, key: &str) -> Option<T> {
        Some(self.opt_number(key)?.unwrap_or_default())
    }

    fn opt_number<T: TryFrom<i64> + TryFrom<u64>>(&self, key: &str) -> Option<Option<T>> {
        let Some(v) = self.get(key) else {
            return Some(None);
        };
        match (v.as_u64(), v.as_i64()) {
            (Some(n), _) => T::try_from(n).ok().map(Some),
            (None, Some(n)) => T::try_from(n).ok().map(Some),
            _ => None,
        }
    }

    fn opt_f64(&self, key: &str) -> Option<Option<f64>> {
        match self.get(key) {
            None => Some(None),
            Some(v) => v.as_f64().map(Some),
        }
    }

    /// The raw value (null when missing).
    fn value(&self, key: &str) -> Value {
        self.get(key).cloned().unwrap_or(Value::Null)
    }

    fn object<T: Default>(&self, key: &str, parse: fn(&Value) -> Option<T>) -> Option<T> {
        Some(self.opt_object(key, parse)?.unwrap_or_default())
    }

    fn opt_object<T>(&self, key: &str, parse: fn(&Value) -> Option<T>) -> Option<Option<T>> {
        match self.get(key) {
            None => Some(None),
            Some(v) => parse(v).map(Some),
        }
    }

    fn list<T>(&self, key: &str, parse: impl Fn(&Value) -> Option<T>) -> Option<Vec<T>> {
        match self.get(key) {
            None => Some(Vec::new()),
            Some(v) => v.as_array()?.iter().map(parse).collect(),
        }
    }

    fn strings(&self, key: &str) -> Option<Vec<String>> {
        self.list(key, |v| v.as_str().map(str::to_string))
    }
}

fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}
