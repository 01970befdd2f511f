//! Grep: the CLI's built-in content search. Runs the host's ripgrep with the argv the built-in
//! builds when the host has one, otherwise the built-in walker and searcher; either way the
//! findings go through the same post-processing, so the model reads what the built-in prints.

use super::search::matcher::{Found, Matcher, Want};
use super::search::render::{content_entries, paginate, pagination_label, Entry, FileHits};
use super::search::ripgrep::{self, GrepQuery, OutputMode, RgRun};
use super::search::walk::{walk, WalkFilter};
use super::search::{
    display_path, js_cmp, mtimes, newest_first_locale, resolve_target, unreadable, usage_error, TargetKind,
    CONCURRENCY, CWD_NOTE, MAX_SEARCHED_FILE_BYTES, RIPGREP_TIMEOUT_MS, TIMED_OUT_NOTE, VCS_DIRS, WALK_TIME_LIMIT_MS,
};
use super::{parse_input, Host, ToolError, ToolOutput, ToolResult, ToolSpec, Toolset};
use crate::host::HostError;
use crate::json::read_struct;
use futures::stream::{self, StreamExt};
use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};
use serde_json::{json, Map, Value};

pub static SPEC: ToolSpec = ToolSpec {
    name: "Grep",
    title: "Grep",
    description: DESCRIPTION,
    input_schema,
    read_only: true,
    destructive: false,
};

const DESCRIPTION: &str = r#"A powerful search tool built on ripgrep

  Usage:
  - ALWAYS use Grep for search tasks. NEVER invoke `grep` or `rg` as a Bash command. The Grep tool has been optimized for correct permissions and access.
  - Supports full regex syntax (e.g., "log.*Error", "function\s+\w+")
  - Filter files with glob parameter (e.g., "*.js", "**/*.tsx") or type parameter (e.g., "js", "py", "rust")
  - Output modes: "content" shows matching lines, "files_with_matches" shows only file paths (default), "count" shows match counts
  - Use Agent tool (if available) for open-ended searches requiring multiple rounds
  - Pattern syntax: Uses ripgrep (not grep) - literal braces need escaping (use `interface\{\}` to find `interface{}` in Go code)
  - Multiline matching: By default patterns match within single lines only. For cross-line patterns like `struct \{[\s\S]*?field`, use `multiline: true`
"#;

fn input_schema() -> Value {
    super::schema(
        r##"{
      "type": "object",
      "properties": {
        "pattern": {"type": "string", "description": "The regular expression pattern to search for in file contents"},
        "path": {"type": "string", "description": "File or directory to search in (rg PATH). Defaults to current working directory."},
        "glob": {"type": "string", "description": "Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\") - maps to rg --glob"},
        "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"], "description": "Output mode: \"content\" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), \"files_with_matches\" shows file paths (supports head_limit), \"count\" shows match counts (supports head_limit). Defaults to \"files_with_matches\"."},
        "-B": {"type": "number", "description": "Number of lines to show before each match (rg -B). Requires output_mode: \"content\", ignored otherwise."},
        "-A": {"type": "number", "description": "Number of lines to show after each match (rg -A). Requires output_mode: \"content\", ignored otherwise."},
        "-C": {"type": "number", "description": "Alias for context."},
        "context": {"type": "number", "description": "Number of lines to show before and after each match (rg -C). Requires output_mode: \"content\", ignored otherwise."},
        "-n": {"type": "boolean", "description": "Show line numbers in output (rg -n). Requires output_mode: \"content\", ignored otherwise. Defaults to true."},
        "-i": {"type": "boolean", "description": "Case insensitive search (rg -i)"},
        "-o": {"type": "boolean", "description": "Print only the matched (non-empty) parts of each matching line, one match per output line (rg -o / --only-matching). Requires output_mode: \"content\", ignored otherwise. Defaults to false."},
        "type": {"type": "string", "description": "File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient than include for standard file types."},
        "head_limit": {"type": "number", "description": "Limit output to first N lines/entries, equivalent to \"| head -N\". Works across all output modes: content (limits output lines), files_with_matches (limits file paths), count (limits count entries). Defaults to 250 when unspecified. Pass 0 for unlimited (use sparingly — large result sets waste context)."},
        "offset": {"type": "number", "description": "Skip first N lines/entries before applying head_limit, equivalent to \"| tail -n +N | head -N\". Works across all output modes. Defaults to 0."},
        "multiline": {"type": "boolean", "description": "Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false."}
      },
      "required": ["pattern"],
      "additionalProperties": false,
      "$schema": "https://json-schema.org/draft/2020-12/schema"
    }"##,
    )
}

struct GrepInput {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    output_mode: Option<OutputMode>,
    before: Option<f64>,
    after: Option<f64>,
    context_alias: Option<f64>,
    context: Option<f64>,
    line_numbers: Option<bool>,
    case_insensitive: Option<bool>,
    only_matching: Option<bool>,
    file_type: Option<String>,
    head_limit: Option<f64>,
    offset: Option<f64>,
    multiline: Option<bool>,
}

read_struct!(GrepInput {
    pattern: required "pattern",
    path: default "path",
    glob: default "glob",
    output_mode: default "output_mode",
    before: default "-B",
    after: default "-A",
    context_alias: default "-C",
    context: default "context",
    line_numbers: default "-n",
    case_insensitive: default "-i",
    only_matching: default "-o",
    file_type: default "type",
    head_limit: default "head_limit",
    offset: default "offset",
    multiline: default "multiline",
});

/// What either engine found, with absolute workspace paths.
enum Findings {
    Files(Vec<String>),
    Counts(Vec<(String, u64)>),
    Content {
        done: Vec<FileHits>,
        partial: Option<FileHits>,
    },
}

struct Searched {
    findings: Findings,
    timed_out: bool,
}

pub async fn run<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ToolOutput> {
    let input: GrepInput = parse_input("Grep", args)?;
    let head_limit = whole_number("head_limit", input.head_limit, " Pass 0 for unlimited.")?;
    let offset = whole_number("offset", input.offset, "")?.unwrap_or(0);
    let before = whole_number("-B", input.before, "")?;
    let after = whole_number("-A", input.after, "")?;
    let context_alias = whole_number("-C", input.context_alias, "")?;
    let context = whole_number("context", input.context, "")?;
    let show_numbers = input.line_numbers.unwrap_or(true);
    let query = GrepQuery {
        pattern: input.pattern,
        mode: input.output_mode.unwrap_or(OutputMode::FilesWithMatches),
        context: context.or(context_alias),
        before,
        after,
        case_insensitive: input.case_insensitive.unwrap_or(false),
        only_matching: input.only_matching.unwrap_or(false),
        file_type: input.file_type.filter(|t| !t.is_empty()),
        globs: input.glob.as_deref().map(ripgrep::split_globs).unwrap_or_default(),
        multiline: input.multiline.unwrap_or(false),
    };
    // Any context asked for separates runs of lines with `--`, even a value another one overrides.
    let breaks = [context, context_alias, before, after]
        .iter()
        .any(|v| v.is_some_and(|n| n > 0));

    let root = ts.paths.root().to_string();
    let (target, kind) = match input.path.as_deref().filter(|p| !p.trim().is_empty()) {
        Some(p) => resolve_target(ts, p, || format!("Path does not exist: {p}. {CWD_NOTE} {root}.")).await?,
        None => (root.clone(), TargetKind::Directory),
    };
    let searched = search(ts, &query, &target, kind).await?;

    let mut data = Map::new();
    data.insert("mode".into(), json!(query.mode.as_str()));
    let text = match searched.findings {
        Findings::Files(files) => {
            let times = mtimes(ts, &files).await;
            let dated = newest_first_locale(files, times);
            let total = dated.len();
            let (page, applied) = paginate(dated, head_limit, offset);
            let names: Vec<String> = page.iter().map(|(p, _)| display_path(&ts.paths, p)).collect();
            let label = pagination_label(applied, offset);
            let text = if names.is_empty() {
                if offset > 0 && total > 0 {
                    format!("No entries at this offset. [Showing results with pagination = {label}]")
                } else {
                    "No files found".to_string()
                }
            } else {
                let label = if label.is_empty() {
                    String::new()
                } else {
                    format!(" {label}")
                };
                let noun = if names.len() == 1 { "file" } else { "files" };
                format!("Found {} {noun}{label}\n{}", names.len(), names.join("\n"))
            };
            data.insert("numFiles".into(), json!(names.len()));
            data.insert("filenames".into(), json!(names));
            data.insert("totalFiles".into(), json!(total));
            insert_paging(&mut data, applied, offset);
            text
        }
        Findings::Counts(mut counts) => {
            crate::sort::sort_by(&mut counts, |a, b| {
                js_cmp(&a.0, &b.0).then_with(|| a.1.to_string().cmp(&b.1.to_string()))
            });
            let matches: u64 = counts.iter().map(|c| c.1).sum();
            let files = counts.len();
            let (page, applied) = paginate(counts, head_limit, offset);
            let content = page
                .iter()
                .map(|(p, n)| format!("{}:{n}", display_path(&ts.paths, p)))
                .collect::<Vec<_>>()
                .join("\n");
            let label = pagination_label(applied, offset);
            let shown = if !content.is_empty() {
                content.clone()
            } else if matches > 0 {
                "No entries at this offset".to_string()
            } else {
                "No matches found".to_string()
            };
            let occurrences = if matches == 1 { "occurrence" } else { "occurrences" };
            let noun = if files == 1 { "file" } else { "files" };
            let paging = if label.is_empty() {
                String::new()
            } else {
                format!(" with pagination = {label}")
            };
            data.insert("numFiles".into(), json!(files));
            data.insert("filenames".into(), json!([]));
            data.insert("content".into(), json!(content));
            data.insert("numMatches".into(), json!(matches));
            insert_paging(&mut data, applied, offset);
            format!("{shown}\n\nFound {matches} total {occurrences} across {files} {noun}.{paging}")
        }
        Findings::Content { done, partial } => {
            let entries = content_entries(done, partial, breaks, query.only_matching);
            let total = entries.len();
            let (page, applied) = paginate(entries, head_limit, offset);
            let lines: Vec<String> = page
                .into_iter()
                .map(|e| content_line(ts, e, show_numbers, kind == TargetKind::Directory))
                .collect();
            let content = lines.join("\n");
            let label = pagination_label(applied, offset);
            let shown = if !content.is_empty() {
                content.clone()
            } else if offset > 0 && total > 0 {
                "No entries at this offset".to_string()
            } else {
                "No matches found".to_string()
            };
            data.insert("numFiles".into(), json!(0));
            data.insert("filenames".into(), json!([]));
            data.insert("content".into(), json!(content));
            data.insert("numLines".into(), json!(lines.len()));
            data.insert("totalLines".into(), json!(total));
            insert_paging(&mut data, applied, offset);
            if label.is_empty() {
                shown
            } else {
                format!("{shown}\n\n[Showing results with pagination = {label}]")
            }
        }
    };
    let text = if searched.timed_out {
        data.insert("timedOut".into(), json!(true));
        format!("{TIMED_OUT_NOTE}\n\n{text}")
    } else {
        text
    };
    Ok(ToolOutput::text(text).with_structured(Value::Object(data)))
}

fn insert_paging(data: &mut Map<String, Value>, applied: Option<u64>, offset: u64) {
    if let Some(limit) = applied {
        data.insert("appliedLimit".into(), json!(limit));
    }
    if offset > 0 {
        data.insert("appliedOffset".into(), json!(offset));
    }
}

/// One content line as the CLI writes it: `path:N:text` (`-` for context) in a directory search,
/// `N:text` for a single file; without `-n` the number goes.
fn content_line<H: Host>(ts: &Toolset<H>, entry: Entry, show_numbers: bool, in_directory: bool) -> String {
    let Entry::Line { path, body } = entry else {
        return "--".to_string();
    };
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    let numbered = match body.as_bytes().get(digits) {
        Some(&sep @ (b':' | b'-')) if digits > 0 => Some((sep as char, digits + 1)),
        _ => None,
    };
    let (sep, rest) = match numbered {
        Some((sep, len)) if !show_numbers => (sep, &body[len..]),
        Some((sep, _)) => (sep, body.as_str()),
        None => (':', body.as_str()),
    };
    if in_directory {
        format!("{}{sep}{rest}", display_path(&ts.paths, &path))
    } else {
        rest.to_string()
    }
}

async fn search<H: Host>(ts: &Toolset<H>, q: &GrepQuery, target: &str, kind: TargetKind) -> ToolResult<Searched> {
    let args = ripgrep::grep_args(q, target);
    let cwd = match kind {
        TargetKind::Directory => target.to_string(),
        TargetKind::File => ts.paths.parent(target).unwrap_or_else(|| ts.paths.root().to_string()),
    };
    // No ripgrep on the host, or it could not be started: the walker gives the same results.
    let Ok(Some(out)) = ts.host.ripgrep(&args, &cwd, RIPGREP_TIMEOUT_MS).await else {
        return search_builtin(ts, q, target, kind).await;
    };
    let (stdout, cut_short) = match ripgrep::interpret(out, target) {
        RgRun::Refused(words) => return Err(usage_error(&words)),
        RgRun::Unreadable(reason) => return Err(unreadable(target, &reason)),
        RgRun::Printed { stdout, cut_short } => (stdout, cut_short),
    };
    let normalize = |p: String| ts.paths.resolve(&p).unwrap_or(p);
    let findings = match q.mode {
        OutputMode::FilesWithMatches => {
            Findings::Files(ripgrep::parse_files(&stdout).into_iter().map(normalize).collect())
        }
        OutputMode::Count => Findings::Counts(
            ripgrep::parse_counts(&stdout)
                .into_iter()
                .map(|(p, n)| (normalize(p), n))
                .collect(),
        ),
        OutputMode::Content => {
            let (done, partial) = ripgrep::parse_json(&stdout);
            let fix = |mut f: FileHits| {
                f.path = normalize(std::mem::take(&mut f.path));
                f
            };
            Findings::Content {
                done: done.into_iter().map(fix).collect(),
                partial: partial.map(fix),
            }
        }
    };
    Ok(Searched {
        findings,
        timed_out: cut_short,
    })
}

async fn search_builtin<H: Host>(
    ts: &Toolset<H>,
    q: &GrepQuery,
    target: &str,
    kind: TargetKind,
) -> ToolResult<Searched> {
    let matcher = Matcher::new(&q.pattern, q.case_insensitive, q.multiline).map_err(|e| usage_error(&e))?;
    // Built even for a single file, which they do not filter, so bad input fails as with rg.
    let overrides = grep_overrides(&q.globs)?;
    let types = file_types(q.file_type.as_deref())?;
    let deadline = ts.host.now_ms() + WALK_TIME_LIMIT_MS;
    let (files, named, mut timed_out) = match kind {
        TargetKind::File => (vec![target.to_string()], true, false),
        TargetKind::Directory => {
            let filter = WalkFilter {
                overrides,
                types,
                ignore_files: true,
            };
            let walked = walk(ts, target, &filter, deadline)
                .await
                .map_err(|e| unreadable(target, &e.message))?;
            (walked.files, false, walked.timed_out)
        }
    };
    let (before, after) = q.context_lines();
    let want = match q.mode {
        OutputMode::FilesWithMatches => Want::Any,
        OutputMode::Count => Want::Count,
        OutputMode::Content => Want::Content {
            before: usize::try_from(before).unwrap_or(usize::MAX),
            after: usize::try_from(after).unwrap_or(usize::MAX),
        },
    };
    let matcher = &matcher;
    let results: Vec<Option<(String, Result<Found, HostError>)>> =
        stream::iter(files.into_iter().map(|path| async move {
            if ts.host.now_ms() > deadline {
                return None;
            }
            let found = ts
                .host
                .read_file(&path, MAX_SEARCHED_FILE_BYTES)
                .await
                .map(|bytes| matcher.search(&path, &bytes, named, want));
            Some((path, found))
        }))
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    timed_out |= results.iter().any(Option::is_none);
    let (mut files, mut counts, mut done) = (Vec::new(), Vec::new(), Vec::new());
    for (path, found) in results.into_iter().flatten() {
        // A file met while walking that vanished or cannot be read is skipped, as rg skips it;
        // the file the search path names must be readable.
        let found = match found {
            Ok(found) => found,
            Err(e) if named => return Err(unreadable(target, &e.message)),
            Err(_) => Found::Nothing,
        };
        match found {
            Found::Nothing => {}
            Found::Matched => files.push(path),
            Found::Count(n) => counts.push((path, n)),
            Found::Hits(hits) => done.push(hits),
        }
    }
    let findings = match q.mode {
        OutputMode::FilesWithMatches => Findings::Files(files),
        OutputMode::Count => Findings::Counts(counts),
        OutputMode::Content => Findings::Content { done, partial: None },
    };
    Ok(Searched { findings, timed_out })
}

/// rg's `--glob` set: the version-control folders out, then the model's globs.
fn grep_overrides(globs: &[String]) -> ToolResult<Override> {
    let mut builder = OverrideBuilder::new(".");
    for dir in VCS_DIRS {
        builder
            .add(&format!("!{dir}"))
            .map_err(|e| usage_error(&e.to_string()))?;
    }
    for glob in globs {
        builder.add(glob).map_err(|e| usage_error(&e.to_string()))?;
    }
    builder.build().map_err(|e| usage_error(&e.to_string()))
}

/// rg's `--type` selection over its own table of file types.
fn file_types(name: Option<&str>) -> ToolResult<Option<Types>> {
    let Some(name) = name else { return Ok(None) };
    let mut builder = TypesBuilder::new();
    builder.add_defaults();
    builder.select(name);
    builder.build().map(Some).map_err(|e| usage_error(&e.to_string()))
}

/// A count parameter: a whole number of 0 or more (the CLI checks it after the schema, in its words).
fn whole_number(name: &str, number: Option<f64>, hint: &str) -> ToolResult<Option<u64>> {
    let Some(number) = number else { return Ok(None) };
    if number.is_finite() && number >= 0.0 && number.fract() == 0.0 && number <= 9_007_199_254_740_991.0 {
        return Ok(Some(number as u64));
    }
    let shown = crate::json::js_number(number);
    Err(ToolError::invalid(format!(
        "{name} must be a whole number of 0 or more, got {shown}.{hint}"
    )))
}
