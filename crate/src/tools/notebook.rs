//! Jupyter notebooks: how Read renders them (cells with their text and image outputs, as the CLI
//! does) and NotebookEdit (replace, insert or delete one cell, leaving the rest untouched).

use super::edit::{self, BaseBytes, FileFormat, ProposedWrite, WriteRequest};
use super::read::{extension, format_bytes, MAX_TOKENS, MAX_WHOLE_FILE_BYTES};
use super::text;
use super::{content_hash, parse_input, Content, Host, ToolError, ToolOutput, ToolResult, ToolSpec, Toolset};
use crate::diff::KnownSame;
use crate::host::HostErrorKind;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// Notebooks larger than this are not parsed at all (the CLI's 100 MB).
const MAX_NOTEBOOK_BYTES: usize = 100 * 1024 * 1024;
/// Outputs of one cell beyond this many characters are replaced by a pointer to jq (the CLI's).
const MAX_CELL_OUTPUT_CHARS: usize = 10_000;

const NOT_A_NOTEBOOK: &str = "Notebook file is not a valid Jupyter notebook (top-level \"cells\" must be an array of cell objects, each with a string or string-array \"source\").";

pub static SPEC: ToolSpec = ToolSpec {
    name: "NotebookEdit",
    title: "Edit notebook",
    description: "Replaces, inserts, or deletes a single cell in a Jupyter notebook (.ipynb file).

Usage:
- You must use the Read tool on the notebook in this conversation before editing \u{2014} this tool will fail otherwise.
- `notebook_path` must be an absolute path.
- `cell_id` is the `id` attribute shown in the Read tool's `<cell id=\"...\">` output. It is required for `replace` and `delete`.
- `edit_mode` defaults to `replace`. Use `insert` to add a new cell after the cell with the given `cell_id` (or at the beginning of the notebook if `cell_id` is omitted) \u{2014} `cell_type` is required when inserting. Use `delete` to remove the cell.",
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
        "notebook_path": {"type": "string", "description": "The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)"},
        "cell_id": {"type": "string", "description": "The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified."},
        "new_source": {"type": "string", "description": "The new source for the cell"},
        "cell_type": {"type": "string", "enum": ["code", "markdown"], "description": "The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required."},
        "edit_mode": {"type": "string", "enum": ["replace", "insert", "delete"], "description": "The type of edit to make (replace, insert, delete). Defaults to replace."}
      },
      "required": ["notebook_path", "new_source"],
      "additionalProperties": false
    }"##,
    )
}

pub async fn run<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ToolOutput> {
    edit::propose_and_write(ts, "NotebookEdit", args).await
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EditMode {
    Replace,
    Insert,
    Delete,
}

impl EditMode {
    fn as_str(self) -> &'static str {
        match self {
            EditMode::Replace => "replace",
            EditMode::Insert => "insert",
            EditMode::Delete => "delete",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Code,
    Markdown,
}

impl CellType {
    fn as_str(self) -> &'static str {
        match self {
            CellType::Code => "code",
            CellType::Markdown => "markdown",
        }
    }
}

#[derive(Deserialize)]
struct NotebookEditInput {
    notebook_path: String,
    cell_id: Option<String>,
    new_source: String,
    cell_type: Option<CellType>,
    edit_mode: Option<EditMode>,
}

/// The cell change a NotebookEdit proposes, kept to build its result.
#[derive(Clone, Debug, PartialEq)]
pub struct NotebookChange {
    pub edit_mode: EditMode,
    /// The cell edited or deleted; for an insert, the new cell's id (None when the notebook format
    /// predates cell ids).
    pub cell_id: Option<String>,
    pub cell_type: CellType,
    pub new_source: String,
    pub old_source: Option<String>,
    pub language: String,
}

/// Compute the notebook after the edit, without writing it.
pub(crate) async fn propose<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ProposedWrite> {
    let input: NotebookEditInput = parse_input("NotebookEdit", args)?;
    let path = ts.resolve_path(&input.notebook_path).await?;
    if extension(&path) != "ipynb" {
        return Err(ToolError::invalid(
            "File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.",
        ));
    }
    let mode = input.edit_mode.unwrap_or(EditMode::Replace);
    if mode == EditMode::Insert && input.cell_type.is_none() {
        return Err(ToolError::invalid("Cell type is required when using edit_mode=insert."));
    }
    if ts.read_record(&path).is_none() {
        return Err(ToolError::invalid(
            "File has not been read yet. Read it first before writing to it.",
        ));
    }
    let current = match ts.cache.read(&ts.host, &path).await {
        Ok(current) => current,
        Err(e) if e.kind == HostErrorKind::NotFound => {
            return Err(ToolError::invalid("Notebook file does not exist."));
        }
        Err(e) => {
            return Err(ToolError(format!(
                "Could not read {}: {}",
                input.notebook_path, e.message
            )))
        }
    };
    ts.check_fresh(&path, &current)?;
    let decoded = edit::decode_for_writing(&current.bytes)?;
    let mut notebook: Value =
        serde_json::from_str(&decoded.text).map_err(|_| ToolError::new("Notebook is not valid JSON."))?;
    let language = notebook_language(&notebook);
    let has_cell_ids = supports_cell_ids(&notebook);
    let cells = cells_mut(&mut notebook)?;
    let index = find_cell(cells, input.cell_id.as_deref(), mode)?;

    let mut cell_id = input.cell_id.clone();
    let mut old_source = None;
    let cell_type;
    match mode {
        EditMode::Delete => {
            let removed = cells.remove(index);
            old_source = Some(source_text(&removed));
            cell_type = cell_type_of(&removed);
        }
        EditMode::Insert => {
            let kind = input.cell_type.unwrap_or(CellType::Code);
            cell_id = has_cell_ids.then(|| new_cell_id(ts, &path, cells));
            cells.insert(index, new_cell(kind, cell_id.as_deref(), &input.new_source));
            cell_type = kind;
        }
        EditMode::Replace => {
            let cell = &mut cells[index];
            old_source = Some(source_text(cell));
            let kind = input.cell_type.unwrap_or_else(|| cell_type_of(cell));
            replace_cell(cell, kind, &input.new_source);
            cell_type = kind;
        }
    }
    let mut proposed = to_jupyter_json(&notebook)?;
    if decoded.text.ends_with('\n') {
        proposed.push('\n');
    }
    Ok(ProposedWrite {
        file_path: input.notebook_path,
        path,
        original: Some(decoded.text.clone()),
        proposed,
        request: WriteRequest::NotebookEdit(NotebookChange {
            edit_mode: mode,
            cell_id,
            cell_type,
            new_source: input.new_source,
            old_source,
            language,
        }),
        format: FileFormat::of(&decoded),
        base: Some(BaseBytes::of(&current)),
        unchanged: KnownSame::default(),
    })
}

/// The result of a committed NotebookEdit, with the CLI's texts.
pub(crate) fn output(
    proposal: &ProposedWrite,
    change: &NotebookChange,
    written: &str,
    user_modified: bool,
) -> ToolOutput {
    let id = change.cell_id.as_deref().unwrap_or("");
    let mut text = match change.edit_mode {
        EditMode::Replace => format!("Updated cell {id} with {}", change.new_source),
        EditMode::Insert if change.cell_id.is_some() => format!("Inserted cell {id} with {}", change.new_source),
        EditMode::Insert => format!("Inserted a new cell with {}", change.new_source),
        EditMode::Delete => format!("Deleted cell {id}"),
    };
    if user_modified {
        text.push_str("\n\nThe user modified your proposed changes before accepting them.");
    }
    let mut structured = json!({
        "new_source": change.new_source,
        "cell_type": change.cell_type.as_str(),
        "language": change.language,
        "edit_mode": change.edit_mode.as_str(),
        "notebook_path": proposal.path,
        "original_file": proposal.original.as_deref().unwrap_or(""),
        "updated_file": written,
        "userModified": user_modified,
    });
    if let Some(old) = &change.old_source {
        structured["old_source"] = json!(old);
    }
    if let Some(id) = &change.cell_id {
        structured["cell_id"] = json!(id);
    }
    ToolOutput::text(text).with_structured(structured)
}

fn notebook_language(notebook: &Value) -> String {
    notebook
        .pointer("/metadata/language_info/name")
        .and_then(Value::as_str)
        .unwrap_or("python")
        .to_string()
}

/// Cell ids exist from nbformat 4.5 on.
fn supports_cell_ids(notebook: &Value) -> bool {
    let major = notebook.get("nbformat").and_then(Value::as_u64).unwrap_or(0);
    let minor = notebook.get("nbformat_minor").and_then(Value::as_u64).unwrap_or(0);
    major > 4 || (major == 4 && minor >= 5)
}

fn is_valid_cell(cell: &Value) -> bool {
    match cell.get("source") {
        Some(Value::String(_)) => true,
        Some(Value::Array(parts)) => parts.iter().all(Value::is_string),
        _ => false,
    }
}

fn cells_of(notebook: &Value) -> ToolResult<&Vec<Value>> {
    match notebook.get("cells") {
        Some(Value::Array(cells)) if cells.iter().all(is_valid_cell) => Ok(cells),
        _ => Err(ToolError::new(NOT_A_NOTEBOOK)),
    }
}

fn cells_mut(notebook: &mut Value) -> ToolResult<&mut Vec<Value>> {
    cells_of(notebook)?;
    match notebook.get_mut("cells") {
        Some(Value::Array(cells)) => Ok(cells),
        _ => Err(ToolError::new(NOT_A_NOTEBOOK)),
    }
}

/// The cell's position for the edit: by id, or by the `cell-N` index form Read shows for cells
/// without ids. An insert goes after the named cell, or first when none is named.
fn find_cell(cells: &[Value], cell_id: Option<&str>, mode: EditMode) -> ToolResult<usize> {
    let insert = mode == EditMode::Insert;
    let Some(id) = cell_id else {
        return if insert {
            Ok(0)
        } else {
            Err(ToolError::invalid(
                "Cell ID must be specified when not inserting a new cell.",
            ))
        };
    };
    let index = match cells
        .iter()
        .position(|c| c.get("id").and_then(Value::as_str) == Some(id))
    {
        Some(i) => i,
        None => {
            let Some(n) = id.strip_prefix("cell-").and_then(|n| n.parse::<usize>().ok()) else {
                return Err(ToolError::invalid(format!(
                    "Cell with ID \"{id}\" not found in notebook."
                )));
            };
            if n >= cells.len() {
                return Err(ToolError::invalid(format!(
                    "Cell with index {n} does not exist in notebook."
                )));
            }
            n
        }
    };
    Ok(if insert { index + 1 } else { index })
}

fn source_text(cell: &Value) -> String {
    match cell.get("source") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

fn cell_type_of(cell: &Value) -> CellType {
    match cell.get("cell_type").and_then(Value::as_str) {
        Some("markdown") => CellType::Markdown,
        _ => CellType::Code,
    }
}

fn new_cell(kind: CellType, id: Option<&str>, source: &str) -> Value {
    let mut cell = Map::new();
    cell.insert("cell_type".into(), json!(kind.as_str()));
    if let Some(id) = id {
        cell.insert("id".into(), json!(id));
    }
    cell.insert("source".into(), json!(source));
    cell.insert("metadata".into(), json!({}));
    if kind == CellType::Code {
        cell.insert("execution_count".into(), Value::Null);
        cell.insert("outputs".into(), json!([]));
    }
    Value::Object(cell)
}

/// New source; a code cell loses its stale outputs. A type change also fixes the fields the new
/// type requires or forbids, so the notebook stays valid nbformat.
fn replace_cell(cell: &mut Value, kind: CellType, source: &str) {
    let Some(fields) = cell.as_object_mut() else { return };
    fields.insert("source".into(), json!(source));
    fields.insert("cell_type".into(), json!(kind.as_str()));
    // A code cell's run results go (2.1.330 keeps the emptied fields when it turns to markdown).
    let was_code = fields.contains_key("outputs") || fields.contains_key("execution_count");
    if kind == CellType::Code || was_code {
        fields.insert("execution_count".into(), Value::Null);
        fields.insert("outputs".into(), json!([]));
    }
}

/// A short random-looking id like Jupyter's, unique in the notebook. Randomness comes from the
/// host clock (no RNG on every target), mixed with the path and cell count.
fn new_cell_id<H: Host>(ts: &Toolset<H>, path: &str, cells: &[Value]) -> String {
    let taken = |id: &str| cells.iter().any(|c| c.get("id").and_then(Value::as_str) == Some(id));
    let seed = format!("{}:{path}:{}", ts.host.now_ms(), cells.len());
    let mut attempt = 0u32;
    loop {
        let hash = content_hash(format!("{seed}:{attempt}").as_bytes());
        let id = format!("{:016x}", hash)[..8].to_string();
        if !taken(&id) {
            return id;
        }
        attempt += 1;
    }
}

/// JSON the way Jupyter writes notebooks: one-space indentation, keys in their original order.
fn to_jupyter_json(notebook: &Value) -> ToolResult<String> {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    notebook
        .serialize(&mut serializer)
        .map_err(|e| ToolError(format!("Could not serialise the notebook: {e}")))?;
    String::from_utf8(out).map_err(|e| ToolError(format!("Could not serialise the notebook: {e}")))
}

// ---- Read ----

/// A notebook as Read shows it: one text block per cell (`<cell id="...">source</cell id="...">`)
/// followed by its outputs, images as image blocks; structured `{type:"notebook", file:{filePath, cells}}`.
pub(crate) fn render_for_read(file_path: &str, bytes: &[u8]) -> ToolResult<ToolOutput> {
    if bytes.len() > MAX_NOTEBOOK_BYTES {
        return Err(ToolError(format!(
            "Notebook file exceeds the maximum size this tool can read ({}). {JQ_HINT}",
            format_bytes(MAX_NOTEBOOK_BYTES)
        )));
    }
    let text = text::decode(bytes)
        .ok_or_else(|| ToolError::new("Notebook file is not valid JSON (it may be truncated, corrupted, or still being written): it holds binary data."))?
        .text;
    let notebook: Value = serde_json::from_str(&text).map_err(|e| {
        ToolError(format!(
            "Notebook file is not valid JSON (it may be truncated, corrupted, or still being written): {e}"
        ))
    })?;
    let language = notebook_language(&notebook);
    let cells: Vec<Value> = cells_of(&notebook)?
        .iter()
        .enumerate()
        .map(|(i, cell)| cell_for_read(cell, i, &language))
        .collect();
    let serialized = serde_json::to_string(&cells).unwrap_or_default();
    if serialized.len() > MAX_WHOLE_FILE_BYTES {
        return Err(ToolError(format!(
            "Notebook content ({}) exceeds maximum allowed size ({}). {}",
            format_bytes(serialized.len()),
            format_bytes(MAX_WHOLE_FILE_BYTES),
            JQ_HINT
        )));
    }
    let tokens = serialized.chars().count() / 4;
    if tokens > MAX_TOKENS {
        return Err(ToolError(format!(
            "Notebook content ({tokens} tokens) exceeds maximum allowed tokens ({MAX_TOKENS}). {JQ_HINT}"
        )));
    }
    let content = merge_text_blocks(cells.iter().flat_map(cell_blocks).collect());
    Ok(ToolOutput {
        content,
        is_error: false,
        structured: Some(json!({"type": "notebook", "file": {"filePath": file_path, "cells": cells}})),
    })
}

const JQ_HINT: &str = "Use Bash with jq to read specific portions:
  cat <notebook_path> | jq '.cells[:20]' # First 20 cells
  cat <notebook_path> | jq '.cells[100:120]' # Cells 100-120
  cat <notebook_path> | jq '.cells | length' # Count total cells
  cat <notebook_path> | jq '.cells[] | select(.cell_type==\"code\") | .source' # All code sources";

/// The CLI's cell record: `{cellType, source, execution_count?, cell_id, language?, outputs?}`.
fn cell_for_read(cell: &Value, index: usize, language: &str) -> Value {
    let cell_type = cell.get("cell_type").and_then(Value::as_str).unwrap_or("code");
    let id = cell
        .get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("cell-{index}"), str::to_string);
    let mut out = json!({"cellType": cell_type, "source": source_text(cell), "cell_id": id});
    if cell_type == "code" {
        if let Some(count) = cell
            .get("execution_count")
            .filter(|c| c.as_u64().is_some_and(|n| n > 0))
        {
            out["execution_count"] = count.clone();
        }
        out["language"] = json!(language);
        if let Some(outputs) = cell.get("outputs").and_then(Value::as_array).filter(|o| !o.is_empty()) {
            let rendered: Vec<Value> = outputs.iter().map(output_for_read).collect();
            let size: usize = rendered
                .iter()
                .map(|o| {
                    o.get("text").and_then(Value::as_str).map_or(0, str::len)
                        + o.pointer("/image/image_data")
                            .and_then(Value::as_str)
                            .map_or(0, str::len)
                })
                .sum();
            out["outputs"] = if size > MAX_CELL_OUTPUT_CHARS {
                json!([{
                    "output_type": "stream",
                    "text": format!("Outputs are too large to include. Use Bash with: cat <notebook_path> | jq '.cells[{index}].outputs'"),
                }])
            } else {
                Value::Array(rendered)
            };
        }
    }
    out
}

/// Text of an output (stream text, `text/plain`, or an error with its traceback) and its image;
/// null for output types the CLI does not show.
fn output_for_read(output: &Value) -> Value {
    let kind = output.get("output_type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "stream" => json!({"output_type": kind, "text": joined(output.get("text"))}),
        "execute_result" | "display_data" => {
            let data = output.get("data");
            let mut out = json!({"output_type": kind, "text": joined(data.and_then(|d| d.get("text/plain")))});
            if let Some(image) = data.and_then(output_image) {
                out["image"] = image;
            }
            out
        }
        "error" => {
            let traceback: Vec<&str> = output
                .get("traceback")
                .and_then(Value::as_array)
                .map(|t| t.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let name = output.get("ename").and_then(Value::as_str).unwrap_or("");
            let value = output.get("evalue").and_then(Value::as_str).unwrap_or("");
            json!({"output_type": kind, "text": format!("{name}: {value}\n{}", traceback.join("\n"))})
        }
        _ => Value::Null,
    }
}

fn joined(text: Option<&Value>) -> String {
    match text {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// The first PNG or JPEG of an output, if it decodes to a real image.
fn output_image(data: &Value) -> Option<Value> {
    let (mime, encoded) = ["image/png", "image/jpeg"]
        .iter()
        .find_map(|m| data.get(*m).and_then(Value::as_str).map(|d| (*m, d)))?;
    let compact: String = encoded.chars().filter(|c| !c.is_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD.decode(&compact).ok()?;
    text::image_mime(&bytes)?;
    Some(json!({"image_data": compact, "media_type": mime}))
}

fn cell_blocks(cell: &Value) -> Vec<Content> {
    let id = cell.get("cell_id").and_then(Value::as_str).unwrap_or("");
    let cell_type = cell.get("cellType").and_then(Value::as_str).unwrap_or("code");
    let mut tags = String::new();
    if cell_type != "code" {
        tags.push_str(&format!("<cell_type>{cell_type}</cell_type>"));
    }
    if cell_type == "code" {
        if let Some(language) = cell.get("language").and_then(Value::as_str).filter(|l| *l != "python") {
            tags.push_str(&format!("<language>{language}</language>"));
        }
    }
    let source = cell.get("source").and_then(Value::as_str).unwrap_or("");
    let mut blocks = vec![Content::Text(format!(
        "<cell id=\"{id}\">{tags}{source}</cell id=\"{id}\">"
    ))];
    let outputs = cell
        .get("outputs")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for output in outputs.iter().filter(|o| !o.is_null()) {
        if let Some(text) = output.get("text").and_then(Value::as_str).filter(|t| !t.is_empty()) {
            blocks.push(Content::Text(format!("\n{text}")));
        }
        if let Some(image) = output.get("image") {
            let data = image.get("image_data").and_then(Value::as_str).unwrap_or("");
            let mime = image.get("media_type").and_then(Value::as_str).unwrap_or("image/png");
            blocks.push(Content::Image {
                data_base64: data.to_string(),
                mime_type: mime.to_string(),
            });
        }
    }
    if outputs.iter().any(Value::is_null) {
        blocks.push(Content::Text("\nOutputs of an unknown type are not shown.".to_string()));
    }
    blocks
}

/// Adjacent text blocks joined by a line break, as the CLI sends them.
fn merge_text_blocks(blocks: Vec<Content>) -> Vec<Content> {
    let mut merged: Vec<Content> = Vec::with_capacity(blocks.len());
    for block in blocks {
        match (merged.last_mut(), block) {
            (Some(Content::Text(previous)), Content::Text(text)) => {
                previous.push('\n');
                previous.push_str(&text);
            }
            (_, block) => merged.push(block),
        }
    }
    merged
}
