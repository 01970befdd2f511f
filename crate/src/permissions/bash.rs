//! Bash rule contents and how they match one simple command, following the CLI:
//! `cmd:*` is a prefix rule on word boundaries, content with an unescaped `*` is a wildcard
//! pattern, anything else must match exactly. Commands are compared with their redirections
//! left out, and also with leading `NAME=value` assignments and wrappers such as `timeout 30` or
//! `nohup` removed: for allow rules only the assignments of the CLI's harmless variables
//! (`NODE_ENV=test`), for deny and ask rules every assignment and runners such as `sudo`, so
//! `FOO=1 sudo rm -rf x` still hits `Bash(rm:*)`.

use super::command_prefixes::{assignment, is_safe_assignment, strip_prefixes, RUNNERS};
use super::rules::Rule;
use super::shell::{SimpleCommand, Word};
use regex::Regex;

#[derive(Clone, Debug)]
pub enum BashPattern {
    Exact(String),
    Prefix(String),
    Wildcard(Regex),
}

/// The commands acceptEdits mode runs without asking (inside the working directories).
pub const ACCEPT_EDITS_COMMANDS: &[&str] = &["mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"];

impl BashPattern {
    pub fn compile(content: &str) -> Result<BashPattern, String> {
        if let Some(prefix) = content.strip_suffix(":*") {
            return Ok(BashPattern::Prefix(squeeze_blanks(prefix.trim())));
        }
        if !has_unescaped_star(content) {
            return Ok(BashPattern::Exact(content.to_string()));
        }
        let pattern = content.trim();
        let mut body = String::new();
        let mut stars = 0;
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, chars.peek()) {
                ('\\', Some('*')) => {
                    body.push_str(r"\*");
                    chars.next();
                }
                ('\\', Some('\\')) => {
                    body.push_str(r"\\");
                    chars.next();
                }
                ('*', _) => {
                    body.push_str(".*");
                    stars += 1;
                }
                _ => body.push_str(&regex::escape(&c.to_string())),
            }
        }
        // `git *` also matches a bare `git`, as in the CLI.
        if stars == 1 && body.ends_with(" .*") {
            body.truncate(body.len() - 3);
            body.push_str("( .*)?");
        }
        Regex::new(&format!("(?s)^{body}$"))
            .map(BashPattern::Wildcard)
            .map_err(|e| e.to_string())
    }

    /// Match against a whole command line (exact rules only; prefix and wildcard rules never
    /// match a compound command as a whole).
    pub fn matches_line(&self, line: &str) -> bool {
        matches!(self, BashPattern::Exact(exact) if exact == line)
    }

    /// Match against one simple command, `for_denial` when matching deny and ask rules (see
    /// [`strip_prefixes`]).
    pub fn matches_command(&self, command: &SimpleCommand, for_denial: bool) -> bool {
        let forms = command_forms(command, for_denial);
        match self {
            BashPattern::Exact(exact) => command.text == *exact || forms.iter().any(|f| f == exact),
            BashPattern::Prefix(prefix) => forms.iter().any(|form| {
                let form = squeeze_blanks(form);
                let xargs = format!("xargs {prefix}");
                [prefix.as_str(), xargs.as_str()]
                    .iter()
                    .any(|p| form == *p || form.starts_with(&format!("{p} ")))
            }),
            BashPattern::Wildcard(re) => forms.iter().any(|form| re.is_match(form)),
        }
    }
}

fn has_unescaped_star(text: &str) -> bool {
    let mut escaped = false;
    for c in text.chars() {
        if c == '*' && !escaped {
            return true;
        }
        escaped = c == '\\' && !escaped;
    }
    false
}

fn squeeze_blanks(text: &str) -> String {
    text.split([' ', '\t'])
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn join_raw(words: &[Word]) -> String {
    words.iter().map(|w| w.raw.as_str()).collect::<Vec<_>>().join(" ")
}

/// The spellings of a command that rules are compared with: its words without redirections,
/// the same with assignments and wrappers removed, and each with the program name unquoted.
fn command_forms(command: &SimpleCommand, for_denial: bool) -> Vec<String> {
    let mut forms = vec![command.joined()];
    let stripped = strip_prefixes(&command.words, for_denial);
    for words in [&command.words[..], stripped] {
        forms.push(join_raw(words));
        if let Some((first, rest)) = words.split_first() {
            let mut unquoted = vec![first.value.clone()];
            unquoted.extend(rest.iter().map(|w| w.raw.clone()));
            forms.push(unquoted.join(" "));
        }
    }
    forms.dedup();
    forms
}

/// The rule "Always allow" offers for a command, as the CLI builds it: the program and a
/// subcommand-looking second word as a prefix (`npm run:*`, `cargo test:*`), else the exact
/// command.
pub fn suggested_rule(command: &SimpleCommand) -> Rule {
    let text = command.text.as_str();
    if let Some(at) = text.find("<<") {
        if let Some(prefix) = heredoc_prefix(text[..at].trim()) {
            return Rule::with_content("Bash", &format!("{prefix}:*"));
        }
    }
    if text.contains('\n') {
        let first_line = text.lines().next().unwrap_or("").trim();
        if !first_line.is_empty() {
            let prefix = two_word_prefix(first_line).unwrap_or_else(|| first_line.to_string());
            return Rule::with_content("Bash", &format!("{prefix}:*"));
        }
    }
    match two_word_prefix(text) {
        Some(prefix) => Rule::with_content("Bash", &format!("{prefix}:*")),
        None => Rule::with_content("Bash", text),
    }
}

/// Whitespace-separated tokens after leading harmless assignments; None when an assignment is
/// not harmless (the suggestion then names the exact command).
fn tokens_after_assignments(text: &str) -> Option<Vec<&str>> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let mut start = 0;
    while let Some(token) = tokens.get(start) {
        let word = Word {
            raw: token.to_string(),
            value: token.to_string(),
        };
        if assignment(&word).is_none() {
            break;
        }
        if !is_safe_assignment(&word) {
            return None;
        }
        start += 1;
    }
    Some(tokens[start..].to_vec())
}

fn is_runner(program: &str) -> bool {
    RUNNERS.contains(&program.rsplit('/').next().unwrap_or(program))
}

fn looks_like_subcommand(word: &str) -> bool {
    let mut parts = word.split('-');
    let first = parts.next().unwrap_or("");
    let first_ok = first.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && first.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    first_ok && parts.all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()))
}

fn two_word_prefix(text: &str) -> Option<String> {
    let tokens = tokens_after_assignments(text)?;
    if tokens.len() < 2 || is_runner(tokens[0]) || !looks_like_subcommand(tokens[1]) {
        return None;
    }
    Some(tokens[..2].join(" "))
}

fn heredoc_prefix(before: &str) -> Option<String> {
    if before.is_empty() {
        return None;
    }
    if let Some(prefix) = two_word_prefix(before) {
        return Some(prefix);
    }
    let tokens = tokens_after_assignments(before)?;
    let first = tokens.first()?;
    if is_runner(first) {
        return None;
    }
    Some(tokens.iter().take(2).copied().collect::<Vec<_>>().join(" "))
}

/// Whether acceptEdits mode runs this command without asking (the CLI's list; `touch` only
/// with plain file arguments and nothing stripped in front).
pub fn is_accept_edits_command(command: &SimpleCommand) -> bool {
    let effective = strip_prefixes(&command.words, false);
    let Some(program) = effective.first() else {
        return false;
    };
    if !ACCEPT_EDITS_COMMANDS.contains(&program.value.as_str()) {
        return false;
    }
    if program.value == "touch" {
        let stripped = effective.len() != command.words.len();
        let plain_args = effective[1..].iter().all(|w| {
            let raw = w.raw.trim_start_matches(['\'', '"']);
            raw.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || "_./~".contains(c))
        });
        return !stripped && plain_args;
    }
    true
}

/// The arguments of a command that name files, for the check that they stay inside the working
/// directories: positional words and `--flag=value` values, leaving out the text of `echo`, the
/// pattern of grep-like commands and the script of `sed`.
pub fn path_arguments(words: &[Word]) -> Vec<&str> {
    let Some((program, args)) = words.split_first() else {
        return Vec::new();
    };
    let program = program.value.as_str();
    if matches!(program, "echo" | "printf") {
        return Vec::new();
    }
    let mut args: Vec<&Word> = args.iter().collect();
    let git_subcommand = if program == "git" && !args.is_empty() {
        Some(args.remove(0).value.as_str())
    } else {
        None
    };
    let pattern_flags: &[&str] = match (program, git_subcommand) {
        ("grep" | "egrep" | "fgrep" | "rg", _) | ("git", Some("grep")) => &["-e", "--regexp", "-f", "--file"],
        ("sed", _) => &["-e", "--expression", "-f", "--file"],
        ("jq", _) => &["-f", "--from-file"],
        _ => &[],
    };
    let first_is_pattern = !pattern_flags.is_empty()
        && !args.iter().any(|w| {
            pattern_flags
                .iter()
                .any(|f| w.value == *f || w.value.starts_with(&format!("{f}=")))
        });
    let mut out = Vec::new();
    let mut skipped_pattern = !first_is_pattern;
    let mut after_dashdash = false;
    let mut skip_next = false;
    for word in args {
        let value = word.value.as_str();
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if !after_dashdash && value == "--" {
            after_dashdash = true;
            continue;
        }
        if !after_dashdash && value.starts_with('-') && value.len() > 1 {
            // The pattern given with -e is not a path (a file given with -f is).
            skip_next = !pattern_flags.is_empty() && matches!(value, "-e" | "--regexp" | "--expression");
            if let Some((_, v)) = value.split_once('=') {
                if v.starts_with(['/', '~']) {
                    out.push(v);
                }
            }
            continue;
        }
        if !skipped_pattern {
            skipped_pattern = true;
            continue;
        }
        out.push(value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::shell::split_commands;

    fn one(command: &str) -> SimpleCommand {
        split_commands(command).remove(0)
    }

    fn matches(content: &str, command: &str) -> bool {
        BashPattern::compile(content)
            .unwrap()
            .matches_command(&one(command), false)
    }

    #[test]
    fn prefix_rules_match_on_word_boundaries() {
        assert!(matches("npm run test:*", "npm run test"));
        assert!(matches("npm run test:*", "npm run test -- --watch"));
        assert!(!matches("npm run test:*", "npm run test:unit"));
        assert!(!matches("npm run test:*", "npm run testing"));
        assert!(matches("npm run test:*", "npm  run   test"));
    }

    #[test]
    fn exact_rules_match_only_the_same_command() {
        assert!(matches("npm --version", "npm --version"));
        assert!(!matches("npm --version", "npm --version --json"));
    }

    #[test]
    fn wildcard_rules() {
        assert!(matches("git *", "git status"));
        assert!(matches("git *", "git"));
        assert!(matches("docker * --rm", "docker run --rm"));
        assert!(!matches("docker * --rm", "docker run"));
        assert!(matches(r"ls \* *", "ls * -la"));
        assert!(!matches(r"ls \* *", "ls a -la"));
    }

    #[test]
    fn harmless_assignments_and_wrappers_are_stripped() {
        assert!(matches("npm test:*", "NODE_ENV=test npm test"));
        assert!(!matches("npm test:*", "FOO=1 npm test"));
        assert!(matches("npm test:*", "timeout 60 npm test"));
        let deny = BashPattern::compile("rm:*").unwrap();
        assert!(deny.matches_command(&one("FOO=1 rm -rf x"), true));
        assert!(deny.matches_command(&one("sudo -u root env A=1 rm -rf x"), true));
        assert!(!BashPattern::compile("npm test:*")
            .unwrap()
            .matches_command(&one("sudo npm test"), false));
    }

    #[test]
    fn suggestions_follow_the_cli() {
        let rule = |c: &str| suggested_rule(&one(c)).to_string();
        assert_eq!(rule("npm run test:unit"), "Bash(npm run:*)");
        assert_eq!(rule("cargo test --lib"), "Bash(cargo test:*)");
        assert_eq!(rule("npm --version"), "Bash(npm --version)");
        assert_eq!(rule("touch made-by-bash.txt"), "Bash(touch made-by-bash.txt)");
        assert_eq!(rule("NODE_ENV=test npm run build"), "Bash(npm run:*)");
        assert_eq!(rule("sudo apt install x"), "Bash(sudo apt install x)");
    }

    #[test]
    fn touch_needs_plain_arguments_in_accept_edits() {
        assert!(is_accept_edits_command(&one("mkdir -p a/b")));
        assert!(is_accept_edits_command(&one("touch a.txt")));
        assert!(!is_accept_edits_command(&one("touch -d yesterday a")));
        assert!(!is_accept_edits_command(&one("npm install")));
    }

    #[test]
    fn path_arguments_skip_patterns_and_flags() {
        let args = |c: &str| {
            path_arguments(&one(c).words)
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(args("grep -rn /api src"), vec!["src"]);
        assert_eq!(args("grep -e /api /etc"), vec!["/etc"]);
        assert_eq!(args("cat a /etc/passwd"), vec!["a", "/etc/passwd"]);
        assert_eq!(args("sed -i s/a/b/ f.txt"), vec!["f.txt"]);
        assert!(args("echo /etc/passwd").is_empty());
    }
}
