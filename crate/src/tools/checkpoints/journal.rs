//! What a session's checkpoints are, as kept in `journal.json` in the checkpoint folder on the
//! workspace side: per user message, the files Tether changed and where each one's before-image
//! is (a blob in the same folder, or "absent": the message created the file), whether a shell
//! command ran, and the hash of Tether's last write of each file (a rewind refuses a file whose
//! content is no longer that). No file contents: those are the blobs.

use crate::json::read_struct;
use crate::tools::content_hash;
use serde::Serialize;
use std::collections::BTreeMap;

/// The journal's format; a journal of another version is set aside (a fresh one starts).
pub(crate) const VERSION: u32 = 1;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Journal {
    pub version: u32,
    /// Oldest first.
    pub messages: Vec<MessageEntry>,
    /// Path → hash (hex) of the bytes Tether last wrote there.
    pub written: BTreeMap<String, String>,
    /// The number of the next blob (`blobs/<n>`).
    pub next_blob: u64,
}

read_struct!(Journal {
    version: required "version",
    messages: required "messages",
    written: required "written",
    next_blob: required "nextBlob",
});

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MessageEntry {
    /// The chat's id of the user message.
    pub id: String,
    /// A shell command ran while this message was the current one: what it changed is not here.
    pub shell: bool,
    /// Each file the message's turn changed first, in the order it did.
    pub files: Vec<FileEntry>,
}

read_struct!(MessageEntry {
    id: required "id",
    shell: default "shell",
    files: required "files",
});

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FileEntry {
    /// The workspace path.
    pub path: String,
    /// The blob holding the file as it was before; None: the file did not exist.
    pub before: Option<String>,
    /// Why the before-image could not be kept (the rewind refuses this file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost: Option<String>,
}

read_struct!(FileEntry {
    path: required "path",
    before: default "before",
    lost: default "lost",
});

impl Journal {
    pub fn empty() -> Self {
        Journal {
            version: VERSION,
            ..Journal::default()
        }
    }

    /// The journal in `text`; None when it is not one this version reads.
    pub fn parse(text: &str) -> Option<Self> {
        // Through a Value, as every other message is read: one JSON reader in the wasm.
        let value = serde_json::from_str(text).ok()?;
        crate::json::from_value::<Journal>(value)
            .ok()
            .filter(|j| j.version == VERSION)
    }

    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn position(&self, id: &str) -> Option<usize> {
        self.messages.iter().position(|m| m.id == id)
    }
}

/// The hash a journal keeps of a file's content.
pub(crate) fn hash_text(bytes: &[u8]) -> String {
    format!("{:016x}", content_hash(bytes))
}
