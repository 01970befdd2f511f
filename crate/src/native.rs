//! A host on std::fs and std::process, for `cargo test` against real temporary directories and
//! for native tools. Not compiled into the wasm module.

use crate::host::{
    BackgroundStatus, Clock, DirEntry, Exec, ExecOutput, ExecRequest, FileKind, FileSystem, HostError, HostErrorKind,
    HostResult, Metadata, Search,
};
use std::fs;
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

mod exec;
pub use exec::NativeExec;

#[derive(Default)]
pub struct NativeHost {
    exec: NativeExec,
    /// Path to a ripgrep binary, when the host should offer it to Grep/Glob.
    pub ripgrep: Option<String>,
}

impl NativeHost {
    pub fn new() -> Self {
        NativeHost::default()
    }

    pub fn with_ripgrep(mut self, rg: impl Into<String>) -> Self {
        self.ripgrep = Some(rg.into());
        self
    }
}

pub(crate) fn map_io(e: io::Error, path: &str) -> HostError {
    let kind = match e.kind() {
        io::ErrorKind::NotFound => HostErrorKind::NotFound,
        io::ErrorKind::PermissionDenied => HostErrorKind::PermissionDenied,
        io::ErrorKind::AlreadyExists => HostErrorKind::AlreadyExists,
        io::ErrorKind::IsADirectory => HostErrorKind::IsADirectory,
        io::ErrorKind::NotADirectory => HostErrorKind::NotADirectory,
        _ => HostErrorKind::Other,
    };
    HostError::new(kind, format!("{path}: {e}"))
}

fn kind_of(ft: fs::FileType) -> FileKind {
    if ft.is_symlink() {
        FileKind::Symlink
    } else if ft.is_dir() {
        FileKind::Directory
    } else if ft.is_file() {
        FileKind::File
    } else {
        FileKind::Other
    }
}

fn metadata_of(m: &fs::Metadata) -> Metadata {
    let mtime_ms = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0);
    Metadata {
        kind: kind_of(m.file_type()),
        size: m.len(),
        mtime_ms,
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// [`FileSystem::read_file`]: the type is checked on the open handle (no race with a swap after a
/// `stat`), and the open does not wait for a FIFO's writer.
fn read_regular_file(path: &str, max_bytes: u64) -> HostResult<Vec<u8>> {
    let not_a_file = || {
        HostError::new(
            HostErrorKind::NotAFile,
            format!("{path} is not a regular file (a device, FIFO or socket)"),
        )
    };
    let too_large = || {
        HostError::new(
            HostErrorKind::TooLarge,
            format!("{path} holds more than {max_bytes} bytes"),
        )
    };
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        // A socket cannot be opened at all.
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => return Err(not_a_file()),
        Err(e) => return Err(map_io(e, path)),
    };
    let meta = file.metadata().map_err(|e| map_io(e, path))?;
    if meta.is_dir() {
        return Err(HostError::new(
            HostErrorKind::IsADirectory,
            format!("{path} is a directory"),
        ));
    }
    if !meta.is_file() {
        return Err(not_a_file());
    }
    if meta.len() > max_bytes {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| map_io(e, path))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

impl FileSystem for NativeHost {
    async fn read_file(&self, path: &str, max_bytes: u64) -> HostResult<Vec<u8>> {
        read_regular_file(path, max_bytes)
    }

    async fn write_file(&self, path: &str, data: &[u8]) -> HostResult<()> {
        let target = Path::new(path);
        if target.is_dir() {
            return Err(HostError::new(
                HostErrorKind::IsADirectory,
                format!("{path} is a directory"),
            ));
        }
        let dir = target
            .parent()
            .ok_or_else(|| HostError::other(format!("{path} has no parent directory")))?;
        let name = target.file_name().and_then(|n| n.to_str()).unwrap_or("file");
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.tether-{}-{n}.tmp", std::process::id()));
        let result = (|| -> io::Result<()> {
            let mut f = fs::File::create(&temp)?;
            f.write_all(data)?;
            f.sync_all()?;
            // Keep the permissions of the file being replaced (an executable script stays one).
            if let Ok(old) = fs::metadata(target) {
                fs::set_permissions(&temp, old.permissions())?;
            }
            // Writing through a symlink replaces the link's target, not the link.
            let final_target = fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
            fs::rename(&temp, final_target)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&temp);
        }
        result.map_err(|e| map_io(e, path))
    }

    async fn stat(&self, path: &str) -> HostResult<Metadata> {
        fs::metadata(path).map(|m| metadata_of(&m)).map_err(|e| map_io(e, path))
    }

    async fn lstat(&self, path: &str) -> HostResult<Metadata> {
        fs::symlink_metadata(path)
            .map(|m| metadata_of(&m))
            .map_err(|e| map_io(e, path))
    }

    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        let mut out = Vec::new();
        for entry in fs::read_dir(path).map_err(|e| map_io(e, path))? {
            let entry = entry.map_err(|e| map_io(e, path))?;
            let kind = entry.file_type().map(kind_of).unwrap_or(FileKind::Other);
            out.push(DirEntry {
                name: entry.file_name().to_string_lossy().into_owned(),
                kind,
            });
        }
        Ok(out)
    }

    async fn create_dir_all(&self, path: &str) -> HostResult<()> {
        fs::create_dir_all(path).map_err(|e| map_io(e, path))
    }

    async fn rename(&self, from: &str, to: &str) -> HostResult<()> {
        fs::rename(from, to).map_err(|e| map_io(e, from))
    }

    async fn remove(&self, path: &str, recursive: bool) -> HostResult<()> {
        let meta = fs::symlink_metadata(path).map_err(|e| map_io(e, path))?;
        let result = if meta.is_dir() {
            if recursive {
                fs::remove_dir_all(path)
            } else {
                fs::remove_dir(path)
            }
        } else {
            fs::remove_file(path)
        };
        result.map_err(|e| map_io(e, path))
    }

    async fn real_path(&self, path: &str) -> HostResult<String> {
        fs::canonicalize(path)
            .map(|p| p.to_string_lossy().into_owned())
            .map_err(|e| map_io(e, path))
    }
}

impl Exec for NativeHost {
    async fn run(&self, request: &ExecRequest) -> HostResult<ExecOutput> {
        self.exec.run(request)
    }
    async fn spawn_background(&self, request: &ExecRequest) -> HostResult<String> {
        self.exec.spawn_background(request)
    }
    async fn read_background(&self, id: &str) -> HostResult<BackgroundStatus> {
        self.exec.read_background(id)
    }
    async fn kill_background(&self, id: &str) -> HostResult<bool> {
        self.exec.kill_background(id)
    }
    async fn wait_background(&self, id: &str, wait_ms: u64) -> HostResult<BackgroundStatus> {
        // Tests drive the core on one thread (block_on): polling is the simple honest wait here.
        let deadline = SystemTime::now() + std::time::Duration::from_millis(wait_ms);
        loop {
            let status = self.exec.read_background(id)?;
            let has_output = !status.stdout.is_empty() || !status.stderr.is_empty();
            if has_output || !status.running || SystemTime::now() >= deadline {
                return Ok(status);
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

impl Search for NativeHost {
    async fn ripgrep(&self, args: &[String], cwd: &str, timeout_ms: u64) -> HostResult<Option<ExecOutput>> {
        match &self.ripgrep {
            None => Ok(None),
            Some(rg) => self.exec.run_program(rg, args, cwd, timeout_ms).map(Some),
        }
    }
}

impl Clock for NativeHost {
    fn now_ms(&self) -> f64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0)
    }
}
