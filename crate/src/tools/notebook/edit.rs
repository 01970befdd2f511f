//! NotebookEdit: replace, insert or delete one cell, proposed through the write pipeline.

use super::{cells_of, notebook_language, source_text, CellType, EditMode, NotebookChange, NOT_A_NOTEBOOK};
use crate::diff::KnownSame;
use crate::host::HostErrorKind;
use crate::json::read_struct;
use crate::tools::files::extension;
use crate::tools::proposal::{decode_for_writing, unwritable, BaseBytes, FileFormat, ProposedWrite, WriteRequest};
use crate::tools::{content_hash, parse_input, Host, ToolError, ToolOutput, ToolResult, ToolSpec, Toolset};
use serde::Serialize;
use serde_json::{json, Map, Value};

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
    crate::tools::schema(
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

struct NotebookEditInput {
    notebook_path: String,
    cell_id: Option<String>,
    new_source: String,
    cell_type: Option<CellType>,
    edit_mode: Option<EditMode>,
}

read_struct!(NotebookEditInput {
    notebook_path: required "notebook_path",
    cell_id: default "cell_id",
    new_source: required "new_source",
    cell_type: default "cell_type",
    edit_mode: default "edit_mode",
});

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
            return Err(unwritable("NotebookEdit", &input.notebook_path, &e)
                .unwrap_or_else(|| ToolError(format!("Could not read {}: {}", input.notebook_path, e.message))))
        }
    };
    ts.check_fresh(&path, &current)?;
    let decoded = decode_for_writing(&current.bytes)?;
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

/// Cell ids exist from nbformat 4.5 on.
fn supports_cell_ids(notebook: &Value) -> bool {
    let major = notebook.get("nbformat").and_then(Value::as_u64).unwrap_or(0);
    let minor = notebook.get("nbformat_minor").and_then(Value::as_u64).unwrap_or(0);
    major > 4 || (major == 4 && minor >= 5)
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
