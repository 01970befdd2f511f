//! Claude Code's AskUserQuestion as a form. The CLI (2.1.330) asks the host `can_use_tool` for it
//! with `requires_user_interaction`; the host answers `allow` with `updatedInput` = the input plus
//! `answers` (question text → the label picked, or the text typed; a multiple choice's labels
//! joined by ", ", an item holding ", " or a quote JSON-quoted, as the CLI's own dialog does),
//! and the model reads `The user answered: "question"="answer", …` as the tool's result
//! (measured against the fake API; claude-agent-acp's elicitation bridge fills it the same way).

use crate::events::{FormAnswers, FormChoice, FormField, FormFieldKind, FormValue, QuestionForm};
use serde_json::{Map, Value};

/// The form of an AskUserQuestion input; None when it holds no usable question.
pub fn form_of(input: &Value) -> Option<QuestionForm> {
    let fields: Vec<FormField> = input
        .get("questions")?
        .as_array()?
        .iter()
        .filter_map(field_of)
        .collect();
    (!fields.is_empty()).then_some(QuestionForm { message: None, fields })
}

fn field_of(question: &Value) -> Option<FormField> {
    let text = question.get("question")?.as_str()?;
    let options: Vec<FormChoice> = question
        .get("options")?
        .as_array()?
        .iter()
        .filter_map(|option| {
            let label = option.get("label")?.as_str()?;
            Some(FormChoice {
                value: label.to_string(),
                label: label.to_string(),
                description: option.get("description").and_then(Value::as_str).map(str::to_string),
            })
        })
        .collect();
    if options.is_empty() {
        return None;
    }
    let multiple = question.get("multiSelect").and_then(Value::as_bool).unwrap_or(false);
    Some(FormField {
        id: text.to_string(),
        label: question.get("header").and_then(Value::as_str).map(str::to_string),
        question: Some(text.to_string()),
        kind: if multiple {
            FormFieldKind::Multiple
        } else {
            FormFieldKind::Single
        },
        options,
        // The tool's own dialog always offers "Other" (the model is told not to list one).
        other: true,
        required: false,
    })
}

/// The input to run AskUserQuestion with: the model's, plus the user's `answers`.
pub fn answered_input(input: &Value, answers: &FormAnswers) -> Value {
    let mut answered = Map::new();
    for (question, answer) in answers {
        let text = match answer {
            FormValue::One(text) => text.clone(),
            FormValue::Many(items) => items.iter().map(|item| quoted(item)).collect::<Vec<_>>().join(", "),
        };
        answered.insert(question.clone(), Value::String(text));
    }
    let mut input = match input {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    input.insert("answers".into(), Value::Object(answered));
    Value::Object(input)
}

/// A multiple choice's item as the tool splits them back: JSON-quoted when it holds the separator.
fn quoted(item: &str) -> String {
    if item.contains(", ") || item.contains('"') {
        Value::String(item.to_string()).to_string()
    } else {
        item.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input() -> Value {
        json!({"questions": [
            {"question": "Which color?", "header": "Color", "multiSelect": false,
             "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]},
            {"question": "Which sizes?", "header": "Sizes", "multiSelect": true,
             "options": [{"label": "S", "description": "small"}, {"label": "L", "description": "large"}]},
            {"question": "No options?", "options": []}
        ]})
    }

    #[test]
    fn each_question_with_options_is_a_field_offering_other() {
        let form = form_of(&input()).unwrap();
        assert_eq!(form.fields.len(), 2);
        let color = &form.fields[0];
        assert_eq!(
            (color.id.as_str(), color.label.as_deref()),
            ("Which color?", Some("Color"))
        );
        assert_eq!(color.kind, FormFieldKind::Single);
        assert_eq!(color.options[1].description.as_deref(), Some("cool"));
        assert!(color.other);
        assert_eq!(form.fields[1].kind, FormFieldKind::Multiple);
        assert_eq!(form_of(&json!({"questions": []})), None);
        assert_eq!(form_of(&json!({})), None);
    }

    #[test]
    fn answers_go_into_the_input_by_question_with_a_multiple_choice_joined_as_the_cli_does() {
        let mut answers = FormAnswers::new();
        answers.insert("Which color?".into(), FormValue::One("a dark red".into()));
        answers.insert(
            "Which sizes?".into(),
            FormValue::Many(vec!["S".into(), "L, but roomy".into()]),
        );
        let updated = answered_input(&input(), &answers);
        assert_eq!(updated["questions"], input()["questions"]);
        assert_eq!(updated["answers"]["Which color?"], "a dark red");
        assert_eq!(updated["answers"]["Which sizes?"], "S, \"L, but roomy\"");
    }
}
