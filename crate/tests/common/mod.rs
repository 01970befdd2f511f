//! What the crate's integration tests share: a temporary workspace on the real file system.
// Each test crate compiles this module and uses part of it.
#![allow(dead_code)]

use serde_json::Value;
use std::fs;
use std::path::Path;
use tempfile::TempDir;
use tether_core::agent::AgentOutput;
use tether_core::native::NativeHost;
use tether_core::tools::{Toolset, ToolsetConfig};

/// A temporary directory as a workspace root, removed when dropped. The root is the canonical
/// path, so `pwd -P` and `realpath` report the same spelling the tools use.
pub struct TempWorkspace {
    dir: TempDir,
    root: String,
}

impl TempWorkspace {
    pub fn new() -> TempWorkspace {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical temp dir");
        let root = root.to_string_lossy().into_owned();
        TempWorkspace { dir, root }
    }

    pub fn root(&self) -> &str {
        &self.root
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The absolute path of `rel`.
    pub fn path(&self, rel: &str) -> String {
        format!("{}/{rel}", self.root)
    }

    /// Write `rel` (its directories made as needed); returns its absolute path.
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> String {
        let path = self.path(rel);
        if let Some(parent) = Path::new(&path).parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(&path, bytes).unwrap();
        path
    }

    /// The text of `rel`; None when it does not exist.
    pub fn read(&self, rel: &str) -> Option<String> {
        fs::read_to_string(self.path(rel)).ok()
    }

    pub fn bytes(&self, rel: &str) -> Vec<u8> {
        fs::read(self.path(rel)).unwrap()
    }

    /// The tools on this workspace through the native host.
    pub fn toolset(&self) -> Toolset<NativeHost> {
        self.toolset_with(ToolsetConfig::new(self.root.clone()))
    }

    pub fn toolset_with(&self, config: ToolsetConfig) -> Toolset<NativeHost> {
        Toolset::new(NativeHost::new(), config).expect("toolset")
    }
}

/// The messages the agent sent to its process, parsed.
pub fn sent(outputs: &[AgentOutput]) -> Vec<Value> {
    outputs
        .iter()
        .filter_map(|o| match o {
            AgentOutput::Send { message } => Some(serde_json::from_str(message).unwrap()),
            _ => None,
        })
        .collect()
}

/// The UI events the agent emitted, as JSON.
pub fn events(outputs: &[AgentOutput]) -> Vec<Value> {
    outputs
        .iter()
        .filter_map(|o| match o {
            AgentOutput::Event { event } => Some(serde_json::to_value(event).unwrap()),
            _ => None,
        })
        .collect()
}

/// The permission question among the agent's UI events.
pub fn permission_request(outputs: &[AgentOutput]) -> Value {
    events(outputs)
        .into_iter()
        .find(|e| e["type"] == "permissionRequest")
        .unwrap_or_else(|| panic!("no permissionRequest in {outputs:?}"))
}

/// The CLI's `result` line that ends a turn (2.1.330's shape).
pub fn result_line(subtype: &str, terminal_reason: &str) -> String {
    serde_json::json!({"type":"result","subtype":subtype,"is_error":subtype != "success","duration_ms":5,"num_turns":1,
        "session_id":"s1","terminal_reason":terminal_reason})
    .to_string()
}
