//! Glob: the CLI's built-in file finder. Like the built-in it asks ripgrep for
//! `--files --glob PATTERN --no-ignore --hidden`: files matching the pattern (gitignore-style: a
//! pattern without a slash matches at any depth), hidden ones included, ignore files not honoured.
//! Unlike 2.1.330's built-in (whose `--sort=modified` is ascending and keeps the *oldest* 100) the
//! result is newest first, so the 100 kept are the ones most likely to matter, and version-control
//! folders (`.git`, …) are skipped. Without a host ripgrep the walker does the same.

use super::search::ripgrep::{self, RgRun};
use super::search::walk::{walk, WalkFilter};
use super::search::{
    display_path, js_cmp, mtimes, resolve_target, unreadable, usage_error, TargetKind, CWD_NOTE, RIPGREP_TIMEOUT_MS,
    TIMED_OUT_NOTE, VCS_DIRS, WALK_TIME_LIMIT_MS,
};
use super::{parse_input, Host, ToolError, ToolOutput, ToolResult, ToolSpec, Toolset};
use crate::json::read_struct;
use crate::paths::PathStyle;
use ignore::overrides::OverrideBuilder;
use serde_json::{json, Value};

pub static SPEC: ToolSpec = ToolSpec {
    name: "Glob",
    title: "Glob",
    description: DESCRIPTION,
    input_schema,
    read_only: true,
    destructive: false,
};

const DESCRIPTION: &str = r#"- Fast file pattern matching tool that works with any codebase size
- Supports glob patterns like "**/*.js" or "src/**/*.ts"
- Returns matching file paths sorted by modification time
- Use this tool when you need to find files by name patterns
- When you are doing an open ended search that may require multiple rounds of globbing and grepping, use the Agent tool instead (if available)"#;

fn input_schema() -> Value {
    super::schema(
        r##"{
      "type": "object",
      "properties": {
        "pattern": {"type": "string", "description": "The glob pattern to match files against"},
        "path": {"type": "string", "description": "The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter \"undefined\" or \"null\" - simply omit it for the default behavior. Must be a valid directory path if provided."}
      },
      "required": ["pattern"],
      "additionalProperties": false,
      "$schema": "https://json-schema.org/draft/2020-12/schema"
    }"##,
    )
}

/// The built-in's limit on listed files.
const MAX_FILES: usize = 100;

struct GlobInput {
    pattern: String,
    path: Option<String>,
}

read_struct!(GlobInput {
    pattern: required "pattern",
    path: default "path",
});

pub async fn run<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ToolOutput> {
    let started = ts.host.now_ms();
    let input: GlobInput = parse_input("Glob", args)?;
    let root = ts.paths.root().to_string();
    let (dir, pattern) = match split_absolute(&input.pattern) {
        // An absolute pattern names its own directory, and `path` is not used.
        Some((base, relative)) => {
            let dir = ts.resolve_path(&base).await?;
            match ts.host.stat(&dir).await {
                Ok(meta) if meta.kind == crate::host::FileKind::Directory => (Some(dir), relative),
                _ => (None, relative),
            }
        }
        None => {
            let dir = match input.path.as_deref().filter(|p| !p.trim().is_empty()) {
                Some(p) => {
                    let missing = || format!("Directory does not exist: {p}. {CWD_NOTE} {root}.");
                    match resolve_target(ts, p, missing).await? {
                        (dir, TargetKind::Directory) => dir,
                        (_, TargetKind::File) => return Err(ToolError(format!("Path is not a directory: {p}"))),
                    }
                }
                None => root.clone(),
            };
            (Some(dir), input.pattern.clone())
        }
    };
    let (files, timed_out) = match &dir {
        Some(dir) => find(ts, &pattern, dir).await?,
        None => (Vec::new(), false),
    };
    let total = files.len();
    let truncated = total > MAX_FILES;
    let names: Vec<String> = files
        .iter()
        .take(MAX_FILES)
        .map(|p| display_path(&ts.paths, p))
        .collect();
    let complete = !timed_out;
    let mut data = json!({
        "filenames": names,
        "durationMs": (ts.host.now_ms() - started).max(0.0).round() as u64,
        "numFiles": names.len(),
        "truncated": truncated,
        "totalMatches": total,
        "countIsComplete": complete,
    });
    let mut text = if names.is_empty() {
        "No files found".to_string()
    } else {
        let mut lines = names.clone();
        if truncated {
            lines.push(if complete {
                format!(
                    "(Showing {} of {total} matching files; {} more are not listed. Narrow the pattern or path to see the rest.)",
                    names.len(),
                    total - names.len()
                )
            } else {
                format!(
                    "(Showing the first {} files; there are more than {total} matches. Narrow the pattern or path to see the rest.)",
                    names.len()
                )
            });
        }
        lines.join("\n")
    };
    if timed_out {
        data["timedOut"] = json!(true);
        text = format!("{TIMED_OUT_NOTE}\n\n{text}");
    }
    Ok(ToolOutput::text(text).with_structured(data))
}

/// The files matching `pattern` under `dir`, newest first, and whether the search was cut short.
async fn find<H: Host>(ts: &Toolset<H>, pattern: &str, dir: &str) -> ToolResult<(Vec<String>, bool)> {
    let (paths, cut_short) = list(ts, pattern, dir).await?;
    let times = mtimes(ts, &paths).await;
    let mut dated: Vec<(String, f64)> = paths.into_iter().zip(times).collect();
    crate::sort::sort_by(&mut dated, |a, b| b.1.total_cmp(&a.1).then_with(|| js_cmp(&a.0, &b.0)));
    Ok((dated.into_iter().map(|(p, _)| p).collect(), cut_short))
}

/// The files matching `pattern` under `dir`, unordered.
async fn list<H: Host>(ts: &Toolset<H>, pattern: &str, dir: &str) -> ToolResult<(Vec<String>, bool)> {
    let args = ripgrep::glob_args(pattern, dir);
    if let Ok(Some(out)) = ts.host.ripgrep(&args, dir, RIPGREP_TIMEOUT_MS).await {
        return match ripgrep::interpret(out, dir) {
            RgRun::Refused(words) => Err(usage_error(&words)),
            RgRun::Unreadable(reason) => Err(unreadable(dir, &reason)),
            RgRun::Printed { stdout, cut_short } => {
                let files = ripgrep::parse_files(&stdout)
                    .into_iter()
                    .map(|p| ts.paths.resolve(&p).unwrap_or(p))
                    .collect();
                Ok((files, cut_short))
            }
        };
    }
    let mut builder = OverrideBuilder::new(".");
    builder.add(pattern).map_err(|e| usage_error(&e.to_string()))?;
    for vcs in VCS_DIRS {
        builder
            .add(&format!("!{vcs}"))
            .map_err(|e| usage_error(&e.to_string()))?;
    }
    let filter = WalkFilter {
        overrides: builder.build().map_err(|e| usage_error(&e.to_string()))?,
        types: None,
        ignore_files: false,
    };
    let deadline = ts.host.now_ms() + WALK_TIME_LIMIT_MS;
    let walked = walk(ts, dir, &filter, deadline)
        .await
        .map_err(|e| unreadable(dir, &e.message))?;
    Ok((walked.files, walked.timed_out))
}

/// An absolute pattern splits, as in the CLI, at the last separator before its first wildcard:
/// `/ws/src/**/*.ts` searches `/ws/src` for `**/*.ts`.
fn split_absolute(pattern: &str) -> Option<(String, String)> {
    let style = PathStyle::of_absolute(pattern)?;
    let is_sep = |c: char| c == '/' || (style == PathStyle::Windows && c == '\\');
    let wild = pattern.find(['*', '?', '[', '{']).unwrap_or(pattern.len());
    let cut = pattern[..wild].rfind(is_sep)?;
    let base = &pattern[..cut];
    let base = if base.is_empty() || (style == PathStyle::Windows && base.ends_with(':')) {
        &pattern[..cut + 1]
    } else {
        base
    };
    Some((base.to_string(), pattern[cut + 1..].to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_patterns_split_before_the_first_wildcard() {
        assert_eq!(
            split_absolute("/ws/src/**/*.ts"),
            Some(("/ws/src".into(), "**/*.ts".into()))
        );
        assert_eq!(split_absolute("/ws/a.txt"), Some(("/ws".into(), "a.txt".into())));
        assert_eq!(split_absolute("/*.txt"), Some(("/".into(), "*.txt".into())));
        assert_eq!(split_absolute("C:\\ws\\*.rs"), Some(("C:\\ws".into(), "*.rs".into())));
        assert_eq!(split_absolute("C:\\*.rs"), Some(("C:\\".into(), "*.rs".into())));
        assert_eq!(split_absolute("src/**/*.ts"), None);
    }
}
