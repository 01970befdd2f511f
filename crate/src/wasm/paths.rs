//! Path containment for the extension's own tools (the IDE tools): the same mapping and check the
//! file tools use, so a path the model gives them means the same place and meets the same limit.

use crate::paths::PathMapper;
use wasm_bindgen::prelude::*;

/// `input` (a workspace path, a mirror path, or relative to the root) as a normalised workspace
/// path inside `root`; an error saying why otherwise (outside the workspace, not absolute, empty).
#[wasm_bindgen(js_name = workspacePath)]
pub fn workspace_path(root: &str, mirror: Option<String>, input: &str) -> Result<String, JsError> {
    let mut paths = PathMapper::new(root).map_err(|e| JsError::new(&e.to_string()))?;
    if let Some(mirror) = mirror {
        paths = paths.with_mirror(&mirror).map_err(|e| JsError::new(&e.to_string()))?;
    }
    paths.resolve_inside(input).map_err(|e| JsError::new(&e.to_string()))
}
