//! Edit and MultiEdit: exact string replacement with Claude Code's rules and messages, proposed
//! through the write pipeline ([`super::pipeline`]).

mod matching;

use super::files::extension;
use super::proposal::{
    decode_for_writing, unwritable, BaseBytes, EditOp, FileFormat, ProposedWrite, WriteRequest, STATE_IS_CURRENT,
};
use super::{
    parse_input, read, Freshness, Host, ToolError, ToolOutput, ToolResult, ToolSpec, Toolset, NOT_READ, STALE,
};
use crate::diff::Diff;
use crate::host::HostErrorKind;
use crate::json::read_struct;
use matching::{apply_edits, Edits, FILE_EXISTS, NO_CHANGES};
use serde_json::{json, Value};

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
    crate::tools::schema(
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
    crate::tools::schema(
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

struct EditInput {
    file_path: String,
    edit: EditOp,
}

read_struct!(EditInput {
    file_path: required "file_path",
    edit: flatten,
});

struct MultiEditInput {
    file_path: String,
    edits: Vec<EditOp>,
}

read_struct!(MultiEditInput {
    file_path: required "file_path",
    edits: required "edits",
});

/// The file after an Edit, without writing it.
pub(crate) async fn propose_edit<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ProposedWrite> {
    let input: EditInput = parse_input("Edit", args)?;
    if input.edit.old_string == input.edit.new_string {
        return Err(ToolError::invalid(NO_CHANGES));
    }
    propose_edits(ts, input.file_path, Edits::One(input.edit)).await
}

/// The file after a MultiEdit, without writing it.
pub(crate) async fn propose_multi_edit<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ProposedWrite> {
    let input: MultiEditInput = parse_input("MultiEdit", args)?;
    if input.edits.is_empty() {
        return Err(ToolError::new(
            "InputValidationError: MultiEdit failed due to the following issue: edits must contain at least one edit",
        ));
    }
    propose_edits(ts, input.file_path, Edits::Many(input.edits)).await
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
                if extension(&path) == "ipynb" {
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
        Err(e) => {
            let tool = if matches!(edits, Edits::One(_)) {
                "Edit"
            } else {
                "MultiEdit"
            };
            return Err(unwritable(tool, &file_path, &e)
                .unwrap_or_else(|| ToolError(format!("Could not read {file_path}: {}", e.message))));
        }
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
pub(crate) fn edit_output(
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

pub(crate) fn multi_edit_output(
    proposal: &ProposedWrite,
    edits: &[EditOp],
    user_modified: bool,
    diff: &Diff,
) -> ToolOutput {
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
