//! Jupyter notebooks: the cell model that Read's rendering ([`view`]) and NotebookEdit ([`edit`])
//! share. Read shows cells with their text and image outputs, as the CLI does; NotebookEdit
//! replaces, inserts or deletes one cell, leaving the rest untouched.

mod edit;
mod view;

pub use edit::SPEC;
pub(crate) use edit::{output, propose};
pub(crate) use view::render_for_read;

use super::{ToolError, ToolResult};
use serde::Serialize;
use serde_json::Value;

const NOT_A_NOTEBOOK: &str = "Notebook file is not a valid Jupyter notebook (top-level \"cells\" must be an array of cell objects, each with a string or string-array \"source\").";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EditMode {
    Replace,
    Insert,
    Delete,
}

crate::json::read_unit_enum!(EditMode {
    Replace = "replace",
    Insert = "insert",
    Delete = "delete",
});

impl EditMode {
    fn as_str(self) -> &'static str {
        match self {
            EditMode::Replace => "replace",
            EditMode::Insert => "insert",
            EditMode::Delete => "delete",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Code,
    Markdown,
}

crate::json::read_unit_enum!(CellType {
    Code = "code",
    Markdown = "markdown",
});

impl CellType {
    fn as_str(self) -> &'static str {
        match self {
            CellType::Code => "code",
            CellType::Markdown => "markdown",
        }
    }
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

fn notebook_language(notebook: &Value) -> String {
    notebook
        .pointer("/metadata/language_info/name")
        .and_then(Value::as_str)
        .unwrap_or("python")
        .to_string()
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

fn source_text(cell: &Value) -> String {
    match cell.get("source") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}
