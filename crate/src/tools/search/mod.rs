//! What Glob and Grep share: the two engines (the host's ripgrep, or our own walker over the host's
//! file system) and the post-processing that turns either engine's findings into the texts the CLI's
//! built-in tools print.
//!
//! The walker reproduces ripgrep's filtering with ripgrep's own matchers (the `ignore` crate's
//! gitignore, `--glob` override and `--type` logic) and its searcher's output in rg's JSON terms, so
//! that both engines feed the same renderer and give the same results for the same tree.

pub(crate) mod matcher;
pub(crate) mod render;
pub(crate) mod ripgrep;
pub(crate) mod rules;
pub(crate) mod walk;

use super::{Host, ToolError, ToolResult, Toolset};
use crate::host::{FileKind, HostErrorKind};
use crate::paths::{PathMapper, PathStyle};

/// Host calls in flight at once: each may be a network round trip to a remote workspace.
pub(crate) const CONCURRENCY: usize = 16;

/// How long the host's ripgrep may run (the CLI's default ripgrep timeout).
pub(crate) const RIPGREP_TIMEOUT_MS: u64 = 20_000;

/// How long the built-in walker may run; longer than ripgrep's because every directory listing and
/// file read may cross the network.
pub(crate) const WALK_TIME_LIMIT_MS: f64 = 60_000.0;

/// The largest file the built-in searcher reads (ripgrep streams files of any size): sixteen are
/// read at once, and each is held whole while it is searched.
pub(crate) const MAX_SEARCHED_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// The largest ignore file (`.gitignore`, …) the built-in walker reads.
pub(crate) const MAX_IGNORE_FILE_BYTES: u64 = 1024 * 1024;

/// Version-control folders Grep never searches (the CLI passes `--glob !NAME` for each).
pub(crate) const VCS_DIRS: [&str; 6] = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];

/// The CLI's note, in front of a result, when the search stopped at its time limit.
pub(crate) const TIMED_OUT_NOTE: &str = "The search stopped before it finished, most likely at its time limit, so these results are incomplete: more matches may exist. Search a more specific path or pattern.";

/// The CLI's sentence after a missing path.
pub(crate) const CWD_NOTE: &str = "Note: your current working directory is";

/// The error for a pattern, glob or file type that ripgrep (or our walker, with ripgrep's words)
/// refuses before searching.
pub(crate) fn usage_error(detail: &str) -> ToolError {
    let detail = detail.trim();
    let detail = match detail.char_indices().nth(2000) {
        Some((i, _)) => &detail[..i],
        None => detail,
    };
    ToolError(format!(
        "Search failed \u{2014} ripgrep rejected the pattern, glob, or file type without searching:\n{detail}"
    ))
}

/// The searched path itself could not be read (hosts often start their message with the path).
pub(crate) fn unreadable(target: &str, reason: &str) -> ToolError {
    let reason = reason
        .strip_prefix(target)
        .and_then(|r| r.strip_prefix(": "))
        .unwrap_or(reason);
    ToolError(format!("Could not search {target}: {reason}"))
}

/// A path as the built-ins print it: relative to the working directory (the workspace root) when
/// inside it, absolute otherwise.
pub(crate) fn display_path(paths: &PathMapper, abs: &str) -> String {
    match paths.relative(abs) {
        Some(rel) if !rel.is_empty() => match paths.style() {
            PathStyle::Posix => rel,
            PathStyle::Windows => rel.replace('/', "\\"),
        },
        _ => abs.to_string(),
    }
}

/// JavaScript's default string order (UTF-16 code units), which the CLI sorts paths with.
pub(crate) fn js_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// What a search path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TargetKind {
    Directory,
    File,
}

/// Resolve a path from the model for searching: inside the workspace (symlinks included), existing.
/// `missing` builds the error for a path that does not exist.
pub(crate) async fn resolve_target<H: Host>(
    ts: &Toolset<H>,
    input: &str,
    missing: impl FnOnce() -> String,
) -> ToolResult<(String, TargetKind)> {
    let path = ts.resolve_path(input).await?;
    match ts.host.stat(&path).await {
        Ok(meta) => match meta.kind {
            FileKind::Directory => Ok((path, TargetKind::Directory)),
            FileKind::File => Ok((path, TargetKind::File)),
            _ => Err(ToolError(format!(
                "Refusing to search {path}: it is a pipe or a device, not a file or a folder."
            ))),
        },
        Err(e) if matches!(e.kind, HostErrorKind::NotFound | HostErrorKind::NotADirectory) => Err(ToolError(missing())),
        Err(e) => Err(ToolError(format!("Could not search {path}: {}", e.message))),
    }
}

/// Modification times (ms) of files, in the given order; 0 for a file that cannot be stat'ed (as
/// the CLI does).
pub(crate) async fn mtimes<H: Host>(ts: &Toolset<H>, paths: &[String]) -> Vec<f64> {
    let times = ts.host.mtimes(paths).await;
    times.into_iter().map(|time| time.unwrap_or(0.0)).collect()
}

/// Files newest first; between equal times, an approximation of JavaScript's `localeCompare`:
/// case-insensitive first, then by code units. Each path is folded once, not per comparison.
pub(crate) fn newest_first_locale(files: Vec<String>, times: Vec<f64>) -> Vec<(String, f64)> {
    let fold = |s: &str| s.chars().flat_map(char::to_lowercase).collect::<String>();
    let mut dated: Vec<(String, f64, String)> = (files.into_iter().zip(times))
        .map(|(path, time)| {
            let folded = fold(&path);
            (path, time, folded)
        })
        .collect();
    crate::sort::sort_by(&mut dated, |a, b| {
        (b.1.total_cmp(&a.1))
            .then_with(|| a.2.cmp(&b.2))
            .then_with(|| js_cmp(&a.0, &b.0))
    });
    dated.into_iter().map(|(path, time, _)| (path, time)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_path_is_relative_inside_and_absolute_outside() {
        let paths = PathMapper::new("/ws").unwrap();
        assert_eq!(display_path(&paths, "/ws/src/a.rs"), "src/a.rs");
        assert_eq!(display_path(&paths, "/elsewhere/a.rs"), "/elsewhere/a.rs");
        let win = PathMapper::new("C:\\ws").unwrap();
        assert_eq!(display_path(&win, "C:\\ws\\src\\a.rs"), "src\\a.rs");
    }

    #[test]
    fn usage_error_keeps_ripgrep_words() {
        let e = usage_error("regex parse error:\n    a(\n     ^\nerror: unclosed group\n");
        assert!(e.0.starts_with("Search failed \u{2014} ripgrep rejected"));
        assert!(e.0.ends_with("error: unclosed group"));
    }
}
