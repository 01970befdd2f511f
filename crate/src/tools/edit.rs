//! Edit and MultiEdit (exact string replacement with Claude Code's rules and messages), and the
//! two-phase write every file-changing tool goes through: [`propose`] computes the whole new file
//! without touching the disk, [`commit`] writes it (or what the user made of it in review) unless
//! the file changed in between. `run_edit`, `run_multi_edit`, `write::run` and `notebook::run` are
//! propose + commit.

use super::notebook::{self, NotebookChange};
use super::read::{self, STATE_IS_CURRENT};
use super::text::{self, Decoded, Encoding, LineEnding};
use super::{
    parse_input, write, Freshness, Host, ToolError, ToolOutput, ToolResult, ToolSpec, Toolset, NOT_READ, STALE,
};
use crate::cache::{CachedRead, FileState};
use crate::diff::{self, Diff, KnownSame, DEFAULT_CONTEXT};
use crate::host::HostErrorKind;
use memchr::arch::all::packedpair::Pair;
use memchr::memmem;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

const NO_CHANGES: &str = "No changes to make: old_string and new_string are exactly the same.";
const FILE_EXISTS: &str = "Cannot create new file - file already exists.";

pub static EDIT_SPEC: ToolSpec = ToolSpec {
    name: "Edit",
    title: "Edit file",
    description: "Performs exact string replacements in files.

Usage:
- You must use your `Read` tool at least once in the conversation before editing. This tool will error if you attempt an edit without reading the file.
- When editing text from Read tool output, ensure you preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The line number prefix format is: line number + tab. Everything after that is the actual file content to match. Never include any part of the line number prefix in the old_string or new_string.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- Only use emojis if the user explicitly requests it. Avoid adding emojis to files unless asked.
- The edit will FAIL if `old_string` is not unique in the file. Either provide a larger string with more surrounding context to make it unique or use `replace_all` to change every instance of `old_string`.
- Use `replace_all` for replacing and renaming strings across the file. This parameter is useful if you want to rename a variable for instance.",
    input_schema: edit_schema,
    read_only: false,
    destructive: false,
};

pub static MULTI_EDIT_SPEC: ToolSpec = ToolSpec {
    name: "MultiEdit",
    title: "Edit file (several edits)",
    description: "This is a tool for making multiple edits to a single file in one operation. It is built on top of the Edit tool and allows you to perform multiple find-and-replace operations efficiently. Prefer this tool over the Edit tool when you need to make multiple edits to the same file.

Before using this tool:

1. Use the Read tool to understand the file's contents and context
2. Verify the directory path is correct

To make multiple file edits, provide the following:
1. file_path: The absolute path to the file to modify (must be absolute, not relative)
2. edits: An array of edit operations to perform, where each edit contains:
   - old_string: The text to replace (must match the file contents exactly, including all whitespace and indentation)
   - new_string: The edited text to replace the old_string
   - replace_all: Replace all occurrences of old_string. This parameter is optional and defaults to false.

IMPORTANT:
- All edits are applied in sequence, in the order they are provided
- Each edit operates on the result of the previous edit
- All edits must be valid for the operation to succeed - if any edit fails, none will be applied
- This tool is ideal when you need to make several changes to different parts of the same file
- For Jupyter notebooks (.ipynb files), use the NotebookEdit tool instead

CRITICAL REQUIREMENTS:
1. All edits follow the same requirements as the single Edit tool
2. The edits are atomic - either all succeed or none are applied
3. Plan your edits carefully to avoid conflicts between sequential operations

WARNING:
- The tool will fail if edits.old_string doesn't match the file contents exactly (including whitespace)
- The tool will fail if edits.old_string and edits.new_string are the same
- Since edits are applied in sequence, ensure that earlier edits don't affect the text that later edits are trying to find

When making edits:
- Ensure all edits result in idiomatic, correct code
- Do not leave the code in a broken state
- Always use absolute file paths (starting with /)
- Only use emojis if the user explicitly requests it. Avoid adding emojis to files unless asked.
- Use replace_all for replacing and renaming strings across the file. This parameter is useful if you want to rename a variable for instance.

If you want to create a new file, use:
- A new file path, including dir name if needed
- First edit: empty old_string and the new file's contents as new_string
- Subsequent edits: normal edit operations on the created content",
    input_schema: multi_edit_schema,
    read_only: false,
    destructive: false,
};

fn edit_schema() -> Value {
    super::schema(
        r##"{
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "properties": {
        "file_path": {"type": "string", "description": "The absolute path to the file to modify"},
        "old_string": {"type": "string", "description": "The text to replace"},
        "new_string": {"type": "string", "description": "The text to replace it with (must be different from old_string)"},
        "replace_all": {"type": "boolean", "default": false, "description": "Replace all occurrences of old_string (default false)"}
      },
      "required": ["file_path", "old_string", "new_string"],
      "additionalProperties": false
    }"##,
    )
}

fn multi_edit_schema() -> Value {
    super::schema(
        r##"{
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "properties": {
        "file_path": {"type": "string", "description": "The absolute path to the file to modify"},
        "edits": {
          "type": "array",
          "minItems": 1,
          "description": "Array of edit operations to perform sequentially on the file",
          "items": {
            "type": "object",
            "properties": {
              "old_string": {"type": "string", "description": "The text to replace"},
              "new_string": {"type": "string", "description": "The text to replace it with (must be different from old_string)"},
              "replace_all": {"type": "boolean", "default": false, "description": "Replace all occurrences of old_string (default false)"}
            },
            "required": ["old_string", "new_string"],
            "additionalProperties": false
          }
        }
      },
      "required": ["file_path", "edits"],
      "additionalProperties": false
    }"##,
    )
}

/// One replacement, as Edit takes it and as MultiEdit lists them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditOp {
    pub old_string: String,
    pub new_string: String,
    #[serde(default, deserialize_with = "lenient_bool")]
    pub replace_all: bool,
}

/// `true`, `"true"` and null (false) are all accepted, as the CLI coerces them.
fn lenient_bool<'de, D: Deserializer<'de>>(de: D) -> Result<bool, D::Error> {
    match Value::deserialize(de)? {
        Value::Bool(b) => Ok(b),
        Value::Null => Ok(false),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Ok(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Ok(false),
        other => Err(serde::de::Error::custom(format!("expected a boolean, got {other}"))),
    }
}

#[derive(Deserialize)]
struct EditInput {
    file_path: String,
    #[serde(flatten)]
    edit: EditOp,
}

#[derive(Deserialize)]
struct MultiEditInput {
    file_path: String,
    edits: Vec<EditOp>,
}

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

    pub(crate) fn with_line_ending(self, line_ending: LineEnding) -> Self {
        FileFormat { line_ending, ..self }
    }

    fn encode(&self, text: String) -> Vec<u8> {
        text::encode_owned(text, self.bom, self.encoding, self.line_ending)
    }

    /// Text from outside (the review editor) in the decoded form: `\n` breaks for a CRLF file.
    fn normalize(&self, text: String) -> String {
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
    fn seen(&self) -> FileState {
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

    fn matches(&self, current: &Rc<Vec<u8>>) -> bool {
        Rc::ptr_eq(&self.bytes, current) || self.bytes == *current
    }
}

/// Compute the full new file for `tool` ("Edit", "MultiEdit", "Write" or "NotebookEdit") with the
/// tool's checks (read before edit, unchanged since read, match rules), without writing anything.
pub async fn propose<H: Host>(ts: &Toolset<H>, tool: &str, args: Value) -> ToolResult<ProposedWrite> {
    // Boxed behind `dyn` so that each tool's proposal stays a wasm function of its own (see
    // `Toolset::call`): Edit then runs, and V8 optimises, only its own code.
    let proposal: Pin<Box<dyn Future<Output = ToolResult<ProposedWrite>> + '_>> = match tool {
        "Edit" => {
            let input: EditInput = parse_input("Edit", args)?;
            if input.edit.old_string == input.edit.new_string {
                return Err(ToolError::invalid(NO_CHANGES));
            }
            Box::pin(propose_edits(ts, input.file_path, Edits::One(input.edit)))
        }
        "MultiEdit" => {
            let input: MultiEditInput = parse_input("MultiEdit", args)?;
            if input.edits.is_empty() {
                return Err(ToolError::new(
                    "InputValidationError: MultiEdit failed due to the following issue: edits must contain at least one edit",
                ));
            }
            Box::pin(propose_edits(ts, input.file_path, Edits::Many(input.edits)))
        }
        "Write" => Box::pin(write::propose(ts, args)),
        "NotebookEdit" => Box::pin(notebook::propose(ts, args)),
        other => return Err(ToolError(format!("{other} does not write files."))),
    };
    proposal.await
}

/// Write a proposal: `user_content` (the text the user left in review) replaces the proposed text
/// when given and different (`userModified: true`). Refused, with nothing written, when the file
/// changed on disk since [`propose`].
pub async fn commit<H: Host>(
    ts: &Toolset<H>,
    proposal: ProposedWrite,
    user_content: Option<String>,
) -> ToolResult<ToolOutput> {
    let seen = check_unchanged_since_propose(ts, &proposal).await?;
    write_proposal(ts, proposal, user_content, seen).await
}

/// [`propose`] and write at once, as the tools do when called without review. The read `propose`
/// made is the check: no `await` separates it from the write, so nothing can have run in between.
pub async fn propose_and_write<H: Host>(ts: &Toolset<H>, tool: &str, args: Value) -> ToolResult<ToolOutput> {
    let proposal = propose(ts, tool, args).await?;
    let seen = proposal.seen();
    write_proposal(ts, proposal, None, seen).await
}

/// Write `proposal` (or the user's text) over the file last seen in state `seen`.
async fn write_proposal<H: Host>(
    ts: &Toolset<H>,
    mut proposal: ProposedWrite,
    user_content: Option<String>,
    seen: FileState,
) -> ToolResult<ToolOutput> {
    let user_content = user_content
        .map(|c| proposal.format.normalize(c))
        .filter(|c| *c != proposal.proposed);
    let user_modified = user_content.is_some();
    let written = user_content.unwrap_or_else(|| std::mem::take(&mut proposal.proposed));
    // The result is built before the write so the text can then be moved into the file's bytes
    // (no copy of a large file); it is returned only once the write succeeded.
    let output = committed_output(&proposal, &written, user_modified);
    ts.write_file_seen(&proposal.path, proposal.format.encode(written), Some(seen))
        .await?;
    Ok(output)
}

/// The result of writing `written` for `proposal`, with the patch of what was actually written; a
/// created file and a notebook report none.
fn committed_output(proposal: &ProposedWrite, written: &str, user_modified: bool) -> ToolOutput {
    // What the proposal knows of its unchanged ends holds for the proposed text only.
    let unchanged = if user_modified {
        KnownSame::default()
    } else {
        proposal.unchanged
    };
    let patch = || {
        diff::structured_patch_knowing(
            proposal.original.as_deref().unwrap_or(""),
            written,
            DEFAULT_CONTEXT,
            unchanged,
        )
    };
    match &proposal.request {
        WriteRequest::Write if proposal.original.is_none() => write::output(proposal, written, user_modified, &[]),
        WriteRequest::Write => write::output(proposal, written, user_modified, patch().hunks()),
        WriteRequest::NotebookEdit(change) => notebook::output(proposal, change, written, user_modified),
        WriteRequest::Edit {
            old_string,
            new_string,
            replace_all,
            freshness,
        } => {
            let edit = (old_string.as_str(), new_string.as_str(), *replace_all);
            edit_output(proposal, edit, *freshness, user_modified, &patch())
        }
        WriteRequest::MultiEdit { edits } => multi_edit_output(proposal, edits, user_modified, &patch()),
    }
}

/// The change a proposal makes, for review: hunks with 3 lines of context, or a summary when too
/// large. Render text with [`Diff::unified`].
pub fn diff_of(proposal: &ProposedWrite) -> Diff {
    diff::structured_patch_knowing(
        proposal.original.as_deref().unwrap_or(""),
        &proposal.proposed,
        DEFAULT_CONTEXT,
        proposal.unchanged,
    )
}

pub async fn run_edit<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ToolOutput> {
    propose_and_write(ts, "Edit", args).await
}

pub async fn run_multi_edit<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ToolOutput> {
    propose_and_write(ts, "MultiEdit", args).await
}

/// The file's state now, when it is still what the proposal was computed from.
async fn check_unchanged_since_propose<H: Host>(ts: &Toolset<H>, proposal: &ProposedWrite) -> ToolResult<FileState> {
    let name = &proposal.file_path;
    let current = ts.cache.read(&ts.host, &proposal.path).await;
    match (current, &proposal.base) {
        (Ok(current), Some(base)) if base.matches(&current.bytes) => Ok(current.state),
        (Err(e), None) if e.kind == HostErrorKind::NotFound => Ok(FileState::ABSENT),
        (Ok(_), Some(_)) => Err(ToolError(format!(
            "The file {name} was changed on disk while your change was waiting for review, so nothing was written. Read it again, then make the change again."
        ))),
        (Ok(_), None) => Err(ToolError(format!(
            "The file {name} was created on disk while your change was waiting for review, so nothing was written. Read it, then make the change again."
        ))),
        (Err(e), Some(_)) if e.kind == HostErrorKind::NotFound => Err(ToolError(format!(
            "The file {name} was deleted while your change was waiting for review, so nothing was written."
        ))),
        (Err(e), _) => Err(ToolError(format!("Could not read {name}: {}", e.message))),
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

/// The edits of one Edit or MultiEdit call.
enum Edits {
    One(EditOp),
    Many(Vec<EditOp>),
}

impl Edits {
    fn as_slice(&self) -> &[EditOp] {
        match self {
            Edits::One(edit) => std::slice::from_ref(edit),
            Edits::Many(edits) => edits,
        }
    }
}

async fn propose_edits<H: Host>(ts: &Toolset<H>, file_path: String, edits: Edits) -> ToolResult<ProposedWrite> {
    let (path, read) = ts.resolve_and_read(&file_path).await?;
    let creates = edits.as_slice().first().is_some_and(|e| e.old_string.is_empty());
    let mut freshness = Freshness::Read;
    let (original, format, base) = match read {
        Ok(current) => {
            let decoded = decode_for_writing(&current.bytes)?;
            if creates {
                if !decoded.text.trim().is_empty() {
                    return Err(ToolError::invalid(FILE_EXISTS));
                }
            } else {
                if read::extension(&path) == "ipynb" {
                    return Err(ToolError::invalid(
                        "File is a Jupyter Notebook. Use the NotebookEdit to edit this file.",
                    ));
                }
                // 2.1.330 edits a file the model has not read when it could read it without asking,
                // and one changed since the Read when the edit still applies cleanly (saying so).
                freshness = ts.freshness(&path, &current);
                if freshness == Freshness::Unread && !ts.may_write_unread(&path) {
                    return Err(ToolError::invalid(NOT_READ));
                }
            }
            let format = FileFormat::of(&decoded);
            (Some(decoded.text), format, Some(BaseBytes::of(&current)))
        }
        Err(e) if e.kind == HostErrorKind::NotFound => {
            if !creates {
                return Err(ToolError::invalid(read::missing_file_message(ts, &path).await));
            }
            (None, FileFormat::NEW_FILE, None)
        }
        // The CLI's own words: its read of a directory fails inside the input check.
        Err(e) if e.kind == HostErrorKind::IsADirectory => {
            return Err(ToolError::invalid(
                "Error calling tool (Edit): EISDIR: illegal operation on a directory, read",
            ));
        }
        Err(e) => return Err(ToolError(format!("Could not read {file_path}: {}", e.message))),
    };
    let before = original.as_deref().unwrap_or("");
    let applied = apply_edits(before, edits.as_slice()).map_err(|failure| match (&edits, failure.index) {
        _ if freshness == Freshness::Stale => ToolError::invalid(STALE),
        (Edits::Many(_), Some(index)) => ToolError::invalid(format!(
            "edits[{index}] failed: {}\nNo edits were applied; the file is unchanged.",
            failure.message
        )),
        _ => ToolError::invalid(failure.message),
    })?;
    let request = match edits {
        Edits::One(edit) => WriteRequest::Edit {
            old_string: applied.first_actual,
            new_string: edit.new_string,
            replace_all: edit.replace_all,
            freshness,
        },
        Edits::Many(edits) => WriteRequest::MultiEdit { edits },
    };
    Ok(ProposedWrite {
        file_path,
        path,
        original,
        proposed: applied.text,
        request,
        format,
        base,
        unchanged: applied.unchanged,
    })
}

struct EditFailure {
    /// The failing edit; None when the failure is about the edits as a whole.
    index: Option<usize>,
    message: String,
}

/// Edits applied to a text.
struct Applied {
    text: String,
    /// The text the first edit actually matched.
    first_actual: String,
    /// The ends of the text no edit touched.
    unchanged: KnownSame,
}

/// Apply edits in order to `text`, in memory (all or nothing).
fn apply_edits(text: &str, edits: &[EditOp]) -> Result<Applied, EditFailure> {
    // Borrowed until the first edit: a large file is copied once, into its edited form.
    let mut current = Cow::Borrowed(text);
    let mut first_actual = String::new();
    // Each edit leaves the text before its match and after it alone; together, the text before
    // the earliest and after the latest.
    let mut unchanged = KnownSame {
        prefix: text.len(),
        suffix: text.len(),
    };
    for (index, edit) in edits.iter().enumerate() {
        let fail = |message: String| EditFailure {
            index: Some(index),
            message,
        };
        if edit.old_string == edit.new_string {
            return Err(fail(NO_CHANGES.to_string()));
        }
        // A creation's new_string is the whole file, which later edits are meant to change.
        let old_core = edit.old_string.trim_end_matches('\n');
        let made_by_earlier_edit = edits[..index]
            .iter()
            .any(|e| !e.old_string.is_empty() && e.new_string.contains(old_core));
        if !old_core.is_empty() && made_by_earlier_edit {
            return Err(fail(
                "Cannot edit file: old_string is a substring of a new_string from a previous edit.".to_string(),
            ));
        }
        if edit.old_string.is_empty() {
            // Only a creation (first edit, empty file) may have an empty old_string.
            if index > 0 || !current.trim().is_empty() {
                return Err(fail(FILE_EXISTS.to_string()));
            }
            current = Cow::Owned(edit.new_string.clone());
            unchanged = KnownSame::default();
            continue;
        }
        // old_string as given: 2.1.330 matches it against the file's text with `\n` breaks, so
        // a `\r\n` in it is not found (new_string's go, as they would come back doubled).
        let old = Cow::Borrowed(edit.old_string.as_str());
        let new = text::normalize_newlines(&edit.new_string);
        let Some(found) = find_actual_string(&current, &old) else {
            return Err(fail(format!(
                "String to replace not found in file.\nString: {}",
                edit.old_string
            )));
        };
        // Matches do not overlap (as `str::matches` counts them): a second one starts after the first.
        let after_first = found.at + found.text.len();
        if !edit.replace_all && find(&current[after_first..], &found.text).is_some() {
            let count = current.matches(found.text.as_str()).count();
            return Err(fail(format!(
                "Found {count} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: {}",
                edit.old_string
            )));
        }
        let new = if found.text == old {
            new
        } else {
            apply_quote_style(&found.text, &new)
        };
        let (replaced, kept) = replace(&current, &found, &new, edit.replace_all);
        current = Cow::Owned(replaced);
        unchanged.prefix = unchanged.prefix.min(kept.prefix);
        unchanged.suffix = unchanged.suffix.min(kept.suffix);
        if index == 0 {
            first_actual = found.text;
        }
    }
    if current == text {
        return Err(EditFailure {
            index: None,
            message: "Original and edited file match exactly. Failed to apply edit.".to_string(),
        });
    }
    Ok(Applied {
        text: current.into_owned(),
        first_actual,
        unchanged,
    })
}

/// The first place `needle` occurs in `haystack`, as a byte offset (what `str::find` returns).
///
/// Edit scans the whole file for its match and for a second one. Without SIMD (the wasm build)
/// `memmem` calls `memchr` once per occurrence of the needle's rarest byte, which in source text
/// is every line or so; here that byte is looked for eight at a time inline, and only where the
/// second-rarest byte is in its place too is the needle compared. Should the comparisons keep
/// failing (a repetitive haystack), `memmem`, linear in the worst case, takes over.
fn find(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    let Some(pair) = Pair::new(n) else {
        return memmem::find(h, n);
    };
    let last_start = h.len().checked_sub(n.len())?;
    let (rare, other) = (usize::from(pair.index1()), usize::from(pair.index2()));
    let (rare_byte, other_byte) = (n[rare], n[other]);
    let pattern = text::repeat_byte(rare_byte);
    // Where the rare byte of a match starting at `start` would be, for every possible start.
    let mut rest = &h[rare..=last_start + rare];
    let mut start = 0;
    let mut compared = 0;
    while let Some((word, tail)) = rest.split_first_chunk::<8>() {
        let mut hits = text::zero_byte_mask(u64::from_le_bytes(*word) ^ pattern);
        while hits != 0 {
            // Little-endian: the lowest set bit is the earliest start.
            let candidate = start + (hits.trailing_zeros() / 8) as usize;
            if h[candidate + other] == other_byte {
                if h[candidate..candidate + n.len()] == *n {
                    return Some(candidate);
                }
                compared += n.len();
                if compared > 4 * candidate + 4096 {
                    return memmem::find(&h[candidate..], n).map(|i| candidate + i);
                }
            }
            hits &= hits - 1;
        }
        start += 8;
        rest = tail;
    }
    (start..=last_start).find(|&i| h[i..i + n.len()] == *n)
}

/// Replace `found` (the first match) by `new`, or every match of its text with `all`. Deleting a
/// whole line's text also removes its line break, as the CLI does, so a deletion leaves no blank
/// line behind. Also returns the ends of `text` left as they were.
fn replace(text: &str, found: &Found, new: &str, all: bool) -> (String, KnownSame) {
    let old = found.text.as_str();
    // Whatever is replaced, nothing before the first match changes.
    let up_to_first = KnownSame {
        prefix: found.at,
        suffix: 0,
    };
    if new.is_empty() && !old.ends_with('\n') {
        let with_break = format!("{old}\n");
        if find(text, &with_break).is_some() {
            let replaced = if all {
                text.replace(&with_break, new)
            } else {
                text.replacen(&with_break, new, 1)
            };
            return (replaced, up_to_first);
        }
    }
    if all {
        return (text.replace(old, new), up_to_first);
    }
    let mut out = String::with_capacity(text.len() - old.len() + new.len());
    out.push_str(&text[..found.at]);
    out.push_str(new);
    out.push_str(&text[found.at + old.len()..]);
    let kept = KnownSame {
        prefix: found.at,
        suffix: text.len() - found.at - old.len(),
    };
    (out, kept)
}

/// Where an edit's old_string matched, and the file's own text there.
struct Found {
    at: usize,
    text: String,
}

/// The text in `haystack` that `needle` means, at its first occurrence: itself, or the same text
/// with the file's curly quotes where the model typed straight ones (the CLI's quote normalisation).
fn find_actual_string(haystack: &str, needle: &str) -> Option<Found> {
    if let Some(at) = find(haystack, needle) {
        return Some(Found {
            at,
            text: needle.to_string(),
        });
    }
    const CURLY: [char; 4] = ['\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}'];
    if !haystack.contains(CURLY) && !needle.contains(CURLY) {
        return None;
    }
    let straight_needle = straighten_quotes(needle);
    let straight_haystack = straighten_quotes(haystack);
    let at = find(&straight_haystack, &straight_needle)?;
    // Quote replacement keeps the character count, so char positions carry over. No earlier
    // occurrence of the text found can exist: it would straighten to an earlier match.
    let start_char = straight_haystack[..at].chars().count();
    let len_chars = straight_needle.chars().count();
    let mut indices = haystack.char_indices().map(|(i, _)| i).skip(start_char);
    let start = indices.next()?;
    let end = indices.nth(len_chars.checked_sub(1)?).unwrap_or(haystack.len());
    Some(Found {
        at: start,
        text: haystack[start..end].to_string(),
    })
}

fn straighten_quotes(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{201C}' | '\u{201D}' => '"',
            c => c,
        })
        .collect()
}

/// Give `new` the curly quotes the matched file text uses (opening after whitespace or an opening
/// bracket, closing otherwise; an apostrophe inside a word is a right single quote).
fn apply_quote_style(actual: &str, new: &str) -> String {
    let doubles = actual.contains(['\u{201C}', '\u{201D}']);
    let singles = actual.contains(['\u{2018}', '\u{2019}']);
    let chars: Vec<char> = new.chars().collect();
    let opens = |i: usize| {
        i == 0
            || matches!(
                chars[i - 1],
                ' ' | '\t' | '\n' | '\r' | '(' | '[' | '{' | '\u{2014}' | '\u{2013}'
            )
    };
    chars
        .iter()
        .enumerate()
        .map(|(i, &c)| match c {
            '"' if doubles => {
                if opens(i) {
                    '\u{201C}'
                } else {
                    '\u{201D}'
                }
            }
            '\'' if singles => {
                let letter = |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(|c| c.is_alphabetic());
                if letter(i.checked_sub(1)) && letter(Some(i + 1)) {
                    '\u{2019}'
                } else if opens(i) {
                    '\u{2018}'
                } else {
                    '\u{2019}'
                }
            }
            c => c,
        })
        .collect()
}

/// Edit reports a file it created as having been empty (the CLI's `originalFile: ""`).
fn original_for_edit_result(proposal: &ProposedWrite) -> Option<&str> {
    match proposal.original {
        None => Some(""),
        Some(_) => proposal.echoed_original(),
    }
}

/// After an Edit of a file changed since the model read it (2.1.330's words).
const STALE_NOTE: &str = " (note: the file had been modified on disk since you last read it \u{2014} the edit applied cleanly, but the file contains other changes not in your context. Read it before edits that depend on surrounding content.)";

/// `edit`: the old string matched, the new one, and replace_all.
fn edit_output(
    proposal: &ProposedWrite,
    (old_string, new_string, replace_all): (&str, &str, bool),
    freshness: Freshness,
    user_modified: bool,
    diff: &Diff,
) -> ToolOutput {
    let path = &proposal.file_path;
    // Whether the model now knows the whole file: not when it never read it, nor when the user
    // changed the proposal or someone else the file.
    let note = match freshness {
        Freshness::Stale => STALE_NOTE,
        Freshness::Read if !user_modified => STATE_IS_CURRENT,
        _ => "",
    };
    let text = match (replace_all, user_modified) {
        (false, false) => format!("The file {path} has been updated successfully.{note}"),
        (true, false) => format!("The file {path} has been updated. All occurrences were successfully replaced.{note}"),
        (false, true) => format!(
            "The file {path} has been updated successfully. The user modified your proposed changes before accepting them.{note}"
        ),
        (true, true) => format!(
            "The file {path} has been updated. The user modified your proposed changes before accepting them. All occurrences were successfully replaced.{note}"
        ),
    };
    ToolOutput::text(text).with_structured(json!({
        "filePath": path,
        "oldString": old_string,
        "newString": new_string,
        "originalFile": original_for_edit_result(proposal),
        "structuredPatch": diff.hunks(),
        "userModified": user_modified,
        "replaceAll": replace_all,
    }))
}

fn multi_edit_output(proposal: &ProposedWrite, edits: &[EditOp], user_modified: bool, diff: &Diff) -> ToolOutput {
    let short = |s: &str| match s.char_indices().nth(50) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    };
    let mut text = format!(
        "Applied {} edit{} to {}:",
        edits.len(),
        if edits.len() == 1 { "" } else { "s" },
        proposal.file_path
    );
    for (i, edit) in edits.iter().enumerate() {
        text.push_str(&format!(
            "\n{}. Replaced \"{}\" with \"{}\"",
            i + 1,
            short(&edit.old_string),
            short(&edit.new_string)
        ));
    }
    if user_modified {
        text.push_str("\nThe user modified your proposed changes before accepting them.");
    }
    ToolOutput::text(text).with_structured(json!({
        "filePath": proposal.file_path,
        "edits": edits,
        "originalFile": original_for_edit_result(proposal),
        "structuredPatch": diff.hunks(),
        "userModified": user_modified,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(old: &str, new: &str, all: bool) -> EditOp {
        EditOp {
            old_string: old.into(),
            new_string: new.into(),
            replace_all: all,
        }
    }

    #[test]
    fn straight_quotes_match_curly_ones_and_the_replacement_takes_their_style() {
        let text = "say \u{201C}hello\u{201D} now\n";
        let applied = apply_edits(text, &[op("\"hello\"", "\"bye\"", false)]).ok().unwrap();
        assert_eq!(applied.first_actual, "\u{201C}hello\u{201D}");
        assert_eq!(applied.text, "say \u{201C}bye\u{201D} now\n");
    }

    #[test]
    fn curly_quotes_typed_by_the_model_match_straight_ones_in_the_file() {
        let applied = apply_edits("it's \"x\"\n", &[op("it\u{2019}s", "it is", false)])
            .ok()
            .unwrap();
        assert_eq!(applied.first_actual, "it's");
        assert_eq!(applied.text, "it is \"x\"\n");
    }

    #[test]
    fn deleting_a_line_removes_its_break() {
        let applied = apply_edits("a\nb\nc\n", &[op("b", "", false)]).ok().unwrap();
        assert_eq!(applied.text, "a\nc\n");
    }

    #[test]
    fn edits_report_the_ends_they_left_alone() {
        let unchanged = |text: &str, edits: &[EditOp]| apply_edits(text, edits).ok().map(|a| a.unchanged);
        let known = |prefix, suffix| Some(KnownSame { prefix, suffix });
        assert_eq!(unchanged("0123456789", &[op("45", "x", false)]), known(4, 4));
        // Later edits count in the text as the earlier ones left it, from its end.
        assert_eq!(
            unchanged("0123456789", &[op("7", "77", false), op("2", "", false)]),
            known(2, 2)
        );
        // Past the first match, replace_all and a deleted line's break are not tracked.
        assert_eq!(unchanged("a1a2a3", &[op("a", "b", true)]), known(0, 0));
        assert_eq!(unchanged("x\nab\nc\n", &[op("ab", "", false)]), known(2, 0));
        assert_eq!(unchanged("", &[op("", "new\n", false)]), known(0, 0));
    }

    #[test]
    fn multi_edit_refuses_an_old_string_made_by_an_earlier_edit() {
        let failure = apply_edits("x y", &[op("x", "xz", false), op("z", "w", false)])
            .err()
            .unwrap();
        assert_eq!(failure.index, Some(1));
        assert!(failure.message.contains("substring of a new_string"));
    }

    #[test]
    fn find_agrees_with_str_find() {
        let haystack = "ab\u{e9}cab\u{e9}ab\u{e9}c\nxyz abc ab\u{e9}c\u{2019}x";
        for start in 0..haystack.len() {
            for end in start..=haystack.len() {
                if let (Some(needle), Some(suffix)) = (haystack.get(start..end), haystack.get(start..)) {
                    assert_eq!(find(haystack, needle), haystack.find(needle), "{needle:?}");
                    assert_eq!(find(suffix, needle), suffix.find(needle), "{needle:?} in {suffix:?}");
                }
            }
        }
        assert_eq!(find("abc", "abcd"), None);
        assert_eq!(find("", "ab"), None);
        assert_eq!(find("abc", ""), Some(0));
    }

    #[test]
    fn find_in_a_repetitive_text_hands_over_without_missing_the_match() {
        // The needle's two rarest bytes are in place at every other position, and the comparison
        // fails only at its end.
        let needle = format!("{}yx", "xy".repeat(100));
        let haystack = format!("{}{needle}z", "xy".repeat(5000));
        assert_eq!(find(&haystack, &needle), Some(10_000));
        assert_eq!(find(&haystack[..10_000], &needle), None);
    }

    #[test]
    fn lenient_bool_accepts_strings() {
        let e: EditOp =
            serde_json::from_value(json!({"old_string": "a", "new_string": "b", "replace_all": "true"})).unwrap();
        assert!(e.replace_all);
    }
}
