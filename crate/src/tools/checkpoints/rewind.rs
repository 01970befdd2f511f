//! Rewinding the files to how they were before a user message: a preview (which files, how many
//! lines come back and go, what cannot be rewound) and the rewind itself, which refuses, writing
//! nothing, when any file changed since Tether last wrote it or lost its before-image.

use super::journal::{hash_text, FileEntry};
use super::{CheckpointStore, Checkpoints};
use crate::cache::MAX_FILE_BYTES;
use crate::diff::{self, Diff};
use crate::host::{FileSystem, Host, HostErrorKind};
use crate::tools::Toolset;
use serde::Serialize;

/// What rewinding to a message would do (JS: `RewindPreview`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RewindPreview {
    pub message_id: String,
    /// False when no checkpoint was kept for this message (before checkpoints, or pruned).
    pub known: bool,
    pub files: Vec<RewindFile>,
    /// Shell commands ran from this message on: what they changed is not rewound.
    pub shell_commands: bool,
}

/// One file a rewind would put back.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RewindFile {
    /// The workspace path.
    pub path: String,
    /// The path from the workspace root, for people.
    pub relative: String,
    /// `restore` the earlier content, or `delete` a file the turn created.
    pub action: RewindAction,
    /// Lines the rewind brings back.
    pub insertions: u32,
    /// Lines the rewind takes away.
    pub deletions: u32,
    /// Why this file cannot be rewound (the rewind refuses as a whole).
    pub problem: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum RewindAction {
    Restore,
    Delete,
}

/// What a rewind did (JS: `RewindOutcome`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RewindOutcome {
    pub restored: Vec<String>,
    pub deleted: Vec<String>,
}

/// One file's part in a rewind: what it must become.
struct Step {
    file: RewindFile,
    before: Option<Vec<u8>>,
}

/// What rewinding the files to before `message_id` would do.
pub async fn preview<H: Host>(ts: &Toolset<H>, message_id: &str) -> Result<RewindPreview, String> {
    let (preview, _) = plan(ts, message_id).await?;
    Ok(preview)
}

/// Put every file Tether changed from `message_id` on back as it was before that message, and
/// forget those checkpoints. Refused as a whole, with nothing written, when any file cannot be.
pub async fn rewind<H: Host>(ts: &Toolset<H>, message_id: &str) -> Result<RewindOutcome, String> {
    let (preview, steps) = plan(ts, message_id).await?;
    if !preview.known {
        return Err("There is no checkpoint for this message, so nothing was rewound.".into());
    }
    if let Some(file) = preview.files.iter().find(|f| f.problem.is_some()) {
        let why = file.problem.as_deref().unwrap_or_default();
        return Err(format!("Nothing was rewound: {} {why}", file.relative));
    }
    let mut outcome = RewindOutcome {
        restored: Vec::new(),
        deleted: Vec::new(),
    };
    for step in steps {
        let path = step.file.path.clone();
        let result = ts
            .writes
            .serialize(&path, async {
                match step.before {
                    Some(bytes) => ts.write_file(&path, bytes).await.map(drop).map_err(|e| e.0),
                    None => {
                        ts.cache.invalidate(&path);
                        match ts.host.remove(&path, false).await {
                            Err(e) if e.kind != HostErrorKind::NotFound => {
                                Err(format!("Could not delete {path}: {}", e.message))
                            }
                            _ => Ok(()),
                        }
                    }
                }
            })
            .await;
        result.map_err(|e| format!("The rewind stopped at {}: {e}", step.file.relative))?;
        match step.file.action {
            RewindAction::Restore => outcome.restored.push(step.file.relative),
            RewindAction::Delete => outcome.deleted.push(step.file.relative),
        }
    }
    forget_from(&ts.checkpoints, &ts.host, message_id).await;
    Ok(outcome)
}

/// The preview and, for each file, the bytes it must get back.
async fn plan<H: Host>(ts: &Toolset<H>, message_id: &str) -> Result<(RewindPreview, Vec<Step>), String> {
    let checkpoints = &ts.checkpoints;
    let Some(store) = checkpoints.store() else {
        return Err("Checkpoints are off for this session.".into());
    };
    checkpoints.load(&ts.host).await;
    // The before-images still in memory are read back from the folder like the others.
    let _ = checkpoints.flush(&ts.host).await;
    let (entries, shell_commands, written, known) = {
        let journal = checkpoints.journal.borrow();
        match journal.position(message_id) {
            None => (Vec::new(), false, Default::default(), false),
            Some(index) => {
                let later = &journal.messages[index..];
                let mut firsts: Vec<FileEntry> = Vec::new();
                for file in later.iter().flat_map(|m| &m.files) {
                    if !firsts.iter().any(|f| f.path == file.path) {
                        firsts.push(file.clone());
                    }
                }
                (firsts, later.iter().any(|m| m.shell), journal.written.clone(), true)
            }
        }
    };
    let mut steps = Vec::new();
    for entry in entries {
        let expected = written.get(&entry.path);
        steps.push(step(ts, store, entry, expected.map(String::as_str)).await);
    }
    let preview = RewindPreview {
        message_id: message_id.to_string(),
        known,
        files: steps.iter().map(|s| s.file.clone()).collect(),
        shell_commands,
    };
    Ok((preview, steps))
}

async fn step<H: Host>(ts: &Toolset<H>, store: &CheckpointStore, entry: FileEntry, expected: Option<&str>) -> Step {
    let relative = relative(ts, &entry.path);
    let current = match ts.host.read_file(&entry.path, MAX_FILE_BYTES).await {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind == HostErrorKind::NotFound => None,
        Err(e) => {
            let problem = format!("could not be read: {}", e.message);
            return Step {
                file: file(entry.path, relative, entry.before.is_some(), (0, 0), Some(problem)),
                before: None,
            };
        }
    };
    let before = match &entry.before {
        Some(blob) => match ts
            .host
            .read_file(&format!("{}/{blob}", store.dir), MAX_FILE_BYTES)
            .await
        {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) => Err(format!("lost its before-image ({}).", e.message)),
        },
        None => Ok(None),
    };
    let changed = match &current {
        Some(bytes) => expected != Some(hash_text(bytes).as_str()),
        None => true,
    };
    let problem = if let Some(lost) = &entry.lost {
        Some(format!("cannot be rewound: {lost}."))
    } else if changed {
        Some(String::from(
            "changed since Tether last wrote it (by you, another program or a shell command); rewinding it would lose that change.",
        ))
    } else {
        before.as_ref().err().cloned()
    };
    let before = before.ok().flatten();
    let counts = line_counts(
        current.as_deref().unwrap_or_default(),
        before.as_deref().unwrap_or_default(),
    );
    Step {
        file: file(entry.path, relative, entry.before.is_some(), counts, problem),
        before,
    }
}

fn file(
    path: String,
    relative: String,
    existed: bool,
    (insertions, deletions): (u32, u32),
    problem: Option<String>,
) -> RewindFile {
    RewindFile {
        path,
        relative,
        action: if existed {
            RewindAction::Restore
        } else {
            RewindAction::Delete
        },
        insertions,
        deletions,
        problem,
    }
}

/// Lines the rewind adds and removes, going from `now` to `before`.
fn line_counts(now: &[u8], before: &[u8]) -> (u32, u32) {
    let now = String::from_utf8_lossy(now);
    let before = String::from_utf8_lossy(before);
    match diff::structured_patch(&now, &before, 0) {
        Diff::Patch { hunks } => {
            hunks
                .iter()
                .flat_map(|h| &h.lines)
                .fold((0, 0), |(add, del), line| match line.as_bytes().first() {
                    Some(b'+') => (add + 1, del),
                    Some(b'-') => (add, del + 1),
                    _ => (add, del),
                })
        }
        Diff::Summary(_) => (before.lines().count() as u32, now.lines().count() as u32),
    }
}

fn relative<H: Host>(ts: &Toolset<H>, path: &str) -> String {
    let root = ts.paths.root().trim_end_matches(['/', '\\']);
    path.strip_prefix(root)
        .map(|rest| rest.trim_start_matches(['/', '\\']).to_string())
        .filter(|rest| !rest.is_empty())
        .unwrap_or_else(|| path.to_string())
}

/// After a rewind: the checkpoints from `message_id` on are gone (their blobs removed), and the
/// files hold what they held before it.
async fn forget_from<F: FileSystem>(checkpoints: &Checkpoints, fs: &F, message_id: &str) {
    let removed = {
        let mut journal = checkpoints.journal.borrow_mut();
        let Some(index) = journal.position(message_id) else {
            return;
        };
        journal.messages.drain(index..).collect::<Vec<_>>()
    };
    checkpoints.dirty.set(true);
    *checkpoints.current.borrow_mut() = None;
    {
        // A restored file's hash is the rewind's own write; a deleted one has none.
        let mut journal = checkpoints.journal.borrow_mut();
        for file in removed.iter().flat_map(|m| &m.files).filter(|f| f.before.is_none()) {
            journal.written.remove(&file.path);
        }
    }
    checkpoints.remove_blobs(fs, &removed).await;
    let _ = checkpoints.flush(fs).await;
}
