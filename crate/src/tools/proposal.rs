//! A change to one file computed and not yet written: what Edit, MultiEdit, Write and NotebookEdit
//! propose (the whole new text, the file's format, the bytes it was computed from) and what the
//! model asked for, kept to build the tool's result once it is written.

use super::files::format_bytes;
use super::notebook::NotebookChange;
use super::text::{self, Decoded, Encoding, LineEnding};
use super::{Freshness, ToolError, ToolResult};
use crate::cache::{CachedRead, FileState, MAX_FILE_BYTES};
use crate::diff::KnownSame;
use crate::host::{HostError, HostErrorKind};
use crate::json::read_struct;
use serde::Serialize;
use std::fmt;
use std::rc::Rc;

/// Appended to successful writes, as the CLI does.
pub(crate) const STATE_IS_CURRENT: &str = " (file state is current in your context \u{2014} no need to Read it back)";

/// One replacement, as Edit takes it and as MultiEdit lists them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EditOp {
    pub old_string: String,
    pub new_string: String,
    pub replace_all: bool,
}

read_struct!(EditOp {
    old_string: required "old_string",
    new_string: required "new_string",
    replace_all: default "replace_all",
});

/// How a file is stored, so new text is written back the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileFormat {
    bom: bool,
    encoding: Encoding,
    line_ending: LineEnding,
}

impl FileFormat {
    /// A new file: UTF-8 without BOM, the text's line breaks written as given.
    pub(crate) const NEW_FILE: FileFormat = FileFormat {
        bom: false,
        encoding: Encoding::Utf8,
        line_ending: LineEnding::Lf,
    };

    pub(crate) fn of(decoded: &Decoded) -> Self {
        FileFormat {
            bom: decoded.bom,
            encoding: decoded.encoding,
            line_ending: decoded.line_ending,
        }
    }

    pub(crate) fn encode(&self, text: String) -> Vec<u8> {
        text::encode_owned(text, self.bom, self.encoding, self.line_ending)
    }

    pub(crate) fn with_line_ending(self, line_ending: LineEnding) -> Self {
        FileFormat { line_ending, ..self }
    }

    /// Text from outside (the review editor) in the decoded form: `\n` breaks for a CRLF file.
    pub(crate) fn normalize(&self, text: String) -> String {
        match self.line_ending {
            LineEnding::CrLf => text::normalize_newlines(&text),
            LineEnding::Lf => text,
        }
    }
}

/// What the model asked for, kept to build the tool's result after the commit.
#[derive(Clone, Debug, PartialEq)]
pub enum WriteRequest {
    /// `old_string` is the text actually replaced (it can differ from the model's in quote style).
    Edit {
        old_string: String,
        new_string: String,
        replace_all: bool,
        /// The file against the model's last Read: the result says what the model may not know.
        freshness: Freshness,
    },
    MultiEdit {
        edits: Vec<EditOp>,
    },
    Write,
    NotebookEdit(NotebookChange),
}

impl WriteRequest {
    pub fn tool(&self) -> &'static str {
        match self {
            WriteRequest::Edit { .. } => "Edit",
            WriteRequest::MultiEdit { .. } => "MultiEdit",
            WriteRequest::Write => "Write",
            WriteRequest::NotebookEdit(_) => "NotebookEdit",
        }
    }
}

/// A computed, not yet written change to one file.
#[derive(Clone, Debug, PartialEq)]
pub struct ProposedWrite {
    /// The path as the model gave it (used in result texts).
    pub file_path: String,
    /// The resolved workspace path.
    pub path: String,
    /// The decoded text before (`\n` breaks, no BOM); None when the file does not exist yet.
    pub original: Option<String>,
    /// The decoded text after.
    pub proposed: String,
    pub request: WriteRequest,
    pub(crate) format: FileFormat,
    /// The file's bytes when the proposal was made; None when it did not exist.
    pub(crate) base: Option<BaseBytes>,
    /// The ends of `original` that `proposed` keeps as they were, so its diff need not find them.
    pub(crate) unchanged: KnownSame,
}

/// The bytes a proposal was computed from. Kept (shared with the cache, not copied) rather than
/// hashed: the commit-time check is then a pointer comparison when the cache still holds them.
#[derive(Clone, PartialEq)]
pub struct BaseBytes {
    bytes: Rc<Vec<u8>>,
    /// The file's version the read showed, for a write that follows at once.
    state: FileState,
}

impl fmt::Debug for BaseBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BaseBytes({} bytes)", self.bytes.len())
    }
}

impl ProposedWrite {
    /// The original text for a structured result: null for a new file or beyond the CLI's 10 MB.
    pub(crate) fn echoed_original(&self) -> Option<&str> {
        // The CLI's schema allows null "when the previous content was too large to include"; the
        // UI renders from the hunks, and a large original would only be copied through JSON twice.
        const MAX_ECHO_BYTES: usize = 256 * 1024;
        self.original.as_deref().filter(|o| o.len() <= MAX_ECHO_BYTES)
    }

    /// The file's state when the proposal was made.
    pub(crate) fn seen(&self) -> FileState {
        self.base.as_ref().map_or(FileState::ABSENT, |base| base.state)
    }
}

impl BaseBytes {
    pub(crate) fn of(read: &CachedRead) -> Self {
        BaseBytes {
            bytes: read.bytes.clone(),
            state: read.state,
        }
    }

    /// The bytes themselves (shared, not copied).
    pub(crate) fn bytes(&self) -> &Rc<Vec<u8>> {
        &self.bytes
    }

    pub(crate) fn matches(&self, current: &Rc<Vec<u8>>) -> bool {
        Rc::ptr_eq(&self.bytes, current) || self.bytes == *current
    }
}

/// The CLI's refusal to change what is not a regular file or is too large to hold, for the
/// failed read of the file `tool` (Edit, MultiEdit, Write, NotebookEdit) was about to change.
pub(crate) fn unwritable(tool: &str, file_path: &str, e: &HostError) -> Option<ToolError> {
    match e.kind {
        HostErrorKind::NotAFile => {
            let what = if tool == "Write" {
                "creates or overwrites"
            } else {
                "changes"
            };
            Some(ToolError::invalid(format!(
                "{file_path} exists but is not a regular file (a device, FIFO or socket). {tool} only {what} regular files."
            )))
        }
        HostErrorKind::TooLarge => Some(ToolError::invalid(format!(
            "File is too large to edit. Maximum editable file size is {}.",
            format_bytes(MAX_FILE_BYTES as usize)
        ))),
        _ => None,
    }
}

/// Decode an existing file that is about to be rewritten; refuse what could not be written back
/// byte-faithfully (binary, or UTF-8 with undecodable bytes), with the CLI's explanation.
pub(crate) fn decode_for_writing(bytes: &[u8]) -> ToolResult<Decoded> {
    let refuse = |what: &str| {
        ToolError(format!(
            "File {what}. These tools write UTF-8 (or UTF-16LE behind its byte-order mark) and never convert a file's encoding on their own, so nothing was written. If the file is text, make the change with a shell command that reads and writes it in its own encoding (iconv, or PowerShell Get-Content/Set-Content -Encoding), or ask the user whether to convert it to UTF-8 first. To replace the whole file with new UTF-8 text anyway, delete it first, then Write it."
        ))
    };
    let Some(decoded) = text::decode(bytes) else {
        return Err(refuse("has NUL bytes in its first 8 KB: binary data, UTF-16/UTF-32 without a byte-order mark, or text with embedded NULs"));
    };
    if decoded.invalid_utf8 {
        return Err(refuse(
            "is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary",
        ));
    }
    Ok(decoded)
}
