//! The wasm-bindgen boundary, and the only module that knows about JavaScript.
//!
//! The extension (or `dist/tether-mcp.js`) passes a host object implementing the TypeScript
//! interface `TetherHost` (`extension/src/core/host.ts`); [`WasmHost`] turns its promise-returning
//! methods into the core's host traits. [`TetherServer`] is the exported class that serves MCP
//! messages with the tools bound to that host; [`TetherAgent`] hosts a whole Claude Code session
//! ([`ClaudeAgent`]).

use crate::agent::{images_from_json, string_map, AgentConfig, AgentOutput, ClaudeAgent, UserAnswer};
use crate::host::{
    BackgroundStatus, Clock, DirEntry, Exec, ExecOutput, ExecRequest, FileSystem, HostError, HostErrorKind, HostResult,
    Metadata, Search,
};
use crate::mcp::McpServer;
use crate::permissions::PermissionMode;
use crate::tools::{Toolset, ToolsetConfig};
use js_sys::{Array, Promise, Reflect, Uint8Array};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

/// Runs when the module is instantiated: a panic then reaches the console with its message
/// instead of a bare "unreachable" trap.
#[wasm_bindgen(start)]
fn install_panic_hook() {
    console_error_panic_hook::set_once();
}

#[wasm_bindgen]
extern "C" {
    /// The host object (TypeScript: `TetherHost`). Every method may return a promise or a plain
    /// value, and fails by throwing or rejecting with `{code, message}`.
    #[derive(Clone)]
    pub type JsHost;

    #[wasm_bindgen(method, catch, js_name = readFile)]
    fn read_file(this: &JsHost, path: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = writeFile)]
    fn write_file(this: &JsHost, path: &str, data: &Uint8Array) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn stat(this: &JsHost, path: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn lstat(this: &JsHost, path: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = readDir)]
    fn read_dir(this: &JsHost, path: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn mkdir(this: &JsHost, path: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn rename(this: &JsHost, from: &str, to: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn remove(this: &JsHost, path: &str, recursive: bool) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = realPath)]
    fn real_path(this: &JsHost, path: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn run(this: &JsHost, request: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = spawnBackground)]
    fn spawn_background(this: &JsHost, request: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = readBackground)]
    fn read_background(this: &JsHost, id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = killBackground)]
    fn kill_background(this: &JsHost, id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn ripgrep(this: &JsHost, args: &Array, cwd: &str, timeout_ms: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = nowMs)]
    fn now_ms(this: &JsHost) -> Result<f64, JsValue>;
}

/// Methods a host object must have; checked once up front so a wrong object fails at
/// construction with a clear message instead of on the first tool call.
const HOST_METHODS: [&str; 15] = [
    "readFile",
    "writeFile",
    "stat",
    "lstat",
    "readDir",
    "mkdir",
    "rename",
    "remove",
    "realPath",
    "run",
    "spawnBackground",
    "readBackground",
    "killBackground",
    "ripgrep",
    "nowMs",
];

/// The core's host traits over a JS host object.
pub struct WasmHost(JsHost);

impl WasmHost {
    /// Wrap a host object, refusing one that lacks any of the `TetherHost` methods.
    pub fn new(host: JsHost) -> Result<Self, String> {
        let missing: Vec<&str> = HOST_METHODS
            .iter()
            .copied()
            .filter(|name| !Reflect::get(&host, &JsValue::from_str(name)).is_ok_and(|f| f.is_function()))
            .collect();
        if missing.is_empty() {
            Ok(WasmHost(host))
        } else {
            Err(format!(
                "The Tether host object lacks the method(s) {}; it must implement the TetherHost interface.",
                missing.join(", ")
            ))
        }
    }
}

/// The kind of a host failure from its error code: Node's errno names, and VS Code's
/// `FileSystemError` codes so a host over `vscode.workspace.fs` can pass its errors through.
pub fn error_kind_for_code(code: &str) -> HostErrorKind {
    match code {
        "ENOENT" | "FileNotFound" => HostErrorKind::NotFound,
        "EACCES" | "EPERM" | "NoPermissions" => HostErrorKind::PermissionDenied,
        "EISDIR" | "FileIsADirectory" => HostErrorKind::IsADirectory,
        "ENOTDIR" | "FileNotADirectory" => HostErrorKind::NotADirectory,
        "EEXIST" | "FileExists" => HostErrorKind::AlreadyExists,
        "ENOSYS" | "ENOTSUP" | "EOPNOTSUPP" | "Unavailable" => HostErrorKind::Unsupported,
        _ => HostErrorKind::Other,
    }
}

fn string_property(value: &JsValue, name: &str) -> Option<String> {
    if !value.is_object() {
        return None;
    }
    Reflect::get(value, &JsValue::from_str(name)).ok()?.as_string()
}

/// A thrown or rejected value from the host, as a [`HostError`].
fn host_error(error: JsValue) -> HostError {
    let kind = string_property(&error, "code")
        .map(|code| error_kind_for_code(&code))
        .unwrap_or(HostErrorKind::Other);
    let message = string_property(&error, "message")
        .or_else(|| error.as_string())
        .unwrap_or_else(|| format!("the host failed: {error:?}"));
    HostError::new(kind, message)
}

/// Await a host call that returned a promise or a plain value.
async fn settle(call: Result<JsValue, JsValue>) -> HostResult<JsValue> {
    let value = call.map_err(host_error)?;
    JsFuture::from(Promise::resolve(&value)).await.map_err(host_error)
}

fn from_js<T: DeserializeOwned>(value: JsValue, method: &str) -> HostResult<T> {
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| HostError::other(format!("the host's {method}() returned an unexpected value: {e}")))
}

fn request_to_js(request: &ExecRequest) -> HostResult<JsValue> {
    serde_wasm_bindgen::to_value(request)
        .map_err(|e| HostError::other(format!("could not pass the command to the host: {e}")))
}

fn bytes_from_js(value: JsValue) -> HostResult<Vec<u8>> {
    if let Some(array) = value.dyn_ref::<Uint8Array>() {
        return Ok(array.to_vec());
    }
    if value.is_instance_of::<js_sys::ArrayBuffer>() {
        return Ok(Uint8Array::new(&value).to_vec());
    }
    Err(HostError::other(
        "the host's readFile() returned something other than a Uint8Array",
    ))
}

impl FileSystem for WasmHost {
    async fn read_file(&self, path: &str) -> HostResult<Vec<u8>> {
        bytes_from_js(settle(self.0.read_file(path)).await?)
    }

    async fn write_file(&self, path: &str, data: &[u8]) -> HostResult<()> {
        // A copy, not a view into wasm memory: the host may keep it across awaits while the
        // memory grows (which detaches views).
        let copy = Uint8Array::from(data);
        settle(self.0.write_file(path, &copy)).await.map(drop)
    }

    async fn stat(&self, path: &str) -> HostResult<Metadata> {
        from_js(settle(self.0.stat(path)).await?, "stat")
    }

    async fn lstat(&self, path: &str) -> HostResult<Metadata> {
        from_js(settle(self.0.lstat(path)).await?, "lstat")
    }

    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        from_js(settle(self.0.read_dir(path)).await?, "readDir")
    }

    async fn create_dir_all(&self, path: &str) -> HostResult<()> {
        settle(self.0.mkdir(path)).await.map(drop)
    }

    async fn rename(&self, from: &str, to: &str) -> HostResult<()> {
        settle(self.0.rename(from, to)).await.map(drop)
    }

    async fn remove(&self, path: &str, recursive: bool) -> HostResult<()> {
        settle(self.0.remove(path, recursive)).await.map(drop)
    }

    async fn real_path(&self, path: &str) -> HostResult<String> {
        settle(self.0.real_path(path))
            .await?
            .as_string()
            .ok_or_else(|| HostError::other("the host's realPath() returned something other than a string"))
    }
}

impl Exec for WasmHost {
    async fn run(&self, request: &ExecRequest) -> HostResult<ExecOutput> {
        let request = request_to_js(request)?;
        from_js(settle(self.0.run(&request)).await?, "run")
    }

    async fn spawn_background(&self, request: &ExecRequest) -> HostResult<String> {
        let request = request_to_js(request)?;
        from_js(settle(self.0.spawn_background(&request)).await?, "spawnBackground")
    }

    async fn read_background(&self, id: &str) -> HostResult<BackgroundStatus> {
        from_js(settle(self.0.read_background(id)).await?, "readBackground")
    }

    async fn kill_background(&self, id: &str) -> HostResult<bool> {
        from_js(settle(self.0.kill_background(id)).await?, "killBackground")
    }
}

impl Search for WasmHost {
    async fn ripgrep(&self, args: &[String], cwd: &str, timeout_ms: u64) -> HostResult<Option<ExecOutput>> {
        let js_args: Array = args.iter().map(|a| JsValue::from_str(a)).collect();
        // Precision loss past 2^53 ms (285,000 years) does not matter for a timeout.
        let result = settle(self.0.ripgrep(&js_args, cwd, timeout_ms as f64)).await?;
        from_js(result, "ripgrep")
    }
}

impl Clock for WasmHost {
    fn now_ms(&self) -> f64 {
        self.0.now_ms().unwrap_or_else(|_| js_sys::Date::now())
    }
}

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
}

const CONFIG_SHAPE: &str = "{root: string, mirror?: string, allowOutsideRoot?: boolean, env?: Record<string, string>}";

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
            allow_outside_root: config.allow_outside_root,
            env: config.env.into_iter().collect(),
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
        self.server.initialize_result().to_string()
    }

    /// The `tools/list` result as JSON.
    #[wasm_bindgen(js_name = toolsList)]
    pub fn tools_list(&self) -> String {
        self.server.tools_list_result().to_string()
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

/// Run `future` as its own task and resolve the promise with its value. One instantiation of the
/// promise machinery for every exported async method.
fn spawn(future: Pin<Box<dyn Future<Output = JsValue>>>) -> Promise {
    future_to_promise(async move { Ok(future.await) })
}

/// A JS value as JSON, through `JSON.stringify`: one call across the boundary where
/// serde-wasm-bindgen makes several per key, and the config and the environment the driver passes
/// before the spawn have dozens. `undefined` (which has no JSON form) reads as null.
fn json_from_js(value: JsValue) -> Result<serde_json::Value, String> {
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
fn value_from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, String> {
    serde_json::from_value(json_from_js(value)?).map_err(|e| e.to_string())
}

/// A Rust value as a plain JS value (maps become objects), through JSON.
fn value_to_js<T: serde::Serialize>(value: &T) -> JsValue {
    serde_json::to_string(value)
        .ok()
        .and_then(|text| js_sys::JSON::parse(&text).ok())
        .unwrap_or(JsValue::UNDEFINED)
}

fn outputs_to_js(outputs: Vec<AgentOutput>) -> JsValue {
    value_to_js(&outputs)
}

// The types are generated from the Rust ones (crate/src/typescript.rs); the bindings' .d.ts lands
// in target/wasm-pkg/, two levels below the repository.
#[wasm_bindgen(typescript_custom_section)]
const AGENT_TYPES: &str = r#"
import type { AgentConfig, AgentOutput, PermissionAnswer, PermissionMode } from "../../extension/src/generated/core";
"#;

/// A Claude Code session: the CLI's protocol, Tether's tools and its permission engine, bound to
/// one host and workspace. Outputs are arrays of `{type: "write", line}` / `{type: "event", event}`.
#[wasm_bindgen]
pub struct TetherAgent {
    inner: Rc<ClaudeAgent<WasmHost>>,
}

#[wasm_bindgen]
impl TetherAgent {
    /// Throws an Error on a bad host object or configuration.
    #[wasm_bindgen(constructor)]
    pub fn new(
        host: JsHost,
        #[wasm_bindgen(unchecked_param_type = "AgentConfig")] config: JsValue,
    ) -> Result<TetherAgent, JsError> {
        let config = json_from_js(config)
            .and_then(|json| AgentConfig::from_json(&json))
            .map_err(|e| JsError::new(&format!("Invalid Tether agent config: {e}.")))?;
        let host = WasmHost::new(host).map_err(|e| JsError::new(&e))?;
        let agent =
            ClaudeAgent::new(host, config).map_err(|e| JsError::new(&format!("Invalid Tether agent config: {e}")))?;
        Ok(TetherAgent { inner: Rc::new(agent) })
    }

    /// The CLI's arguments (without the binary) and its complete environment.
    #[wasm_bindgen(unchecked_return_type = "{ args: string[]; env: Record<string, string> }")]
    pub fn launch(
        &self,
        #[wasm_bindgen(js_name = parentEnv, unchecked_param_type = "Record<string, string>")] parent_env: JsValue,
    ) -> Result<JsValue, JsError> {
        let parent_env = json_from_js(parent_env)
            .and_then(|json| string_map(&json, "parentEnv"))
            .map_err(|e| JsError::new(&format!("launch(parentEnv): expected Record<string, string>: {e}")))?;
        let launch = self.inner.launch(parent_env);
        Ok(value_to_js(
            &serde_json::json!({"args": launch.args, "env": launch.env}),
        ))
    }

    /// The `initialize` line, without waiting for the settings: write it right after the spawn.
    /// `start()` then leaves it out.
    #[wasm_bindgen(unchecked_return_type = "AgentOutput[]")]
    pub fn initialize(&self) -> JsValue {
        outputs_to_js(self.inner.initialize())
    }

    /// Loads the workspace's permission settings; resolves to the outputs with the `initialize`
    /// line (unless `initialize()` took it). Write the first prompt after this: the settings may
    /// switch the mode.
    #[wasm_bindgen(unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn start(&self) -> Promise {
        let agent = self.inner.clone();
        spawn(Box::pin(async move { outputs_to_js(agent.start().await) }))
    }

    /// A user turn: text and optional images `{mediaType, data}` (base64).
    #[wasm_bindgen(unchecked_return_type = "AgentOutput[]")]
    pub fn prompt(
        &self,
        text: &str,
        #[wasm_bindgen(unchecked_param_type = "{ mediaType: string; data: string }[] | undefined")] images: JsValue,
    ) -> Result<JsValue, JsError> {
        let images = if images.is_undefined() || images.is_null() {
            Vec::new()
        } else {
            json_from_js(images)
                .and_then(|json| images_from_json(&json))
                .map_err(|e| {
                    JsError::new(&format!(
                        "prompt(images): expected {{mediaType: string, data: string}}[]: {e}"
                    ))
                })?
        };
        Ok(outputs_to_js(self.inner.prompt(text, &images)))
    }

    /// One stdout line of the CLI. Calls may overlap: each runs as its own task.
    #[wasm_bindgen(js_name = onLine, unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn on_line(&self, line: String) -> Promise {
        let agent = self.inner.clone();
        spawn(Box::pin(async move { outputs_to_js(agent.on_line(&line).await) }))
    }

    /// The user's answer `{decision: "allow" | "always" | "deny", reason?, userContent?}` to a
    /// `permissionRequest` event.
    #[wasm_bindgen(js_name = answerPermission, unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn answer_permission(
        &self,
        #[wasm_bindgen(js_name = requestId)] request_id: String,
        #[wasm_bindgen(unchecked_param_type = "PermissionAnswer")] answer: JsValue,
    ) -> Promise {
        let agent = self.inner.clone();
        let answer = match json_from_js(answer).and_then(|json| UserAnswer::from_json(&json)) {
            Ok(answer) => answer,
            Err(e) => {
                let error = JsError::new(&format!(
                    "answerPermission: expected {{decision: \"allow\" | \"always\" | \"deny\", reason?: string, userContent?: string}}: {e}"
                ));
                return Promise::reject(&error.into());
            }
        };
        spawn(Box::pin(async move {
            outputs_to_js(agent.answer_permission(&request_id, answer).await)
        }))
    }

    #[wasm_bindgen(unchecked_return_type = "AgentOutput[]")]
    pub fn interrupt(&self) -> JsValue {
        outputs_to_js(self.inner.interrupt())
    }

    /// `mode`: default, acceptEdits, plan, dontAsk or bypassPermissions.
    #[wasm_bindgen(js_name = setMode, unchecked_return_type = "AgentOutput[]")]
    pub fn set_mode(
        &self,
        #[wasm_bindgen(unchecked_param_type = "PermissionMode")] mode: &str,
    ) -> Result<JsValue, JsError> {
        let mode = PermissionMode::parse(mode).ok_or_else(|| {
            JsError::new(&format!(
                "setMode: unknown mode {mode:?}; use default, acceptEdits, plan, dontAsk or bypassPermissions"
            ))
        })?;
        Ok(outputs_to_js(self.inner.set_mode(mode)))
    }

    /// `null` returns to the default model.
    #[wasm_bindgen(js_name = setModel, unchecked_return_type = "AgentOutput[]")]
    pub fn set_model(&self, model: Option<String>) -> JsValue {
        outputs_to_js(self.inner.set_model(model.as_deref()))
    }

    /// A file watcher saw a workspace path change.
    #[wasm_bindgen(js_name = fileChanged, unchecked_return_type = "Promise<void>")]
    pub fn file_changed(&self, path: String) -> Promise {
        let agent = self.inner.clone();
        spawn(Box::pin(async move {
            agent.file_changed(&path).await;
            JsValue::UNDEFINED
        }))
    }
}
