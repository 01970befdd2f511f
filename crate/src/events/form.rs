//! A form the user fills in for the agent: Claude Code's AskUserQuestion and an ACP agent's form
//! elicitation are both shown as one [`QuestionForm`] (on their permission request), and the
//! answers come back as [`FormAnswers`], which each backend turns into what its agent reads.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Questions for the user, in the order to show them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct QuestionForm {
    /// Said above the fields.
    pub message: Option<String>,
    pub fields: Vec<FormField>,
}

/// One question of a form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FormField {
    /// The key its answer goes under.
    pub id: String,
    /// A short label (AskUserQuestion's header, a schema's title).
    pub label: Option<String>,
    /// The question itself.
    pub question: Option<String>,
    pub kind: FormFieldKind,
    /// The choices of a single or multiple choice.
    pub options: Vec<FormChoice>,
    /// A free-text "Other" answer is offered beside the choices.
    pub other: bool,
    pub required: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum FormFieldKind {
    Single,
    Multiple,
    Text,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FormChoice {
    /// What the answer carries.
    pub value: String,
    pub label: String,
    pub description: Option<String>,
}

/// One field's answer: the choice picked (or the text typed), or the choices picked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(untagged)]
pub enum FormValue {
    One(String),
    Many(Vec<String>),
}

/// The user's answers: field id → its answer; a field left blank is absent.
pub type FormAnswers = BTreeMap<String, FormValue>;

impl FormValue {
    /// A string or a list of strings; anything else is refused.
    pub fn from_json(value: &Value) -> Result<FormValue, String> {
        match value {
            Value::String(text) => Ok(FormValue::One(text.clone())),
            Value::Array(items) => items
                .iter()
                .map(|item| item.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .map(FormValue::Many)
                .ok_or_else(|| "a list answer holds strings only".to_string()),
            _ => Err("an answer is a string or a list of strings".into()),
        }
    }

    /// The picks, in order (one for a single answer).
    pub fn items(&self) -> Vec<&str> {
        match self {
            FormValue::One(text) => vec![text.as_str()],
            FormValue::Many(items) => items.iter().map(String::as_str).collect(),
        }
    }
}

/// `{fieldId: "answer" | ["answers"]}`, blank answers dropped.
pub fn answers_from_json(value: &Value) -> Result<FormAnswers, String> {
    let Some(object) = value.as_object() else {
        return Err("answers must be an object of field id → answer".into());
    };
    let mut answers = FormAnswers::new();
    for (id, value) in object {
        let answer = FormValue::from_json(value).map_err(|e| format!("answer {id:?}: {e}"))?;
        let kept: Vec<String> = answer
            .items()
            .into_iter()
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(str::to_string)
            .collect();
        match (answer, kept.len()) {
            (_, 0) => {}
            (FormValue::One(_), _) => {
                answers.insert(id.clone(), FormValue::One(kept.concat()));
            }
            (FormValue::Many(_), _) => {
                answers.insert(id.clone(), FormValue::Many(kept));
            }
        }
    }
    Ok(answers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_strings_or_lists_of_strings_and_blank_ones_are_dropped() {
        let answers = answers_from_json(&json!({"a": " Red ", "b": ["S", " ", "L"], "c": "", "d": []})).unwrap();
        assert_eq!(answers.len(), 2);
        assert_eq!(answers["a"], FormValue::One("Red".into()));
        assert_eq!(answers["b"], FormValue::Many(vec!["S".into(), "L".into()]));
        assert!(answers_from_json(&json!({"a": 3})).is_err());
        assert!(answers_from_json(&json!(["a"])).is_err());
        assert!(answers_from_json(&json!({"a": ["x", 1]})).is_err());
    }
}
