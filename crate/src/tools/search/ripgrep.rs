//! The host's ripgrep: the argv the CLI's built-ins build, and the parsing of what rg prints
//! (`--null` lists and counts, `--json` messages).

use super::render::{Block, BlockKind, FileHits, Submatch};
use super::VCS_DIRS;
use crate::host::ExecOutput;
use base64::Engine;
use serde_json::Value;

/// Grep's output modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OutputMode {
    Content,
    FilesWithMatches,
    Count,
}

crate::json::read_unit_enum!(OutputMode {
    Content = "content",
    FilesWithMatches = "files_with_matches",
    Count = "count",
});

impl OutputMode {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            OutputMode::Content => "content",
            OutputMode::FilesWithMatches => "files_with_matches",
            OutputMode::Count => "count",
        }
    }
}

/// A Grep request, engine-neutral.
#[derive(Clone, Debug)]
pub(crate) struct GrepQuery {
    pub pattern: String,
    pub mode: OutputMode,
    /// `context`, or its alias `-C`.
    pub context: Option<u64>,
    pub before: Option<u64>,
    pub after: Option<u64>,
    pub case_insensitive: bool,
    pub only_matching: bool,
    pub file_type: Option<String>,
    pub globs: Vec<String>,
    pub multiline: bool,
}

impl GrepQuery {
    /// Lines of context before and after each match, as rg applies the flags.
    pub(crate) fn context_lines(&self) -> (u64, u64) {
        match self.context {
            Some(c) => (c, c),
            None => (self.before.unwrap_or(0), self.after.unwrap_or(0)),
        }
    }
}

/// The `glob` parameter as the CLI splits it: on whitespace, then on commas unless the piece holds
/// a `{...}` alternation.
pub(crate) fn split_globs(glob: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in glob.split_whitespace() {
        if piece.contains('{') && piece.contains('}') {
            out.push(piece.to_string());
        } else {
            out.extend(piece.split(',').filter(|g| !g.is_empty()).map(str::to_string));
        }
    }
    out
}

/// The CLI's argv for Grep, with the searched path last.
pub(crate) fn grep_args(q: &GrepQuery, target: &str) -> Vec<String> {
    let mut args: Vec<String> = vec!["--hidden".into(), "--no-follow".into()];
    for dir in VCS_DIRS {
        args.push("--glob".into());
        args.push(format!("!{dir}"));
    }
    args.extend(["--max-columns".into(), "500".into()]);
    if q.multiline {
        args.extend(["-U".into(), "--multiline-dotall".into()]);
    }
    if q.case_insensitive {
        args.push("-i".into());
    }
    match q.mode {
        OutputMode::FilesWithMatches => args.push("-l".into()),
        OutputMode::Count => args.extend(["-c".into(), "-H".into()]),
        OutputMode::Content => {}
    }
    if q.mode == OutputMode::Content {
        args.extend(["--json".into(), "-n".into()]);
        if q.only_matching {
            args.push("-o".into());
        }
        if let Some(c) = q.context {
            args.extend(["-C".into(), c.to_string()]);
        } else {
            if let Some(b) = q.before {
                args.extend(["-B".into(), b.to_string()]);
            }
            if let Some(a) = q.after {
                args.extend(["-A".into(), a.to_string()]);
            }
        }
    } else {
        args.push("--null".into());
    }
    if q.pattern.starts_with('-') {
        args.push("-e".into());
    }
    args.push(q.pattern.clone());
    if let Some(t) = &q.file_type {
        args.extend(["--type".into(), t.clone()]);
    }
    for g in &q.globs {
        args.extend(["--glob".into(), g.clone()]);
    }
    args.push(target.to_string());
    args
}

/// The CLI's argv for Glob: files only, by modification time (oldest first), hidden files
/// included, ignore files not honoured.
/// Glob's rg argv. No `--sort`: Glob orders by mtime itself (newest first), and an unsorted rg
/// walks in parallel. The version-control exclusions come after the pattern so they win.
pub(crate) fn glob_args(pattern: &str, target: &str) -> Vec<String> {
    let mut args: Vec<String> = ["--files", "--null", "--glob", pattern]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for dir in VCS_DIRS {
        args.push("--glob".into());
        args.push(format!("!{dir}"));
    }
    args.extend(["--no-ignore".into(), "--hidden".into(), target.to_string()]);
    args
}

/// How an rg run ended.
pub(crate) enum RgRun {
    /// What it printed (maybe nothing: exit code 1 is "no match"), and whether it was cut short.
    Printed { stdout: String, cut_short: bool },
    /// rg refused the pattern, a glob or the file type: its own words.
    Refused(String),
    /// The searched path itself could not be read: the reason.
    Unreadable(String),
}

/// stderr lines rg starts with when it refuses its input (rg 13 has no `rg: ` prefix, 14 has).
const REFUSALS: [&str; 7] = [
    "regex parse error",
    "error parsing glob",
    "unrecognized file type",
    "error parsing flag",
    "compiled regex exceeds size limit",
    "the literal",
    "pattern contains",
];

/// Classify an rg run on `target`.
pub(crate) fn interpret(out: ExecOutput, target: &str) -> RgRun {
    let stderr = out.stderr.trim();
    let first = stderr.strip_prefix("rg: ").unwrap_or(stderr);
    let refused = out.exit_code == Some(2) && REFUSALS.iter().any(|r| first.starts_with(r));
    if refused {
        // rg's words as it printed them, `rg: ` and all, as the CLI passes them on.
        return RgRun::Refused(stderr.to_string());
    }
    if out.exit_code == Some(1) {
        return RgRun::Printed {
            stdout: String::new(),
            cut_short: false,
        };
    }
    // One error line about the target itself, and nothing found: the search never started.
    let about_target = first.strip_prefix(target).and_then(|r| r.strip_prefix(": "));
    if let (Some(2), Some(reason), false) = (out.exit_code, about_target, stderr.contains('\n')) {
        if parse_files(&out.stdout).is_empty() && !out.stdout.contains("\"type\":\"match\"") {
            return RgRun::Unreadable(reason.to_string());
        }
    }
    // Exit code 2 otherwise means some file could not be read: what was found still stands.
    let cut_short = out.timed_out || out.truncated || out.exit_code.is_none();
    RgRun::Printed {
        stdout: out.stdout,
        cut_short,
    }
}

/// `-l --null` output: NUL-terminated paths; a last unterminated piece was cut short.
pub(crate) fn parse_files(stdout: &str) -> Vec<String> {
    let mut pieces: Vec<&str> = stdout.split('\0').collect();
    pieces.pop();
    pieces
        .into_iter()
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// `-c --null` output: `path\0count\n` per file with matches.
pub(crate) fn parse_counts(stdout: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut rest = stdout;
    while let Some(nul) = rest.find('\0') {
        let path = &rest[..nul];
        let after = &rest[nul + 1..];
        let digits = after.find(|c: char| !c.is_ascii_digit()).unwrap_or(after.len());
        let Ok(count) = after[..digits].parse::<u64>() else {
            break;
        };
        let tail = &after[digits..];
        if !(tail.is_empty() || tail.starts_with('\n')) {
            break;
        }
        if count > 0 {
            out.push((path.to_string(), count));
        }
        rest = tail.strip_prefix('\n').unwrap_or(tail);
    }
    out
}

/// `--json` output: the files rg finished, and the one it was in the middle of (if cut short).
pub(crate) fn parse_json(stdout: &str) -> (Vec<FileHits>, Option<FileHits>) {
    let mut done = Vec::new();
    let mut current: Option<FileHits> = None;
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let data = &msg["data"];
        let path = text_of(&data["path"]);
        match msg["type"].as_str() {
            Some("begin") => {
                current = Some(FileHits {
                    path,
                    blocks: Vec::new(),
                    binary_offset: None,
                })
            }
            Some("end") => {
                let mut file = current.take().unwrap_or(FileHits {
                    path,
                    blocks: Vec::new(),
                    binary_offset: None,
                });
                file.binary_offset = data["binary_offset"].as_u64();
                done.push(file);
            }
            Some(kind @ ("match" | "context")) => {
                let text = text_of(&data["lines"]);
                let raw = text.strip_suffix('\n').unwrap_or(&text);
                let raw = raw.strip_suffix('\r').unwrap_or(raw).as_bytes();
                let submatches = data["submatches"]
                    .as_array()
                    .map(|subs| {
                        subs.iter()
                            .map(|s| {
                                let start = s["start"].as_u64().unwrap_or(0) as usize;
                                let before = &raw[..start.min(raw.len())];
                                Submatch {
                                    line_offset: before.iter().filter(|&&b| b == b'\n').count() as u64,
                                    text: text_of(&s["match"]),
                                }
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let block = Block {
                    kind: if kind == "match" {
                        BlockKind::Match
                    } else {
                        BlockKind::Context
                    },
                    line_number: data["line_number"].as_u64().unwrap_or(0),
                    text,
                    submatches,
                };
                current
                    .get_or_insert_with(|| FileHits {
                        path: text_of(&data["path"]),
                        blocks: Vec::new(),
                        binary_offset: None,
                    })
                    .blocks
                    .push(block);
            }
            _ => {}
        }
    }
    (done, current)
}

/// rg's `{"text": ...}` or, for bytes that are not UTF-8, `{"bytes": base64}`.
fn text_of(v: &Value) -> String {
    if let Some(t) = v["text"].as_str() {
        return t.to_string();
    }
    v["bytes"]
        .as_str()
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_split_like_the_cli() {
        assert_eq!(split_globs("*.js,*.ts  *.{md,txt}"), ["*.js", "*.ts", "*.{md,txt}"]);
        assert!(split_globs("  ").is_empty());
    }

    #[test]
    fn counts_and_files_parse_null_output() {
        assert_eq!(
            parse_counts("/a\u{0}3\n/b c\u{0}12\n"),
            [("/a".to_string(), 3), ("/b c".to_string(), 12)]
        );
        assert_eq!(parse_files("/a\u{0}/b\u{0}"), ["/a", "/b"]);
        assert_eq!(parse_files("/a\u{0}/b"), ["/a"]);
    }

    #[test]
    fn argv_matches_the_cli() {
        let q = GrepQuery {
            pattern: "-x".into(),
            mode: OutputMode::Content,
            context: None,
            before: Some(1),
            after: None,
            case_insensitive: true,
            only_matching: false,
            file_type: Some("rust".into()),
            globs: vec!["*.rs".into()],
            multiline: false,
        };
        let args = grep_args(&q, "/ws");
        let tail: Vec<&str> = args[14..].iter().map(String::as_str).collect();
        assert_eq!(
            tail,
            [
                "--max-columns",
                "500",
                "-i",
                "--json",
                "-n",
                "-B",
                "1",
                "-e",
                "-x",
                "--type",
                "rust",
                "--glob",
                "*.rs",
                "/ws"
            ]
        );
    }

    #[test]
    fn an_unreadable_target_is_a_failure_not_an_empty_result() {
        let out = ExecOutput {
            stderr: "rg: /ws/secret: Permission denied (os error 13)\n".into(),
            exit_code: Some(2),
            ..ExecOutput::default()
        };
        match interpret(out, "/ws/secret") {
            RgRun::Unreadable(reason) => assert_eq!(reason, "Permission denied (os error 13)"),
            _ => panic!("not a failure"),
        }
    }

    #[test]
    fn refusals_keep_rgs_words_as_printed() {
        let out = ExecOutput {
            stderr: "rg: regex parse error:\n    a(\nerror: unclosed group\n".into(),
            exit_code: Some(2),
            ..ExecOutput::default()
        };
        match interpret(out, "/ws") {
            RgRun::Refused(words) => assert!(words.starts_with("rg: regex parse error:")),
            _ => panic!("not refused"),
        }
    }
}
