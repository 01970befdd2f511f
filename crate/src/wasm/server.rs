//! `TetherServer`: the MCP server with Tether's tools, bound to one host and workspace
//! (`dist/tether-mcp.js` serves it over stdio).

use super::host::{JsHost, WasmHost};
use super::{spawn, value_from_js};
use crate::mcp::McpServer;
use crate::tools::checkpoints::CheckpointStore;
use crate::tools::{Toolset, ToolsetConfig};
use js_sys::Promise;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// What JS passes as the server's configuration.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ServerConfig {
    root: String,
    #[serde(default)]
    mirror: Option<String>,
    #[serde(default)]
    allow_outside_root: bool,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// A folder for checkpoints (one user message: the server's life).
    #[serde(default)]
    checkpoints: Option<String>,
}

const CONFIG_SHAPE: &str =
    "{root: string, mirror?: string, allowOutsideRoot?: boolean, env?: Record<string, string>, checkpoints?: string}";

/// The MCP server with Tether's tools, bound to one host and workspace.
#[wasm_bindgen]
pub struct TetherServer {
    server: Rc<McpServer<WasmHost>>,
}

#[wasm_bindgen]
impl TetherServer {
    /// `config`: `{root, mirror?, allowOutsideRoot?, env?}`. Throws an Error on a bad host object
    /// or configuration.
    #[wasm_bindgen(constructor)]
    pub fn new(host: JsHost, config: JsValue) -> Result<TetherServer, JsError> {
        let config = value_from_js::<ServerConfig>(config)
            .map_err(|e| JsError::new(&format!("Invalid Tether config: {e}. Expected {CONFIG_SHAPE}.")))?;
        let host = WasmHost::new(host).map_err(|e| JsError::new(&e))?;
        let toolset_config = ToolsetConfig {
            root: config.root,
            mirror: config.mirror,
            folders: Vec::new(),
            allow_outside_root: config.allow_outside_root,
            env: config.env.into_iter().collect(),
            checkpoints: config.checkpoints.map(|dir| CheckpointStore {
                dir,
                keep_messages: 100,
            }),
        };
        let tools =
            Toolset::new(host, toolset_config).map_err(|e| JsError::new(&format!("Invalid Tether config: {e}")))?;
        Ok(TetherServer {
            server: Rc::new(McpServer::new(tools)),
        })
    }

    /// Handle one JSON-RPC message; resolves to the response line, or `undefined` for a
    /// notification. Calls may overlap: each runs as its own task.
    #[wasm_bindgen(unchecked_return_type = "Promise<string | undefined>")]
    pub fn handle(&self, message: String) -> Promise {
        let server = self.server.clone();
        spawn(Box::pin(async move {
            match server.handle(&message).await {
                Some(response) => JsValue::from_str(&response),
                None => JsValue::UNDEFINED,
            }
        }))
    }

    /// The `initialize` result as JSON (the server manifest sent ahead of the handshake).
    #[wasm_bindgen(js_name = initializeResult)]
    pub fn initialize_result(&self) -> String {
        self.server.manifest().initialize_result.to_string()
    }

    /// The `tools/list` result as JSON.
    #[wasm_bindgen(js_name = toolsList)]
    pub fn tools_list(&self) -> String {
        self.server.manifest().tools_list_result.to_string()
    }

    /// The files changed from now on are checkpointed under `messageId` (with `checkpoints` set).
    #[wasm_bindgen(js_name = beginMessage, unchecked_return_type = "Promise<void>")]
    pub fn begin_message(&self, #[wasm_bindgen(js_name = messageId)] message_id: String) -> Promise {
        let server = self.server.clone();
        super::spawn_fallible(Box::pin(async move {
            let tools = &server.tools;
            match tools.checkpoints.begin(&tools.host, &message_id).await {
                Ok(()) => Ok(JsValue::UNDEFINED),
                Err(e) => Err(JsError::new(&format!("beginMessage: {}", e.message)).into()),
            }
        }))
    }

    /// Write the before-images taken since the last flush, and the journal (a turn's end).
    #[wasm_bindgen(js_name = flushCheckpoints, unchecked_return_type = "Promise<void>")]
    pub fn flush_checkpoints(&self) -> Promise {
        let server = self.server.clone();
        super::spawn_fallible(Box::pin(async move {
            let tools = &server.tools;
            match tools.checkpoints.flush(&tools.host).await {
                Ok(()) => Ok(JsValue::UNDEFINED),
                Err(e) => Err(JsError::new(&format!("flushCheckpoints: {}", e.message)).into()),
            }
        }))
    }

    /// Forget what is cached for a workspace path (deleted, renamed, changed elsewhere).
    pub fn invalidate(&self, path: &str) {
        self.server.tools.cache.invalidate(path);
    }

    /// A file watcher saw a workspace path change: re-check it against the cache.
    #[wasm_bindgen(js_name = fileChanged, unchecked_return_type = "Promise<void>")]
    pub fn file_changed(&self, path: String) -> Promise {
        let server = self.server.clone();
        spawn(Box::pin(async move {
            server.tools.cache.on_changed(&server.tools.host, &path).await;
            JsValue::UNDEFINED
        }))
    }
}
