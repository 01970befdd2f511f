//! Write: create a file, or replace one the model has read, keeping its BOM, encoding and line
//! endings.

use super::files::extension;
use super::proposal::{
    decode_for_writing, unwritable, BaseBytes, FileFormat, ProposedWrite, WriteRequest, STATE_IS_CURRENT,
};
use super::text::LineEnding;
use super::{parse_input, Freshness, Host, ToolError, ToolOutput, ToolResult, ToolSpec, Toolset, NOT_READ, STALE};
use crate::diff::{Hunk, KnownSame};
use crate::host::HostErrorKind;
use crate::json::read_struct;
use serde_json::{json, Value};

pub static SPEC: ToolSpec = ToolSpec {
    name: "Write",
    title: "Write file",
    description: "Writes a file to the workspace's filesystem.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the Read tool first to read the file's contents. This tool will fail if you did not read the file first.
- Prefer the Edit tool for modifying existing files \u{2014} it only sends the diff. Only use this tool to create new files or for complete rewrites.
- NEVER create documentation files (*.md) or README files unless explicitly requested by the User.
- Only use emojis if the user explicitly requests it. Avoid writing emojis to files unless asked.",
    input_schema,
    read_only: false,
    destructive: false,
};

fn input_schema() -> Value {
    super::schema(
        r##"{
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "properties": {
        "file_path": {"type": "string", "description": "The absolute path to the file to write (must be absolute, not relative)"},
        "content": {"type": "string", "description": "The content to write to the file"}
      },
      "required": ["file_path", "content"],
      "additionalProperties": false
    }"##,
    )
}

struct WriteInput {
    file_path: String,
    content: String,
}

read_struct!(WriteInput {
    file_path: required "file_path",
    content: required "content",
});

/// The file after the write, without writing it. An existing file must have been read and be
/// unchanged since.
pub(crate) async fn propose<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ProposedWrite> {
    let input: WriteInput = parse_input("Write", args)?;
    let (path, read) = ts.resolve_and_read(&input.file_path).await?;
    match read {
        Ok(current) => {
            // 2.1.330 writes over a file it has not read when it could read it without asking
            // (not a notebook), and never over one changed since the model read it.
            match ts.freshness(&path, &current) {
                Freshness::Read => {}
                Freshness::Unread if ts.may_write_unread(&path) && extension(&path) != "ipynb" => {}
                Freshness::Unread => return Err(ToolError::invalid(NOT_READ)),
                Freshness::Stale => return Err(ToolError::invalid(STALE)),
            }
            let decoded = decode_for_writing(&current.bytes)?;
            Ok(ProposedWrite {
                file_path: input.file_path,
                path,
                // The content's line breaks are written as given (the file's BOM and encoding kept).
                format: FileFormat::of(&decoded).with_line_ending(LineEnding::Lf),
                original: Some(decoded.text),
                proposed: input.content,
                request: WriteRequest::Write,
                base: Some(BaseBytes::of(&current)),
                unchanged: KnownSame::default(),
            })
        }
        Err(e) if e.kind == HostErrorKind::NotFound => Ok(ProposedWrite {
            file_path: input.file_path,
            path,
            original: None,
            proposed: input.content,
            request: WriteRequest::Write,
            format: FileFormat::NEW_FILE,
            base: None,
            unchanged: KnownSame::default(),
        }),
        Err(e) if e.kind == HostErrorKind::IsADirectory => Err(ToolError::invalid(format!(
            "{} is a directory, not a file. To create a file inside it, include the file name in file_path.",
            input.file_path
        ))),
        Err(e) => Err(unwritable("Write", &input.file_path, &e)
            .unwrap_or_else(|| ToolError(format!("Could not read {}: {}", input.file_path, e.message)))),
    }
}

/// The result of a committed Write, with the CLI's texts and its FileWriteOutput.
pub(crate) fn output(proposal: &ProposedWrite, written: &str, user_modified: bool, patch: &[Hunk]) -> ToolOutput {
    let modified_note = if user_modified {
        " The user modified your proposed content before accepting it."
    } else {
        ""
    };
    let current_note = if user_modified { "" } else { STATE_IS_CURRENT };
    let (kind, text) = match &proposal.original {
        None => (
            "create",
            format!(
                "File created successfully at: {}{modified_note}{current_note}",
                proposal.file_path
            ),
        ),
        Some(_) => (
            "update",
            format!(
                "The file {} has been updated successfully.{modified_note}{current_note}",
                proposal.file_path
            ),
        ),
    };
    ToolOutput::text(text).with_structured(json!({
        "type": kind,
        "filePath": proposal.file_path,
        "content": written,
        "structuredPatch": patch,
        "originalFile": proposal.echoed_original(),
        "userModified": user_modified,
    }))
}
