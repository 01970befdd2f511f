//! What the core asks of the world. Everything with I/O goes through these traits so the same tool
//! logic runs natively (`cargo test`, std::fs/std::process) and as wasm (JS host imports backed by
//! `vscode.workspace.fs`, `child_process` or the remote executor).
//!
//! Paths given to a host are absolute paths in the workspace's own namespace (POSIX for a remote
//! workspace). The core never hands a host a relative path.

use crate::json::read_unit_enum;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    File,
    Directory,
    Symlink,
    Other,
}

read_unit_enum!(FileKind {
    File = "file",
    Directory = "directory",
    Symlink = "symlink",
    Other = "other",
});

/// What a host's `stat` and `lstat` give (JS: `FileStat`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "FileStat"))]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    pub kind: FileKind,
    pub size: u64,
    /// Modification time, milliseconds since the Unix epoch.
    pub mtime_ms: f64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct DirEntry {
    pub name: String,
    pub kind: FileKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HostErrorKind {
    NotFound,
    PermissionDenied,
    IsADirectory,
    NotADirectory,
    AlreadyExists,
    /// Not a regular file: a FIFO, a socket, a character or block device. Never read: a FIFO
    /// blocks its reader, a device can stream without end.
    NotAFile,
    /// The file holds more bytes than the reader asked for at most.
    TooLarge,
    /// The host cannot do this at all (no such capability on this host).
    Unsupported,
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostError {
    pub kind: HostErrorKind,
    pub message: String,
}

impl HostError {
    pub fn new(kind: HostErrorKind, message: impl Into<String>) -> Self {
        HostError {
            kind,
            message: message.into(),
        }
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(HostErrorKind::NotFound, message)
    }
    pub fn other(message: impl Into<String>) -> Self {
        Self::new(HostErrorKind::Other, message)
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HostError {}

pub type HostResult<T> = Result<T, HostError>;

/// The workspace's file system.
#[allow(async_fn_in_trait)] // futures are awaited on one thread (wasm), Send is never needed
pub trait FileSystem {
    /// The bytes of a regular file, at most `max_bytes` of them: anything but a regular file is
    /// refused (`NotAFile`) without blocking, and a file that holds more than `max_bytes`, even
    /// one that grows while it is read or reports a size of 0 (`/proc`), is refused (`TooLarge`)
    /// after reading no more than `max_bytes + 1` bytes.
    async fn read_file(&self, path: &str, max_bytes: u64) -> HostResult<Vec<u8>>;
    /// Replace the file's content atomically: a reader sees the old or the new bytes, never a mix,
    /// and a failed write leaves the old file in place. Missing parent directories are an error.
    async fn write_file(&self, path: &str, data: &[u8]) -> HostResult<()>;
    /// The SHA-256 of `data` in lowercase hex (the audit log's digest of every file written, on
    /// the write's path). A host with a native hasher gives it: in wasm the core's own takes
    /// about 9 ms a megabyte, Node's 1.3 ms.
    fn sha256_hex(&self, data: &[u8]) -> String {
        sha256_hex(data)
    }
    /// Follows symlinks.
    async fn stat(&self, path: &str) -> HostResult<Metadata>;
    /// Does not follow symlinks: a link reports `FileKind::Symlink`.
    async fn lstat(&self, path: &str) -> HostResult<Metadata>;
    /// The modification times (ms) of many files, in order; None for a file that cannot be
    /// stat'ed. Grep and Glob sort every match by it. A host that can stat many files in one call
    /// overrides this: each stat here is a call into the host.
    async fn mtimes(&self, paths: &[String]) -> Vec<Option<f64>> {
        mtimes_by_stat(self, paths).await
    }
    /// Entries of a directory, unsorted, without `.` and `..`. A symlink's kind is `Symlink`.
    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>>;
    async fn create_dir_all(&self, path: &str) -> HostResult<()>;
    async fn rename(&self, from: &str, to: &str) -> HostResult<()>;
    async fn remove(&self, path: &str, recursive: bool) -> HostResult<()>;
    /// The canonical path with every symlink resolved. Hosts that cannot resolve links return the
    /// path unchanged.
    async fn real_path(&self, path: &str) -> HostResult<String>;
    /// The text an editor holds for `path` with changes not saved yet; None when no editor has
    /// unsaved changes to it (hosts without editors).
    async fn unsaved_text(&self, _path: &str) -> HostResult<Option<String>> {
        Ok(None)
    }
}

/// Stats in flight at once for [`mtimes_by_stat`]: many, because a remote host batches the stats
/// that arrive together into one round trip.
const STAT_CONCURRENCY: usize = 256;

/// [`FileSystem::mtimes`] by one [`FileSystem::stat`] per file.
pub async fn mtimes_by_stat<F: FileSystem + ?Sized>(fs: &F, paths: &[String]) -> Vec<Option<f64>> {
    use futures::stream::{self, StreamExt};
    stream::iter(
        paths
            .iter()
            .map(|p| async move { fs.stat(p).await.ok().map(|m| m.mtime_ms) }),
    )
    .buffered(STAT_CONCURRENCY)
    .collect()
    .await
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ExecRequest {
    /// Shell command line, run by the host's shell (`bash -c` on POSIX hosts).
    pub command: String,
    pub cwd: String,
    /// Extra environment on top of the host's own, as [name, value] pairs.
    pub env: Vec<(String, String)>,
    /// For foreground runs: kill after this long. For background runs: the lifetime limit.
    pub timeout_ms: u64,
    /// Keep at most this many bytes of each stream; the rest is counted but dropped.
    pub max_output_bytes: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ExecOutput {
    pub stdout: String,
    pub stderr: String,
    /// None (JS: null) when the process was killed by a signal or timed out.
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// True when output beyond `max_output_bytes` was dropped.
    pub truncated: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BackgroundStatus {
    /// Output produced since the previous `read_background` of this id.
    pub stdout: String,
    pub stderr: String,
    pub running: bool,
    pub exit_code: Option<i32>,
}

/// Running commands where the workspace is.
#[allow(async_fn_in_trait)]
pub trait Exec {
    async fn run(&self, request: &ExecRequest) -> HostResult<ExecOutput>;
    /// Start a command that outlives the call; returns the host's id for it.
    async fn spawn_background(&self, request: &ExecRequest) -> HostResult<String>;
    async fn read_background(&self, id: &str) -> HostResult<BackgroundStatus>;
    /// Returns false when the process had already exited.
    async fn kill_background(&self, id: &str) -> HostResult<bool>;
    /// [`Exec::read_background`], after waiting up to `wait_ms` for output or the process's end
    /// (a long poll). Hosts that cannot wait say so rather than answer at once, which would make
    /// a waiting caller spin.
    async fn wait_background(&self, _id: &str, _wait_ms: u64) -> HostResult<BackgroundStatus> {
        Err(HostError::new(
            HostErrorKind::Unsupported,
            "this host cannot wait for a background command",
        ))
    }
}

/// Fast search where the host has it. Hosts without ripgrep keep the defaults, and the core falls
/// back to its own walker over [`FileSystem`].
#[allow(async_fn_in_trait)]
pub trait Search {
    /// Run ripgrep with `args` in `cwd`. `Ok(None)` means the host has no ripgrep.
    async fn ripgrep(&self, _args: &[String], _cwd: &str, _timeout_ms: u64) -> HostResult<Option<ExecOutput>> {
        Ok(None)
    }
}

/// The clock; std's Instant panics on wasm32-unknown-unknown, so time comes from the host.
pub trait Clock {
    fn now_ms(&self) -> f64;
}

/// Everything a tool set needs.
pub trait Host: FileSystem + Exec + Search + Clock {}
impl<T: FileSystem + Exec + Search + Clock> Host for T {}

/// The line that stands for background output dropped unread (more than `limit` bytes piled up
/// between two reads), as a host's `read_background` and the core's own buffer both put it.
pub fn dropped_output_note(dropped: u64, limit: usize) -> String {
    format!("... [{dropped} bytes of earlier output were dropped: more than {limit} bytes accumulated unread] ...\n")
}

/// The SHA-256 of `bytes` in lowercase hex, computed by the core (see [`FileSystem::sha256_hex`]).
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}
