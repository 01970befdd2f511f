//! The JSON objects the driver passes (the config, an answer, a prompt's images), read strictly:
//! an unknown key or a value of the wrong type is refused with a message that names it. Written
//! out rather than derived: serde's derive costs several KB of wasm per struct.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub struct JsonObject<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> JsonObject<'a> {
    /// `what` names the object in messages; keys outside `known` are refused.
    pub fn new(value: &'a Value, what: &str, known: &[&str]) -> Result<JsonObject<'a>, String> {
        let Some(map) = value.as_object() else {
            return Err(format!("{what} must be an object"));
        };
        if let Some(key) = map.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(format!(
                "unknown field `{key}` in {what}; expected one of {}",
                known.join(", ")
            ));
        }
        Ok(JsonObject { map })
    }

    /// Null counts as missing, as `undefined` does.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    pub fn string(&self, key: &str) -> Result<String, String> {
        self.opt_string(key)?.ok_or_else(|| format!("`{key}` is missing"))
    }

    pub fn opt_string(&self, key: &str) -> Result<Option<String>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    }

    pub fn bool(&self, key: &str) -> Result<bool, String> {
        match self.get(key) {
            Some(Value::Bool(flag)) => Ok(*flag),
            Some(_) => Err(format!("`{key}` must be true or false")),
            None => Err(format!("`{key}` is missing")),
        }
    }

    /// A whole number from 0 to `max`.
    pub fn number(&self, key: &str, max: u64) -> Result<u64, String> {
        match self.get(key).map(Value::as_u64) {
            Some(Some(n)) if n <= max => Ok(n),
            Some(_) => Err(format!("`{key}` must be a whole number from 0 to {max}")),
            None => Err(format!("`{key}` is missing")),
        }
    }

    /// Any JSON value; missing (or null) reads as null.
    pub fn value(&self, key: &str) -> Value {
        self.get(key).cloned().unwrap_or(Value::Null)
    }

    pub fn opt_strings(&self, key: &str) -> Result<Option<Vec<String>>, String> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let strings: Option<Vec<String>> = value
            .as_array()
            .and_then(|items| items.iter().map(|i| i.as_str().map(str::to_string)).collect());
        strings
            .map(Some)
            .ok_or_else(|| format!("`{key}` must be a list of strings"))
    }
}

/// An object of strings (an environment).
pub fn string_map(value: &Value, what: &str) -> Result<BTreeMap<String, String>, String> {
    let Some(map) = value.as_object() else {
        return Err(format!("{what} must be an object of strings"));
    };
    // Inserted one by one: collecting into a map compiles a sort of its own into the wasm.
    let mut strings = BTreeMap::new();
    for (key, v) in map {
        let Some(text) = v.as_str() else {
            return Err(format!("{what}.{key} must be a string"));
        };
        strings.insert(key.clone(), text.to_string());
    }
    Ok(strings)
}
