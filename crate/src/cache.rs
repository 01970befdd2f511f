//! Read-after-write consistency over a slow, possibly lagging remote file system.
//!
//! The seed kept written content for a fixed 10 s and hoped the remote had caught up by then. Here
//! an entry is tied to the file *versions* (size + mtime) known to hold its bytes, and every read
//! re-checks the version with one `stat`:
//! - after our own write, the entry knows the version before the write (what a lagging host may
//!   still report) and the version after it; either one means "ours is still the content";
//! - any other version means someone else changed the file: the entry is dropped and re-read;
//! - a watcher event ([`FileCache::on_changed`]) re-checks the same way, and [`FileCache::invalidate`]
//!   drops an entry outright (deletes, renames).
//!
//! No timer is involved, so a read right after a write is always coherent, and a genuine external
//! change is seen on the next read however soon it happens.

use crate::host::{FileKind, FileSystem, HostError, HostErrorKind, HostResult, Metadata};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// Clean entries beyond this many bytes are evicted; entries we wrote are kept until replaced.
pub const DEFAULT_BUDGET_BYTES: usize = 64 * 1024 * 1024;

/// The largest file read: the tools hold a file whole (its bytes, its text, the new text), and in
/// a 32-bit wasm memory a few copies of a larger one would not fit. Checked against the `stat`
/// before reading, and the read itself stops there (a file that grows, or `/proc`'s size 0).
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Version {
    size: u64,
    mtime_ms: f64,
}

impl From<&Metadata> for Version {
    fn from(m: &Metadata) -> Self {
        Version {
            size: m.size,
            mtime_ms: m.mtime_ms,
        }
    }
}

struct Entry {
    bytes: Rc<Vec<u8>>,
    /// Versions of the file known to hold `bytes`; `None` is "absent", which a lagging host may
    /// still report right after we created the file.
    versions: Vec<Option<Version>>,
    written_by_us: bool,
    last_use: u64,
}

pub struct FileCache {
    entries: RefCell<HashMap<String, Entry>>,
    budget_bytes: usize,
    clock: Cell<u64>,
}

impl Default for FileCache {
    fn default() -> Self {
        Self::new(DEFAULT_BUDGET_BYTES)
    }
}

/// What a cached read returns: the bytes and the metadata the host reported for them.
pub struct CachedRead {
    pub bytes: Rc<Vec<u8>>,
    pub meta: Metadata,
    /// The file's version as the host's `stat` reported it (`meta` shows the size of `bytes`).
    pub state: FileState,
}

/// A file's version as the host reported it, absent included. Kept by a caller that writes the
/// file right after seeing it, so [`FileCache::write`] needs no `stat` of its own first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FileState(Option<Version>);

impl FileState {
    /// The file did not exist.
    pub const ABSENT: FileState = FileState(None);
}

impl FileCache {
    pub fn new(budget_bytes: usize) -> Self {
        FileCache {
            entries: RefCell::new(HashMap::new()),
            budget_bytes,
            clock: Cell::new(0),
        }
    }

    fn tick(&self) -> u64 {
        let t = self.clock.get() + 1;
        self.clock.set(t);
        t
    }

    /// Read a file through the cache: one `stat`, and a `read_file` only when the version is not
    /// one the cached bytes are known to match.
    pub async fn read<F: FileSystem>(&self, fs: &F, path: &str) -> HostResult<CachedRead> {
        let stat = fs.stat(path).await;
        self.read_after_stat(fs, path, stat).await
    }

    /// [`Self::read`] for a caller that has just `stat`ed the file itself (alongside other work).
    pub async fn read_after_stat<F: FileSystem>(
        &self,
        fs: &F,
        path: &str,
        stat: HostResult<Metadata>,
    ) -> HostResult<CachedRead> {
        let version = match &stat {
            Ok(meta) if meta.kind == FileKind::Directory => {
                return Err(HostError::new(
                    HostErrorKind::IsADirectory,
                    format!("{path} is a directory"),
                ));
            }
            // Only regular files are read: a FIFO would block the read, a device stream forever.
            Ok(meta) if meta.kind == FileKind::Other => {
                return Err(HostError::new(
                    HostErrorKind::NotAFile,
                    format!("{path} is not a regular file (a device, FIFO or socket)"),
                ));
            }
            Ok(meta) if meta.size > MAX_FILE_BYTES => {
                return Err(HostError::new(
                    HostErrorKind::TooLarge,
                    format!("{path} holds {} bytes, more than {MAX_FILE_BYTES}", meta.size),
                ));
            }
            Ok(meta) => Some(Version::from(meta)),
            Err(e) if e.kind == HostErrorKind::NotFound => None,
            Err(e) => return Err(e.clone()),
        };
        if let Some(entry) = self.entries.borrow_mut().get_mut(path) {
            if entry.versions.contains(&version) {
                entry.last_use = self.tick();
                let bytes = entry.bytes.clone();
                // Report the size of what we return, which a lagging host may not show yet.
                let meta = match &stat {
                    Ok(meta) => Metadata {
                        size: bytes.len() as u64,
                        ..meta.clone()
                    },
                    Err(_) => written_metadata(bytes.len()),
                };
                return Ok(CachedRead {
                    bytes,
                    meta,
                    state: FileState(version),
                });
            }
        }
        let meta = stat?;
        let bytes = Rc::new(fs.read_file(path, MAX_FILE_BYTES).await?);
        self.insert(
            path,
            Entry {
                bytes: bytes.clone(),
                versions: vec![version],
                written_by_us: false,
                last_use: self.tick(),
            },
        );
        Ok(CachedRead {
            bytes,
            meta,
            state: FileState(version),
        })
    }

    /// Write through the cache. Returns the metadata after the write (as the host reports it; a
    /// host that does not show the new file yet gets the written size and mtime 0).
    ///
    /// `before` is the file's state just before the write, which a lagging host may go on
    /// reporting for a while: pass what a read just saw when nothing else can have run since (no
    /// `await` in between), or None to have it `stat`ed here.
    pub async fn write<F: FileSystem>(
        &self,
        fs: &F,
        path: &str,
        bytes: Rc<Vec<u8>>,
        before: Option<FileState>,
    ) -> HostResult<Metadata> {
        let before = match before {
            Some(FileState(version)) => version,
            None => fs.stat(path).await.ok().map(|m| Version::from(&m)),
        };
        fs.write_file(path, &bytes).await?;
        let after = fs.stat(path).await.ok();
        let mut versions = vec![after.as_ref().map(Version::from)];
        if before != versions[0] {
            versions.push(before);
        }
        let after = after.unwrap_or_else(|| written_metadata(bytes.len()));
        let size = bytes.len() as u64;
        self.insert(
            path,
            Entry {
                bytes,
                versions,
                written_by_us: true,
                last_use: self.tick(),
            },
        );
        Ok(Metadata { size, ..after })
    }

    /// A file watcher saw `path` change: keep the entry only if the file still has a version the
    /// entry knows (the event was our own write); otherwise drop it.
    pub async fn on_changed<F: FileSystem>(&self, fs: &F, path: &str) {
        let current = fs.stat(path).await.ok().map(|m| Version::from(&m));
        let mut entries = self.entries.borrow_mut();
        let keep = entries.get(path).is_some_and(|entry| entry.versions.contains(&current));
        if !keep {
            entries.remove(path);
        }
    }

    /// Drop whatever is cached for `path` (deleted, renamed, or known to be changed elsewhere).
    pub fn invalidate(&self, path: &str) {
        self.entries.borrow_mut().remove(path);
    }

    /// Drop everything under a directory prefix (a folder was deleted or renamed).
    pub fn invalidate_prefix(&self, dir: &str) {
        let dir_slash = format!("{}/", dir.trim_end_matches('/'));
        self.entries
            .borrow_mut()
            .retain(|p, _| p != dir && !p.starts_with(&dir_slash));
    }

    pub fn clear(&self) {
        self.entries.borrow_mut().clear();
    }

    pub fn cached_bytes(&self) -> usize {
        self.entries.borrow().values().map(|e| e.bytes.len()).sum()
    }

    fn insert(&self, path: &str, entry: Entry) {
        let mut entries = self.entries.borrow_mut();
        entries.insert(path.to_string(), entry);
        let mut total: usize = entries.values().map(|e| e.bytes.len()).sum();
        while total > self.budget_bytes {
            // Evict the least recently used clean entry; entries we wrote guard against lag.
            let victim = entries
                .iter()
                .filter(|(p, e)| !e.written_by_us && p.as_str() != path)
                .min_by_key(|(_, e)| e.last_use)
                .map(|(p, _)| p.clone());
            match victim {
                Some(p) => {
                    total -= entries.remove(&p).map(|e| e.bytes.len()).unwrap_or(0);
                }
                None => break,
            }
        }
    }
}

/// Metadata for bytes we wrote that the host does not report yet.
fn written_metadata(len: usize) -> Metadata {
    Metadata {
        kind: FileKind::File,
        size: len as u64,
        mtime_ms: 0.0,
    }
}
