//! Checkpoints: the before-image of every file Tether's write pipeline changes, kept per user
//! message in a folder on the workspace side (the driver names it; never the laptop), so the
//! user can rewind the files to how they were before any message ([`rewind`]).
//!
//! Cost: a file's before-image is taken once per user message, at its first write in that
//! message: the bytes the proposal was computed from (shared with the cache, no copy), held in
//! memory and written out with the journal when the turn ends ([`Checkpoints::flush`]: the agent
//! calls it on the turn's `done`, and before the next message and any rewind), so an Edit pays no
//! extra write. Later writes of the file only update a hash in memory.

mod journal;
pub mod rewind;

use crate::host::{FileSystem, HostErrorKind, HostResult};
use journal::{FileEntry, Journal, MessageEntry};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// Where a session's checkpoints live and how many user messages they reach back.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointStore {
    /// An absolute folder on the workspace's file system, the session's own.
    pub dir: String,
    /// The oldest messages' checkpoints are dropped beyond this many.
    pub keep_messages: usize,
}

/// The checkpoints of one session. Without a store (or before the first user message) nothing
/// is recorded.
#[derive(Default)]
pub struct Checkpoints {
    store: Option<CheckpointStore>,
    journal: RefCell<Journal>,
    /// The user message whose turn is running.
    current: RefCell<Option<String>>,
    loaded: Cell<bool>,
    /// The journal in memory differs from the one on disk.
    dirty: Cell<bool>,
    /// Before-images taken and not written yet.
    pending: RefCell<Vec<PendingBlob>>,
    /// Messages dropped beyond the retention: their blobs go once the journal written no longer
    /// names them.
    dropped: RefCell<Vec<MessageEntry>>,
    /// A user message began, now or in the journal read: the journal is worth writing.
    kept: Cell<bool>,
    /// The folder may hold a host's temp files of writes cut by a dropped connection (before
    /// this session's first flush, and after a write that failed): the next flush removes them.
    sweep: Cell<bool>,
}

/// A before-image to write at the next flush.
struct PendingBlob {
    /// The file it is the before-image of.
    path: String,
    /// Its name in the checkpoint folder.
    blob: String,
    bytes: Rc<Vec<u8>>,
}

impl Checkpoints {
    pub fn new(store: Option<CheckpointStore>) -> Self {
        Checkpoints {
            store,
            journal: RefCell::new(Journal::empty()),
            sweep: Cell::new(true),
            ..Checkpoints::default()
        }
    }

    pub fn store(&self) -> Option<&CheckpointStore> {
        self.store.as_ref()
    }

    /// The user message whose turn is running.
    pub fn current(&self) -> Option<String> {
        self.current.borrow().clone()
    }

    /// A user message starts a turn: what Tether writes from now on is recorded under `message_id`.
    /// Reads the journal the first time (a reloaded session keeps its checkpoints) and drops the
    /// oldest messages beyond the retention. The new entry and the drop are written with the
    /// turn's before-images at its end ([`Self::flush`]), so no write to the workspace waits
    /// before the prompt. Only the before-images of a turn that ended unflushed (its agent died)
    /// are written here, before this message takes its own.
    pub async fn begin<F: FileSystem>(&self, fs: &F, message_id: &str) -> HostResult<()> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        self.load(fs).await;
        let pruned: Vec<MessageEntry> = {
            let mut journal = self.journal.borrow_mut();
            if journal.position(message_id).is_none() {
                journal.messages.push(MessageEntry {
                    id: message_id.to_string(),
                    shell: false,
                    files: Vec::new(),
                });
                self.dirty.set(true);
            }
            let over = journal.messages.len().saturating_sub(store.keep_messages.max(1));
            journal.messages.drain(..over).collect()
        };
        if !pruned.is_empty() {
            self.dirty.set(true);
            self.dropped.borrow_mut().extend(pruned);
        }
        *self.current.borrow_mut() = Some(message_id.to_string());
        self.kept.set(true);
        if self.pending.borrow().is_empty() {
            return Ok(());
        }
        self.flush(fs).await
    }

    /// A shell command ran in the current message's turn.
    pub fn shell_ran(&self) {
        let Some(current) = self.current() else {
            return;
        };
        let mut journal = self.journal.borrow_mut();
        if let Some(entry) = journal.messages.iter_mut().rfind(|m| m.id == current) {
            if !entry.shell {
                entry.shell = true;
                self.dirty.set(true);
            }
        }
    }

    /// Before the first write of `path` in the current message: take its before-image (`before`,
    /// None when the file does not exist). True when this write is the message's first of `path`.
    pub(crate) fn before_write(&self, path: &str, before: Option<&Rc<Vec<u8>>>) -> bool {
        if self.store.is_none() {
            return false;
        }
        let Some(current) = self.current() else {
            return false;
        };
        let mut journal = self.journal.borrow_mut();
        let Some(index) = journal.messages.iter().rposition(|m| m.id == current) else {
            return false;
        };
        if journal.messages[index].files.iter().any(|f| f.path == path) {
            return false;
        }
        let blob = before.map(|bytes| {
            let name = format!("blobs/{}", journal.next_blob);
            journal.next_blob += 1;
            self.pending.borrow_mut().push(PendingBlob {
                path: path.to_string(),
                blob: name.clone(),
                bytes: bytes.clone(),
            });
            name
        });
        journal.messages[index].files.push(FileEntry {
            path: path.to_string(),
            before: blob,
            lost: None,
        });
        self.dirty.set(true);
        true
    }

    /// Tether wrote `bytes` (hash `hash`) to `path`: the content a rewind expects to find there.
    pub(crate) fn wrote(&self, path: &str, hash: u64) {
        if self.store.is_none() {
            return;
        }
        self.journal
            .borrow_mut()
            .written
            .insert(path.to_string(), format!("{hash:016x}"));
        self.dirty.set(true);
    }

    /// The write [`Self::before_write`] took the before-image for failed: the file is as it was.
    pub(crate) fn write_failed(&self, path: &str) {
        let Some(current) = self.current() else {
            return;
        };
        let mut journal = self.journal.borrow_mut();
        if let Some(entry) = journal.messages.iter_mut().rfind(|m| m.id == current) {
            if entry.files.last().is_some_and(|f| f.path == path) {
                entry.files.pop();
                self.pending.borrow_mut().retain(|p| p.path != path);
                self.dirty.set(true);
            }
        }
    }

    /// Write the before-images taken since the last flush (side by side), then the journal when
    /// it changed. A before-image that could not be written is noted in the journal (the rewind
    /// refuses that file, saying why).
    pub async fn flush<F: FileSystem>(&self, fs: &F) -> HostResult<()> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        let pending = std::mem::take(&mut *self.pending.borrow_mut());
        let writes = pending.iter().map(|p| async move {
            (
                p,
                write_creating(fs, &format!("{}/{}", store.dir, p.blob), &p.bytes).await,
            )
        });
        let mut failed = false;
        for (blob, written) in futures::future::join_all(writes).await {
            if let Err(e) = written {
                failed = true;
                self.mark_lost(
                    &blob.path,
                    format!("its before-image could not be saved: {}", e.message),
                );
            }
        }
        // Nothing to keep before the first user message.
        if !self.dirty.replace(false) || !self.kept.get() {
            self.sweep.set(self.sweep.get() || failed);
            return Ok(());
        }
        let text = self.journal.borrow().to_text();
        let written = write_creating(fs, &journal_path(store), text.as_bytes()).await;
        if written.is_ok() {
            let dropped = std::mem::take(&mut *self.dropped.borrow_mut());
            self.remove_blobs(fs, &dropped).await;
        }
        if written.is_err() || failed {
            self.dirty.set(written.is_err());
            self.sweep.set(true);
        } else if self.sweep.replace(false) {
            remove_stray_temps(fs, &store.dir).await;
            remove_stray_temps(fs, &format!("{}/blobs", store.dir)).await;
        }
        written
    }

    fn mark_lost(&self, path: &str, why: String) {
        let mut journal = self.journal.borrow_mut();
        for message in journal.messages.iter_mut().rev() {
            if let Some(file) = message.files.iter_mut().find(|f| f.path == path) {
                file.lost = Some(why);
                self.dirty.set(true);
                return;
            }
        }
    }

    /// Read the journal once; a missing or unreadable one starts empty.
    async fn load<F: FileSystem>(&self, fs: &F) {
        let Some(store) = &self.store else {
            return;
        };
        if self.loaded.replace(true) {
            return;
        }
        if let Ok(bytes) = fs.read_file(&journal_path(store), 64 * 1024 * 1024).await {
            if let Some(journal) = std::str::from_utf8(&bytes).ok().and_then(Journal::parse) {
                self.kept.set(true);
                *self.journal.borrow_mut() = journal;
            }
        }
    }

    async fn remove_blobs<F: FileSystem>(&self, fs: &F, messages: &[MessageEntry]) {
        let Some(store) = &self.store else {
            return;
        };
        for blob in messages.iter().flat_map(|m| &m.files).filter_map(|f| f.before.as_ref()) {
            // A blob already gone is what was wanted.
            let _ = fs.remove(&format!("{}/{blob}", store.dir), false).await;
        }
    }
}

/// Remove the temp files a host's atomic writes left in `dir` (`.<name>.tether-<n>.tmp`, see
/// `vscodeHost.ts`): a write cut by a dropped connection, whose host could not remove it then.
async fn remove_stray_temps<F: FileSystem>(fs: &F, dir: &str) {
    let Ok(entries) = fs.read_dir(dir).await else {
        return;
    };
    let stray = entries
        .iter()
        .filter(|e| e.name.starts_with('.') && e.name.contains(".tether-") && e.name.ends_with(".tmp"));
    for entry in stray {
        // One that cannot be removed now is tried again after the next failed write.
        let _ = fs.remove(&format!("{dir}/{}", entry.name), false).await;
    }
}

fn journal_path(store: &CheckpointStore) -> String {
    format!("{}/journal.json", store.dir)
}

/// Write `path`, making its folder when it is missing.
async fn write_creating<F: FileSystem>(fs: &F, path: &str, bytes: &[u8]) -> HostResult<()> {
    match fs.write_file(path, bytes).await {
        Err(e) if e.kind == HostErrorKind::NotFound => {
            if let Some((parent, _)) = path.rsplit_once('/') {
                fs.create_dir_all(parent).await?;
            }
            fs.write_file(path, bytes).await
        }
        written => written,
    }
}
