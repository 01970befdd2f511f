//! Matchers as Claude Code 2.1.330 reads them: none, empty or `*` matches everything; a plain
//! list of names (`Edit|Write`; for events that name things also `Edit, Write`) matches those
//! names exactly; anything else is a regular expression, unanchored (`Notebook.*`, `^Bash$`).
//! An invalid expression matches nothing.

use super::HookEvent;
use regex::Regex;

/// Whether `matcher` selects `subject` (the event's tool name, source, type…). An event without
/// a subject (UserPromptSubmit, Stop) runs every group.
pub fn matches(event: HookEvent, matcher: Option<&str>, subject: Option<&str>) -> bool {
    let Some(matcher) = matcher.filter(|m| !m.is_empty() && *m != "*") else {
        return true;
    };
    let Some(subject) = subject else {
        return true;
    };
    if let Some(names) = name_list(matcher, event.lists_names_loosely()) {
        return names.contains(&subject);
    }
    Regex::new(matcher).is_ok_and(|pattern| pattern.is_match(subject))
}

/// The names of a matcher that is a plain list of them; None for a regular expression.
fn name_list(matcher: &str, loose: bool) -> Option<Vec<&str>> {
    let plain = matcher
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|' || (loose && (c == ',' || c == ' ' || c == '-')));
    if !plain {
        return None;
    }
    let separators: &[char] = if loose { &['|', ','] } else { &['|'] };
    Some(
        matcher
            .split(separators)
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .collect(),
    )
}
