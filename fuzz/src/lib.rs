//! What the fuzz targets share: a host in memory (files, folders and a FIFO; commands that only
//! echo their text, so no fuzz input ever runs anything), and small helpers.

use futures::executor::block_on;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use tether_core::host::{
    BackgroundStatus, Clock, DirEntry, Exec, ExecOutput, ExecRequest, FileKind, FileSystem, HostError, HostErrorKind,
    HostResult, Metadata, Search,
};
use tether_core::tools::{Toolset, ToolsetConfig};

/// The workspace root every target uses.
pub const ROOT: &str = "/ws";

#[derive(Clone, Debug, PartialEq)]
enum Node {
    File(Vec<u8>),
    Dir,
    /// A FIFO: listed and `stat`ed, never readable.
    Fifo,
}

/// A file system in memory with POSIX paths, and an `Exec` that runs nothing.
pub struct MemoryHost {
    nodes: RefCell<BTreeMap<String, (Node, f64)>>,
    clock: Cell<f64>,
    next_background: Cell<u64>,
}

impl Default for MemoryHost {
    fn default() -> Self {
        let host = MemoryHost {
            nodes: RefCell::new(BTreeMap::new()),
            clock: Cell::new(1_700_000_000_000.0),
            next_background: Cell::new(0),
        };
        host.nodes.borrow_mut().insert("/".into(), (Node::Dir, 0.0));
        host.mkdirs(ROOT);
        host
    }
}

impl MemoryHost {
    /// A workspace with a few files of every kind the tools care about.
    pub fn with_sample_workspace() -> MemoryHost {
        let host = MemoryHost::default();
        host.put("/ws/a.txt", b"alpha\nbeta\ngamma\n");
        host.put("/ws/src/main.rs", b"fn main() {\n    println!(\"hi\");\n}\n");
        host.put("/ws/crlf.txt", b"one\r\ntwo\r\n");
        host.put("/ws/bom.txt", b"\xEF\xBB\xBFbom text\n");
        host.put("/ws/u16.txt", b"\xFF\xFEh\0i\0\n\0");
        host.put("/ws/bin.dat", b"\0\x01\x02\xFF");
        host.put("/ws/latin.txt", b"caf\xE9\n");
        host.put(
            "/ws/nb.ipynb",
            br#"{"cells":[{"cell_type":"code","id":"c1","metadata":{},"source":["x = 1"],"outputs":[],"execution_count":null}],"metadata":{},"nbformat":4,"nbformat_minor":5}"#,
        );
        host.put("/ws/.gitignore", b"ignored/\n");
        host.put("/ws/ignored/x.txt", b"hidden\n");
        host.nodes.borrow_mut().insert("/ws/pipe".into(), (Node::Fifo, 0.0));
        host
    }

    pub fn put(&self, path: &str, bytes: &[u8]) {
        if let Some((parent, _)) = path.rsplit_once('/') {
            self.mkdirs(parent);
        }
        let now = self.tick();
        self.nodes
            .borrow_mut()
            .insert(path.to_string(), (Node::File(bytes.to_vec()), now));
    }

    /// A file's bytes, when it is one.
    pub fn bytes(&self, path: &str) -> Option<Vec<u8>> {
        match self.nodes.borrow().get(path) {
            Some((Node::File(bytes), _)) => Some(bytes.clone()),
            _ => None,
        }
    }

    fn mkdirs(&self, path: &str) {
        let mut at = String::new();
        for part in path.split('/').filter(|p| !p.is_empty()) {
            at.push('/');
            at.push_str(part);
            self.nodes.borrow_mut().entry(at.clone()).or_insert((Node::Dir, 0.0));
        }
    }

    fn tick(&self) -> f64 {
        let now = self.clock.get() + 1.0;
        self.clock.set(now);
        now
    }

    fn parent(path: &str) -> &str {
        match path.rsplit_once('/') {
            Some(("", _)) => "/",
            Some((parent, _)) => parent,
            None => "/",
        }
    }

    fn meta(node: &Node, mtime: f64) -> Metadata {
        let (kind, size) = match node {
            Node::File(bytes) => (FileKind::File, bytes.len() as u64),
            Node::Dir => (FileKind::Directory, 0),
            Node::Fifo => (FileKind::Other, 0),
        };
        Metadata {
            kind,
            size,
            mtime_ms: mtime,
        }
    }
}

fn missing(path: &str) -> HostError {
    HostError::not_found(format!("{path}: No such file or directory"))
}

impl FileSystem for MemoryHost {
    async fn read_file(&self, path: &str, max_bytes: u64) -> HostResult<Vec<u8>> {
        match self.nodes.borrow().get(path) {
            None => Err(missing(path)),
            Some((Node::Dir, _)) => Err(HostError::new(HostErrorKind::IsADirectory, path)),
            Some((Node::Fifo, _)) => Err(HostError::new(HostErrorKind::NotAFile, path)),
            Some((Node::File(bytes), _)) if bytes.len() as u64 > max_bytes => {
                Err(HostError::new(HostErrorKind::TooLarge, path))
            }
            Some((Node::File(bytes), _)) => Ok(bytes.clone()),
        }
    }

    async fn write_file(&self, path: &str, data: &[u8]) -> HostResult<()> {
        if self.nodes.borrow().get(MemoryHost::parent(path)).map(|n| &n.0) != Some(&Node::Dir) {
            return Err(missing(path));
        }
        if matches!(self.nodes.borrow().get(path), Some((Node::Dir, _))) {
            return Err(HostError::new(HostErrorKind::IsADirectory, path));
        }
        let now = self.tick();
        self.nodes
            .borrow_mut()
            .insert(path.to_string(), (Node::File(data.to_vec()), now));
        Ok(())
    }

    async fn stat(&self, path: &str) -> HostResult<Metadata> {
        let nodes = self.nodes.borrow();
        let (node, mtime) = nodes.get(path).ok_or_else(|| missing(path))?;
        Ok(MemoryHost::meta(node, *mtime))
    }

    async fn lstat(&self, path: &str) -> HostResult<Metadata> {
        self.stat(path).await
    }

    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        let nodes = self.nodes.borrow();
        match nodes.get(path) {
            None => return Err(missing(path)),
            Some((Node::Dir, _)) => {}
            Some(_) => return Err(HostError::new(HostErrorKind::NotADirectory, path)),
        }
        let prefix = if path == "/" {
            "/".to_string()
        } else {
            format!("{path}/")
        };
        Ok(nodes
            .range(prefix.clone()..)
            .take_while(|(p, _)| p.starts_with(&prefix))
            .filter(|(p, _)| !p[prefix.len()..].contains('/') && p.len() > prefix.len())
            .map(|(p, (node, mtime))| DirEntry {
                name: p[prefix.len()..].to_string(),
                kind: MemoryHost::meta(node, *mtime).kind,
            })
            .collect())
    }

    async fn create_dir_all(&self, path: &str) -> HostResult<()> {
        if matches!(self.nodes.borrow().get(path), Some((Node::File(_) | Node::Fifo, _))) {
            return Err(HostError::new(HostErrorKind::AlreadyExists, path));
        }
        self.mkdirs(path);
        Ok(())
    }

    async fn rename(&self, from: &str, to: &str) -> HostResult<()> {
        let node = self.nodes.borrow_mut().remove(from).ok_or_else(|| missing(from))?;
        self.nodes.borrow_mut().insert(to.to_string(), node);
        Ok(())
    }

    async fn remove(&self, path: &str, _recursive: bool) -> HostResult<()> {
        let prefix = format!("{path}/");
        let mut nodes = self.nodes.borrow_mut();
        nodes.remove(path).ok_or_else(|| missing(path))?;
        nodes.retain(|p, _| !p.starts_with(&prefix));
        Ok(())
    }

    async fn real_path(&self, path: &str) -> HostResult<String> {
        if self.nodes.borrow().contains_key(path) {
            Ok(path.to_string())
        } else {
            Err(missing(path))
        }
    }
}

impl Exec for MemoryHost {
    /// Runs nothing: the output is the command's own text, so output handling still sees
    /// whatever a fuzz input puts in a command.
    async fn run(&self, request: &ExecRequest) -> HostResult<ExecOutput> {
        Ok(ExecOutput {
            stdout: request.command.clone(),
            stderr: String::new(),
            exit_code: Some(0),
            timed_out: false,
            truncated: false,
        })
    }

    async fn spawn_background(&self, _request: &ExecRequest) -> HostResult<String> {
        let n = self.next_background.get() + 1;
        self.next_background.set(n);
        Ok(format!("bg-{n}"))
    }

    async fn read_background(&self, _id: &str) -> HostResult<BackgroundStatus> {
        Ok(BackgroundStatus::default())
    }

    async fn kill_background(&self, _id: &str) -> HostResult<bool> {
        Ok(false)
    }
}

impl Search for MemoryHost {}

impl Clock for MemoryHost {
    fn now_ms(&self) -> f64 {
        self.tick()
    }
}

/// The tools on the sample workspace.
pub fn sample_toolset() -> Toolset<MemoryHost> {
    Toolset::new(MemoryHost::with_sample_workspace(), ToolsetConfig::new(ROOT)).expect("toolset")
}

/// Run a future to completion (every host call above is ready at once).
pub fn run<T>(future: impl std::future::Future<Output = T>) -> T {
    block_on(future)
}

/// The lines of a fuzz input, as text (invalid UTF-8 lines dropped, as the framing drops them).
pub fn text_lines(data: &[u8]) -> Vec<String> {
    let mut splitter = tether_core::framing::LineSplitter::new(1 << 20);
    let mut frames = splitter.push(data);
    frames.extend(splitter.finish());
    frames
        .into_iter()
        .filter_map(|frame| match frame {
            tether_core::framing::Frame::Line { line } => Some(line),
            _ => None,
        })
        .collect()
}

/// The session config of an agent on the sample workspace.
pub fn session_config() -> tether_core::config::CommonConfig {
    tether_core::config::CommonConfig {
        root: ROOT.into(),
        mirror: None,
        home_dir: "/home/user".into(),
        user_settings: None,
        mode: None,
        model: None,
        resume: None,
        env: None,
        remote: None,
        checkpoints: None,
        mcp_servers: None,
    }
}

/// Every message an agent sends its program is one JSON object.
pub fn assert_sends_json_objects(outputs: &[tether_core::agent::AgentOutput]) {
    for output in outputs {
        if let tether_core::agent::AgentOutput::Send { message } = output {
            let value: serde_json::Value = serde_json::from_str(message).expect("a message to the agent is JSON");
            assert!(value.is_object(), "{message}");
        }
    }
}
