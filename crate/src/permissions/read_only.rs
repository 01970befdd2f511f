//! The CLI's own list of read-only shell commands, which run without asking. Two kinds, both
//! taken from Claude Code 2.1.330: commands whose text must match a pattern (`cat`, `ls`, `find`
//! without `-exec`/`-delete`, …), and commands whose every flag must be on a per-command list
//! of safe flags (`git status`, `git log`, `grep`, `rg`, `sort`, …).
//!
//! A data table: most of its lines are those lists, so it is the one file over the 600-line limit.

use super::shell::Word;
use regex::Regex;
use std::sync::LazyLock;

/// Commands that are read-only with any arguments free of shell metacharacters.
const SIMPLE: &[&str] = &[
    "docker ps",
    "docker images",
    "cal",
    "uptime",
    "cat",
    "head",
    "tail",
    "wc",
    "stat",
    "strings",
    "hexdump",
    "od",
    "nl",
    "id",
    "uname",
    "free",
    "df",
    "du",
    "locale",
    "groups",
    "nproc",
    "basename",
    "dirname",
    "realpath",
    "cut",
    "paste",
    "tr",
    "column",
    "tac",
    "rev",
    "fold",
    "expand",
    "unexpand",
    "fmt",
    "comm",
    "cmp",
    "numfmt",
    "readlink",
    "diff",
    "true",
    "false",
    "sleep",
    "type",
    "expr",
    "seq",
    "tsort",
    "pr",
];

/// The CLI's patterns for read-only command text (its `find` pattern uses a look-ahead the
/// `regex` crate lacks, so `find` is checked in code).
static PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    let mut sources: Vec<String> = SIMPLE
        .iter()
        .map(|cmd| format!(r"^{}(?:\s|$)[^<>()$`|{{}}&;\n\r]*$", regex::escape(cmd)))
        .collect();
    sources.extend(
        [
            r#"^echo(?:\s+(?:'[^']*'|"[^"$<>\n\r]*"|[^|;&`$(){}><#\\!"'\s]+))*\s*$"#,
            r"^claude -h$",
            r"^claude --help$",
            r"^uniq(?:\s+(?:-[a-zA-Z]+|--[a-zA-Z-]+(?:=\S+)?|-[fsw]\s+\d+))*(?:\s|$)\s*$",
            r"^pwd$",
            r"^whoami$",
            r"^node -v$",
            r"^node --version$",
            r"^python --version$",
            r"^python3 --version$",
            r"^history(?:\s+\d+)?\s*$",
            r"^alias$",
            r"^arch(?:\s+(?:--help|-h))?\s*$",
            r"^ip addr$",
            r"^ifconfig(?:\s+[a-zA-Z][a-zA-Z0-9_-]*)?\s*$",
            r#"^jq(?:\s+(?:-[a-zA-Z]+|--[a-zA-Z-]+(?:=\S+)?))*(?:\s+'[^'`]*'|\s+"[^"`]*"|\s+[^-\s'"][^\s]*)+\s*$"#,
            r#"^cd(?:\s+(?:'[^']*'|"[^"]*"|[^\s;|&`$(){}><#\\]+))?$"#,
            r"^ls(?:\s+[^<>()$`|{}&;\n\r]*)?$",
        ]
        .into_iter()
        .map(String::from),
    );
    sources.into_iter().filter_map(|s| Regex::new(&s).ok()).collect()
});

static FIND_DANGEROUS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"-delete\b|-rm\b|-exec\b|-execdir\b|-ok\b|-okdir\b|-fprint0?\b|-fls\b|-fprintf\b|-files0-from\b").ok()
});

static JQ_DANGEROUS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^-[a-zA-Z]*[fL]|^--(?:from-file|rawfile|slurpfile|argfile|run-tests|library-path)|\b(?:env|include|import)\b|\bsystem\s*\(|\$(?:\s|#.*\n)*ENV\b",
    )
    .ok()
});

static GIT_SIGNATURE_FORMAT: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"%[-+ ]?G|%\(\*?signature").ok());

#[derive(Clone, Copy, PartialEq, Eq)]
enum Arg {
    None,
    Number,
    Text,
    Char,
    Braces,
    Eof,
}

use Arg::{Braces, Char, Eof, None as Flag, Number, Text};

type Danger = fn(&[&str]) -> bool;

type Flags = &'static [(&'static str, Arg)];

struct FlagCommand {
    name: &'static str,
    /// Flag groups (the CLI spreads shared groups into the git tables).
    flags: &'static [Flags],
    /// Extra refusal beyond the flag list (e.g. `git branch NAME` creates a branch).
    dangerous: Option<Danger>,
}

const GIT_STAT: &[(&str, Arg)] = &[
    ("--stat", Flag),
    ("--numstat", Flag),
    ("--shortstat", Flag),
    ("--name-only", Flag),
    ("--name-status", Flag),
];
const GIT_COLOR: &[(&str, Arg)] = &[("--color", Flag), ("--no-color", Flag)];
const GIT_LOG_DISPLAY: &[(&str, Arg)] = &[
    ("--oneline", Flag),
    ("--graph", Flag),
    ("--decorate", Flag),
    ("--no-decorate", Flag),
    ("--date", Text),
    ("--relative-date", Flag),
];
const GIT_REFS: &[(&str, Arg)] = &[
    ("--all", Flag),
    ("--branches", Flag),
    ("--tags", Flag),
    ("--remotes", Flag),
];
const GIT_DATES: &[(&str, Arg)] = &[
    ("--since", Text),
    ("--after", Text),
    ("--until", Text),
    ("--before", Text),
];
const GIT_COUNT: &[(&str, Arg)] = &[("--max-count", Number), ("-n", Number)];
const GIT_PATCH: &[(&str, Arg)] = &[
    ("--patch", Flag),
    ("-p", Flag),
    ("--no-patch", Flag),
    ("--no-ext-diff", Flag),
    ("-s", Flag),
];
const GIT_AUTHOR: &[(&str, Arg)] = &[("--author", Text), ("--committer", Text), ("--grep", Text)];

const GIT_DIFF: &[(&str, Arg)] = &[
    ("--dirstat", Flag),
    ("--summary", Flag),
    ("--patch-with-stat", Flag),
    ("--word-diff", Flag),
    ("--word-diff-regex", Text),
    ("--color-words", Flag),
    ("--no-renames", Flag),
    ("--no-ext-diff", Flag),
    ("--check", Flag),
    ("--ws-error-highlight", Text),
    ("--full-index", Flag),
    ("--binary", Flag),
    ("--abbrev", Number),
    ("--break-rewrites", Flag),
    ("--find-renames", Flag),
    ("--find-copies", Flag),
    ("--find-copies-harder", Flag),
    ("--irreversible-delete", Flag),
    ("--diff-algorithm", Text),
    ("--histogram", Flag),
    ("--patience", Flag),
    ("--minimal", Flag),
    ("--ignore-space-at-eol", Flag),
    ("--ignore-space-change", Flag),
    ("--ignore-all-space", Flag),
    ("--ignore-blank-lines", Flag),
    ("--inter-hunk-context", Number),
    ("--function-context", Flag),
    ("--exit-code", Flag),
    ("--quiet", Flag),
    ("--cached", Flag),
    ("--staged", Flag),
    ("--pickaxe-regex", Flag),
    ("--pickaxe-all", Flag),
    ("--no-index", Flag),
    ("--relative", Text),
    ("--ignore-submodules", Text),
    ("--submodule", Text),
    ("--diff-filter", Text),
    ("-p", Flag),
    ("-u", Flag),
    ("-s", Flag),
    ("-M", Flag),
    ("-C", Flag),
    ("-B", Flag),
    ("-D", Flag),
    ("-l", Flag),
    ("-S", Text),
    ("-G", Text),
    ("-O", Text),
    ("-R", Flag),
];
const GIT_LOG: &[(&str, Arg)] = &[
    ("--abbrev-commit", Flag),
    ("--full-history", Flag),
    ("--dense", Flag),
    ("--sparse", Flag),
    ("--simplify-merges", Flag),
    ("--ancestry-path", Flag),
    ("--source", Flag),
    ("--first-parent", Flag),
    ("--merges", Flag),
    ("--no-merges", Flag),
    ("--reverse", Flag),
    ("--walk-reflogs", Flag),
    ("--skip", Number),
    ("--max-age", Number),
    ("--min-age", Number),
    ("--no-min-parents", Flag),
    ("--no-max-parents", Flag),
    ("--follow", Flag),
    ("--no-walk", Flag),
    ("--left-right", Flag),
    ("--cherry-mark", Flag),
    ("--cherry-pick", Flag),
    ("--boundary", Flag),
    ("--topo-order", Flag),
    ("--date-order", Flag),
    ("--author-date-order", Flag),
    ("--pretty", Text),
    ("--format", Text),
    ("--diff-filter", Text),
    ("-S", Text),
    ("-G", Text),
    ("--pickaxe-regex", Flag),
    ("--pickaxe-all", Flag),
];
const GIT_SHOW: &[(&str, Arg)] = &[
    ("--abbrev-commit", Flag),
    ("--word-diff", Flag),
    ("--word-diff-regex", Text),
    ("--color-words", Flag),
    ("--pretty", Text),
    ("--format", Text),
    ("--first-parent", Flag),
    ("--raw", Flag),
    ("--diff-filter", Text),
    ("-m", Flag),
    ("--quiet", Flag),
];
const GIT_SHORTLOG: &[(&str, Arg)] = &[
    ("-s", Flag),
    ("--summary", Flag),
    ("-n", Flag),
    ("--numbered", Flag),
    ("-e", Flag),
    ("--email", Flag),
    ("-c", Flag),
    ("--committer", Flag),
    ("--group", Text),
    ("--format", Text),
    ("--no-merges", Flag),
    ("--author", Text),
];
const GIT_LS_REMOTE: &[(&str, Arg)] = &[
    ("--branches", Flag),
    ("-b", Flag),
    ("--tags", Flag),
    ("-t", Flag),
    ("--heads", Flag),
    ("-h", Flag),
    ("--refs", Flag),
    ("--quiet", Flag),
    ("-q", Flag),
    ("--exit-code", Flag),
    ("--get-url", Flag),
    ("--symref", Flag),
    ("--sort", Text),
];
const GIT_STATUS: &[(&str, Arg)] = &[
    ("--short", Flag),
    ("-s", Flag),
    ("--branch", Flag),
    ("-b", Flag),
    ("--porcelain", Flag),
    ("--long", Flag),
    ("--verbose", Flag),
    ("-v", Flag),
    ("--untracked-files", Text),
    ("-u", Text),
    ("--ignored", Flag),
    ("--ignore-submodules", Text),
    ("--column", Flag),
    ("--no-column", Flag),
    ("--ahead-behind", Flag),
    ("--no-ahead-behind", Flag),
    ("--renames", Flag),
    ("--no-renames", Flag),
    ("--find-renames", Text),
    ("-M", Text),
];
const GIT_BLAME: &[(&str, Arg)] = &[
    ("-L", Text),
    ("--porcelain", Flag),
    ("-p", Flag),
    ("--line-porcelain", Flag),
    ("--incremental", Flag),
    ("--root", Flag),
    ("--show-stats", Flag),
    ("--show-name", Flag),
    ("--show-number", Flag),
    ("-n", Flag),
    ("--show-email", Flag),
    ("-e", Flag),
    ("-f", Flag),
    ("--date", Text),
    ("-w", Flag),
    ("--ignore-rev", Text),
    ("--ignore-revs-file", Text),
    ("-M", Flag),
    ("-C", Flag),
    ("--score-debug", Flag),
    ("--abbrev", Number),
    ("-s", Flag),
    ("-l", Flag),
    ("-t", Flag),
];
const GIT_LS_FILES: &[(&str, Arg)] = &[
    ("--cached", Flag),
    ("-c", Flag),
    ("--deleted", Flag),
    ("-d", Flag),
    ("--modified", Flag),
    ("-m", Flag),
    ("--others", Flag),
    ("-o", Flag),
    ("--ignored", Flag),
    ("-i", Flag),
    ("--stage", Flag),
    ("-s", Flag),
    ("--killed", Flag),
    ("-k", Flag),
    ("--unmerged", Flag),
    ("-u", Flag),
    ("--directory", Flag),
    ("--no-empty-directory", Flag),
    ("--eol", Flag),
    ("--full-name", Flag),
    ("--abbrev", Number),
    ("--debug", Flag),
    ("-z", Flag),
    ("-t", Flag),
    ("-v", Flag),
    ("-f", Flag),
    ("--exclude", Text),
    ("-x", Text),
    ("--exclude-from", Text),
    ("-X", Text),
    ("--exclude-per-directory", Text),
    ("--exclude-standard", Flag),
    ("--error-unmatch", Flag),
    ("--recurse-submodules", Flag),
];
const GIT_CONFIG_GET: &[(&str, Arg)] = &[
    ("--local", Flag),
    ("--global", Flag),
    ("--system", Flag),
    ("--worktree", Flag),
    ("--default", Text),
    ("--type", Text),
    ("--bool", Flag),
    ("--int", Flag),
    ("--bool-or-int", Flag),
    ("--path", Flag),
    ("--expiry-date", Flag),
    ("-z", Flag),
    ("--null", Flag),
    ("--name-only", Flag),
    ("--show-origin", Flag),
    ("--show-scope", Flag),
];
const GIT_MERGE_BASE: &[(&str, Arg)] = &[
    ("--is-ancestor", Flag),
    ("--fork-point", Flag),
    ("--octopus", Flag),
    ("--independent", Flag),
    ("--all", Flag),
];
const GIT_REV_PARSE: &[(&str, Arg)] = &[
    ("--verify", Flag),
    ("--short", Text),
    ("--abbrev-ref", Flag),
    ("--symbolic", Flag),
    ("--symbolic-full-name", Flag),
    ("--show-toplevel", Flag),
    ("--show-cdup", Flag),
    ("--show-prefix", Flag),
    ("--git-dir", Flag),
    ("--git-common-dir", Flag),
    ("--absolute-git-dir", Flag),
    ("--is-inside-work-tree", Flag),
    ("--is-inside-git-dir", Flag),
    ("--is-bare-repository", Flag),
    ("--is-shallow-repository", Flag),
    ("--is-shallow-update", Flag),
    ("--path-prefix", Flag),
];
const GIT_REV_LIST: &[(&str, Arg)] = &[
    ("--count", Flag),
    ("--reverse", Flag),
    ("--first-parent", Flag),
    ("--ancestry-path", Flag),
    ("--merges", Flag),
    ("--no-merges", Flag),
    ("--min-parents", Number),
    ("--max-parents", Number),
    ("--no-min-parents", Flag),
    ("--no-max-parents", Flag),
    ("--skip", Number),
    ("--max-age", Number),
    ("--min-age", Number),
    ("--walk-reflogs", Flag),
    ("--oneline", Flag),
    ("--abbrev-commit", Flag),
    ("--pretty", Text),
    ("--format", Text),
    ("--abbrev", Number),
    ("--full-history", Flag),
    ("--dense", Flag),
    ("--sparse", Flag),
    ("--source", Flag),
    ("--graph", Flag),
];
const GIT_DESCRIBE: &[(&str, Arg)] = &[
    ("--tags", Flag),
    ("--match", Text),
    ("--exclude", Text),
    ("--long", Flag),
    ("--abbrev", Number),
    ("--always", Flag),
    ("--contains", Flag),
    ("--first-match", Flag),
    ("--exact-match", Flag),
    ("--candidates", Number),
    ("--dirty", Flag),
    ("--broken", Flag),
];
const GIT_CAT_FILE: &[(&str, Arg)] = &[
    ("-t", Flag),
    ("-s", Flag),
    ("-p", Flag),
    ("-e", Flag),
    ("--batch-check", Flag),
    ("--allow-undetermined-type", Flag),
];
const GIT_FOR_EACH_REF: &[(&str, Arg)] = &[
    ("--format", Text),
    ("--sort", Text),
    ("--count", Number),
    ("--contains", Text),
    ("--no-contains", Text),
    ("--merged", Text),
    ("--no-merged", Text),
    ("--points-at", Text),
];
const GIT_GREP: &[(&str, Arg)] = &[
    ("-e", Text),
    ("-E", Flag),
    ("--extended-regexp", Flag),
    ("-G", Flag),
    ("--basic-regexp", Flag),
    ("-F", Flag),
    ("--fixed-strings", Flag),
    ("-P", Flag),
    ("--perl-regexp", Flag),
    ("-i", Flag),
    ("--ignore-case", Flag),
    ("-v", Flag),
    ("--invert-match", Flag),
    ("-w", Flag),
    ("--word-regexp", Flag),
    ("-n", Flag),
    ("--line-number", Flag),
    ("-c", Flag),
    ("--count", Flag),
    ("-l", Flag),
    ("--files-with-matches", Flag),
    ("-L", Flag),
    ("--files-without-match", Flag),
    ("-h", Flag),
    ("-H", Flag),
    ("--heading", Flag),
    ("--break", Flag),
    ("--full-name", Flag),
    ("--color", Flag),
    ("--no-color", Flag),
    ("-o", Flag),
    ("--only-matching", Flag),
    ("-A", Number),
    ("--after-context", Number),
    ("-B", Number),
    ("--before-context", Number),
    ("-C", Number),
    ("--context", Number),
    ("--and", Flag),
    ("--or", Flag),
    ("--not", Flag),
    ("--max-depth", Number),
    ("--untracked", Flag),
    ("--no-index", Flag),
    ("--recurse-submodules", Flag),
    ("--cached", Flag),
    ("--threads", Number),
    ("-q", Flag),
    ("--quiet", Flag),
];
const GIT_STASH_SHOW: &[(&str, Arg)] = &[
    ("--word-diff", Flag),
    ("--word-diff-regex", Text),
    ("--diff-filter", Text),
    ("--abbrev", Number),
];
const GIT_WORKTREE_LIST: &[(&str, Arg)] = &[
    ("--porcelain", Flag),
    ("-v", Flag),
    ("--verbose", Flag),
    ("--expire", Text),
];
const GIT_TAG: &[(&str, Arg)] = &[
    ("-l", Flag),
    ("--list", Flag),
    ("-n", Number),
    ("--contains", Text),
    ("--no-contains", Text),
    ("--merged", Text),
    ("--no-merged", Text),
    ("--sort", Text),
    ("--format", Text),
    ("--points-at", Text),
    ("--column", Flag),
    ("--no-column", Flag),
    ("-i", Flag),
    ("--ignore-case", Flag),
];
const GIT_BRANCH: &[(&str, Arg)] = &[
    ("-l", Flag),
    ("--list", Flag),
    ("-a", Flag),
    ("--all", Flag),
    ("-r", Flag),
    ("--remotes", Flag),
    ("-v", Flag),
    ("-vv", Flag),
    ("--verbose", Flag),
    ("--color", Flag),
    ("--no-color", Flag),
    ("--column", Flag),
    ("--no-column", Flag),
    ("--abbrev", Number),
    ("--no-abbrev", Flag),
    ("--contains", Text),
    ("--no-contains", Text),
    ("--merged", Flag),
    ("--no-merged", Flag),
    ("--points-at", Text),
    ("--sort", Text),
    ("--show-current", Flag),
    ("-i", Flag),
    ("--ignore-case", Flag),
];
const GREP: &[(&str, Arg)] = &[
    ("-e", Text),
    ("--regexp", Text),
    ("-f", Text),
    ("--file", Text),
    ("-F", Flag),
    ("--fixed-strings", Flag),
    ("-G", Flag),
    ("--basic-regexp", Flag),
    ("-E", Flag),
    ("--extended-regexp", Flag),
    ("-P", Flag),
    ("--perl-regexp", Flag),
    ("-i", Flag),
    ("--ignore-case", Flag),
    ("--no-ignore-case", Flag),
    ("-v", Flag),
    ("--invert-match", Flag),
    ("-w", Flag),
    ("--word-regexp", Flag),
    ("-x", Flag),
    ("--line-regexp", Flag),
    ("-c", Flag),
    ("--count", Flag),
    ("--color", Text),
    ("--colour", Text),
    ("-L", Flag),
    ("--files-without-match", Flag),
    ("-l", Flag),
    ("--files-with-matches", Flag),
    ("-m", Number),
    ("--max-count", Number),
    ("-o", Flag),
    ("--only-matching", Flag),
    ("-q", Flag),
    ("--quiet", Flag),
    ("--silent", Flag),
    ("-s", Flag),
    ("--no-messages", Flag),
    ("-b", Flag),
    ("--byte-offset", Flag),
    ("-H", Flag),
    ("--with-filename", Flag),
    ("-h", Flag),
    ("--no-filename", Flag),
    ("--label", Text),
    ("-n", Flag),
    ("--line-number", Flag),
    ("-T", Flag),
    ("--initial-tab", Flag),
    ("-u", Flag),
    ("--unix-byte-offsets", Flag),
    ("-Z", Flag),
    ("--null", Flag),
    ("-z", Flag),
    ("--null-data", Flag),
    ("-A", Number),
    ("--after-context", Number),
    ("-B", Number),
    ("--before-context", Number),
    ("-C", Number),
    ("--context", Number),
    ("--group-separator", Text),
    ("--no-group-separator", Flag),
    ("-a", Flag),
    ("--text", Flag),
    ("--binary-files", Text),
    ("-I", Flag),
    ("-D", Text),
    ("--devices", Text),
    ("-d", Text),
    ("--directories", Text),
    ("--exclude", Text),
    ("--exclude-from", Text),
    ("--exclude-dir", Text),
    ("--include", Text),
    ("-r", Flag),
    ("--recursive", Flag),
    ("-R", Flag),
    ("--dereference-recursive", Flag),
    ("--line-buffered", Flag),
    ("-U", Flag),
    ("--binary", Flag),
    ("--help", Flag),
    ("-V", Flag),
    ("--version", Flag),
];
const RG: &[(&str, Arg)] = &[
    ("-e", Text),
    ("--regexp", Text),
    ("-f", Text),
    ("-i", Flag),
    ("--ignore-case", Flag),
    ("-S", Flag),
    ("--smart-case", Flag),
    ("-F", Flag),
    ("--fixed-strings", Flag),
    ("-w", Flag),
    ("--word-regexp", Flag),
    ("-v", Flag),
    ("--invert-match", Flag),
    ("-c", Flag),
    ("--count", Flag),
    ("-l", Flag),
    ("--files-with-matches", Flag),
    ("--files-without-match", Flag),
    ("-n", Flag),
    ("--line-number", Flag),
    ("-o", Flag),
    ("--only-matching", Flag),
    ("-A", Number),
    ("--after-context", Number),
    ("-B", Number),
    ("--before-context", Number),
    ("-C", Number),
    ("--context", Number),
    ("-H", Flag),
    ("-h", Flag),
    ("--heading", Flag),
    ("--no-heading", Flag),
    ("-q", Flag),
    ("--quiet", Flag),
    ("--column", Flag),
    ("-g", Text),
    ("--glob", Text),
    ("-t", Text),
    ("--type", Text),
    ("-T", Text),
    ("--type-not", Text),
    ("--type-list", Flag),
    ("--hidden", Flag),
    ("--no-ignore", Flag),
    ("-u", Flag),
    ("-m", Number),
    ("--max-count", Number),
    ("-d", Number),
    ("--max-depth", Number),
    ("-a", Flag),
    ("--text", Flag),
    ("-L", Flag),
    ("--follow", Flag),
    ("--color", Text),
    ("--json", Flag),
    ("--stats", Flag),
    ("--help", Flag),
    ("--version", Flag),
    ("--debug", Flag),
];
const SORT: &[(&str, Arg)] = &[
    ("--ignore-leading-blanks", Flag),
    ("-b", Flag),
    ("--dictionary-order", Flag),
    ("-d", Flag),
    ("--ignore-case", Flag),
    ("-f", Flag),
    ("--general-numeric-sort", Flag),
    ("-g", Flag),
    ("--human-numeric-sort", Flag),
    ("-h", Flag),
    ("--ignore-nonprinting", Flag),
    ("-i", Flag),
    ("--month-sort", Flag),
    ("-M", Flag),
    ("--numeric-sort", Flag),
    ("-n", Flag),
    ("--random-sort", Flag),
    ("-R", Flag),
    ("--reverse", Flag),
    ("-r", Flag),
    ("--sort", Text),
    ("--stable", Flag),
    ("-s", Flag),
    ("--unique", Flag),
    ("-u", Flag),
    ("--version-sort", Flag),
    ("-V", Flag),
    ("--zero-terminated", Flag),
    ("-z", Flag),
    ("--key", Text),
    ("-k", Text),
    ("--field-separator", Text),
    ("-t", Text),
    ("--check", Flag),
    ("-c", Flag),
    ("--check-char-order", Flag),
    ("-C", Flag),
    ("--merge", Flag),
    ("-m", Flag),
    ("--buffer-size", Text),
    ("-S", Text),
    ("--parallel", Number),
    ("--batch-size", Number),
    ("--help", Flag),
    ("--version", Flag),
];
const XARGS: &[(&str, Arg)] = &[
    ("-I", Braces),
    ("-n", Number),
    ("-P", Number),
    ("-L", Number),
    ("-s", Number),
    ("-E", Eof),
    ("-0", Flag),
    ("-t", Flag),
    ("-r", Flag),
    ("-x", Flag),
    ("-d", Char),
];
const CHECKSUM: &[(&str, Arg)] = &[
    ("-b", Flag),
    ("--binary", Flag),
    ("-t", Flag),
    ("--text", Flag),
    ("-c", Flag),
    ("--check", Flag),
    ("--ignore-missing", Flag),
    ("--quiet", Flag),
    ("--status", Flag),
    ("--strict", Flag),
    ("-w", Flag),
    ("--warn", Flag),
    ("--tag", Flag),
    ("-z", Flag),
    ("--zero", Flag),
    ("--help", Flag),
    ("--version", Flag),
];

/// `xargs` may run only these (themselves read-only) commands.
const XARGS_TARGETS: &[&str] = &["echo", "printf", "wc", "grep", "egrep", "fgrep", "head", "tail"];

/// First match wins, so longer keys come before their prefixes (`git remote show` before
/// `git remote`), as in the CLI's table.
const FLAG_COMMANDS: &[FlagCommand] = &[
    FlagCommand {
        name: "git diff",
        flags: &[GIT_STAT, GIT_COLOR, GIT_DIFF],
        dangerous: Some(git_diff_dangerous),
    },
    FlagCommand {
        name: "git log",
        flags: &[
            GIT_LOG_DISPLAY,
            GIT_REFS,
            GIT_DATES,
            GIT_COUNT,
            GIT_STAT,
            GIT_COLOR,
            GIT_PATCH,
            GIT_AUTHOR,
            GIT_LOG,
        ],
        dangerous: Some(git_format_dangerous),
    },
    FlagCommand {
        name: "git show",
        flags: &[GIT_LOG_DISPLAY, GIT_STAT, GIT_COLOR, GIT_PATCH, GIT_SHOW],
        dangerous: Some(git_format_dangerous),
    },
    FlagCommand {
        name: "git shortlog",
        flags: &[GIT_SHORTLOG],
        dangerous: Some(git_format_dangerous),
    },
    FlagCommand {
        name: "git reflog",
        flags: &[],
        dangerous: Some(git_reflog_dangerous),
    },
    FlagCommand {
        name: "git stash list",
        flags: &[],
        dangerous: None,
    },
    FlagCommand {
        name: "git ls-remote",
        flags: &[GIT_LS_REMOTE],
        dangerous: Some(git_ls_remote_dangerous),
    },
    FlagCommand {
        name: "git status",
        flags: &[GIT_STATUS],
        dangerous: None,
    },
    FlagCommand {
        name: "git blame",
        flags: &[GIT_BLAME],
        dangerous: None,
    },
    FlagCommand {
        name: "git ls-files",
        flags: &[GIT_LS_FILES],
        dangerous: None,
    },
    FlagCommand {
        name: "git config --get",
        flags: &[GIT_CONFIG_GET],
        dangerous: None,
    },
    FlagCommand {
        name: "git remote show",
        flags: &[&[("-n", Flag)]],
        dangerous: Some(git_remote_show_dangerous),
    },
    FlagCommand {
        name: "git remote",
        flags: &[&[("-v", Flag), ("--verbose", Flag)]],
        dangerous: Some(git_remote_dangerous),
    },
    FlagCommand {
        name: "git merge-base",
        flags: &[GIT_MERGE_BASE],
        dangerous: None,
    },
    FlagCommand {
        name: "git rev-parse",
        flags: &[GIT_REV_PARSE],
        dangerous: None,
    },
    FlagCommand {
        name: "git rev-list",
        flags: &[GIT_REV_LIST],
        dangerous: Some(git_format_dangerous),
    },
    FlagCommand {
        name: "git describe",
        flags: &[GIT_DESCRIBE],
        dangerous: None,
    },
    FlagCommand {
        name: "git cat-file",
        flags: &[GIT_CAT_FILE],
        dangerous: None,
    },
    FlagCommand {
        name: "git for-each-ref",
        flags: &[GIT_FOR_EACH_REF],
        dangerous: Some(git_format_dangerous),
    },
    FlagCommand {
        name: "git grep",
        flags: &[GIT_GREP],
        dangerous: None,
    },
    FlagCommand {
        name: "git stash show",
        flags: &[GIT_STASH_SHOW],
        dangerous: None,
    },
    FlagCommand {
        name: "git worktree list",
        flags: &[GIT_WORKTREE_LIST],
        dangerous: None,
    },
    FlagCommand {
        name: "git tag",
        flags: &[GIT_TAG],
        dangerous: Some(git_tag_dangerous),
    },
    FlagCommand {
        name: "git branch",
        flags: &[GIT_BRANCH],
        dangerous: Some(git_branch_dangerous),
    },
    FlagCommand {
        name: "xargs",
        flags: &[XARGS],
        dangerous: None,
    },
    FlagCommand {
        name: "sort",
        flags: &[SORT],
        dangerous: None,
    },
    FlagCommand {
        name: "grep",
        flags: &[GREP],
        dangerous: None,
    },
    FlagCommand {
        name: "egrep",
        flags: &[GREP],
        dangerous: None,
    },
    FlagCommand {
        name: "fgrep",
        flags: &[GREP],
        dangerous: None,
    },
    FlagCommand {
        name: "rg",
        flags: &[RG],
        dangerous: None,
    },
    FlagCommand {
        name: "sha256sum",
        flags: &[CHECKSUM],
        dangerous: None,
    },
    FlagCommand {
        name: "sha1sum",
        flags: &[CHECKSUM],
        dangerous: None,
    },
    FlagCommand {
        name: "md5sum",
        flags: &[CHECKSUM],
        dangerous: None,
    },
];

fn flag_arg(command: &FlagCommand, flag: &str) -> Option<Arg> {
    command
        .flags
        .iter()
        .flat_map(|group| group.iter())
        .find(|(name, _)| *name == flag)
        .map(|(_, arg)| *arg)
}

/// Whether a command (its words after leading assignments and wrappers are removed, with no
/// redirections) is read-only by the CLI's list.
pub fn is_read_only(words: &[Word]) -> bool {
    if words.is_empty() {
        return false;
    }
    let text = words.iter().map(|w| w.raw.as_str()).collect::<Vec<_>>().join(" ");
    let argv: Vec<&str> = words.iter().map(|w| w.value.as_str()).collect();
    if flag_command_is_read_only(&argv, &text) {
        return true;
    }
    if !PATTERNS.iter().any(|re| re.is_match(&text)) && !find_is_read_only(&text) {
        return false;
    }
    if argv[0] == "jq"
        && argv[1..]
            .iter()
            .any(|a| JQ_DANGEROUS.as_ref().is_none_or(|re| re.is_match(a)))
    {
        return false;
    }
    let git_config_override = ["-c", "--exec-path", "--config-env"].iter().any(|flag| {
        argv.iter()
            .any(|a| a == flag || (a.starts_with(flag) && a[flag.len()..].starts_with('=')))
    });
    !(text.contains("git") && git_config_override)
}

fn find_is_read_only(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("find") else {
        return false;
    };
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return false;
    }
    let unescaped = rest.replace("\\(", "").replace("\\)", "");
    if unescaped.contains(['<', '>', '(', ')', '$', '`', '|', '{', '}', '&', ';', '\n', '\r']) {
        return false;
    }
    let bare = rest.replace(['\'', '"', '\\'], "");
    FIND_DANGEROUS.as_ref().is_some_and(|re| !re.is_match(&bare))
}

fn flag_command_is_read_only(argv: &[&str], text: &str) -> bool {
    let Some(command) = FLAG_COMMANDS.iter().find(|c| {
        let key: Vec<&str> = c.name.split(' ').collect();
        argv.len() >= key.len() && key.iter().zip(argv).all(|(k, a)| k == a)
    }) else {
        return false;
    };
    let start = command.name.split(' ').count();
    let args = &argv[start..];
    if args
        .iter()
        .any(|a| a.contains('$') || (a.contains('{') && (a.contains(',') || a.contains(".."))))
    {
        return false;
    }
    if text.contains('`') {
        return false;
    }
    let is_grep = matches!(argv[0], "grep" | "egrep" | "fgrep" | "rg");
    if is_grep && text.contains(['\n', '\r']) {
        return false;
    }
    flags_are_safe(command, argv, start) && !command.dangerous.is_some_and(|d| d(args))
}

fn looks_like_flag(arg: &str) -> bool {
    let mut chars = arg.chars();
    chars.next() == Some('-')
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn value_fits(value: &str, arg: Arg) -> bool {
    match arg {
        Flag => false,
        Number => !value.is_empty() && value.chars().all(|c| c.is_ascii_digit()),
        Text => true,
        Char => value.chars().count() == 1,
        Braces => value == "{}",
        Eof => value == "EOF",
    }
}

/// The CLI's flag walk: every flag must be listed, with a value of the listed kind; bundled
/// short flags must all take no value; positional words are free.
fn flags_are_safe(command: &FlagCommand, argv: &[&str], start: usize) -> bool {
    let name = argv[0];
    let mut i = start;
    while i < argv.len() {
        let word = argv[i];
        if word.is_empty() {
            i += 1;
            continue;
        }
        if name == "xargs" && (!word.starts_with('-') || word == "--") {
            let target = if word == "--" {
                argv.get(i + 1).copied()
            } else {
                Some(word)
            };
            return target.is_some_and(|t| XARGS_TARGETS.contains(&t));
        }
        if word == "--" {
            break;
        }
        if !(word.starts_with('-') && word.len() > 1) {
            i += 1;
            continue;
        }
        let (flag, inline_value) = match word.split_once('=') {
            Some((flag, value)) => (flag, Some(value)),
            None => (word, None),
        };
        if flag.is_empty() {
            return false;
        }
        let Some(arg) = flag_arg(command, flag) else {
            if name == "git" && flag.len() > 1 && flag[1..].chars().all(|c| c.is_ascii_digit()) {
                i += 1;
                continue;
            }
            let is_short_bundle = !flag.starts_with("--") && flag.chars().count() > 2;
            if matches!(name, "grep" | "egrep" | "fgrep" | "rg") && is_short_bundle && flag.is_char_boundary(2) {
                // `-A3`: a short flag with its number attached.
                let (short, rest) = flag.split_at(2);
                if let Some(kind @ (Number | Text)) = flag_arg(command, short) {
                    if rest.chars().all(|c| c.is_ascii_digit()) {
                        if !value_fits(rest, kind) {
                            return false;
                        }
                        i += 1;
                        continue;
                    }
                }
            }
            if is_short_bundle {
                let all_plain = flag[1..]
                    .chars()
                    .all(|c| flag_arg(command, &format!("-{c}")) == Some(Flag));
                if !all_plain {
                    return false;
                }
                i += 1;
                continue;
            }
            return false;
        };
        if arg == Flag {
            if inline_value.is_some() {
                return false;
            }
            i += 1;
            continue;
        }
        let value = match inline_value {
            Some(value) => {
                i += 1;
                value
            }
            None => {
                let Some(next) = argv.get(i + 1) else {
                    return false;
                };
                if looks_like_flag(next) {
                    return false;
                }
                i += 2;
                next
            }
        };
        let git_sort_exception =
            name == "git" && flag == "--sort" && value.chars().nth(1).is_some_and(|c| c.is_ascii_alphabetic());
        if arg == Text && value.starts_with('-') && !git_sort_exception {
            return false;
        }
        if !value_fits(value, arg) {
            return false;
        }
    }
    true
}

fn git_format_dangerous(args: &[&str]) -> bool {
    args.iter().any(|a| {
        GIT_SIGNATURE_FORMAT.as_ref().is_none_or(|re| re.is_match(a))
            || a.contains("signature")
            || a.starts_with('~')
            || a.contains("=~")
            || a.contains(":~")
    })
}

fn git_diff_dangerous(args: &[&str]) -> bool {
    let before_dashdash = args.iter().position(|a| *a == "--").map_or(args, |i| &args[..i]);
    let short_submodules = before_dashdash.contains(&"--submodule=short");
    args.iter().any(|a| {
        let name = a.split('=').next().unwrap_or(a);
        (name == "--submodule" && *a != "--submodule=short")
            || (name == "--ignore-submodules"
                && *a != "--ignore-submodules=all"
                && !(*a == "--ignore-submodules=dirty" && short_submodules))
    })
}

fn git_reflog_dangerous(args: &[&str]) -> bool {
    if let Some(first) = args.first() {
        if !first.starts_with('-') && !matches!(*first, "show" | "list") {
            return true;
        }
    }
    args.iter()
        .any(|a| matches!(*a, "expire" | "delete" | "exists" | "drop" | "write"))
}

fn git_ls_remote_dangerous(args: &[&str]) -> bool {
    if git_format_dangerous(args)
        || args
            .iter()
            .any(|a| *a == "-o" || *a == "--server-option" || a.starts_with("--server-option="))
    {
        return true;
    }
    // A positional argument names a remote or URL: contacting it is not read-only here.
    let mut after_dashdash = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if !after_dashdash && a == "--" {
            after_dashdash = true;
        } else if !after_dashdash && (a.is_empty() || a.starts_with('-')) {
            if a == "--sort" {
                i += 1;
            }
        } else {
            return true;
        }
        i += 1;
    }
    false
}

fn git_remote_show_dangerous(args: &[&str]) -> bool {
    let split = args.iter().position(|a| *a == "--");
    let (before, after) = match split {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &args[args.len()..]),
    };
    let rest: Vec<&str> = before.iter().filter(|a| **a != "-n").chain(after).copied().collect();
    let valid_name = |name: &str| {
        let mut chars = name.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    rest.len() != 1 || !before.contains(&"-n") || !valid_name(rest[0])
}

fn git_remote_dangerous(args: &[&str]) -> bool {
    args.iter().any(|a| *a != "-v" && *a != "--verbose")
}

/// `git tag NAME` and `git branch NAME` create refs; positional words are only read-only when
/// listing (or as the value of a filter flag).
fn listing_positional_dangerous(args: &[&str], value_flags: &[&str], filter_flags: &[&str]) -> bool {
    if git_format_dangerous(args) {
        return true;
    }
    let mut listing = false;
    let mut after_dashdash = false;
    let mut last_flag = "";
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if a.is_empty() {
            i += 1;
            continue;
        }
        if a == "--" && !after_dashdash {
            after_dashdash = true;
            last_flag = "";
            i += 1;
            continue;
        }
        if !after_dashdash && a.starts_with('-') {
            let bundled_list = !a.starts_with("--") && a.len() > 2 && !a.contains('=') && a[1..].contains('l');
            if a == "--list" || a == "-l" || bundled_list {
                listing = true;
            }
            if let Some((flag, _)) = a.split_once('=') {
                last_flag = flag;
                i += 1;
            } else if value_flags.contains(&a) {
                last_flag = a;
                i += 2;
            } else {
                last_flag = a;
                i += 1;
            }
            continue;
        }
        if !listing && !filter_flags.contains(&last_flag) {
            return true;
        }
        i += 1;
    }
    false
}

fn git_tag_dangerous(args: &[&str]) -> bool {
    listing_positional_dangerous(
        args,
        &[
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--points-at",
            "--sort",
            "--format",
            "-n",
        ],
        &[],
    )
}

fn git_branch_dangerous(args: &[&str]) -> bool {
    listing_positional_dangerous(
        args,
        &["--contains", "--no-contains", "--points-at", "--sort"],
        &["--merged", "--no-merged"],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::shell::split_commands;

    fn read_only(command: &str) -> bool {
        let cmds = split_commands(command);
        assert_eq!(cmds.len(), 1, "{command}");
        is_read_only(&cmds[0].words)
    }

    #[test]
    fn every_built_in_pattern_compiles() {
        assert_eq!(PATTERNS.len(), SIMPLE.len() + 18);
        assert!(FIND_DANGEROUS.is_some() && JQ_DANGEROUS.is_some() && GIT_SIGNATURE_FORMAT.is_some());
    }

    #[test]
    fn simple_commands_are_read_only() {
        for c in [
            "ls -la",
            "cat src/main.rs",
            "pwd",
            "wc -l a b",
            "echo hello 'world'",
            "head -n 5 x",
        ] {
            assert!(read_only(c), "{c}");
        }
        for c in ["pwd -P", "cat a $(b)", "touch x", "npm test", "rm -rf x"] {
            assert!(!read_only(c), "{c}");
        }
    }

    #[test]
    fn git_subcommands_check_their_flags() {
        for c in [
            "git status",
            "git status -s",
            "git log --oneline -n 5",
            "git log -5",
            "git diff --cached",
            "git branch",
            "git branch -a",
            "git show HEAD~1",
        ] {
            assert!(read_only(c), "{c}");
        }
        for c in [
            "git push",
            "git branch feature",
            "git tag v1",
            "git log --output=x",
            "git diff --ext-diff",
            "git -c x=y status",
            "git remote add o u",
        ] {
            assert!(!read_only(c), "{c}");
        }
    }

    #[test]
    fn grep_and_find_are_checked() {
        assert!(read_only("grep -rn foo src"));
        assert!(read_only("grep -A3 foo x"));
        assert!(read_only("rg -i foo"));
        assert!(!read_only("grep --unknown foo"));
        assert!(read_only("find . -name '*.rs'"));
        assert!(!read_only("find . -name '*.rs' -delete"));
        assert!(!read_only("find . -exec rm {} \\;"));
    }

    #[test]
    fn xargs_only_runs_read_only_targets() {
        assert!(read_only("xargs grep foo"));
        assert!(read_only("xargs -0 wc -l"));
        assert!(!read_only("xargs rm"));
    }
}
