//! The files the tools wrote, noted for the audit log: path, size and SHA-256, never the bytes.

use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::fmt::Write as _;

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
    pub fn of(path: &str, bytes: &[u8]) -> WriteNote {
        WriteNote {
            path: path.to_string(),
            bytes: bytes.len() as u64,
            sha256: sha256_hex(bytes),
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

pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}
