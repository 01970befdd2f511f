//! The host object JS passes (TypeScript: `TetherHost`, `extension/src/core/host.ts`) as the
//! core's host traits: its promise-returning methods awaited as futures, its errors mapped to
//! [`HostError`]s.

use crate::host::{
    BackgroundStatus, Clock, DirEntry, Exec, ExecOutput, ExecRequest, FileSystem, HostError, HostErrorKind, HostResult,
    Metadata, Search,
};
use js_sys::{Array, Float64Array, Promise, Reflect, Uint8Array};
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Node's hashing (the extension host and the CLIs run in Node), for [`FileSystem::sha256_hex`].
mod node_crypto {
    use js_sys::Uint8Array;
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen(module = "node:crypto")]
    extern "C" {
        pub type Hash;
        #[wasm_bindgen(js_name = createHash)]
        pub fn create_hash(algorithm: &str) -> Hash;
        #[wasm_bindgen(method)]
        pub fn update(this: &Hash, data: &Uint8Array) -> Hash;
        #[wasm_bindgen(method)]
        pub fn digest(this: &Hash, encoding: &str) -> String;
    }
}

#[wasm_bindgen]
extern "C" {
    /// The host object (TypeScript: `TetherHost`). Every method may return a promise or a plain
    /// value, and fails by throwing or rejecting with `{code, message}`.
    #[derive(Clone)]
    pub type JsHost;

    #[wasm_bindgen(method, catch, js_name = readFile)]
    fn read_file(this: &JsHost, path: &str, max_bytes: f64) -> Result<JsValue, JsValue>;
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
    // Optional: checked with `has` before each call.
    #[wasm_bindgen(method, catch, js_name = unsavedText)]
    fn unsaved_text(this: &JsHost, path: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = waitBackground)]
    fn wait_background(this: &JsHost, id: &str, wait_ms: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn mtimes(this: &JsHost, paths: &Array) -> Result<JsValue, JsValue>;
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

impl WasmHost {
    /// Whether the host object has the optional method `name`.
    fn has(&self, name: &str) -> bool {
        Reflect::get(&self.0, &JsValue::from_str(name)).is_ok_and(|f| f.is_function())
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
        "EFTYPE" => HostErrorKind::NotAFile,
        "EFBIG" => HostErrorKind::TooLarge,
        "ENOSYS" | "ENOTSUP" | "EOPNOTSUPP" | "Unavailable" => HostErrorKind::Unsupported,
        _ => HostErrorKind::Other,
    }
}

pub(super) fn string_property(value: &JsValue, name: &str) -> Option<String> {
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
    async fn read_file(&self, path: &str, max_bytes: u64) -> HostResult<Vec<u8>> {
        // Precision loss past 2^53 bytes does not matter for a limit.
        let bytes = bytes_from_js(settle(self.0.read_file(path, max_bytes as f64)).await?)?;
        // A host that cannot bound its read (vscode.workspace.fs) is still held to the limit.
        if bytes.len() as u64 > max_bytes {
            return Err(HostError::new(
                HostErrorKind::TooLarge,
                format!("{path} holds more than {max_bytes} bytes"),
            ));
        }
        Ok(bytes)
    }

    async fn write_file(&self, path: &str, data: &[u8]) -> HostResult<()> {
        // A copy, not a view into wasm memory: the host may keep it across awaits while the
        // memory grows (which detaches views).
        let copy = Uint8Array::from(data);
        settle(self.0.write_file(path, &copy)).await.map(drop)
    }

    fn sha256_hex(&self, data: &[u8]) -> String {
        // SAFETY: the view lives only through this synchronous call, which neither allocates in
        // wasm memory nor calls back into the module, so the memory cannot grow under it.
        let view = unsafe { Uint8Array::view(data) };
        node_crypto::create_hash("sha256").update(&view).digest("hex")
    }

    async fn stat(&self, path: &str) -> HostResult<Metadata> {
        from_js(settle(self.0.stat(path)).await?, "stat")
    }

    async fn lstat(&self, path: &str) -> HostResult<Metadata> {
        from_js(settle(self.0.lstat(path)).await?, "lstat")
    }

    /// One call for all the files where the host has `mtimes` (a Float64Array back, NaN for a
    /// file it could not stat), else a `stat` per file.
    async fn mtimes(&self, paths: &[String]) -> Vec<Option<f64>> {
        if self.has("mtimes") {
            let list: Array = paths.iter().map(|p| JsValue::from_str(p)).collect();
            let answer = settle(self.0.mtimes(&list)).await.ok();
            if let Some(times) = answer.and_then(|a| a.dyn_into::<Float64Array>().ok()) {
                if times.length() as usize == paths.len() {
                    return times.to_vec().into_iter().map(|t| (!t.is_nan()).then_some(t)).collect();
                }
            }
        }
        crate::host::mtimes_by_stat(self, paths).await
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

    async fn unsaved_text(&self, path: &str) -> HostResult<Option<String>> {
        if !self.has("unsavedText") {
            return Ok(None);
        }
        Ok(settle(self.0.unsaved_text(path)).await?.as_string())
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

    async fn wait_background(&self, id: &str, wait_ms: u64) -> HostResult<BackgroundStatus> {
        if !self.has("waitBackground") {
            return Err(HostError::new(
                HostErrorKind::Unsupported,
                "the host cannot wait for a background command (no waitBackground)",
            ));
        }
        from_js(
            settle(self.0.wait_background(id, wait_ms as f64)).await?,
            "waitBackground",
        )
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
