//! Fixtures: a temporary directory with a Node host on it, and helpers to talk MCP to a server.

use serde_json::{json, Value};
use tether_core::mcp::McpServer;
use tether_core::tools::{Toolset, ToolsetConfig};
use tether_core::wasm::{JsHost, TetherServer, WasmHost};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/tests/wasm/host.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = nodeHost)]
    fn node_host(bundle: &str, ripgrep: Option<String>) -> Result<JsHost, JsValue>;
    #[wasm_bindgen(js_name = disposeHost)]
    fn dispose_host(host: &JsHost);
    #[wasm_bindgen(js_name = makeTempDir)]
    fn make_temp_dir() -> String;
    #[wasm_bindgen(js_name = removeDir)]
    fn remove_dir(dir: &str);
    #[wasm_bindgen(js_name = writeText)]
    pub fn write_text(file: &str, text: &str);
    #[wasm_bindgen(js_name = readText)]
    pub fn read_text(file: &str) -> String;
    pub fn exists(file: &str) -> bool;
    #[wasm_bindgen(js_name = makeDir)]
    pub fn make_dir(dir: &str);
    pub fn symlink(target: &str, link: &str);
    #[wasm_bindgen(js_name = isSymlink)]
    pub fn is_symlink(file: &str) -> bool;
    pub fn chmod(file: &str, mode: u32);
    #[wasm_bindgen(js_name = fileMode)]
    pub fn file_mode(file: &str) -> u32;
    #[wasm_bindgen(js_name = setMtime)]
    pub fn set_mtime(file: &str, mtime_ms: f64);
    #[wasm_bindgen(js_name = failingHost)]
    pub fn failing_host(error: &JsValue, as_rejection: bool) -> JsHost;
    #[wasm_bindgen(js_name = plainValueHost)]
    pub fn plain_value_host() -> JsHost;
    #[wasm_bindgen(js_name = wrongShapeHost)]
    pub fn wrong_shape_host() -> JsHost;
    #[wasm_bindgen(js_name = partialHost)]
    pub fn partial_host() -> JsHost;
    #[wasm_bindgen(js_name = shortMtimesHost)]
    pub fn short_mtimes_host() -> JsHost;
    #[wasm_bindgen(js_name = sleep)]
    fn sleep_promise(ms: u32) -> js_sys::Promise;
}

/// Where build.sh puts the Node host bundled as CommonJS.
const NODE_HOST_BUNDLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/wasm-test/node-host.cjs");

/// A JSON value as the plain JS object JS code would pass.
pub fn js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).unwrap_or_else(|e| panic!("{e:?}"))
}

pub async fn sleep(ms: u32) {
    let _ = JsFuture::from(sleep_promise(ms)).await;
}

/// A temporary directory and a Node host; both are cleaned up on drop (background processes too).
pub struct Fixture {
    pub dir: String,
    js_host: JsHost,
}

impl Fixture {
    pub fn new() -> Self {
        Self::with_ripgrep(None)
    }

    /// A fixture whose host runs `ripgrep` as its ripgrep binary (None: a host without one).
    pub fn with_ripgrep(ripgrep: Option<String>) -> Self {
        let js_host = node_host(NODE_HOST_BUNDLE, ripgrep).unwrap_or_else(|e| panic!("{e:?}"));
        Fixture {
            dir: make_temp_dir(),
            js_host,
        }
    }

    pub fn path(&self, relative: &str) -> String {
        format!("{}/{relative}", self.dir)
    }

    /// The JS host object (the real Node host), as JS passes it to `new TetherServer`.
    pub fn js_host(&self) -> JsHost {
        self.js_host.clone()
    }

    pub fn host(&self) -> WasmHost {
        WasmHost::new(self.js_host.clone()).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The exported class, as JS uses it.
    pub fn server(&self) -> TetherServer {
        TetherServer::new(self.js_host.clone(), js(&json!({"root": self.dir})))
            .unwrap_or_else(|e| panic!("{:?}", JsValue::from(e)))
    }

    /// The core's own server type over the wasm host.
    pub fn mcp_server(&self) -> McpServer<WasmHost> {
        let tools = Toolset::new(self.host(), ToolsetConfig::new(self.dir.clone())).unwrap_or_else(|e| panic!("{e}"));
        McpServer::new(tools)
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        dispose_host(&self.js_host);
        remove_dir(&self.dir);
    }
}

/// Send one JSON-RPC message through the exported class; None when it gets no response.
pub async fn send(server: &TetherServer, message: &str) -> Option<Value> {
    let response = JsFuture::from(server.handle(message.to_string()))
        .await
        .unwrap_or_else(|e| panic!("handle rejected: {e:?}"));
    response
        .as_string()
        .map(|text| serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad JSON {text}: {e}")))
}

pub async fn request(server: &TetherServer, id: u64, method: &str, params: Value) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    send(server, &message.to_string())
        .await
        .expect("a request gets a response")
}

/// A tool's result: whether it is an error, and its text.
pub struct ToolCall {
    pub is_error: bool,
    pub text: String,
}

pub async fn call_tool(server: &TetherServer, name: &str, arguments: Value) -> ToolCall {
    let response = request(server, 1, "tools/call", json!({"name": name, "arguments": arguments})).await;
    let result = response
        .get("result")
        .unwrap_or_else(|| panic!("tools/call {name} failed: {response}"));
    let text = result["content"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    ToolCall {
        is_error: result["isError"] == json!(true),
        text,
    }
}
