//! The replacements for Claude Code's built-in file and shell tools, with the built-ins' names,
//! input schemas and output conventions, working on workspace paths through a [`Host`].

pub mod bash;
pub mod checkpoints;
mod devices;
pub mod edit;
mod files;
pub mod glob;
pub mod grep;
mod input;
mod locks;
pub mod ls;
pub mod notebook;
pub mod pipeline;
pub mod proposal;
pub mod read;
mod search;
pub mod text;
pub mod write;
mod written;

pub use written::{WriteLog, WriteNote};

use crate::cache::{CachedRead, FileCache, FileState};
pub use crate::host::Host;
use crate::host::{HostError, HostErrorKind, HostResult, Metadata};
use crate::paths::{PathError, PathMapper};
use checkpoints::{CheckpointStore, Checkpoints};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

/// One piece of a tool result, as MCP content.
#[derive(Clone, Debug, PartialEq)]
pub enum Content {
    Text(String),
    Image { data_base64: String, mime_type: String },
}

impl Content {
    pub fn to_json(&self) -> Value {
        match self {
            Content::Text(text) => json!({"type": "text", "text": text}),
            Content::Image { data_base64, mime_type } => {
                json!({"type": "image", "data": data_base64, "mimeType": mime_type})
            }
        }
    }
}

/// A tool's result: model-facing content, plus structured data for the UI (the same shapes as the
/// CLI's `tool_use_result` for the built-in of the same name).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutput {
    pub content: Vec<Content>,
    pub is_error: bool,
    pub structured: Option<Value>,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![Content::Text(text.into())],
            is_error: false,
            structured: None,
        }
    }

    pub fn error(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![Content::Text(text.into())],
            is_error: true,
            structured: None,
        }
    }

    pub fn with_structured(mut self, value: Value) -> Self {
        self.structured = Some(value);
        self
    }

    /// All text content joined (tests and logs).
    pub fn text_content(&self) -> String {
        self.content
            .iter()
            .filter_map(|c| match c {
                Content::Text(t) => Some(t.as_str()),
                Content::Image { .. } => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A failure the model should read and act on; becomes an `isError: true` result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolError(pub String);

impl ToolError {
    pub fn new(message: impl Into<String>) -> Self {
        ToolError(message.into())
    }

    /// A refusal the CLI's own tool makes while checking the input, before it runs: the CLI
    /// shows those to the model inside `<tool_use_error>` tags, and so does Tether.
    pub fn invalid(message: impl fmt::Display) -> Self {
        ToolError(format!("<tool_use_error>{message}</tool_use_error>"))
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<PathError> for ToolError {
    fn from(e: PathError) -> Self {
        ToolError(e.to_string())
    }
}

impl From<HostError> for ToolError {
    fn from(e: HostError) -> Self {
        ToolError(match e.kind {
            HostErrorKind::NotFound => format!("File does not exist: {}", e.message),
            HostErrorKind::PermissionDenied => format!("Permission denied: {}", e.message),
            HostErrorKind::NotAFile => format!("Not a regular file: {}", e.message),
            HostErrorKind::TooLarge => format!("File too large: {}", e.message),
            _ => e.message,
        })
    }
}

pub type ToolResult<T> = Result<T, ToolError>;

/// Static description of a tool for `tools/list`.
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub input_schema: fn() -> Value,
    pub read_only: bool,
    pub destructive: bool,
}

impl ToolSpec {
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": (self.input_schema)(),
            "annotations": {
                "title": self.title,
                "readOnlyHint": self.read_only,
                "destructiveHint": self.destructive,
                "openWorldHint": false,
            },
            // Sent up front rather than deferred behind ToolSearch (CLI 2.1.330).
            "_meta": {"anthropic/alwaysLoad": true},
        })
    }
}

/// Every tool, in the order `tools/list` shows them.
pub fn specs() -> [&'static ToolSpec; 11] {
    [
        &read::SPEC,
        &write::SPEC,
        &edit::EDIT_SPEC,
        &edit::MULTI_EDIT_SPEC,
        &notebook::SPEC,
        &glob::SPEC,
        &grep::SPEC,
        &ls::SPEC,
        &bash::BASH_SPEC,
        &bash::BASH_OUTPUT_SPEC,
        &bash::KILL_SHELL_SPEC,
    ]
}

/// An input schema written as JSON text: parsing it costs far less wasm than the code `json!`
/// expands to (about 25 KB for the eleven tools). Every text is tested to parse to an object.
fn schema(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// The tools' names, in `specs()` order: the built-ins Tether replaces (the prompt, the guard and
/// the permission rules all name them).
pub const TOOL_NAMES: [&str; 11] = [
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "Glob",
    "Grep",
    "LS",
    "Bash",
    "BashOutput",
    "KillShell",
];

pub fn is_known_tool(name: &str) -> bool {
    TOOL_NAMES.contains(&name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn tool_names_match_the_specs_in_order() {
        let names: Vec<&str> = super::specs().iter().map(|s| s.name).collect();
        assert_eq!(names, super::TOOL_NAMES);
    }
}

#[derive(Clone, Debug)]
pub struct ToolsetConfig {
    /// The workspace root, an absolute path in the workspace's namespace.
    pub root: String,
    /// The CLI's local mirror folder, whose paths map onto `root`.
    pub mirror: Option<String>,
    /// The workspace's other folders (root, and its mirror on a remote): inside the workspace too.
    pub folders: Vec<(String, Option<String>)>,
    /// Let tools touch paths outside the root (the permission layer asks the user first).
    pub allow_outside_root: bool,
    /// Extra environment for commands.
    pub env: Vec<(String, String)>,
    /// Where the before-images of the files Tether changes are kept; None: no checkpoints.
    pub checkpoints: Option<CheckpointStore>,
}

impl ToolsetConfig {
    pub fn new(root: impl Into<String>) -> Self {
        ToolsetConfig {
            root: root.into(),
            mirror: None,
            folders: Vec::new(),
            allow_outside_root: false,
            env: Vec::new(),
            checkpoints: None,
        }
    }
}

/// A file's state against the model's last Read (or write) of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Read (or written) in this session and unchanged since.
    Read,
    /// Never read in this session.
    Unread,
    /// Read, then changed on disk by someone else.
    Stale,
}

pub(crate) const NOT_READ: &str = "File has not been read yet. Read it first before writing to it.";
pub(crate) const STALE: &str =
    "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.";

/// What we know of a file from the last time the model read or wrote it ("read before edit").
#[derive(Clone, Debug, PartialEq)]
pub struct ReadRecord {
    pub mtime_ms: f64,
    pub size: u64,
    /// Hash of the full content at that time: an mtime change with identical content is no change.
    pub content_hash: u64,
}

/// The tools bound to one host and workspace, with the per-session state they share.
pub struct Toolset<H: Host> {
    pub host: H,
    pub paths: PathMapper,
    pub cache: FileCache,
    pub config: ToolsetConfig,
    /// The before-images of what the write pipeline changes, per user message.
    pub checkpoints: Checkpoints,
    /// What was written, for the audit log.
    pub written: WriteLog,
    reads: RefCell<HashMap<String, ReadRecord>>,
    /// Writes to one path run one at a time (the write pipeline holds the path).
    pub(crate) writes: locks::PathLocks,
    /// The background shells Bash started, with their output.
    pub shells: bash::Shells,
    real_root: RefCell<Option<String>>,
    /// The shell's working directory, carried from one Bash call to the next like the built-in's.
    cwd: RefCell<String>,
}

impl<H: Host> Toolset<H> {
    pub fn new(host: H, config: ToolsetConfig) -> Result<Self, PathError> {
        let mut paths = PathMapper::new(&config.root)?;
        if let Some(mirror) = &config.mirror {
            paths = paths.with_mirror(mirror)?;
        }
        for (root, mirror) in &config.folders {
            paths = paths.with_folder(root, mirror.as_deref())?;
        }
        let cwd = RefCell::new(paths.root().to_string());
        Ok(Toolset {
            host,
            paths,
            cache: FileCache::default(),
            checkpoints: Checkpoints::new(config.checkpoints.clone()),
            written: WriteLog::default(),
            config,
            reads: RefCell::new(HashMap::new()),
            writes: locks::PathLocks::default(),
            shells: bash::Shells::default(),
            real_root: RefCell::new(None),
            cwd,
        })
    }

    /// Run a tool by its name (without the `mcp__tether__` prefix). Every failure becomes an
    /// `is_error` result whose text tells the model what to do.
    pub async fn call(&self, name: &str, args: Value) -> ToolOutput {
        // Each tool's future is boxed behind `dyn`, so it stays a function of its own: inlined
        // into one, the eleven made a 110 KB wasm function that every call runs through and that
        // V8 took ~0.4 s of CPU to optimise, stalling the first dozens of tool calls.
        let run: Pin<Box<dyn Future<Output = ToolResult<ToolOutput>> + '_>> = match name {
            "Read" => Box::pin(read::run(self, args)),
            "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => Box::pin(pipeline::propose_and_write(self, name, args)),
            "Glob" => Box::pin(glob::run(self, args)),
            "Grep" => Box::pin(grep::run(self, args)),
            "LS" => Box::pin(ls::run(self, args)),
            "Bash" => {
                self.checkpoints.shell_ran();
                Box::pin(bash::run_bash(self, args))
            }
            "BashOutput" => Box::pin(bash::run_bash_output(self, args)),
            "KillShell" => Box::pin(bash::run_kill_shell(self, args)),
            other => return ToolOutput::error(format!("No such tool available: {other}")),
        };
        run.await.unwrap_or_else(|e| ToolOutput::error(e.0))
    }

    /// Resolve a path from the model to a workspace path, refusing paths outside the workspace
    /// (unless configured otherwise) and, always, workspace paths that lead out of it through a
    /// symlink: permission checks judge the path as written, so such a path must be named by
    /// where it really is.
    pub async fn resolve_path(&self, input: &str) -> ToolResult<String> {
        let path = self.resolve_allowed(input)?;
        if self.paths.contains(&path) {
            self.check_no_symlink_escape(&path).await?;
        }
        Ok(path)
    }

    /// [`Self::resolve_path`] and a read of the file through the cache, at the cost of one host
    /// round trip less: the read's `stat` goes out alongside the symlink check, and the file's
    /// bytes (when not cached) are fetched only once the path is known to be allowed.
    pub async fn resolve_and_read(&self, input: &str) -> ToolResult<(String, HostResult<CachedRead>)> {
        let path = self.resolve_allowed(input)?;
        let stat = if self.paths.contains(&path) {
            let (checked, stat) = futures::join!(self.check_no_symlink_escape(&path), self.host.stat(&path));
            checked?;
            stat
        } else {
            self.host.stat(&path).await
        };
        let read = self.cache.read_after_stat(&self.host, &path, stat).await;
        Ok((path, read))
    }

    /// The workspace path for `input`, unless it is outside the workspace and that is not allowed.
    fn resolve_allowed(&self, input: &str) -> ToolResult<String> {
        let path = self.paths.resolve(input)?;
        if self.paths.contains(&path) || self.config.allow_outside_root {
            return Ok(path);
        }
        Err(PathError::OutsideWorkspace {
            path,
            root: self.paths.root().to_string(),
        }
        .into())
    }

    /// The nearest existing ancestor (or the path itself) must resolve inside the real root.
    async fn check_no_symlink_escape(&self, path: &str) -> ToolResult<()> {
        // The root resolves to the real root by definition: no host round trip (on a remote, a
        // helper call) for a search of the whole workspace.
        if path == self.paths.root() {
            return Ok(());
        }
        let real_root = self.real_root().await;
        let mut probe = Some(path.to_string());
        while let Some(p) = probe {
            match self.host.real_path(&p).await {
                Ok(real) => {
                    if self.paths.is_within(&real, &real_root) || self.paths.contains(&real) {
                        return Ok(());
                    }
                    return Err(ToolError(format!(
                        "The path {path} leads outside the workspace {} through a symbolic link (it resolves to {real}). Use a path inside the workspace.",
                        self.paths.root()
                    )));
                }
                Err(e) if e.kind == HostErrorKind::NotFound => probe = self.paths.parent(&p),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    async fn real_root(&self) -> String {
        if let Some(r) = self.real_root.borrow().as_ref() {
            return r.clone();
        }
        let root = self.paths.root().to_string();
        let real = self.host.real_path(&root).await.unwrap_or(root);
        *self.real_root.borrow_mut() = Some(real.clone());
        real
    }

    /// Read a whole file through the cache.
    pub async fn read_file(&self, path: &str) -> ToolResult<CachedRead> {
        self.cache.read(&self.host, path).await.map_err(|e| match e.kind {
            HostErrorKind::NotFound => ToolError(format!("File does not exist: {path}")),
            HostErrorKind::IsADirectory => ToolError(format!(
                "{path} is a directory, not a file. Use LS or Glob to list its contents."
            )),
            _ => ToolError(format!("Could not read {path}: {}", e.message)),
        })
    }

    /// Write a whole file through the cache (atomic on the host), creating missing parent
    /// directories, and remember the new state as read so a follow-up Edit is allowed.
    pub async fn write_file(&self, path: &str, bytes: Vec<u8>) -> ToolResult<Metadata> {
        self.write_file_seen(path, bytes, None).await
    }

    /// [`Self::write_file`] for a caller that has just read the file and seen it in state `before`
    /// (see [`FileCache::write`]).
    pub async fn write_file_seen(&self, path: &str, bytes: Vec<u8>, before: Option<FileState>) -> ToolResult<Metadata> {
        let hash = content_hash(&bytes);
        let note = WriteNote::of(path, &bytes, self.host.sha256_hex(&bytes));
        let bytes = Rc::new(bytes);
        let failed = |e: HostError| ToolError(format!("Could not write {path}: {}", e.message));
        // Parent directories are made only when the write says they are missing: a `stat` of the
        // parent before every write would cost a host round trip each time.
        let meta = match self.cache.write(&self.host, path, bytes.clone(), before).await {
            Err(e) if e.kind == HostErrorKind::NotFound => {
                let Some(parent) = self.paths.parent(path) else {
                    return Err(failed(e));
                };
                self.host
                    .create_dir_all(&parent)
                    .await
                    .map_err(|e| ToolError(format!("Could not create the directory {parent}: {}", e.message)))?;
                self.cache.write(&self.host, path, bytes, before).await
            }
            written => written,
        }
        .map_err(failed)?;
        self.record_read(path, &meta, hash);
        self.checkpoints.wrote(path, hash);
        self.written.push(note);
        Ok(meta)
    }

    pub fn record_read(&self, path: &str, meta: &Metadata, content_hash: u64) {
        self.reads.borrow_mut().insert(
            path.to_string(),
            ReadRecord {
                mtime_ms: meta.mtime_ms,
                size: meta.size,
                content_hash,
            },
        );
    }

    pub fn read_record(&self, path: &str) -> Option<ReadRecord> {
        self.reads.borrow().get(path).cloned()
    }

    /// How `current` (the file's content now) stands against what the model last read or wrote of
    /// it in this session.
    pub fn freshness(&self, path: &str, current: &CachedRead) -> Freshness {
        let Some(record) = self.read_record(path) else {
            return Freshness::Unread;
        };
        let unchanged_stat = record.mtime_ms == current.meta.mtime_ms && record.size == current.meta.size;
        if unchanged_stat || record.content_hash == content_hash(&current.bytes) {
            Freshness::Read
        } else {
            Freshness::Stale
        }
    }

    /// The strict "read before edit" guard (NotebookEdit): read, and not changed since.
    pub fn check_fresh(&self, path: &str, current: &CachedRead) -> ToolResult<()> {
        match self.freshness(path, current) {
            Freshness::Read => Ok(()),
            Freshness::Unread => Err(ToolError::invalid(NOT_READ)),
            Freshness::Stale => Err(ToolError::invalid(STALE)),
        }
    }

    /// Whether Edit and Write may change `path` without a Read first: 2.1.330 lets them when the
    /// model could read the file without asking, which for Tether is anywhere in the workspace.
    pub fn may_write_unread(&self, path: &str) -> bool {
        self.paths.contains(path)
    }

    /// The directory the next Bash command starts in (the workspace root until a `cd` moves it).
    pub fn cwd(&self) -> String {
        self.cwd.borrow().clone()
    }

    pub fn set_cwd(&self, cwd: impl Into<String>) {
        *self.cwd.borrow_mut() = cwd.into();
    }
}

/// A hash to tell "same content" within one session (never persisted, never adversarial): a
/// multiply-rotate step over eight bytes at a time, in four independent lanes so the steps overlap,
/// so hashing a 1 MB file costs a fraction of a millisecond even in wasm. Deterministic on every
/// target.
pub fn content_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |h: u64, word: u64| (h.rotate_left(5) ^ word).wrapping_mul(K);
    let len = bytes.len() as u64;
    let (mut a, mut b, mut c, mut d) = (len, len ^ 1, len ^ 2, len ^ 3);
    // Written out, and `split_first_chunk` rather than `chunks_exact`: the size-optimised wasm
    // build calls iterators and copies out of line for every chunk.
    let mut rest = bytes;
    while let Some((block, tail)) = rest.split_first_chunk::<32>() {
        let [a0, a1, a2, a3, a4, a5, a6, a7, b0, b1, b2, b3, b4, b5, b6, b7, c0, c1, c2, c3, c4, c5, c6, c7, d0, d1, d2, d3, d4, d5, d6, d7] =
            *block;
        a = mix(a, u64::from_le_bytes([a0, a1, a2, a3, a4, a5, a6, a7]));
        b = mix(b, u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]));
        c = mix(c, u64::from_le_bytes([c0, c1, c2, c3, c4, c5, c6, c7]));
        d = mix(d, u64::from_le_bytes([d0, d1, d2, d3, d4, d5, d6, d7]));
        rest = tail;
    }
    let mut h = mix(mix(mix(mix(0, a), b), c), d);
    for &byte in rest {
        h = mix(h, u64::from(byte));
    }
    h
}

/// Parse a tool's arguments, checked against its input schema as strictly as the CLI checks its
/// own tools' ([`input`]); a mismatch becomes the error text the model sees.
pub fn parse_input<T: DeserializeOwned>(tool: &str, args: Value) -> ToolResult<T> {
    let args = match specs().iter().find(|spec| spec.name == tool) {
        Some(spec) => input::check(tool, &(spec.input_schema)(), args)?,
        None => args,
    };
    crate::json::from_value(args).map_err(|e| {
        ToolError::invalid(format!(
            "InputValidationError: {tool} failed due to the following issue:\n{e}"
        ))
    })
}
