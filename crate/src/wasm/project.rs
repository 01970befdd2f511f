//! The project's setup for the TypeScript side: the plan for its `.mcp.json` servers under the
//! approval settings, a user's choice kept in `.claude/settings.local.json`, and what the
//! settings configure that Tether does not run ([`crate::project`]).

use super::{value_from_js, value_to_js};
use crate::project::{approval, off, McpChoice};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const PROJECT_TYPES: &str = r#"
import type { McpChoice, OffItem, ProjectMcpPlan } from "../../extension/src/generated/core";
"#;

/// `mcpJson`: `.mcp.json`'s text (null: no file); `settings`: `[label, text]` of the settings
/// files, lowest precedence first.
#[wasm_bindgen(js_name = projectMcpPlan, unchecked_return_type = "ProjectMcpPlan")]
pub fn project_mcp_plan(
    #[wasm_bindgen(js_name = mcpJson)] mcp_json: Option<String>,
    #[wasm_bindgen(unchecked_param_type = "[string, string][]")] settings: JsValue,
) -> Result<JsValue, JsError> {
    let settings: Vec<(String, String)> = value_from_js(settings).map_err(|e| JsError::new(&e))?;
    Ok(value_to_js(&approval::plan(mcp_json.as_deref(), &settings)))
}

/// `.claude/settings.local.json`'s new text with the choice kept; throws saying why the file
/// cannot take it.
#[wasm_bindgen(js_name = recordMcpChoice)]
pub fn record_mcp_choice(
    existing: Option<String>,
    name: &str,
    #[wasm_bindgen(unchecked_param_type = "McpChoice")] choice: JsValue,
) -> Result<String, JsError> {
    let choice: McpChoice = value_from_js(choice).map_err(|e| JsError::new(&e))?;
    approval::record(existing.as_deref(), name, choice).map_err(|e| JsError::new(&e))
}

/// What the settings files (`[label, text]`) and the project folders that exist configure that
/// Tether does not run.
#[wasm_bindgen(js_name = projectOffItems, unchecked_return_type = "OffItem[]")]
pub fn project_off_items(
    #[wasm_bindgen(unchecked_param_type = "[string, string][]")] settings: JsValue,
    folders: Vec<String>,
) -> Result<JsValue, JsError> {
    let settings: Vec<(String, String)> = value_from_js(settings).map_err(|e| JsError::new(&e))?;
    Ok(value_to_js(&off::from_settings(&settings, &folders)))
}

/// The project folders `projectOffItems` asks about (relative to the root, `/`-separated).
#[wasm_bindgen(js_name = projectOffFolders)]
pub fn project_off_folders() -> Vec<String> {
    off::folders().map(str::to_string).collect()
}
