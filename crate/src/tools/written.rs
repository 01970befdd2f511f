//! The files the tools wrote, noted for the audit log: path, size and SHA-256, never the bytes.

use std::cell::RefCell;

/// One file written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteNote {
    pub path: String,
    pub bytes: u64,
    /// Lowercase hex.
    pub sha256: String,
}

/// The writes since the last [`WriteLog::take`].
#[derive(Default)]
pub struct WriteLog(RefCell<Vec<WriteNote>>);

impl WriteNote {
    /// `sha256`: the digest of `bytes`, from the host ([`crate::host::FileSystem::sha256_hex`]).
    pub fn of(path: &str, bytes: &[u8], sha256: String) -> WriteNote {
        WriteNote {
            path: path.to_string(),
            bytes: bytes.len() as u64,
            sha256,
        }
    }
}

impl WriteLog {
    pub fn push(&self, note: WriteNote) {
        self.0.borrow_mut().push(note);
    }

    pub fn take(&self) -> Vec<WriteNote> {
        std::mem::take(&mut *self.0.borrow_mut())
    }
}
