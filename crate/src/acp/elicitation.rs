//! `elicitation/create` in form mode, shown as the same form as Claude Code's AskUserQuestion
//! (Tether advertises `elicitation.form`): the schema's properties become fields (a `oneOf` or
//! `enum` string a single choice, an array of `anyOf` or `enum` items a multiple choice, any
//! other a text), the user's answers the response's `content`. claude-agent-acp 0.101.0 asks
//! its AskUserQuestion this way once the client advertises forms (`question_<n>` with a
//! `question_<n>_custom` "Other" text beside it) and folds the content back into the tool's
//! `answers`. A URL elicitation is declined: Tether opens no links for the agent.

use super::protocol::elicitation::{CreateElicitationRequest, ElicitationMode, ElicitationSchema};
use super::state::{AcpBackend, AgentAsk};
use crate::backend::{Action, AskPolicy, Output, PermissionAsk, Verdict};
use crate::events::{FormAnswers, FormChoice, FormField, FormFieldKind, FormValue, PermissionRequest, QuestionForm};
use crate::gate::form_options;
use crate::permissions::{Access, ToolRequest};
use crate::rpc::Id;
use serde_json::{json, Map, Value};

impl AcpBackend {
    /// `elicitation/create`: a form for the user, or a declined URL.
    pub(super) fn on_elicitation(&mut self, id: Id, request: CreateElicitationRequest) -> Vec<Action> {
        let schema = match (request.mode, request.requested_schema) {
            (ElicitationMode::Form, Some(schema)) => schema,
            _ => return vec![Action::Output(self.respond(&id, Ok(json!({"action": "decline"}))))],
        };
        let form = form_of(&request.message, &schema);
        let ui_id = format!("acp-elicitation-{id}");
        let tool_name = request
            .tool_call_id
            .as_deref()
            .and_then(|call| self.calls.name_of(call))
            .unwrap_or_else(|| "Question".to_string());
        let ui_request = PermissionRequest {
            tool_use_id: request.tool_call_id.clone(),
            title: Some(request.message.clone()),
            options: form_options(),
            form: Some(form),
            requires_user_interaction: true,
            ..PermissionRequest::for_tool(ui_id.clone(), &tool_name, json!({}))
        };
        self.asks.insert(ui_id, AgentAsk::Elicitation { id, schema });
        vec![Action::AskPermission(PermissionAsk {
            request: ui_request,
            access: ToolRequest::new("AskUserQuestion", Access::Other),
            policy: AskPolicy::User {
                reason: format!("{} asks you", self.agent_name),
                always: None,
            },
        })]
    }

    /// The user's answers to a form, as the agent's `elicitation/create` response.
    pub(super) fn answer_elicitation(&self, id: &Id, schema: &ElicitationSchema, verdict: Verdict) -> Output {
        let answer = match verdict {
            Verdict::Chosen { option, answers, .. } if option.kind.allows() => json!({
                "action": "accept",
                "content": content_of(schema, &answers.unwrap_or_default()),
            }),
            Verdict::Allowed => json!({"action": "accept", "content": {}}),
            Verdict::Chosen { .. } | Verdict::Denied { .. } => json!({"action": "decline"}),
        };
        self.respond(id, Ok(answer))
    }
}

/// The form of an elicitation's schema, its properties in the order sent.
pub fn form_of(message: &str, schema: &ElicitationSchema) -> QuestionForm {
    let required = schema.required.clone().unwrap_or_default();
    let fields = schema
        .properties
        .iter()
        .map(|(id, property)| {
            let text = |key: &str| property.get(key).and_then(Value::as_str).map(str::to_string);
            let (kind, options) = match property.get("type").and_then(Value::as_str) {
                Some("array") => (
                    FormFieldKind::Multiple,
                    choices(property.get("items").unwrap_or(&Value::Null), "anyOf"),
                ),
                _ => match choices(property, "oneOf") {
                    options if !options.is_empty() => (FormFieldKind::Single, options),
                    _ => (FormFieldKind::Text, Vec::new()),
                },
            };
            FormField {
                id: id.clone(),
                label: text("title"),
                question: text("description"),
                kind,
                options,
                other: false,
                required: required.contains(id),
            }
        })
        .collect();
    QuestionForm {
        message: Some(message.to_string()).filter(|m| !m.is_empty()),
        fields,
    }
}

/// The titled choices (`oneOf`/`anyOf` of `{const, title, description}`), else a plain `enum`.
fn choices(schema: &Value, titled: &str) -> Vec<FormChoice> {
    if let Some(items) = schema.get(titled).and_then(Value::as_array) {
        return items
            .iter()
            .filter_map(|item| {
                let value = scalar_text(item.get("const")?)?;
                Some(FormChoice {
                    label: item.get("title").and_then(Value::as_str).unwrap_or(&value).to_string(),
                    description: item.get("description").and_then(Value::as_str).map(str::to_string),
                    value,
                })
            })
            .collect();
    }
    let plain = schema
        .get("enum")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    plain
        .iter()
        .filter_map(scalar_text)
        .map(|value| FormChoice {
            label: value.clone(),
            value,
            description: None,
        })
        .collect()
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(_) | Value::Bool(_) => Some(value.to_string()),
        _ => None,
    }
}

/// The answers as the schema types them: numbers and booleans typed, lists as lists.
fn content_of(schema: &ElicitationSchema, answers: &FormAnswers) -> Map<String, Value> {
    let mut content = Map::new();
    for (id, answer) in answers {
        let Some(property) = schema.properties.get(id) else {
            continue;
        };
        let typed = match (property.get("type").and_then(Value::as_str), answer) {
            (Some("array"), answer) => json!(answer.items()),
            (Some("number" | "integer"), FormValue::One(text)) => match text.parse::<f64>() {
                Ok(number) if property["type"] == "integer" && number.fract() == 0.0 => json!(number as i64),
                Ok(number) => json!(number),
                Err(_) => continue,
            },
            (Some("boolean"), FormValue::One(text)) => json!(text == "true"),
            (_, FormValue::One(text)) => json!(text),
            (_, FormValue::Many(items)) => json!(items.join(", ")),
        };
        content.insert(id.clone(), typed);
    }
    content
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What claude-agent-acp 0.101.0 sends for an AskUserQuestion of two questions.
    fn schema() -> ElicitationSchema {
        crate::json::from_value(json!({
            "type": "object",
            "properties": {
                "question_0": {"type": "string", "title": "Color", "description": "Which color?",
                    "oneOf": [{"const": "Red", "title": "Red", "description": "warm"}, {"const": "Blue", "title": "Blue"}]},
                "question_0_custom": {"type": "string", "title": "Other", "description": "Type your own answer"},
                "question_1": {"type": "array", "title": "Sizes", "description": "Which sizes?",
                    "items": {"anyOf": [{"const": "S", "title": "S"}, {"const": "L", "title": "L"}]}},
                "count": {"type": "integer", "enum": [1, 2]}
            },
            "required": ["count"]
        }))
        .unwrap()
    }

    #[test]
    fn a_schemas_properties_become_single_multiple_and_text_fields_in_order() {
        let form = form_of("Please answer the following questions.", &schema());
        let kinds: Vec<FormFieldKind> = form.fields.iter().map(|f| f.kind).collect();
        use FormFieldKind::*;
        assert_eq!(kinds, vec![Single, Text, Multiple, Single]);
        assert_eq!(form.fields[0].question.as_deref(), Some("Which color?"));
        assert_eq!(form.fields[0].options[0].description.as_deref(), Some("warm"));
        assert_eq!(form.fields[1].label.as_deref(), Some("Other"));
        assert_eq!(form.fields[2].options.len(), 2);
        assert_eq!(form.fields[3].options[1].value, "2");
        assert!(form.fields[3].required && !form.fields[0].required);
    }

    #[test]
    fn answers_go_back_typed_as_the_schema_says() {
        let mut answers = FormAnswers::new();
        answers.insert("question_0".into(), FormValue::One("Red".into()));
        answers.insert("question_0_custom".into(), FormValue::One("dark".into()));
        answers.insert("question_1".into(), FormValue::Many(vec!["S".into(), "L".into()]));
        answers.insert("count".into(), FormValue::One("2".into()));
        answers.insert("unknown".into(), FormValue::One("dropped".into()));
        let content = content_of(&schema(), &answers);
        assert_eq!(
            Value::Object(content),
            json!({"count": 2, "question_0": "Red", "question_0_custom": "dark", "question_1": ["S", "L"]})
        );
    }
}
