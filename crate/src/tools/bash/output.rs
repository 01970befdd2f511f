//! How Bash's results read: the built-in's clean-up and truncation of output, which exit codes are
//! failures, and its duration and timestamp formats.

/// The built-in's stdout clean-up: leading blank lines and trailing whitespace go.
pub(super) fn trim_stdout(stdout: &str) -> &str {
    let mut start = 0;
    while let Some(i) = stdout[start..].find('\n') {
        if stdout[start..start + i].trim().is_empty() {
            start += i + 1;
        } else {
            break;
        }
    }
    stdout[start..].trim_end()
}

pub(super) fn join_lines<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Cut text longer than `max` characters to its head and tail, at line breaks where there are
/// some, with the built-in's note saying how many lines were left out in between.
pub fn truncate_middle(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_string();
    }
    let half = max / 2;
    let head_end = text.char_indices().nth(half).map_or(text.len(), |(i, _)| i);
    let tail_start = text.char_indices().nth(total - half).map_or(text.len(), |(i, _)| i);
    // Prefer whole lines when a line break falls within the last quarter of each part.
    let head_end = match text[..head_end].rfind('\n') {
        Some(i) if i >= head_end - head_end / 4 => i,
        _ => head_end,
    };
    let tail_len = text.len() - tail_start;
    let tail_start = match text[tail_start..].find('\n') {
        Some(i) if i <= tail_len / 4 => tail_start + i + 1,
        _ => tail_start,
    };
    let cut = &text[head_end..tail_start];
    let cut_lines = cut.trim_matches('\n').split('\n').count();
    format!(
        "{}\n\n... [{cut_lines} lines truncated] ...\n\n{}",
        &text[..head_end],
        &text[tail_start..]
    )
}

pub(super) struct ExitSemantics {
    pub(super) is_error: bool,
    pub(super) interpretation: Option<&'static str>,
}

/// Exit codes that are not failures for some commands, judged by the last command of the line as
/// the built-in does: `grep` finding nothing, `diff` finding differences, a false `test`.
pub(super) fn exit_semantics(command: &str, exit_code: Option<i32>) -> ExitSemantics {
    let Some(code) = exit_code else {
        return ExitSemantics {
            is_error: true,
            interpretation: None,
        };
    };
    let parts = split_subcommands(command);
    let last = parts.last().map(String::as_str).unwrap_or(command);
    let words: Vec<&str> = last.split_whitespace().collect();
    let program = words.first().copied().unwrap_or("");
    let meaning_of_one = match program {
        "grep" | "rg" | "egrep" | "fgrep" => Some("No matches found"),
        "find" => Some("Some directories were inaccessible"),
        "diff" => Some("Files differ"),
        "test" | "[" => Some("Condition is false"),
        "git" => match git_subcommand(&words) {
            Some("grep") => Some("No matches found"),
            Some("diff") => Some("Files differ"),
            _ => None,
        },
        _ => None,
    };
    match meaning_of_one {
        Some(meaning) => ExitSemantics {
            is_error: !(0..2).contains(&code),
            interpretation: (code == 1).then_some(meaning),
        },
        None => ExitSemantics {
            is_error: code != 0,
            interpretation: None,
        },
    }
}

fn git_subcommand<'a>(words: &[&'a str]) -> Option<&'a str> {
    let mut i = 1;
    while let Some(word) = words.get(i) {
        if word.starts_with('-') {
            if *word == "-C" || *word == "-c" {
                i += 1;
            }
            i += 1;
            continue;
        }
        return Some(word);
    }
    None
}

/// Commands that print nothing when they succeed; the UI shows "no output" as expected for them.
pub(super) fn no_output_expected(command: &str) -> bool {
    const SILENT: [&str; 14] = [
        "mv", "cp", "rm", "mkdir", "rmdir", "chmod", "chown", "chgrp", "touch", "ln", "cd", "export", "unset", "wait",
    ];
    let parts = split_subcommands(command);
    !parts.is_empty()
        && parts
            .iter()
            .all(|p| p.split_whitespace().next().is_some_and(|w| SILENT.contains(&w)))
}

/// Split a command line at `&&`, `||`, `;`, `|`, `&` and line breaks outside quotes.
fn split_subcommands(command: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), _) if c == q => {
                quote = None;
                current.push(c);
            }
            (Some('"'), '\\') | (None, '\\') => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            (Some(_), _) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                current.push(c);
            }
            (None, ';' | '|' | '&' | '\n') => {
                if matches!(chars.peek(), Some('&' | '|')) && c != ';' && c != '\n' {
                    chars.next();
                }
                parts.push(std::mem::take(&mut current));
            }
            (None, _) => current.push(c),
        }
    }
    parts.push(current);
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The built-in's duration format: `45s`, `2m 0s`, `1h 0m 0s`, `1d 2h 3m`.
pub(super) fn format_duration(ms: u64) -> String {
    if ms < 60_000 {
        return format!("{}s", ms / 1000);
    }
    let mut days = ms / 86_400_000;
    let mut hours = ms % 86_400_000 / 3_600_000;
    let mut minutes = ms % 3_600_000 / 60_000;
    let mut seconds = (ms % 60_000 + 500) / 1000;
    if seconds == 60 {
        seconds = 0;
        minutes += 1;
    }
    if minutes == 60 {
        minutes = 0;
        hours += 1;
    }
    if hours == 24 {
        hours = 0;
        days += 1;
    }
    if days > 0 {
        format!("{days}d {hours}h {minutes}m")
    } else if hours > 0 {
        format!("{hours}h {minutes}m {seconds}s")
    } else {
        format!("{minutes}m {seconds}s")
    }
}

/// `2025-12-02T20:59:39.891Z` for milliseconds since the Unix epoch (JavaScript's toISOString).
pub fn iso_timestamp(ms: f64) -> String {
    let ms = if ms.is_finite() && ms > 0.0 { ms as u64 } else { 0 };
    let days = ms / 86_400_000;
    let in_day = ms % 86_400_000;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day % 3_600_000 / 60_000,
        in_day % 60_000 / 1000,
        in_day % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duration_matches_the_cli_format() {
        assert_eq!(format_duration(5_000), "5s");
        assert_eq!(format_duration(120_000), "2m 0s");
        assert_eq!(format_duration(600_000), "10m 0s");
        assert_eq!(format_duration(3_661_000), "1h 1m 1s");
        assert_eq!(format_duration(90_061_000), "1d 1h 1m");
    }

    #[test]
    fn iso_timestamp_matches_javascript() {
        assert_eq!(iso_timestamp(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_timestamp(1_764_709_179_891.0), "2025-12-02T20:59:39.891Z");
        assert_eq!(iso_timestamp(951_782_400_000.0), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn exit_one_of_grep_and_diff_is_not_an_error() {
        let grep = exit_semantics("cd src && grep -r foo .", Some(1));
        assert!(!grep.is_error);
        assert_eq!(grep.interpretation, Some("No matches found"));
        assert!(exit_semantics("grep foo x", Some(2)).is_error);
        assert!(!exit_semantics("git -C repo diff --quiet", Some(1)).is_error);
        assert!(exit_semantics("grep foo x | wc -l; false", Some(1)).is_error);
        assert!(exit_semantics("ls", None).is_error);
    }

    #[test]
    fn subcommands_split_outside_quotes_only() {
        assert_eq!(
            split_subcommands("a && b || c; d | e & f\ng"),
            vec!["a", "b", "c", "d", "e", "f", "g"]
        );
        assert_eq!(
            split_subcommands("echo 'a && b' \"c|d\" e\\;f"),
            vec!["echo 'a && b' \"c|d\" e\\;f"]
        );
        assert!(no_output_expected("mkdir -p x && cd x"));
        assert!(!no_output_expected("mkdir x && ls"));
    }

    #[test]
    fn truncate_middle_keeps_head_and_tail_and_counts_lines() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let cut = truncate_middle(&text, 200);
        assert!(cut.starts_with("line 0\n"), "{cut}");
        assert!(cut.ends_with("line 999\n"), "{cut}");
        let kept_lines = cut.lines().filter(|l| l.starts_with("line ")).count();
        let note = cut.lines().find(|l| l.contains("lines truncated")).unwrap_or_default();
        assert_eq!(note, format!("... [{} lines truncated] ...", 1000 - kept_lines));
    }

    #[test]
    fn truncate_middle_cuts_multibyte_text_at_char_boundaries() {
        let text = "é".repeat(100);
        let cut = truncate_middle(&text, 10);
        assert!(cut.starts_with("ééééé\n\n... [1 lines truncated] ..."), "{cut}");
        assert!(cut.ends_with("ééééé"));
    }
}
