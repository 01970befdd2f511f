//! LS: the classic Claude Code directory lister (no longer a built-in in CLI 2.1.330). An indented
//! tree of the directory, breadth-first up to 1000 entries, leaving out dot-files and
//! `__pycache__` as the classic tool did, and whatever matches the `ignore` globs.

use super::search::{resolve_target, TargetKind, CONCURRENCY, CWD_NOTE};
use super::{parse_input, Host, ToolError, ToolOutput, ToolResult, ToolSpec, Toolset};
use crate::host::{FileKind, HostResult};
use crate::json::read_struct;
use crate::paths::PathStyle;
use futures::stream::{self, StreamExt};
use globset::{Glob, GlobSet, GlobSetBuilder};
use serde_json::Value;

pub static SPEC: ToolSpec = ToolSpec {
    name: "LS",
    title: "LS",
    description: "Lists files and directories in a given path. The path parameter must be an absolute path, not a relative path. You can optionally provide an array of glob patterns to ignore with the ignore parameter. You should generally prefer the Glob and Grep tools, if you know which directories to search.",
    input_schema,
    read_only: true,
    destructive: false,
};

fn input_schema() -> Value {
    super::schema(
        r##"{
      "type": "object",
      "properties": {
        "path": {"type": "string", "description": "The absolute path to the directory to list (must be absolute, not relative)"},
        "ignore": {"type": "array", "items": {"type": "string"}, "description": "List of glob patterns to ignore"}
      },
      "required": ["path"],
      "additionalProperties": false,
      "$schema": "https://json-schema.org/draft/2020-12/schema"
    }"##,
    )
}

/// The classic tool's cap on listed entries.
const MAX_ENTRIES: usize = 1000;

const TRUNCATED_NOTE: &str = "There are more than 1000 files in the repository. Use the LS tool (passing a specific path), Bash tool, and other tools to explore nested directories. The first 1000 files and directories are included below:\n\n";

struct LsInput {
    path: String,
    ignore: Vec<String>,
}

read_struct!(LsInput {
    path: required "path",
    ignore: default "ignore",
});

pub async fn run<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ToolOutput> {
    let input: LsInput = parse_input("LS", args)?;
    let root = ts.paths.root().to_string();
    let missing = || format!("Directory does not exist: {}. {CWD_NOTE} {root}.", input.path);
    let dir = match resolve_target(ts, &input.path, missing).await? {
        (dir, TargetKind::Directory) => dir,
        (_, TargetKind::File) => {
            return Err(ToolError(format!(
                "Path is not a directory: {}. LS lists directories; use Read to see a file.",
                input.path
            )))
        }
    };
    let ignore = ignore_set(&input.ignore)?;
    let (mut entries, truncated) = list(ts, &dir, &ignore)
        .await
        .map_err(|e| ToolError(format!("Could not list {}: {}", input.path, e.message)))?;
    // Sorted full paths (directories with a trailing slash) put every child right after its
    // parent, which is the tree's pre-order.
    crate::sort::sort_by(&mut entries, Ord::cmp);
    let sep = match ts.paths.style() {
        PathStyle::Posix => '/',
        PathStyle::Windows => '\\',
    };
    let mut text = String::new();
    if truncated {
        text.push_str(TRUNCATED_NOTE);
    }
    text.push_str(&format!("- {}{sep}", dir.trim_end_matches(sep)));
    for entry in &entries {
        let is_dir = entry.ends_with('/');
        let trimmed = entry.trim_end_matches('/');
        let depth = trimmed.matches('/').count();
        let name = trimmed.rsplit('/').next().unwrap_or(trimmed);
        text.push('\n');
        text.push_str(&"  ".repeat(depth + 1));
        text.push_str("- ");
        text.push_str(name);
        if is_dir {
            text.push(sep);
        }
    }
    Ok(ToolOutput::text(text))
}

/// Entries below `dir`, breadth-first, as `/`-separated relative paths (directories end in `/`);
/// true when the cap cut the listing. `dir` itself must be readable.
async fn list<H: Host>(ts: &Toolset<H>, dir: &str, ignore: &GlobSet) -> HostResult<(Vec<String>, bool)> {
    let mut out = Vec::new();
    let mut level = vec![(dir.to_string(), String::new())];
    while !level.is_empty() {
        let listed: Vec<_> = stream::iter(level.into_iter().map(|(path, rel)| async move {
            let entries = ts.host.read_dir(&path).await;
            (path, rel, entries)
        }))
        .buffered(CONCURRENCY)
        .collect()
        .await;
        let mut next = Vec::new();
        for (path, rel, entries) in listed {
            let mut entries = match entries {
                Ok(entries) => entries,
                Err(e) if rel.is_empty() => return Err(e),
                // An unreadable subdirectory is listed without children.
                Err(_) => Vec::new(),
            };
            crate::sort::sort_by(&mut entries, |a, b| a.name.cmp(&b.name));
            for entry in entries {
                if entry.name.starts_with('.') || entry.name == "__pycache__" {
                    continue;
                }
                let child = if rel.is_empty() {
                    entry.name.clone()
                } else {
                    format!("{rel}/{}", entry.name)
                };
                let is_dir = entry.kind == FileKind::Directory;
                if ignore.is_match(&entry.name)
                    || ignore.is_match(&child)
                    || (is_dir && ignore.is_match(format!("{child}/")))
                {
                    continue;
                }
                if out.len() == MAX_ENTRIES {
                    return Ok((out, true));
                }
                if is_dir {
                    out.push(format!("{child}/"));
                    next.push((ts.paths.join(&path, &entry.name), child));
                } else {
                    out.push(child);
                }
            }
        }
        level = next;
    }
    Ok((out, false))
}

fn ignore_set(patterns: &[String]) -> ToolResult<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = Glob::new(pattern).map_err(|e| {
            ToolError(format!(
                "Invalid ignore pattern {pattern:?}: {e}. Give glob patterns such as \"*.log\" or \"node_modules\"."
            ))
        })?;
        builder.add(glob);
    }
    builder
        .build()
        .map_err(|e| ToolError(format!("Invalid ignore patterns: {e}")))
}
