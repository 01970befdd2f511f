//! The built-in walker: breadth-first over `FileSystem::read_dir`, a whole level of directories at
//! a time with bounded concurrency (each listing may be a network round trip), filtering entries as
//! ripgrep does: `--glob` overrides first, then ignore files, then `--type`. Symbolic links are
//! neither followed nor listed (ripgrep without `-L`), so a link cannot lead out of the workspace.

use super::rules::{Base, DirRules, IgnoreTexts};
use super::{Host, Toolset, CONCURRENCY, MAX_IGNORE_FILE_BYTES};
use crate::host::{DirEntry, FileKind, HostError};
use crate::paths::PathStyle;
use futures::stream::{self, StreamExt};
use ignore::overrides::Override;
use ignore::types::Types;
use std::rc::Rc;

/// Which entries a walk yields.
pub(crate) struct WalkFilter {
    /// `--glob` overrides, matched relative to the search root.
    pub overrides: Override,
    /// `--type` selection.
    pub types: Option<Types>,
    /// Honour `.gitignore`, `.ignore`, `.rgignore` and `.git/info/exclude` (ripgrep's default;
    /// Glob turns it off like the CLI's `--no-ignore`).
    pub ignore_files: bool,
}

impl WalkFilter {
    /// ripgrep's order (`ignore::dir::Ignore::matched`): an override decides alone; otherwise an
    /// ignore file or the type filter may exclude.
    fn admits(&self, rel: &str, is_dir: bool, rules: Option<&DirRules>) -> bool {
        let forced = self.overrides.matched(rel, is_dir);
        if forced.is_ignore() {
            return false;
        }
        if forced.is_whitelist() {
            return true;
        }
        if rules.is_some_and(|r| r.matched(rel, is_dir).is_ignore()) {
            return false;
        }
        !self.types.as_ref().is_some_and(|t| t.matched(rel, is_dir).is_ignore())
    }
}

pub(crate) struct Walked {
    /// Absolute workspace paths of the files found.
    pub files: Vec<String>,
    pub timed_out: bool,
}

struct PendingDir {
    path: String,
    rel: String,
    parent: Option<Rc<DirRules>>,
}

/// Walk the directory `root`. Fails only when `root` itself cannot be listed; unreadable
/// subdirectories are skipped, as ripgrep skips them.
pub(crate) async fn walk<H: Host>(
    ts: &Toolset<H>,
    root: &str,
    filter: &WalkFilter,
    deadline_ms: f64,
) -> Result<Walked, HostError> {
    let root_entries = ts.host.read_dir(root).await?;
    let ancestors = if filter.ignore_files {
        ancestor_rules(ts, root, &root_entries).await
    } else {
        None
    };
    let mut files = Vec::new();
    let mut timed_out = false;
    let root_dir = PendingDir {
        path: root.to_string(),
        rel: String::new(),
        parent: ancestors,
    };
    let mut level = vec![(root_dir, Some(root_entries))];
    while !level.is_empty() {
        if ts.host.now_ms() > deadline_ms {
            timed_out = true;
            break;
        }
        let listed: Vec<(PendingDir, Vec<DirEntry>, IgnoreTexts)> =
            stream::iter(level.into_iter().map(|(dir, listed)| async move {
                let entries = match listed {
                    Some(entries) => entries,
                    None => ts.host.read_dir(&dir.path).await.unwrap_or_default(),
                };
                let texts = if filter.ignore_files {
                    ignore_texts(ts, &dir.path, &entries).await
                } else {
                    IgnoreTexts::default()
                };
                (dir, entries, texts)
            }))
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
        let mut next = Vec::new();
        for (dir, mut entries, texts) in listed {
            let rules = filter
                .ignore_files
                .then(|| DirRules::new(Base::Inside(dir.rel.clone()), &texts, dir.parent.clone()));
            crate::sort::sort_by(&mut entries, |a, b| a.name.cmp(&b.name));
            for entry in entries {
                let is_dir = match entry.kind {
                    FileKind::Directory => true,
                    FileKind::File => false,
                    FileKind::Symlink | FileKind::Other => continue,
                };
                let rel = if dir.rel.is_empty() {
                    entry.name.clone()
                } else {
                    format!("{}/{}", dir.rel, entry.name)
                };
                if !filter.admits(&rel, is_dir, rules.as_deref()) {
                    continue;
                }
                let path = ts.paths.join(&dir.path, &entry.name);
                if is_dir {
                    let pending = PendingDir {
                        path,
                        rel,
                        parent: rules.clone(),
                    };
                    next.push((pending, None));
                } else {
                    files.push(path);
                }
            }
        }
        level = next;
    }
    Ok(Walked { files, timed_out })
}

/// The rules of the search root's ancestors, outermost first. Ancestors inside the workspace are
/// always read; those above it only when no repository has been found yet (to find its root and
/// `.gitignore`), which keeps a remote walk from listing the whole machine.
async fn ancestor_rules<H: Host>(ts: &Toolset<H>, root: &str, root_entries: &[DirEntry]) -> Option<Rc<DirRules>> {
    let mut chain = Vec::new();
    let mut probe = ts.paths.parent(root);
    while let Some(dir) = probe {
        probe = ts.paths.parent(&dir);
        chain.push(dir);
    }
    let (inner, outer): (Vec<String>, Vec<String>) = chain.into_iter().partition(|d| ts.paths.contains(d));
    let mut found = read_ancestors(ts, &inner).await;
    let repo_found = root_entries.iter().any(|e| e.name == ".git") || found.iter().any(|(_, t)| t.has_git);
    if !repo_found {
        found.extend(read_ancestors(ts, &outer).await);
    }
    // `found` runs from the nearest ancestor outwards; link from the outermost in.
    let mut parent = None;
    for (dir, texts) in found.into_iter().rev() {
        // `dir` came from `root` by `parent()`, so it is a textual prefix of it.
        let below = root.get(dir.len()..).unwrap_or_default();
        let below = match ts.paths.style() {
            PathStyle::Posix => below.trim_start_matches('/').to_string(),
            PathStyle::Windows => below.trim_start_matches(['/', '\\']).replace('\\', "/"),
        };
        parent = Some(DirRules::new(Base::Above(below), &texts, parent));
    }
    parent
}

async fn read_ancestors<H: Host>(ts: &Toolset<H>, dirs: &[String]) -> Vec<(String, IgnoreTexts)> {
    stream::iter(dirs.iter().map(|dir| async move {
        let entries = ts.host.read_dir(dir).await.unwrap_or_default();
        (dir.clone(), ignore_texts(ts, dir, &entries).await)
    }))
    .buffered(CONCURRENCY)
    .collect()
    .await
}

/// Read the ignore files a directory listing shows.
async fn ignore_texts<H: Host>(ts: &Toolset<H>, dir: &str, entries: &[DirEntry]) -> IgnoreTexts {
    let present = |name: &str| {
        entries
            .iter()
            .any(|e| e.name == name && matches!(e.kind, FileKind::File | FileKind::Symlink))
    };
    let read = |name: &'static str, wanted: bool| async move {
        if !wanted {
            return None;
        }
        let bytes = ts
            .host
            .read_file(&ts.paths.join(dir, name), MAX_IGNORE_FILE_BYTES)
            .await
            .ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    };
    let git = entries.iter().find(|e| e.name == ".git");
    let git_dir = git.is_some_and(|e| e.kind == FileKind::Directory);
    let (rgignore, ignore, gitignore, git_exclude) = futures::join!(
        read(".rgignore", present(".rgignore")),
        read(".ignore", present(".ignore")),
        read(".gitignore", present(".gitignore")),
        read(".git/info/exclude", git_dir),
    );
    IgnoreTexts {
        rgignore,
        ignore,
        gitignore,
        git_exclude,
        has_git: git.is_some(),
    }
}
