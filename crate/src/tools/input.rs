//! Tool inputs checked as strictly as Claude Code 2.1.330 checks its built-ins' inputs, against the
//! same JSON Schemas Tether publishes, with the CLI's words (measured by calling the real CLI's
//! tools with bad inputs):
//!
//! - an unknown parameter (`additionalProperties: false`), a missing required one, a wrong type:
//!   `InputValidationError: Read failed due to the following issue:` and one line each, the
//!   missing first, then the unknown, then the wrong types, then any other problem;
//! - numbers and booleans as the CLI coerces them: `"12"`, `" 12 "` and `[12]` are 12, `"true"`
//!   and `"false"` are booleans; a number below the schema's `minimum` (`exclusiveMinimum`) counts
//!   as not given (Read's negative offset reads from the start, as the CLI's does);
//! - an `integer` must be whole (`expected as \`int\``) and at most the schema's `maximum`;
//! - when the only problems are of another kind (an enum value, a too large integer), the CLI
//!   shows its validator's issue list as JSON, and so does this.

use super::ToolError;
use serde_json::{json, Map, Value};

/// Parameters a tool also takes under the names earlier CLIs gave them: (tool, old name, name).
const ALIASES: [(&str, &str, &str); 3] = [
    ("BashOutput", "shell_id", "bash_id"),
    ("KillShell", "bash_id", "shell_id"),
    ("KillShell", "task_id", "shell_id"),
];

/// `args` checked against `schema`, with numbers and booleans coerced as the CLI coerces them.
pub(crate) fn check(tool: &str, schema: &Value, args: Value) -> Result<Value, ToolError> {
    let mut issues = Vec::new();
    let checked = match args {
        Value::Object(mut object) => {
            for (_, old, name) in ALIASES.iter().filter(|(t, ..)| *t == tool) {
                if !object.contains_key(*name) {
                    if let Some(value) = object.remove(*old) {
                        object.insert(name.to_string(), value);
                    }
                }
            }
            Value::Object(check_object(schema, object, &[], &mut issues))
        }
        other => {
            issues.push(Issue::new(
                &[],
                Problem::WrongType {
                    expected: "object",
                    got: type_name(&other),
                },
            ));
            other
        }
    };
    if issues.is_empty() {
        Ok(checked)
    } else {
        Err(ToolError::invalid(format!(
            "InputValidationError: {}",
            describe(tool, issues)
        )))
    }
}

/// One step of a parameter's path: a property or an array index.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

#[derive(Debug)]
enum Problem {
    Missing,
    Unexpected,
    WrongType {
        expected: &'static str,
        got: &'static str,
    },
    /// Another failed check, as the CLI's validator reports it: `{"code": …, …, "message": …}`
    /// without the path.
    Other(Map<String, Value>),
}

#[derive(Debug)]
struct Issue {
    path: Vec<Step>,
    problem: Problem,
}

impl Issue {
    fn new(path: &[Step], problem: Problem) -> Issue {
        Issue {
            path: path.to_vec(),
            problem,
        }
    }

    /// Where the CLI lists it: missing, unknown, wrong type, the rest.
    fn rank(&self) -> u8 {
        match self.problem {
            Problem::Missing => 0,
            Problem::Unexpected => 1,
            Problem::WrongType { .. } => 2,
            Problem::Other(_) => 3,
        }
    }

    fn name(&self) -> String {
        let mut name = String::new();
        for step in &self.path {
            match step {
                Step::Key(key) if name.is_empty() => name.push_str(key),
                Step::Key(key) => {
                    name.push('.');
                    name.push_str(key);
                }
                Step::Index(i) => name.push_str(&format!("[{i}]")),
            }
        }
        name
    }

    fn line(&self) -> String {
        let name = self.name();
        match &self.problem {
            Problem::Missing => format!("The required parameter `{name}` is missing"),
            Problem::Unexpected => format!("An unexpected parameter `{name}` was provided"),
            Problem::WrongType { expected, got } => {
                format!("The parameter `{name}` type is expected as `{expected}` but provided as `{got}`")
            }
            Problem::Other(details) => format!(
                "The parameter `{name}` is invalid: {}",
                details
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("invalid value")
            ),
        }
    }

    /// The validator's own form of an issue the CLI does not put in words.
    fn to_json(&self) -> Value {
        let path: Vec<Value> = self
            .path
            .iter()
            .map(|step| match step {
                Step::Key(key) => json!(key),
                Step::Index(i) => json!(i),
            })
            .collect();
        let mut object = Map::new();
        if let Problem::Other(details) = &self.problem {
            for (key, value) in details {
                if key == "message" {
                    object.insert("path".into(), Value::Array(path.clone()));
                }
                object.insert(key.clone(), value.clone());
            }
        }
        Value::Object(object)
    }
}

fn describe(tool: &str, mut issues: Vec<Issue>) -> String {
    crate::sort::sort_by_key(&mut issues, Issue::rank);
    if issues.iter().all(|i| matches!(i.problem, Problem::Other(_))) {
        let list: Vec<Value> = issues.iter().map(Issue::to_json).collect();
        return serde_json::to_string_pretty(&list).unwrap_or_default();
    }
    let plural = if issues.len() == 1 { "issue" } else { "issues" };
    let lines: Vec<String> = issues.iter().map(Issue::line).collect();
    format!("{tool} failed due to the following {plural}:\n{}", lines.join("\n"))
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn check_object(
    schema: &Value,
    object: Map<String, Value>,
    path: &[Step],
    issues: &mut Vec<Issue>,
) -> Map<String, Value> {
    let empty = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let strict = schema.get("additionalProperties") == Some(&Value::Bool(false));
    let mut given: Vec<(String, Option<Value>)> = object.into_iter().map(|(k, v)| (k, Some(v))).collect();
    let mut out = Map::new();
    for (name, property) in properties {
        let here = || [path, &[Step::Key(name.clone())]].concat();
        match given
            .iter_mut()
            .find(|(key, _)| key == name)
            .and_then(|(_, v)| v.take())
        {
            None if required.contains(&name.as_str()) => issues.push(Issue::new(&here(), Problem::Missing)),
            None => {}
            Some(value) => {
                if let Some(value) = check_value(property, value, &here(), issues) {
                    out.insert(name.clone(), value);
                }
            }
        }
    }
    for (key, value) in given {
        let Some(value) = value else { continue };
        if strict {
            issues.push(Issue::new(&[path, &[Step::Key(key)]].concat(), Problem::Unexpected));
        } else {
            out.insert(key, value);
        }
    }
    out
}

/// The value checked (and coerced); None when it counts as not given.
fn check_value(schema: &Value, value: Value, path: &[Step], issues: &mut Vec<Issue>) -> Option<Value> {
    let wrong = |issues: &mut Vec<Issue>, expected: &'static str, value: &Value| {
        issues.push(Issue::new(
            path,
            Problem::WrongType {
                expected,
                got: type_name(value),
            },
        ));
    };
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => {
            let Value::String(text) = &value else {
                wrong(issues, "string", &value);
                return Some(value);
            };
            if let Some(options) = schema.get("enum").and_then(Value::as_array) {
                if !options.iter().any(|o| o.as_str() == Some(text)) {
                    issues.push(Issue::new(path, Problem::Other(invalid_option(options))));
                }
            }
            Some(value)
        }
        Some("boolean") => match &value {
            Value::Bool(_) => Some(value),
            Value::String(s) if s == "true" => Some(Value::Bool(true)),
            Value::String(s) if s == "false" => Some(Value::Bool(false)),
            _ => {
                wrong(issues, "boolean", &value);
                Some(value)
            }
        },
        Some(kind @ ("number" | "integer")) => {
            let Some(number) = coerce_number(&value) else {
                wrong(issues, "number", &value);
                return Some(value);
            };
            let below = |key: &str, strict: bool| {
                schema
                    .get(key)
                    .and_then(Value::as_f64)
                    .is_some_and(|min| number < min || (strict && number == min))
            };
            if below("minimum", false) || below("exclusiveMinimum", true) {
                return None;
            }
            if kind == "integer" {
                if number.fract() != 0.0 || !number.is_finite() {
                    issues.push(Issue::new(
                        path,
                        Problem::WrongType {
                            expected: "int",
                            got: "number",
                        },
                    ));
                    return Some(value);
                }
                if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
                    if number > max {
                        issues.push(Issue::new(path, Problem::Other(too_big(max))));
                        return Some(value);
                    }
                }
            }
            Some(number_value(number))
        }
        Some("array") => {
            let Value::Array(items) = value else {
                wrong(issues, "array", &value);
                return Some(value);
            };
            let item_schema = schema.get("items").cloned().unwrap_or(Value::Null);
            let checked = items
                .into_iter()
                .enumerate()
                .map(|(i, item)| {
                    let here = [path, &[Step::Index(i)]].concat();
                    check_value(&item_schema, item, &here, issues).unwrap_or(Value::Null)
                })
                .collect();
            Some(Value::Array(checked))
        }
        Some("object") => match value {
            Value::Object(object) => Some(Value::Object(check_object(schema, object, path, issues))),
            other => {
                wrong(issues, "object", &other);
                Some(other)
            }
        },
        _ => Some(value),
    }
}

/// A number as the CLI reads one: a JSON number, a decimal in a string (spaces around it allowed),
/// or either alone in an array.
fn coerce_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => {
            let s = s.trim();
            let digits = s.strip_prefix('-').unwrap_or(s);
            let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
            let decimal = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
            (decimal(whole) && decimal(fraction)).then(|| s.parse().ok()).flatten()
        }
        Value::Array(items) if items.len() == 1 => coerce_number(&items[0]),
        _ => None,
    }
}

/// Whole numbers as JSON integers (so they read as integers), the rest as they are.
fn number_value(number: f64) -> Value {
    const SAFE: f64 = 9_007_199_254_740_991.0;
    if number.fract() == 0.0 && number.abs() <= SAFE {
        json!(number as i64)
    } else {
        json!(number)
    }
}

fn invalid_option(options: &[Value]) -> Map<String, Value> {
    let listed: Vec<String> = options.iter().map(|o| o.to_string()).collect();
    let mut details = Map::new();
    details.insert("code".into(), json!("invalid_value"));
    details.insert("values".into(), Value::Array(options.to_vec()));
    details.insert(
        "message".into(),
        json!(format!("Invalid option: expected one of {}", listed.join("|"))),
    );
    details
}

fn too_big(max: f64) -> Map<String, Value> {
    let max = number_value(max);
    let mut details = Map::new();
    details.insert("code".into(), json!("too_big"));
    details.insert("maximum".into(), max.clone());
    details.insert("note".into(), json!("Integers must be within the safe integer range."));
    details.insert("origin".into(), json!("int"));
    details.insert("inclusive".into(), json!(true));
    details.insert("message".into(), json!(format!("Too big: expected int to be <={max}")));
    details
}

#[cfg(test)]
mod tests;
