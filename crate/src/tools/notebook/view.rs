//! How Read shows a notebook: one text block per cell with its outputs, images as image blocks,
//! and the CLI's structured cell records.

use super::{cells_of, notebook_language, source_text};
use crate::tools::files::{format_bytes, MAX_TOKENS, MAX_WHOLE_FILE_BYTES};
use crate::tools::text;
use crate::tools::{Content, ToolError, ToolOutput, ToolResult};
use base64::Engine as _;
use serde_json::{json, Value};

/// Notebooks larger than this are not parsed at all (the CLI's 100 MB).
const MAX_NOTEBOOK_BYTES: usize = 100 * 1024 * 1024;
/// Outputs of one cell beyond this many characters are replaced by a pointer to jq (the CLI's).
const MAX_CELL_OUTPUT_CHARS: usize = 10_000;

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
