//! The agent's own options for the session — its config options (model, reasoning effort, mode,
//! …), its modes, and the unstable model list of agents without config options — kept as the
//! agent last reported them, shown as pickers, and changed the way the agent takes each.

use super::protocol::config::{ConfigOptionValue, SessionConfigOption};
use super::protocol::modes::SessionModeState;
use super::protocol::session::SessionModelState;
use crate::events::{AgentOption, ModelOption};
use serde_json::{json, Value};

/// The id the session's modes are picked by when the agent has no config option for them.
pub const MODE_OPTION: &str = "mode";
/// The id the model is picked by when the agent has no config option for it.
pub const MODEL_OPTION: &str = "model";

#[derive(Clone, Debug, Default)]
pub struct SessionOptions {
    config: Vec<SessionConfigOption>,
    modes: Option<SessionModeState>,
    models: Option<SessionModelState>,
}

/// How to change an option.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// `session/set_config_option` with these params (the session id added by the caller).
    ConfigOption(Value),
    /// `session/set_mode`.
    Mode,
    /// `session/set_model`, left from before config options.
    Model,
}

impl SessionOptions {
    /// What `session/new`, `load` or `resume` answered.
    pub fn replace_from(&mut self, answer: &Value) {
        let read = |key: &str| answer.get(key).cloned().filter(|v| !v.is_null());
        self.modes = read("modes").and_then(|v| crate::json::from_value(v).ok());
        self.models = read("models").and_then(|v| crate::json::from_value(v).ok());
        self.config = Vec::new();
        self.replace_config(answer);
    }

    /// The whole list again (`config_option_update`, the answer to `set_config_option`).
    pub fn replace_config(&mut self, answer: &Value) {
        if let Some(Value::Array(options)) = answer.get("configOptions") {
            self.config = options
                .iter()
                .filter_map(|o| crate::json::from_value(o.clone()).ok())
                .collect();
        }
    }

    pub fn set_mode(&mut self, mode: &str) {
        if let Some(modes) = &mut self.modes {
            modes.current_mode_id = mode.to_string();
        }
        for option in &mut self.config {
            let is_mode = option.category.as_ref().is_some_and(|c| c.as_str() == "mode");
            if let (true, ConfigOptionValue::Select { current_value, .. }) = (is_mode, &mut option.value) {
                *current_value = mode.to_string();
            }
        }
    }

    pub fn set_model(&mut self, model: &str) {
        if let Some(models) = &mut self.models {
            models.current_model_id = model.to_string();
        }
    }

    /// The agent's mode now, by id.
    pub fn mode(&self) -> Option<String> {
        if let Some(ConfigOptionValue::Select { current_value, .. }) = self.by_category("mode").map(|o| &o.value) {
            return Some(current_value.clone());
        }
        self.modes.as_ref().map(|m| m.current_mode_id.clone())
    }

    /// Whether the agent has a mode with this id.
    pub fn offers_mode(&self, id: &str) -> bool {
        if let Some(ConfigOptionValue::Select { options, .. }) = self.by_category("mode").map(|o| &o.value) {
            return options.all().iter().any(|o| o.value == id);
        }
        self.modes
            .as_ref()
            .is_some_and(|m| m.available_modes.iter().any(|mode| mode.id == id))
    }

    fn by_category(&self, category: &str) -> Option<&SessionConfigOption> {
        self.config
            .iter()
            .find(|o| o.category.as_ref().is_some_and(|c| c.as_str() == category))
    }

    /// The model in use, by name.
    pub fn model(&self) -> Option<String> {
        if let Some(option) = self.by_category("model") {
            if let ConfigOptionValue::Select { current_value, options } = &option.value {
                let name = options
                    .all()
                    .into_iter()
                    .find(|o| &o.value == current_value)
                    .map(|o| o.name.clone());
                return Some(name.unwrap_or_else(|| current_value.clone()));
            }
        }
        self.models.as_ref().map(|m| m.current_model_id.clone())
    }

    /// The options as pickers show them: the config options, then the modes and the models
    /// where no config option covers them.
    pub fn to_events(&self) -> Vec<AgentOption> {
        let mut out: Vec<AgentOption> = self.config.iter().map(config_option).collect();
        if let (Some(modes), None) = (&self.modes, self.by_category("mode")) {
            out.push(AgentOption {
                id: MODE_OPTION.into(),
                name: "Mode".into(),
                description: None,
                category: Some("mode".into()),
                kind: "select".into(),
                value: modes.current_mode_id.clone(),
                choices: modes
                    .available_modes
                    .iter()
                    .map(|m| choice(&m.id, &m.name, m.description.as_deref()))
                    .collect(),
            });
        }
        if let (Some(models), None) = (&self.models, self.by_category("model")) {
            out.push(AgentOption {
                id: MODEL_OPTION.into(),
                name: "Model".into(),
                description: None,
                category: Some("model".into()),
                kind: "select".into(),
                value: models.current_model_id.clone(),
                choices: models
                    .available_models
                    .iter()
                    .map(|m| choice(&m.model_id, &m.name, m.description.as_deref()))
                    .collect(),
            });
        }
        out
    }

    /// How to set `option` to `value`: a config option by id, else the model or mode by the
    /// category the caller names it by; None when the agent has no such option.
    pub fn change(&self, option: &str, value: &str) -> Option<Change> {
        let config = self
            .config
            .iter()
            .find(|o| o.id == option)
            .or_else(|| self.by_category(option));
        if let Some(config) = config {
            return Some(Change::ConfigOption(match config.value {
                ConfigOptionValue::Boolean { .. } => {
                    json!({"configId": config.id, "type": "boolean", "value": value == "true"})
                }
                ConfigOptionValue::Select { .. } => json!({"configId": config.id, "value": value}),
            }));
        }
        match option {
            MODE_OPTION if self.modes.is_some() => Some(Change::Mode),
            MODEL_OPTION if self.models.is_some() => Some(Change::Model),
            _ => None,
        }
    }
}

fn choice(value: &str, name: &str, description: Option<&str>) -> ModelOption {
    ModelOption {
        value: value.to_string(),
        display_name: Some(name.to_string()),
        description: description.map(str::to_string),
    }
}

fn config_option(option: &SessionConfigOption) -> AgentOption {
    let (kind, value, choices) = match &option.value {
        ConfigOptionValue::Select { current_value, options } => (
            "select",
            current_value.clone(),
            options
                .all()
                .into_iter()
                .map(|o| choice(&o.value, &o.name, o.description.as_deref()))
                .collect(),
        ),
        ConfigOptionValue::Boolean { current_value } => ("boolean", current_value.to_string(), Vec::new()),
    };
    AgentOption {
        id: option.id.clone(),
        name: option.name.clone(),
        description: option.description.clone(),
        category: option.category.as_ref().map(|c| c.as_str().to_string()),
        kind: kind.to_string(),
        value,
        choices,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gemini-cli's `session/new` answer: modes and models, no config options.
    fn gemini() -> SessionOptions {
        let mut options = SessionOptions::default();
        options.replace_from(&json!({
            "sessionId": "s",
            "modes": {"currentModeId": "default", "availableModes": [{"id": "default", "name": "Default"}, {"id": "yolo", "name": "YOLO"}]},
            "models": {"currentModelId": "auto", "availableModels": [{"modelId": "gemini-2.5-flash", "name": "Flash"}]}
        }));
        options
    }

    #[test]
    fn modes_and_models_without_config_options_become_pickers_set_the_old_way() {
        let options = gemini();
        let events = options.to_events();
        assert_eq!(
            events.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(),
            ["mode", "model"]
        );
        assert_eq!(events[0].choices[1].value, "yolo");
        assert_eq!(options.change("mode", "yolo"), Some(Change::Mode));
        assert_eq!(options.change("model", "gemini-2.5-flash"), Some(Change::Model));
        assert_eq!(options.change("effort", "high"), None);
        assert_eq!(options.model().as_deref(), Some("auto"));
    }

    #[test]
    fn config_options_are_set_by_id_or_by_the_category_asked_for() {
        let mut options = SessionOptions::default();
        options.replace_from(&json!({"sessionId": "s", "configOptions": [
            {"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": "opus",
             "options": [{"value": "opus", "name": "Opus"}]},
            {"id": "fast", "name": "Fast", "type": "boolean", "currentValue": false}
        ]}));
        assert_eq!(options.model().as_deref(), Some("Opus"));
        assert_eq!(
            options.change("model", "opus"),
            Some(Change::ConfigOption(json!({"configId": "model", "value": "opus"})))
        );
        assert_eq!(
            options.change("fast", "true"),
            Some(Change::ConfigOption(
                json!({"configId": "fast", "type": "boolean", "value": true})
            ))
        );
        assert_eq!(options.to_events()[1].kind, "boolean");
    }
}
