//! The wasm-bindgen boundary, and the only module that knows about JavaScript; thin, split by
//! export: the host object JS passes ([`host`]), the MCP server ([`server`]), an agent session
//! ([`agent`], its permission rules in [`rules`]), the NDJSON framing every stdio peer uses
//! ([`framing`]) and path containment ([`paths`]).

mod agent;
mod framing;
mod host;
mod paths;
mod project;
mod rules;
mod server;

pub use agent::TetherAgent;
pub use framing::NdjsonSplitter;
pub use host::{error_kind_for_code, JsHost, WasmHost};
pub use paths::workspace_path;
pub use server::TetherServer;

use host::string_property;
use js_sys::Promise;
use serde::de::DeserializeOwned;
use std::future::Future;
use std::pin::Pin;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

/// Runs when the module is instantiated: a panic then reaches the console with its message
/// instead of a bare "unreachable" trap.
#[wasm_bindgen(start)]
fn install_panic_hook() {
    console_error_panic_hook::set_once();
}

/// Run `future` as its own task and resolve the promise with its value. One instantiation of the
/// promise machinery for every exported async method.
pub(crate) fn spawn(future: Pin<Box<dyn Future<Output = JsValue>>>) -> Promise {
    spawn_fallible(Box::pin(async move { Ok(future.await) }))
}

/// Run `future` as its own task: the promise resolves with its value or rejects with its error.
/// Every exported async method comes here, boxed, so `future_to_promise` is compiled once.
pub(crate) fn spawn_fallible(future: Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>) -> Promise {
    future_to_promise(future)
}

/// A JS value as JSON, through `JSON.stringify`: one call across the boundary where
/// serde-wasm-bindgen makes several per key, and the config and the environment the driver passes
/// before the spawn have dozens. `undefined` (which has no JSON form) reads as null.
pub(crate) fn json_from_js(value: JsValue) -> Result<serde_json::Value, String> {
    let text = js_sys::JSON::stringify(&value).map_err(|error| {
        let reason = string_property(&error, "message").unwrap_or_else(|| format!("{error:?}"));
        format!("not representable as JSON: {reason}")
    })?;
    match text.as_string() {
        Some(text) => serde_json::from_str(&text).map_err(|e| e.to_string()),
        None => Ok(serde_json::Value::Null),
    }
}

/// A JS value as `T`, through JSON so a misspelt field is refused (serde-wasm-bindgen reads only
/// the fields a struct names).
pub(crate) fn value_from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, String> {
    crate::json::from_value(json_from_js(value)?).map_err(|e| e.to_string())
}

/// A Rust value as a plain JS value (maps become objects), through JSON.
pub(crate) fn value_to_js<T: serde::Serialize>(value: &T) -> JsValue {
    serde_json::to_string(value)
        .ok()
        .and_then(|text| js_sys::JSON::parse(&text).ok())
        .unwrap_or(JsValue::UNDEFINED)
}
