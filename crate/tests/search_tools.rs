//! Glob, Grep and LS on real temporary trees. Every behaviour runs twice, on the built-in walker
//! (`NativeHost::new()`) and on the host's ripgrep (`with_ripgrep("/usr/bin/rg")`), and both must
//! give the same result.

use serde_json::{json, Value};
use std::fs;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, SystemTime};
use tether_core::native::NativeHost;
use tether_core::tools::{ToolOutput, Toolset, ToolsetConfig};

/// The ripgrep the second engine runs; `TETHER_TEST_RG` picks another build (e.g. rg 14).
fn rg_path() -> String {
    std::env::var("TETHER_TEST_RG").unwrap_or_else(|_| "/usr/bin/rg".to_string())
}

/// NativeHost's futures never wait, so polling until ready is enough.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
    }
}

/// A workspace in a temporary directory. Each written file gets a modification time one second
/// after the previous one, so "newest" and "oldest" are certain.
mod common;

use common::TempWorkspace;

/// A workspace whose files get increasing modification times in the order they are written
/// (Grep and Glob list files newest first).
struct Ws {
    /// Kept so the directory lives as long as the workspace.
    _files: TempWorkspace,
    root: PathBuf,
    clock: std::cell::Cell<u64>,
}

impl Ws {
    /// A workspace that is a git repository (ripgrep honours .gitignore only inside one).
    fn new() -> Ws {
        let ws = Ws::bare();
        fs::create_dir(ws.root.join(".git")).unwrap();
        ws
    }

    fn bare() -> Ws {
        let files = TempWorkspace::new();
        let root = PathBuf::from(files.root());
        Ws {
            _files: files,
            root,
            clock: std::cell::Cell::new(1_600_000_000),
        }
    }

    fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let path = self.root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, content).unwrap();
        let t = self.clock.get() + 1;
        self.clock.set(t);
        set_mtime(&path, t);
    }

    fn mkdir(&self, rel: &str) {
        fs::create_dir_all(self.root.join(rel)).unwrap();
    }

    fn root(&self) -> String {
        self.root.to_string_lossy().into_owned()
    }

    fn abs(&self, rel: &str) -> String {
        self.root.join(rel).to_string_lossy().into_owned()
    }
}

fn set_mtime(path: &Path, secs: u64) {
    // Read-only is enough for the owner to set times, and it opens directories too.
    let file = fs::File::open(path).unwrap();
    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
        .unwrap();
}

fn toolset(root: &str, host: NativeHost) -> Toolset<NativeHost> {
    Toolset::new(host, ToolsetConfig::new(root)).unwrap()
}

/// Run a tool on both engines, require identical results, return one.
fn call(ws: &Ws, tool: &str, args: Value) -> ToolOutput {
    let rg_path = rg_path();
    assert!(
        Path::new(&rg_path).exists(),
        "these tests compare against ripgrep: install it (apt-get install ripgrep) so {rg_path} exists"
    );
    let walker = block_on(toolset(&ws.root(), NativeHost::new()).call(tool, args.clone()));
    let rg = block_on(toolset(&ws.root(), NativeHost::new().with_ripgrep(rg_path)).call(tool, args.clone()));
    let (walker, rg) = (without_duration(walker), without_duration(rg));
    if walker.is_error && rg.is_error {
        // rg 13 and 14 word some refusals differently below the first line; each test checks
        // the words that matter.
        let first = |o: &ToolOutput| o.text_content().lines().next().map(str::to_string);
        assert_eq!(
            first(&walker),
            first(&rg),
            "the walker and ripgrep differ for {tool} {args}"
        );
    } else {
        assert_eq!(walker, rg, "the walker and ripgrep differ for {tool} {args}");
    }
    walker
}

/// Glob's timing differs between runs.
fn without_duration(mut out: ToolOutput) -> ToolOutput {
    if let Some(Value::Object(map)) = &mut out.structured {
        map.remove("durationMs");
    }
    out
}

fn ok(out: &ToolOutput) -> String {
    assert!(!out.is_error, "unexpected error: {}", out.text_content());
    out.text_content()
}

fn err(out: &ToolOutput) -> String {
    assert!(out.is_error, "expected an error, got: {}", out.text_content());
    out.text_content()
}

fn grep(ws: &Ws, args: Value) -> ToolOutput {
    call(ws, "Grep", args)
}

// ---- Grep: output modes ----

#[test]
fn grep_lists_matching_files_newest_first() {
    let ws = Ws::new();
    ws.write("a.txt", "hello world\n");
    ws.write("b.txt", "hello\n");
    ws.write("c.txt", "nothing\n");
    let out = grep(&ws, json!({"pattern": "hello"}));
    assert_eq!(ok(&out), "Found 2 files\nb.txt\na.txt");
    assert_eq!(
        out.structured,
        Some(json!({"mode": "files_with_matches", "numFiles": 2, "filenames": ["b.txt", "a.txt"], "totalFiles": 2}))
    );
}

#[test]
fn grep_content_mode_prints_path_line_number_and_text() {
    let ws = Ws::new();
    ws.write("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    ws.write("src/lib.rs", "pub fn f() {}\n");
    let out = grep(&ws, json!({"pattern": "println", "output_mode": "content"}));
    assert_eq!(ok(&out), "src/main.rs:2:    println!(\"hi\");");
    assert_eq!(
        out.structured,
        Some(
            json!({"mode": "content", "numFiles": 0, "filenames": [], "content": "src/main.rs:2:    println!(\"hi\");", "numLines": 1, "totalLines": 1})
        )
    );
}

#[test]
fn grep_content_without_line_numbers() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\n");
    let out = grep(&ws, json!({"pattern": "two", "output_mode": "content", "-n": false}));
    assert_eq!(ok(&out), "a.txt:two");
}

#[test]
fn grep_count_mode_totals_matching_lines() {
    let ws = Ws::new();
    ws.write("a.txt", "x\nx x\ny\n");
    ws.write("b.txt", "x\n");
    let out = grep(&ws, json!({"pattern": "x", "output_mode": "count"}));
    assert_eq!(
        ok(&out),
        "a.txt:2\nb.txt:1\n\nFound 3 total occurrences across 2 files."
    );
    assert_eq!(
        out.structured,
        Some(json!({"mode": "count", "numFiles": 2, "filenames": [], "content": "a.txt:2\nb.txt:1", "numMatches": 3}))
    );
}

#[test]
fn grep_on_a_single_file_prints_lines_without_its_path() {
    let ws = Ws::new();
    ws.write("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    let content = grep(
        &ws,
        json!({"pattern": "main|println", "path": "src/main.rs", "output_mode": "content"}),
    );
    assert_eq!(ok(&content), "1:fn main() {\n2:    println!(\"hi\");");
    let files = grep(&ws, json!({"pattern": "main", "path": ws.abs("src/main.rs")}));
    assert_eq!(ok(&files), "Found 1 file\nsrc/main.rs");
    let count = grep(
        &ws,
        json!({"pattern": "main|println", "path": "src/main.rs", "output_mode": "count"}),
    );
    assert_eq!(ok(&count), "src/main.rs:2\n\nFound 2 total occurrences across 1 file.");
}

#[test]
fn grep_in_a_subdirectory_prints_workspace_relative_paths() {
    let ws = Ws::new();
    ws.write("sub/inner/a.txt", "needle\n");
    ws.write("other.txt", "needle\n");
    let out = grep(
        &ws,
        json!({"pattern": "needle", "path": "sub", "output_mode": "content"}),
    );
    assert_eq!(ok(&out), "sub/inner/a.txt:1:needle");
}

// ---- Grep: context ----

#[test]
fn grep_context_marks_gaps_with_separators() {
    let ws = Ws::new();
    ws.write("c.txt", "one\ntwo\nthree\nfour\nfive\nsix\nseven\n");
    let both = grep(&ws, json!({"pattern": "two|six", "output_mode": "content", "-C": 1}));
    assert_eq!(
        ok(&both),
        "c.txt-1-one\nc.txt:2:two\nc.txt-3-three\n--\nc.txt-5-five\nc.txt:6:six\nc.txt-7-seven"
    );
    let after = grep(&ws, json!({"pattern": "two|six", "output_mode": "content", "-A": 1}));
    assert_eq!(ok(&after), "c.txt:2:two\nc.txt-3-three\n--\nc.txt:6:six\nc.txt-7-seven");
    let before = grep(&ws, json!({"pattern": "three", "output_mode": "content", "-B": 2}));
    assert_eq!(ok(&before), "c.txt-1-one\nc.txt-2-two\nc.txt:3:three");
}

#[test]
fn grep_context_separates_files_and_merges_overlaps() {
    let ws = Ws::new();
    ws.write("a.txt", "x\nmatch\ny\nmatch\nz\n");
    ws.write("b.txt", "match\n");
    let out = grep(&ws, json!({"pattern": "match", "output_mode": "content", "context": 1}));
    assert_eq!(
        ok(&out),
        "a.txt-1-x\na.txt:2:match\na.txt-3-y\na.txt:4:match\na.txt-5-z\n--\nb.txt:1:match"
    );
}

// ---- Grep: pattern options ----

#[test]
fn grep_case_insensitive() {
    let ws = Ws::new();
    ws.write("a.txt", "Hello\n");
    ws.write("b.txt", "HELLO\n");
    ws.write("c.txt", "help\n");
    assert_eq!(ok(&grep(&ws, json!({"pattern": "hello"}))), "No files found");
    let out = grep(&ws, json!({"pattern": "hello", "-i": true}));
    assert_eq!(ok(&out), "Found 2 files\nb.txt\na.txt");
}

#[test]
fn grep_only_matching_prints_each_match_on_its_own_line() {
    let ws = Ws::new();
    ws.write("a.txt", "foo=1 bar=2\nnone\nbaz=3\n");
    let out = grep(
        &ws,
        json!({"pattern": "\\w+=\\d", "output_mode": "content", "-o": true}),
    );
    assert_eq!(ok(&out), "a.txt:1:foo=1\na.txt:1:bar=2\na.txt:3:baz=3");
}

#[test]
fn grep_multiline_matches_across_lines() {
    let ws = Ws::new();
    ws.write("a.rs", "struct A {\n  field: u8,\n}\n");
    ws.write("b.rs", "struct B {}\nfield\n");
    let out = grep(
        &ws,
        json!({"pattern": "struct A \\{[\\s\\S]*?field", "output_mode": "content", "multiline": true}),
    );
    assert_eq!(ok(&out), "a.rs:1:struct A {\na.rs:2:  field: u8,");
    let dotall = grep(&ws, json!({"pattern": "B \\{.*field", "multiline": true}));
    assert_eq!(ok(&dotall), "Found 1 file\nb.rs");
    let single_line = grep(&ws, json!({"pattern": "struct A \\{[\\s\\S]*?field"}));
    assert_eq!(ok(&single_line), "No files found");
}

#[test]
fn grep_refuses_a_line_break_without_multiline() {
    let ws = Ws::new();
    ws.write("a.txt", "a\nb\n");
    let text = err(&grep(&ws, json!({"pattern": "a\\nb"})));
    assert!(text.contains("is not allowed in a regex"), "{text}");
    assert!(text.contains("--multiline"), "{text}");
    let ok_multi = grep(&ws, json!({"pattern": "a\\nb", "multiline": true}));
    assert_eq!(ok(&ok_multi), "Found 1 file\na.txt");
}

#[test]
fn grep_pattern_starting_with_a_dash() {
    let ws = Ws::new();
    ws.write("a.txt", "run --verbose\n");
    let out = grep(&ws, json!({"pattern": "--verbose", "output_mode": "content"}));
    assert_eq!(ok(&out), "a.txt:1:run --verbose");
}

#[test]
fn grep_unicode_text_names_and_case_folding() {
    let ws = Ws::new();
    ws.write("日本.txt", "日本語のテキスト\n");
    ws.write("de.txt", "Grüße aus Köln\n");
    let out = grep(&ws, json!({"pattern": "テキ", "output_mode": "content"}));
    assert_eq!(ok(&out), "日本.txt:1:日本語のテキスト");
    let folded = grep(
        &ws,
        json!({"pattern": "KÖLN", "-i": true, "output_mode": "content", "-o": true}),
    );
    assert_eq!(ok(&folded), "de.txt:1:Köln");
}

#[test]
fn grep_searches_utf16_files_with_a_bom() {
    let ws = Ws::new();
    let mut bytes = vec![0xFF, 0xFE];
    for unit in "first\nsecond needle\n".encode_utf16() {
        bytes.extend_from_slice(&unit.to_le_bytes());
    }
    ws.write("wide.txt", bytes);
    let out = grep(&ws, json!({"pattern": "needle", "output_mode": "content"}));
    assert_eq!(ok(&out), "wide.txt:2:second needle");
}

#[test]
fn grep_prints_crlf_lines_without_the_carriage_return() {
    let ws = Ws::new();
    ws.write("dos.txt", "first\r\nsecond\r\n");
    let out = grep(&ws, json!({"pattern": "first|second$", "output_mode": "content"}));
    assert_eq!(ok(&out), "dos.txt:1:first");
}

#[test]
fn grep_omits_very_long_lines() {
    let ws = Ws::new();
    ws.write("min.js", format!("{} needle\nshort needle\n", "x".repeat(600)));
    let out = grep(&ws, json!({"pattern": "needle", "output_mode": "content"}));
    assert_eq!(ok(&out), "min.js:1:[Omitted long matching line]\nmin.js:2:short needle");
}

#[test]
fn grep_invalid_regex_quotes_the_regex_error() {
    let ws = Ws::new();
    ws.write("a.txt", "x\n");
    let text = err(&grep(&ws, json!({"pattern": "foo("})));
    assert!(
        text.starts_with("Search failed \u{2014} ripgrep rejected the pattern, glob, or file type without searching:\nregex parse error:"),
        "{text}"
    );
    assert!(text.contains("unclosed group"), "{text}");
}

// ---- Grep: which files ----

#[test]
fn grep_type_filter_uses_ripgreps_types() {
    let ws = Ws::new();
    ws.write("a.rs", "needle\n");
    ws.write("b.py", "needle\n");
    ws.write("c.js", "needle\n");
    ws.write("d.tsx", "needle\n");
    assert_eq!(
        ok(&grep(&ws, json!({"pattern": "needle", "type": "rust"}))),
        "Found 1 file\na.rs"
    );
    assert_eq!(
        ok(&grep(&ws, json!({"pattern": "needle", "type": "py"}))),
        "Found 1 file\nb.py"
    );
    assert_eq!(
        ok(&grep(&ws, json!({"pattern": "needle", "type": "ts"}))),
        "Found 1 file\nd.tsx"
    );
    let text = err(&grep(&ws, json!({"pattern": "needle", "type": "nosuch"})));
    assert!(text.ends_with("unrecognized file type: nosuch"), "{text}");
}

#[test]
fn grep_glob_filter_splits_lists_and_keeps_braces() {
    let ws = Ws::new();
    ws.write("a.ts", "needle\n");
    ws.write("b.tsx", "needle\n");
    ws.write("c.js", "needle\n");
    ws.write("sub/d.md", "needle\n");
    let braces = grep(&ws, json!({"pattern": "needle", "glob": "*.{ts,tsx}"}));
    assert_eq!(ok(&braces), "Found 2 files\nb.tsx\na.ts");
    let list = grep(&ws, json!({"pattern": "needle", "glob": "*.js,*.md"}));
    assert_eq!(ok(&list), "Found 2 files\nsub/d.md\nc.js");
    let negated = grep(&ws, json!({"pattern": "needle", "glob": "!*.ts*"}));
    assert_eq!(ok(&negated), "Found 2 files\nsub/d.md\nc.js");
    let anchored = grep(&ws, json!({"pattern": "needle", "glob": "sub/*.md"}));
    assert_eq!(ok(&anchored), "Found 1 file\nsub/d.md");
    let text = err(&grep(&ws, json!({"pattern": "needle", "glob": "a{b"})));
    assert!(text.contains("error parsing glob 'a{b'"), "{text}");
}

#[test]
fn grep_glob_is_relative_to_the_searched_directory() {
    let ws = Ws::new();
    ws.write("sub/inner/a.txt", "needle\n");
    ws.write("inner/b.txt", "needle\n");
    let out = grep(&ws, json!({"pattern": "needle", "path": "sub", "glob": "inner/*.txt"}));
    assert_eq!(ok(&out), "Found 1 file\nsub/inner/a.txt");
}

#[test]
fn grep_skips_binary_files_found_by_walking() {
    let ws = Ws::new();
    ws.write("bin.dat", b"ab\0cd ab\nhello ab\nab\n");
    ws.write("text.txt", "ab\n");
    assert_eq!(ok(&grep(&ws, json!({"pattern": "ab"}))), "Found 1 file\ntext.txt");
}

#[test]
fn grep_searches_a_named_binary_file_and_says_so() {
    let ws = Ws::new();
    ws.write("bin.dat", b"ab\0cd ab\nhello ab\nab\n");
    let out = grep(
        &ws,
        json!({"pattern": "ab", "path": "bin.dat", "output_mode": "content"}),
    );
    assert_eq!(
        ok(&out),
        "2:hello ab\n3:ab\nbinary file matches (found \"\\0\" byte around offset 2)"
    );
    let count = grep(&ws, json!({"pattern": "ab", "path": "bin.dat", "output_mode": "count"}));
    assert_eq!(ok(&count), "bin.dat:3\n\nFound 3 total occurrences across 1 file.");
}

#[test]
fn grep_honours_gitignore_root_nested_negation_and_dir_only() {
    let ws = Ws::new();
    ws.write(".gitignore", "*.log\nbuild/\n!keep.log\n");
    ws.write("a.log", "needle\n");
    ws.write("keep.log", "needle\n");
    ws.write("build/x.txt", "needle\n");
    ws.write("docs/build", "needle\n");
    ws.write("src/.gitignore", "gen.txt\n");
    ws.write("src/gen.txt", "needle\n");
    ws.write("src/ok.txt", "needle\n");
    ws.write("gen.txt", "needle\n");
    let out = grep(&ws, json!({"pattern": "needle"}));
    assert_eq!(ok(&out), "Found 4 files\ngen.txt\nsrc/ok.txt\ndocs/build\nkeep.log");
}

#[test]
fn grep_applies_parent_gitignore_to_a_subdirectory_search() {
    let ws = Ws::new();
    ws.write(".gitignore", "*.log\n/sub/gen/\n");
    ws.write("sub/a.log", "needle\n");
    ws.write("sub/gen/b.txt", "needle\n");
    ws.write("sub/c.txt", "needle\n");
    let out = grep(&ws, json!({"pattern": "needle", "path": "sub"}));
    assert_eq!(ok(&out), "Found 1 file\nsub/c.txt");
}

#[test]
fn grep_searches_inside_an_ignored_directory_it_is_pointed_at() {
    let ws = Ws::new();
    ws.write(".gitignore", "build/\n");
    ws.write("build/out.txt", "needle\n");
    assert_eq!(ok(&grep(&ws, json!({"pattern": "needle"}))), "No files found");
    let out = grep(&ws, json!({"pattern": "needle", "path": "build"}));
    assert_eq!(ok(&out), "Found 1 file\nbuild/out.txt");
}

#[test]
fn grep_ignores_gitignore_outside_a_repository() {
    let ws = Ws::bare();
    ws.write(".gitignore", "*.log\n");
    ws.write("a.log", "needle\n");
    assert_eq!(ok(&grep(&ws, json!({"pattern": "needle"}))), "Found 1 file\na.log");
}

#[test]
fn grep_glob_override_beats_gitignore_for_files() {
    let ws = Ws::new();
    ws.write(".gitignore", "*.log\n");
    ws.write("a.log", "needle\n");
    let out = grep(&ws, json!({"pattern": "needle", "glob": "*.log"}));
    assert_eq!(ok(&out), "Found 1 file\na.log");
}

#[test]
fn grep_skips_git_directory_but_searches_hidden_files() {
    let ws = Ws::new();
    ws.write(".git/config", "needle\n");
    ws.write(".hidden/file.txt", "needle\n");
    ws.write(".env", "needle\n");
    let out = grep(&ws, json!({"pattern": "needle"}));
    assert_eq!(ok(&out), "Found 2 files\n.env\n.hidden/file.txt");
}

#[test]
fn grep_in_an_empty_directory_finds_nothing() {
    let ws = Ws::new();
    ws.mkdir("empty");
    assert_eq!(
        ok(&grep(&ws, json!({"pattern": "x", "path": "empty"}))),
        "No files found"
    );
    let content = grep(&ws, json!({"pattern": "x", "path": "empty", "output_mode": "content"}));
    assert_eq!(ok(&content), "No matches found");
    let count = grep(&ws, json!({"pattern": "x", "path": "empty", "output_mode": "count"}));
    assert_eq!(
        ok(&count),
        "No matches found\n\nFound 0 total occurrences across 0 files."
    );
}

// ---- Grep: paging ----

#[test]
fn grep_head_limit_and_offset_page_files() {
    let ws = Ws::new();
    for i in 1..=5 {
        ws.write(&format!("f{i}.txt"), "needle\n");
    }
    let first = grep(&ws, json!({"pattern": "needle", "head_limit": 2}));
    assert_eq!(ok(&first), "Found 2 files limit: 2\nf5.txt\nf4.txt");
    assert_eq!(
        first.structured,
        Some(
            json!({"mode": "files_with_matches", "numFiles": 2, "filenames": ["f5.txt", "f4.txt"], "totalFiles": 5, "appliedLimit": 2})
        )
    );
    let last = grep(&ws, json!({"pattern": "needle", "head_limit": 2, "offset": 4}));
    assert_eq!(ok(&last), "Found 1 file offset: 4\nf1.txt");
    let past = grep(&ws, json!({"pattern": "needle", "offset": 10}));
    assert_eq!(
        ok(&past),
        "No entries at this offset. [Showing results with pagination = offset: 10]"
    );
    let all = grep(&ws, json!({"pattern": "needle", "head_limit": 0}));
    assert!(ok(&all).starts_with("Found 5 files\n"));
}

#[test]
fn grep_head_limit_pages_content_and_counts() {
    let ws = Ws::new();
    ws.write("a.txt", "n\nn\nn\n");
    ws.write("b.txt", "n\n");
    let content = grep(
        &ws,
        json!({"pattern": "n", "output_mode": "content", "head_limit": 2, "offset": 1}),
    );
    assert_eq!(
        ok(&content),
        "a.txt:2:n\na.txt:3:n\n\n[Showing results with pagination = limit: 2, offset: 1]"
    );
    assert_eq!(
        content.structured,
        Some(
            json!({"mode": "content", "numFiles": 0, "filenames": [], "content": "a.txt:2:n\na.txt:3:n", "numLines": 2, "totalLines": 4, "appliedLimit": 2, "appliedOffset": 1})
        )
    );
    let count = grep(&ws, json!({"pattern": "n", "output_mode": "count", "head_limit": 1}));
    assert_eq!(
        ok(&count),
        "a.txt:3\n\nFound 4 total occurrences across 2 files. with pagination = limit: 1"
    );
}

#[test]
fn grep_default_head_limit_is_250() {
    let ws = Ws::new();
    ws.write("many.txt", "n\n".repeat(300));
    let out = grep(&ws, json!({"pattern": "n", "output_mode": "content"}));
    let text = ok(&out);
    assert!(
        text.ends_with("\n\n[Showing results with pagination = limit: 250]"),
        "{text}"
    );
    assert_eq!(out.structured.as_ref().unwrap()["numLines"], 250);
    assert_eq!(out.structured.as_ref().unwrap()["totalLines"], 300);
}

#[test]
fn grep_rejects_a_negative_head_limit() {
    let ws = Ws::new();
    let text = err(&grep(&ws, json!({"pattern": "x", "head_limit": -1})));
    assert_eq!(
        text,
        "<tool_use_error>head_limit must be a whole number of 0 or more, got -1. Pass 0 for unlimited.</tool_use_error>"
    );
}

// ---- Grep: paths ----

#[test]
fn grep_missing_path_names_the_working_directory() {
    let ws = Ws::new();
    let text = err(&grep(&ws, json!({"pattern": "x", "path": "nope"})));
    assert_eq!(
        text,
        format!(
            "Path does not exist: nope. Note: your current working directory is {}.",
            ws.root()
        )
    );
}

#[test]
fn grep_refuses_a_path_outside_the_workspace() {
    let ws = Ws::new();
    let text = err(&grep(&ws, json!({"pattern": "x", "path": "/etc"})));
    assert!(text.contains("outside the workspace"), "{text}");
}

#[test]
fn grep_never_follows_a_symlink_out_of_the_workspace() {
    let ws = Ws::new();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.txt"), "needle\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.root.join("link")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), ws.root.join("linked.txt")).unwrap();
    ws.write("inside.txt", "needle\n");
    assert_eq!(ok(&grep(&ws, json!({"pattern": "needle"}))), "Found 1 file\ninside.txt");
    let text = err(&grep(&ws, json!({"pattern": "needle", "path": "link"})));
    assert!(text.contains("outside the workspace"), "{text}");
}

// ---- Glob ----

#[test]
fn glob_lists_matches_newest_first() {
    let ws = Ws::new();
    ws.write("a.txt", "");
    ws.write("sub/b.txt", "");
    ws.write("c.txt", "");
    ws.write("d.md", "");
    let out = call(&ws, "Glob", json!({"pattern": "*.txt"}));
    assert_eq!(ok(&out), "c.txt\nsub/b.txt\na.txt");
    set_mtime(&ws.root.join("a.txt"), 2_000_000_000);
    let out = call(&ws, "Glob", json!({"pattern": "**/*.txt"}));
    assert_eq!(ok(&out), "a.txt\nc.txt\nsub/b.txt");
    assert_eq!(
        out.structured,
        Some(
            json!({"filenames": ["a.txt", "c.txt", "sub/b.txt"], "numFiles": 3, "truncated": false, "totalMatches": 3, "countIsComplete": true})
        )
    );
}

#[test]
fn glob_skips_version_control_folders() {
    let ws = Ws::new();
    ws.write(".git/config.txt", "");
    ws.write("src/.hg/store.txt", "");
    ws.write("notes.txt", "");
    assert_eq!(ok(&call(&ws, "Glob", json!({"pattern": "**/*.txt"}))), "notes.txt");
}

#[test]
fn glob_truncates_at_100_files() {
    let ws = Ws::new();
    for i in 0..105 {
        ws.write(&format!("f{i:03}.rs"), "");
    }
    let out = call(&ws, "Glob", json!({"pattern": "*.rs"}));
    let text = ok(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 101);
    assert_eq!(lines[0], "f104.rs", "newest first");
    assert_eq!(lines[99], "f005.rs");
    assert_eq!(
        lines[100],
        "(Showing 100 of 105 matching files; 5 more are not listed. Narrow the pattern or path to see the rest.)"
    );
    let data = out.structured.unwrap();
    assert_eq!(data["truncated"], true);
    assert_eq!(data["numFiles"], 100);
    assert_eq!(data["totalMatches"], 105);
}

#[test]
fn glob_with_no_match_says_so() {
    let ws = Ws::new();
    ws.write("a.txt", "");
    assert_eq!(ok(&call(&ws, "Glob", json!({"pattern": "*.rs"}))), "No files found");
}

#[test]
fn glob_pattern_with_a_slash_is_anchored_to_the_search_directory() {
    let ws = Ws::new();
    ws.write("src/a.rs", "");
    ws.write("src/deep/b.rs", "");
    ws.write("other/src/c.rs", "");
    assert_eq!(ok(&call(&ws, "Glob", json!({"pattern": "src/*.rs"}))), "src/a.rs");
    let under = call(&ws, "Glob", json!({"pattern": "deep/*.rs", "path": "src"}));
    assert_eq!(ok(&under), "src/deep/b.rs");
    let absolute = call(&ws, "Glob", json!({"pattern": format!("{}/src/**/*.rs", ws.root())}));
    assert_eq!(ok(&absolute), "src/deep/b.rs\nsrc/a.rs");
}

#[test]
fn glob_includes_hidden_and_ignored_files_like_the_cli() {
    let ws = Ws::new();
    ws.write(".gitignore", "*.log\n");
    ws.write("a.log", "");
    ws.write(".hidden/b.log", "");
    assert_eq!(
        ok(&call(&ws, "Glob", json!({"pattern": "**/*.log"}))),
        ".hidden/b.log\na.log"
    );
}

#[test]
fn glob_path_must_be_an_existing_directory() {
    let ws = Ws::new();
    ws.write("a.txt", "");
    let missing = err(&call(&ws, "Glob", json!({"pattern": "*", "path": "nope"})));
    assert_eq!(
        missing,
        format!(
            "Directory does not exist: nope. Note: your current working directory is {}.",
            ws.root()
        )
    );
    let file = err(&call(&ws, "Glob", json!({"pattern": "*", "path": "a.txt"})));
    assert_eq!(file, "Path is not a directory: a.txt");
    let outside = err(&call(&ws, "Glob", json!({"pattern": "*", "path": "/etc"})));
    assert!(outside.contains("outside the workspace"), "{outside}");
}

#[test]
fn glob_does_not_list_symlinks() {
    let ws = Ws::new();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.txt"), "").unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.root.join("link")).unwrap();
    ws.write("inside.txt", "");
    assert_eq!(ok(&call(&ws, "Glob", json!({"pattern": "**/*.txt"}))), "inside.txt");
}

// ---- LS ----

#[test]
fn ls_prints_an_indented_tree_without_dotfiles() {
    let ws = Ws::new();
    ws.write("b.txt", "");
    ws.write("a/one.txt", "");
    ws.write("a/deeper/two.txt", "");
    ws.write(".hidden", "");
    ws.write("__pycache__/x.pyc", "");
    ws.mkdir("empty");
    let out = call(&ws, "LS", json!({"path": ws.root()}));
    assert_eq!(
        ok(&out),
        format!(
            "- {}/\n  - a/\n    - deeper/\n      - two.txt\n    - one.txt\n  - b.txt\n  - empty/",
            ws.root()
        )
    );
}

#[test]
fn ls_leaves_out_ignored_patterns() {
    let ws = Ws::new();
    ws.write("keep.rs", "");
    ws.write("drop.log", "");
    ws.write("node_modules/x/index.js", "");
    let out = call(
        &ws,
        "LS",
        json!({"path": ws.root(), "ignore": ["*.log", "node_modules"]}),
    );
    assert_eq!(ok(&out), format!("- {}/\n  - keep.rs", ws.root()));
}

#[test]
fn ls_caps_at_1000_entries_with_a_note() {
    let ws = Ws::new();
    for i in 0..1005 {
        fs::write(ws.root.join(format!("f{i:04}.txt")), "").unwrap();
    }
    let text = ok(&call(&ws, "LS", json!({"path": ws.root()})));
    assert!(text.starts_with("There are more than 1000 files in the repository. Use the LS tool (passing a specific path), Bash tool, and other tools to explore nested directories. The first 1000 files and directories are included below:\n\n- "));
    assert_eq!(text.lines().filter(|l| l.starts_with("  - ")).count(), 1000);
}

#[test]
fn ls_refuses_files_missing_paths_and_the_outside() {
    let ws = Ws::new();
    ws.write("a.txt", "");
    assert!(err(&call(&ws, "LS", json!({"path": ws.abs("a.txt")}))).starts_with("Path is not a directory: "));
    assert!(err(&call(&ws, "LS", json!({"path": ws.abs("nope")}))).starts_with("Directory does not exist: "));
    assert!(err(&call(&ws, "LS", json!({"path": "/etc"}))).contains("outside the workspace"));
}
