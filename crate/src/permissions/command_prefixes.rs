//! What runs behind a command's prefixes: leading `NAME=value` assignments, wrappers such as
//! `timeout 30` or `nohup`, runners such as `sudo` or `xargs`, and inline scripts (`bash -c`,
//! `eval`). Rules are matched against the command with these removed.

use super::shell::{SimpleCommand, Word};

/// Variables whose assignment in front of a command does not change what the command may do.
const SAFE_ENV_VARS: &[&str] = &[
    "GOEXPERIMENT",
    "GOOS",
    "GOARCH",
    "CGO_ENABLED",
    "GO111MODULE",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "NODE_ENV",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    "PYTEST_DEBUG",
    "ANTHROPIC_API_KEY",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_TIME",
    "CHARSET",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "TZ",
    "LS_COLORS",
    "LSCOLORS",
    "GREP_COLOR",
    "GREP_COLORS",
    "GCC_COLORS",
    "TIME_STYLE",
    "BLOCK_SIZE",
    "BLOCKSIZE",
    "COLUMNS",
    "LINES",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "CI",
    "DEBIAN_FRONTEND",
    "GIT_TERMINAL_PROMPT",
];

/// Programs that run another program; a rule suggestion never stops at them.
pub(super) const RUNNERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "fish",
    "csh",
    "tcsh",
    "ksh",
    "mksh",
    "dash",
    "ash",
    "hush",
    "rbash",
    "rsh",
    "busybox",
    "toybox",
    "wsl",
    "cmd",
    "powershell",
    "pwsh",
    "env",
    "xargs",
    "command",
    "builtin",
    "noglob",
    "nice",
    "stdbuf",
    "nohup",
    "timeout",
    "time",
    "watch",
    "ionice",
    "chrt",
    "setsid",
    "taskset",
    "strace",
    "ltrace",
    "script",
    "flock",
    "unshare",
    "nsenter",
    "sandbox-exec",
    "sudo",
    "doas",
    "pkexec",
    "su",
    "runuser",
];

/// `NAME=value` (or `NAME+=value`) in raw form; returns the name, whether it appends, and the
/// raw value.
pub(super) fn assignment(word: &Word) -> Option<(&str, bool, &str)> {
    let (name, value) = word.raw.split_once('=')?;
    let (name, append) = match name.strip_suffix('+') {
        Some(name) => (name, true),
        None => (name, false),
    };
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some((name, append, value))
}

fn is_path_like(value: &str) -> bool {
    let starts_pathy = value.trim_start_matches(['.', '~']).starts_with(['/', '\\']);
    let parent = value.split(['/', '\\']).any(|part| part == "..");
    starts_pathy || value.contains("//") || value.contains(":/") || value.contains(":.") || parent
}

/// A harmless assignment: a listed variable with a plain, non-path value.
pub(super) fn is_safe_assignment(word: &Word) -> bool {
    let Some((name, append, value)) = assignment(word) else {
        return false;
    };
    !append
        && SAFE_ENV_VARS.contains(&name)
        && !value.is_empty()
        && value.chars().all(|c| c.is_ascii_alphanumeric() || "_./:-".contains(c))
        && !is_path_like(value)
}

/// The words after leading assignments and wrapper programs (`timeout 30`, `time`,
/// `nice -n 5`, `stdbuf -oL`, `nohup`, `command`, `builtin`, `noglob`). For allow rules only
/// harmless assignments go; for deny and ask rules (`for_denial`) every assignment goes, and so
/// do programs that run another one (`sudo`, `env`, `xargs`, …), so `sudo rm -rf x` still hits
/// `Bash(rm:*)`.
pub(super) fn strip_prefixes(words: &[Word], for_denial: bool) -> &[Word] {
    let mut rest = words;
    loop {
        let before = rest.len();
        while let Some((first, tail)) = rest.split_first() {
            let strip = if for_denial {
                assignment(first).is_some()
            } else {
                is_safe_assignment(first)
            };
            if !strip {
                break;
            }
            rest = tail;
        }
        rest = strip_wrapper(rest);
        if for_denial {
            rest = strip_runner(rest);
        }
        if rest.len() == before {
            return rest;
        }
    }
}

/// Programs that run the rest of their arguments as a command, with their options that take a
/// value (from the CLI's table).
const COMMAND_RUNNERS: &[(&str, &[&str])] = &[
    (
        "sudo",
        &[
            "-u",
            "-g",
            "-U",
            "-C",
            "-D",
            "-h",
            "-p",
            "-r",
            "-R",
            "-t",
            "-T",
            "-a",
            "--user",
            "--group",
            "--other-user",
            "--close-from",
            "--chdir",
            "--host",
            "--prompt",
            "--role",
            "--chroot",
            "--type",
            "--command-timeout",
            "--auth-type",
        ],
    ),
    ("doas", &["-a", "-u", "-C"]),
    ("env", &["-u", "-C", "--unset", "--chdir"]),
    ("pkexec", &["--user"]),
    ("setsid", &[]),
    (
        "ionice",
        &[
            "-c",
            "-n",
            "-p",
            "-P",
            "-u",
            "--class",
            "--classdata",
            "--pid",
            "--pgid",
            "--uid",
        ],
    ),
    ("watch", &["-n", "--interval"]),
    ("xargs", &["-I", "-n", "-P", "-L", "-s", "-E", "-d", "-a"]),
];

fn strip_runner(words: &[Word]) -> &[Word] {
    let Some(first) = words.first() else {
        return words;
    };
    let program = first.value.rsplit('/').next().unwrap_or("");
    let Some((_, value_options)) = COMMAND_RUNNERS.iter().find(|(name, _)| *name == program) else {
        return words;
    };
    let mut i = 1;
    while let Some(word) = words.get(i) {
        let v = word.value.as_str();
        if v == "--" {
            i += 1;
            break;
        }
        if !(v.starts_with('-') && v.len() > 1) {
            break;
        }
        i += if value_options.contains(&v) { 2 } else { 1 };
    }
    if i >= words.len() {
        return words;
    }
    &words[i..]
}

/// Shell code a command runs from its arguments (`bash -c '…'`, `eval …`), for deny and ask
/// rules.
pub(super) fn inline_scripts(command: &SimpleCommand) -> Vec<String> {
    let words = strip_prefixes(&command.words, true);
    let Some((program, args)) = words.split_first() else {
        return Vec::new();
    };
    let program = program.value.rsplit('/').next().unwrap_or("");
    if program == "eval" {
        return vec![args.iter().map(|w| w.value.as_str()).collect::<Vec<_>>().join(" ")];
    }
    if !matches!(
        program,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" | "fish" | "mksh"
    ) {
        return Vec::new();
    }
    let runs_string = |v: &str| v.starts_with('-') && !v.starts_with("--") && v[1..].contains('c');
    args.iter()
        .position(|w| runs_string(&w.value))
        .and_then(|i| args.get(i + 1))
        .map(|script| vec![script.value.clone()])
        .unwrap_or_default()
}

fn strip_wrapper(words: &[Word]) -> &[Word] {
    let values: Vec<&str> = words.iter().map(|w| w.value.as_str()).collect();
    let Some(&program) = values.first() else {
        return words;
    };
    if words[0].raw != program {
        return words;
    }
    let skip_dashdash = |i: usize| if values.get(i) == Some(&"--") { i + 1 } else { i };
    let not_a_flag = |i: usize| values.get(i).is_some_and(|v| !v.starts_with('-'));
    let is_duration = |v: &str| {
        let digits = v.trim_end_matches(['s', 'm', 'h', 'd']);
        let mut parts = digits.splitn(2, '.');
        let whole = parts.next().unwrap_or("");
        let frac = parts.next();
        !whole.is_empty()
            && whole.chars().all(|c| c.is_ascii_digit())
            && frac.is_none_or(|f| !f.is_empty() && f.chars().all(|c| c.is_ascii_digit()))
            && v.len() - digits.len() <= 1
    };
    let skip = match program {
        "time" | "nohup" => skip_dashdash(1),
        "noglob" => 1,
        "builtin" => skip_dashdash(1),
        "command" => {
            let mut i = 1;
            while values
                .get(i)
                .is_some_and(|v| v.len() > 1 && v.starts_with('-') && v[1..].chars().all(|c| c == 'p'))
            {
                i += 1;
            }
            skip_dashdash(i)
        }
        "nice" => {
            let i = match values.get(1) {
                Some(&"-n")
                    if values
                        .get(2)
                        .is_some_and(|v| v.trim_start_matches('-').parse::<u32>().is_ok()) =>
                {
                    3
                }
                Some(v) if v.len() > 1 && v.starts_with('-') && v[1..].parse::<u32>().is_ok() => 2,
                _ => 1,
            };
            skip_dashdash(i)
        }
        "stdbuf" => {
            let mut i = 1;
            while values.get(i).is_some_and(|v| {
                let b = v.as_bytes();
                b.len() > 2
                    && b[0] == b'-'
                    && matches!(b[1], b'i' | b'o' | b'e')
                    && b[2..].iter().all(|c| matches!(c, b'L' | b'N' | b'0'..=b'9'))
            }) {
                i += 1;
            }
            if i == 1 {
                return words;
            }
            skip_dashdash(i)
        }
        "timeout" => {
            let mut i = 1;
            loop {
                let Some(v) = values.get(i) else {
                    return words;
                };
                let plain_value =
                    |v: &str| !v.is_empty() && v.chars().all(|c| c.is_ascii_alphanumeric() || "_.+-".contains(c));
                let lone_option = matches!(*v, "--foreground" | "--preserve-status" | "--verbose" | "-v")
                    || v.starts_with("--kill-after=")
                    || v.starts_with("--signal=");
                if lone_option {
                    i += 1;
                } else if matches!(*v, "--kill-after" | "--signal" | "-k" | "-s")
                    && values.get(i + 1).is_some_and(|n| plain_value(n))
                {
                    i += 2;
                } else if (v.starts_with("-k") || v.starts_with("-s")) && v.len() > 2 && plain_value(&v[2..]) {
                    i += 1;
                } else if *v == "--" {
                    i += 1;
                    break;
                } else if v.starts_with('-') {
                    return words;
                } else {
                    break;
                }
            }
            match values.get(i) {
                Some(v) if is_duration(v) => i + 1,
                _ => return words,
            }
        }
        _ => return words,
    };
    let requires_program_after = matches!(program, "command" | "builtin" | "noglob");
    if skip >= words.len() || (requires_program_after && !not_a_flag(skip)) {
        return words;
    }
    &words[skip..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::shell::split_commands;

    fn one(command: &str) -> SimpleCommand {
        split_commands(command).remove(0)
    }

    #[test]
    fn inline_scripts_are_found() {
        assert_eq!(inline_scripts(&one("bash -c 'rm -rf x; ls'")), vec!["rm -rf x; ls"]);
        assert_eq!(inline_scripts(&one("sudo sh -ec \"rm y\"")), vec!["rm y"]);
        assert_eq!(inline_scripts(&one("eval rm -rf z")), vec!["rm -rf z"]);
        assert!(inline_scripts(&one("bash script.sh")).is_empty());
    }
}
