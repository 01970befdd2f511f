//! Session config options: the agent's pickers (model, reasoning effort, mode, fast mode, …), each
//! a select or a boolean. The client sets one with `session/set_config_option` and gets the whole
//! list back; the agent reports changes with `config_option_update`. The model is the option with
//! category `model` (`session/set_model` left the protocol).

use super::lenient::{first_of, open_enum, Meta};
use super::Request;
use crate::json::{read_object, read_struct};
use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

pub type SessionConfigId = String;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SessionConfigOption {
    pub id: SessionConfigId,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<ConfigOptionCategory>,
    #[serde(flatten)]
    pub value: ConfigOptionValue,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SessionConfigOption {
    id: required "id",
    name: required "name",
    description: or_default "description",
    category: or_default "category",
    value: flatten,
    meta: or_default "_meta",
});

/// The option's kind (`type`) with its current value. An option of another kind is dropped
/// from the list it came in.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ConfigOptionValue {
    Select {
        #[serde(rename = "currentValue")]
        current_value: String,
        options: SelectOptions,
    },
    Boolean {
        #[serde(rename = "currentValue")]
        current_value: bool,
    },
}

impl<'de> Deserialize<'de> for ConfigOptionValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_object(d, "internally tagged enum ConfigOptionValue", |fields| {
            match fields.required::<String>("type")?.as_str() {
                "select" => Ok(Self::Select {
                    current_value: fields.required("currentValue")?,
                    options: fields.required("options")?,
                }),
                "boolean" => Ok(Self::Boolean {
                    current_value: fields.required("currentValue")?,
                }),
                other => Err(serde_json::Error::unknown_variant(other, &["select", "boolean"])),
            }
        })
    }
}

open_enum! {
    /// What an option is about, so a client can place it (the model picker, the mode picker, …).
    pub enum ConfigOptionCategory {
        Mode = "mode",
        Model = "model",
        ModelConfig = "model_config",
        ThoughtLevel = "thought_level",
    }
}

/// A select's choices, flat or in named groups.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SelectOptions {
    Ungrouped(Vec<SelectOption>),
    Grouped(Vec<SelectGroup>),
}

impl<'de> Deserialize<'de> for SelectOptions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        first_of(
            Value::deserialize(d)?,
            "SelectOptions",
            &[
                |value| crate::json::from_value(value).map(Self::Ungrouped),
                |value| crate::json::from_value(value).map(Self::Grouped),
            ],
        )
        .map_err(D::Error::custom)
    }
}

impl SelectOptions {
    /// Every choice, groups flattened.
    pub fn all(&self) -> Vec<&SelectOption> {
        match self {
            SelectOptions::Ungrouped(options) => options.iter().collect(),
            SelectOptions::Grouped(groups) => groups.iter().flat_map(|g| g.options.iter()).collect(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SelectOption {
    pub value: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SelectOption {
    value: required "value",
    name: required "name",
    description: or_default "description",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SelectGroup {
    pub group: String,
    pub name: String,
    pub options: Vec<SelectOption>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SelectGroup {
    group: required "group",
    name: required "name",
    options: list "options",
    meta: or_default "_meta",
});

/// `session/set_config_option`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetSessionConfigOptionRequest {
    pub session_id: String,
    pub config_id: SessionConfigId,
    #[serde(flatten)]
    pub value: ConfigValue,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SetSessionConfigOptionRequest {
    session_id: required "sessionId",
    config_id: required "configId",
    value: flatten,
    meta: or_default "_meta",
});

/// The value chosen: a select's value id, or a boolean (written with `"type": "boolean"`).
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigValue {
    Id(String),
    Boolean(bool),
}

impl Serialize for ConfigValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ConfigValue::Id(id) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("value", id)?;
                map.end()
            }
            ConfigValue::Boolean(on) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("type", "boolean")?;
                map.serialize_entry("value", on)?;
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for ConfigValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)?.get("value") {
            Some(Value::String(id)) => Ok(ConfigValue::Id(id.clone())),
            Some(Value::Bool(on)) => Ok(ConfigValue::Boolean(*on)),
            _ => Err(D::Error::custom("value: expected a value id or a boolean")),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetSessionConfigOptionResponse {
    /// Every option, as they stand after the change (one may change others).
    pub config_options: Vec<SessionConfigOption>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SetSessionConfigOptionResponse {
    config_options: list "configOptions",
    meta: or_default "_meta",
});

impl Request for SetSessionConfigOptionRequest {
    const METHOD: &'static str = "session/set_config_option";
    type Response = SetSessionConfigOptionResponse;
}

/// `sessionUpdate: "config_option_update"`: the whole list again.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigOptionUpdate {
    pub config_options: Vec<SessionConfigOption>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ConfigOptionUpdate {
    config_options: list "configOptions",
    meta: or_default "_meta",
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// claude-agent-acp 0.101.0's options after `session/new` (reference/acp-claude-agent-offline.md §6).
    fn claude_options() -> Value {
        json!([
            {"id": "mode", "name": "Mode", "category": "mode", "type": "select", "currentValue": "default",
             "options": [{"value": "default", "name": "Manual"}, {"value": "plan", "name": "Plan"}]},
            {"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": "default",
             "options": [{"value": "default", "name": "Default"}, {"value": "opus", "name": "Opus"}]},
            {"id": "fast", "name": "Fast", "category": "model_config", "type": "boolean", "currentValue": false},
            {"id": "future", "name": "Slider", "type": "range", "currentValue": 3},
        ])
    }

    #[test]
    fn options_read_by_kind_and_unknown_kinds_are_dropped() {
        let update: ConfigOptionUpdate = crate::json::from_value(json!({"configOptions": claude_options()})).unwrap();
        assert_eq!(update.config_options.len(), 3);
        let model = &update.config_options[1];
        assert_eq!(model.category, Some(ConfigOptionCategory::Model));
        let ConfigOptionValue::Select { current_value, options } = &model.value else {
            panic!()
        };
        assert_eq!(current_value, "default");
        assert_eq!(
            options.all().iter().map(|o| o.value.as_str()).collect::<Vec<_>>(),
            ["default", "opus"]
        );
        assert_eq!(
            update.config_options[2].value,
            ConfigOptionValue::Boolean { current_value: false }
        );
        let written = serde_json::to_value(&update.config_options[0]).unwrap();
        assert_eq!(written, claude_options()[0]);
    }

    #[test]
    fn grouped_choices_read_as_groups() {
        let option: SessionConfigOption = crate::json::from_value(json!({
            "id": "model", "name": "Model", "type": "select", "currentValue": "b",
            "options": [{"group": "g1", "name": "Fast", "options": [{"value": "a", "name": "A"}]},
                        {"group": "g2", "name": "Smart", "options": [{"value": "b", "name": "B"}]}]
        }))
        .unwrap();
        let ConfigOptionValue::Select { options, .. } = option.value else {
            panic!()
        };
        assert!(matches!(options, SelectOptions::Grouped(ref g) if g.len() == 2));
        assert_eq!(options.all().len(), 2);
    }

    #[test]
    fn set_config_option_writes_a_value_id_or_a_typed_boolean() {
        let pick = SetSessionConfigOptionRequest {
            session_id: "s1".into(),
            config_id: "model".into(),
            value: ConfigValue::Id("opus".into()),
            meta: None,
        };
        assert_eq!(
            serde_json::to_value(&pick).unwrap(),
            json!({"sessionId": "s1", "configId": "model", "value": "opus"})
        );
        let toggle = SetSessionConfigOptionRequest {
            value: ConfigValue::Boolean(true),
            config_id: "fast".into(),
            ..pick
        };
        let written = serde_json::to_value(&toggle).unwrap();
        assert_eq!(
            written,
            json!({"sessionId": "s1", "configId": "fast", "type": "boolean", "value": true})
        );
        assert_eq!(
            crate::json::from_value::<SetSessionConfigOptionRequest>(written).unwrap(),
            toggle
        );
    }
}
