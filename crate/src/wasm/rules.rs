//! The permission rules of a `TetherAgent` (the rules view), the settings-file edits the driver
//! makes to the user's settings, which live where it runs, and the hook events of settings texts.

use super::agent::{error, outputs_to_js, TetherAgent};
use super::{json_from_js, value_from_js, value_to_js};
use crate::hooks::{HookEvent, HookSet, HooksSource};
use crate::permissions::{persist_rules, remove_rule_from_settings, Rule, RuleBehavior, RuleEntry};
use js_sys::Promise;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const RULES_TYPES: &str = r#"
import type { RuleBehavior, RuleEntry } from "../../extension/src/generated/core";
"#;

#[wasm_bindgen]
impl TetherAgent {
    /// Every permission rule in effect, with where it lives.
    #[wasm_bindgen(unchecked_return_type = "RuleEntry[]")]
    pub fn rules(&self) -> JsValue {
        value_to_js(&self.inner.rules())
    }

    /// Take a rule out (the session's, or a project settings file's on the workspace); for the
    /// user's settings, write the file first and call `setUserSettings`. Rejects with the reason.
    #[wasm_bindgen(js_name = removeRule, unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn remove_rule(&self, #[wasm_bindgen(unchecked_param_type = "RuleEntry")] entry: JsValue) -> Promise {
        let entry: RuleEntry = match value_from_js(entry) {
            Ok(entry) => entry,
            Err(e) => return Promise::reject(&error(format!("removeRule: {e}")).into()),
        };
        let agent = self.inner.clone();
        super::spawn_fallible(Box::pin(async move {
            match agent.remove_rule(entry).await {
                Ok(outputs) => Ok(outputs_to_js(outputs)),
                Err(e) => Err(error(format!("removeRule: {e}")).into()),
            }
        }))
    }

    /// The user's settings file's text now (undefined: there is none).
    #[wasm_bindgen(js_name = setUserSettings, unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn set_user_settings(&self, text: Option<String>) -> Promise {
        let agent = self.inner.clone();
        super::spawn(Box::pin(async move {
            outputs_to_js(agent.set_user_settings(text.as_deref()).await)
        }))
    }
}

/// A settings file's text with `rules` added to `permissions.allow` (every other key kept).
#[wasm_bindgen(js_name = settingsWithRules)]
pub fn settings_with_rules(
    existing: Option<String>,
    #[wasm_bindgen(unchecked_param_type = "string[]")] rules: JsValue,
) -> Result<String, JsError> {
    let texts: Vec<String> = json_from_js(rules)
        .and_then(|v| crate::json::from_value(v).map_err(|e| e.to_string()))
        .map_err(|e| error(format!("settingsWithRules: {e}")))?;
    let rules = texts
        .iter()
        .map(|text| Rule::parse(text).ok_or_else(|| error(format!("{text:?} is not a permission rule"))))
        .collect::<Result<Vec<_>, _>>()?;
    persist_rules(existing.as_deref(), &rules).map_err(|e| error(e.to_string()))
}

/// A settings file's text without `rule` in `permissions.<behavior>`; undefined when it does not
/// hold the rule.
#[wasm_bindgen(js_name = settingsWithoutRule)]
pub fn settings_without_rule(
    existing: String,
    #[wasm_bindgen(unchecked_param_type = "RuleBehavior")] behavior: JsValue,
    rule: String,
) -> Result<Option<String>, JsError> {
    let behavior: RuleBehavior = value_from_js(behavior).map_err(|e| error(format!("settingsWithoutRule: {e}")))?;
    let rule = Rule::parse(&rule).ok_or_else(|| error(format!("{rule:?} is not a permission rule")))?;
    remove_rule_from_settings(&existing, behavior, &rule).map_err(|e| error(e.to_string()))
}

/// The events these settings texts (the project's, and the user's when their hooks run) have
/// command hooks for, as `hooks.events` in the session config: none when `disableAllHooks`.
#[wasm_bindgen(js_name = hookEvents, unchecked_return_type = "string[]")]
pub fn hook_events(#[wasm_bindgen(unchecked_param_type = "string[]")] texts: JsValue) -> Result<JsValue, JsError> {
    let texts: Vec<String> = json_from_js(texts)
        .and_then(|v| crate::json::from_value(v).map_err(|e| e.to_string()))
        .map_err(|e| error(format!("hookEvents: {e}")))?;
    let sources: Vec<(HooksSource, &str)> = texts.iter().map(|text| (HooksSource::Project, text.as_str())).collect();
    let (set, _) = HookSet::from_settings(&sources);
    let names: Vec<&str> = set.events().into_iter().map(HookEvent::as_str).collect();
    Ok(value_to_js(&names))
}
