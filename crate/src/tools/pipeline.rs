//! The two-phase write every file-changing tool goes through: [`propose`] computes the whole new
//! file without touching the disk, [`commit`] writes it (or what the user made of it in review)
//! unless the file changed in between. Edit, MultiEdit, Write and NotebookEdit called without
//! review are [`propose_and_write`].

use super::proposal::{BaseBytes, ProposedWrite, WriteRequest};
use super::{edit, notebook, write, Host, ToolError, ToolOutput, ToolResult, Toolset};
use crate::cache::FileState;
use crate::diff::{self, Diff, KnownSame, DEFAULT_CONTEXT};
use crate::host::HostErrorKind;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;

/// The tools that write files, all through this pipeline.
pub const WRITE_TOOLS: [&str; 4] = ["Edit", "MultiEdit", "Write", "NotebookEdit"];

pub fn is_write_tool(name: &str) -> bool {
    WRITE_TOOLS.contains(&name)
}

/// Compute the full new file for `tool` ("Edit", "MultiEdit", "Write" or "NotebookEdit") with the
/// tool's checks (read before edit, unchanged since read, match rules), without writing anything.
pub async fn propose<H: Host>(ts: &Toolset<H>, tool: &str, args: Value) -> ToolResult<ProposedWrite> {
    // Boxed behind `dyn` so that each tool's proposal stays a wasm function of its own (see
    // `Toolset::call`): Edit then runs, and V8 optimises, only its own code.
    let proposal: Pin<Box<dyn Future<Output = ToolResult<ProposedWrite>> + '_>> = match tool {
        "Edit" => Box::pin(edit::propose_edit(ts, args)),
        "MultiEdit" => Box::pin(edit::propose_multi_edit(ts, args)),
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
    let path = proposal.path.clone();
    ts.writes
        .serialize(&path, async {
            let seen = check_unchanged_since_propose(ts, &proposal).await?;
            write_proposal(ts, proposal, user_content, seen).await
        })
        .await
}

/// [`propose`] and write at once, as the tools do when called without review. The path is held
/// from the read to the write, so another write of it waits and then starts from this one's
/// result: concurrent Edits of one file all land, in the order they came.
pub async fn propose_and_write<H: Host>(ts: &Toolset<H>, tool: &str, args: Value) -> ToolResult<ToolOutput> {
    let path = target_path(ts, &args);
    ts.writes
        .serialize(&path, async {
            let proposal = propose(ts, tool, args).await?;
            let seen = proposal.seen();
            write_proposal(ts, proposal, None, seen).await
        })
        .await
}

/// The workspace path a write tool's input names (as the proposal will resolve it), to hold it
/// before the proposal reads it; the input as given when it does not resolve (the proposal then
/// fails on it anyway).
fn target_path<H: Host>(ts: &Toolset<H>, args: &Value) -> String {
    let given = ["file_path", "notebook_path"]
        .iter()
        .find_map(|key| args.get(key).and_then(Value::as_str))
        .unwrap_or_default();
    ts.paths.resolve(given).unwrap_or_else(|_| given.to_string())
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
    // The file's before-image (once per user message), written out when the turn ends.
    let first = ts
        .checkpoints
        .before_write(&proposal.path, proposal.base.as_ref().map(BaseBytes::bytes));
    let written = ts
        .write_file_seen(&proposal.path, proposal.format.encode(written), Some(seen))
        .await;
    if written.is_err() && first {
        ts.checkpoints.write_failed(&proposal.path);
    }
    written?;
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
            edit::edit_output(proposal, edit, *freshness, user_modified, &patch())
        }
        WriteRequest::MultiEdit { edits } => edit::multi_edit_output(proposal, edits, user_modified, &patch()),
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
