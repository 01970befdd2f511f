//! Where an edit's old_string matches and what replacing it gives: exact matches found fast, the
//! CLI's curly-quote normalisation, and all-or-nothing application of a list of edits.

use crate::bytes;
use crate::diff::KnownSame;
use crate::tools::proposal::EditOp;
use crate::tools::text;
use memchr::arch::all::packedpair::Pair;
use memchr::memmem;
use std::borrow::Cow;

pub(super) const NO_CHANGES: &str = "No changes to make: old_string and new_string are exactly the same.";
pub(super) const FILE_EXISTS: &str = "Cannot create new file - file already exists.";

/// The edits of one Edit or MultiEdit call.
pub(super) enum Edits {
    One(EditOp),
    Many(Vec<EditOp>),
}

impl Edits {
    pub(super) fn as_slice(&self) -> &[EditOp] {
        match self {
            Edits::One(edit) => std::slice::from_ref(edit),
            Edits::Many(edits) => edits,
        }
    }
}

pub(super) struct EditFailure {
    /// The failing edit; None when the failure is about the edits as a whole.
    pub(super) index: Option<usize>,
    pub(super) message: String,
}

/// Edits applied to a text.
pub(super) struct Applied {
    pub(super) text: String,
    /// The text the first edit actually matched.
    pub(super) first_actual: String,
    /// The ends of the text no edit touched.
    pub(super) unchanged: KnownSame,
}

/// Apply edits in order to `text`, in memory (all or nothing).
pub(super) fn apply_edits(text: &str, edits: &[EditOp]) -> Result<Applied, EditFailure> {
    // Borrowed until the first edit: a large file is copied once, into its edited form.
    let mut current = Cow::Borrowed(text);
    let mut first_actual = String::new();
    // Each edit leaves the text before its match and after it alone; together, the text before
    // the earliest and after the latest.
    let mut unchanged = KnownSame {
        prefix: text.len(),
        suffix: text.len(),
    };
    for (index, edit) in edits.iter().enumerate() {
        let fail = |message: String| EditFailure {
            index: Some(index),
            message,
        };
        if edit.old_string == edit.new_string {
            return Err(fail(NO_CHANGES.to_string()));
        }
        // A creation's new_string is the whole file, which later edits are meant to change.
        let old_core = edit.old_string.trim_end_matches('\n');
        let made_by_earlier_edit = edits[..index]
            .iter()
            .any(|e| !e.old_string.is_empty() && e.new_string.contains(old_core));
        if !old_core.is_empty() && made_by_earlier_edit {
            return Err(fail(
                "Cannot edit file: old_string is a substring of a new_string from a previous edit.".to_string(),
            ));
        }
        if edit.old_string.is_empty() {
            // Only a creation (first edit, empty file) may have an empty old_string.
            if index > 0 || !current.trim().is_empty() {
                return Err(fail(FILE_EXISTS.to_string()));
            }
            current = Cow::Owned(edit.new_string.clone());
            unchanged = KnownSame::default();
            continue;
        }
        // old_string as given: 2.1.330 matches it against the file's text with `\n` breaks, so
        // a `\r\n` in it is not found (new_string's go, as they would come back doubled).
        let old = Cow::Borrowed(edit.old_string.as_str());
        let new = text::normalize_newlines(&edit.new_string);
        let Some(found) = find_actual_string(&current, &old) else {
            return Err(fail(format!(
                "String to replace not found in file.\nString: {}",
                edit.old_string
            )));
        };
        // Matches do not overlap (as `str::matches` counts them): a second one starts after the first.
        let after_first = found.at + found.text.len();
        if !edit.replace_all && find(&current[after_first..], &found.text).is_some() {
            let count = current.matches(found.text.as_str()).count();
            return Err(fail(format!(
                "Found {count} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: {}",
                edit.old_string
            )));
        }
        let new = if found.text == old {
            new
        } else {
            apply_quote_style(&found.text, &new)
        };
        let (replaced, kept) = replace(&current, &found, &new, edit.replace_all);
        current = Cow::Owned(replaced);
        unchanged.prefix = unchanged.prefix.min(kept.prefix);
        unchanged.suffix = unchanged.suffix.min(kept.suffix);
        if index == 0 {
            first_actual = found.text;
        }
    }
    if current == text {
        return Err(EditFailure {
            index: None,
            message: "Original and edited file match exactly. Failed to apply edit.".to_string(),
        });
    }
    Ok(Applied {
        text: current.into_owned(),
        first_actual,
        unchanged,
    })
}

/// The first place `needle` occurs in `haystack`, as a byte offset (what `str::find` returns).
///
/// Edit scans the whole file for its match and for a second one. Without SIMD (the wasm build)
/// `memmem` calls `memchr` once per occurrence of the needle's rarest byte, which in source text
/// is every line or so; here that byte is looked for eight at a time inline, and only where the
/// second-rarest byte is in its place too is the needle compared. Should the comparisons keep
/// failing (a repetitive haystack), `memmem`, linear in the worst case, takes over.
fn find(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    let Some(pair) = Pair::new(n) else {
        return memmem::find(h, n);
    };
    let last_start = h.len().checked_sub(n.len())?;
    let (rare, other) = (usize::from(pair.index1()), usize::from(pair.index2()));
    let (rare_byte, other_byte) = (n[rare], n[other]);
    let pattern = bytes::repeat_byte(rare_byte);
    // Where the rare byte of a match starting at `start` would be, for every possible start.
    let mut rest = &h[rare..=last_start + rare];
    let mut start = 0;
    let mut compared = 0;
    while let Some((word, tail)) = rest.split_first_chunk::<8>() {
        let mut hits = bytes::zero_byte_mask(u64::from_le_bytes(*word) ^ pattern);
        while hits != 0 {
            // Little-endian: the lowest set bit is the earliest start.
            let candidate = start + (hits.trailing_zeros() / 8) as usize;
            if h[candidate + other] == other_byte {
                if h[candidate..candidate + n.len()] == *n {
                    return Some(candidate);
                }
                compared += n.len();
                if compared > 4 * candidate + 4096 {
                    return memmem::find(&h[candidate..], n).map(|i| candidate + i);
                }
            }
            hits &= hits - 1;
        }
        start += 8;
        rest = tail;
    }
    (start..=last_start).find(|&i| h[i..i + n.len()] == *n)
}

/// Replace `found` (the first match) by `new`, or every match of its text with `all`. Deleting a
/// whole line's text also removes its line break, as the CLI does, so a deletion leaves no blank
/// line behind. Also returns the ends of `text` left as they were.
fn replace(text: &str, found: &Found, new: &str, all: bool) -> (String, KnownSame) {
    let old = found.text.as_str();
    // Whatever is replaced, nothing before the first match changes.
    let up_to_first = KnownSame {
        prefix: found.at,
        suffix: 0,
    };
    if new.is_empty() && !old.ends_with('\n') {
        let with_break = format!("{old}\n");
        if find(text, &with_break).is_some() {
            let replaced = if all {
                text.replace(&with_break, new)
            } else {
                text.replacen(&with_break, new, 1)
            };
            return (replaced, up_to_first);
        }
    }
    if all {
        return (text.replace(old, new), up_to_first);
    }
    let mut out = String::with_capacity(text.len() - old.len() + new.len());
    out.push_str(&text[..found.at]);
    out.push_str(new);
    out.push_str(&text[found.at + old.len()..]);
    let kept = KnownSame {
        prefix: found.at,
        suffix: text.len() - found.at - old.len(),
    };
    (out, kept)
}

/// Where an edit's old_string matched, and the file's own text there.
struct Found {
    at: usize,
    text: String,
}

/// The text in `haystack` that `needle` means, at its first occurrence: itself, or the same text
/// with the file's curly quotes where the model typed straight ones (the CLI's quote normalisation).
fn find_actual_string(haystack: &str, needle: &str) -> Option<Found> {
    if let Some(at) = find(haystack, needle) {
        return Some(Found {
            at,
            text: needle.to_string(),
        });
    }
    const CURLY: [char; 4] = ['\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}'];
    if !haystack.contains(CURLY) && !needle.contains(CURLY) {
        return None;
    }
    let straight_needle = straighten_quotes(needle);
    let straight_haystack = straighten_quotes(haystack);
    let at = find(&straight_haystack, &straight_needle)?;
    // Quote replacement keeps the character count, so char positions carry over. No earlier
    // occurrence of the text found can exist: it would straighten to an earlier match.
    let start_char = straight_haystack[..at].chars().count();
    let len_chars = straight_needle.chars().count();
    let mut indices = haystack.char_indices().map(|(i, _)| i).skip(start_char);
    let start = indices.next()?;
    let end = indices.nth(len_chars.checked_sub(1)?).unwrap_or(haystack.len());
    Some(Found {
        at: start,
        text: haystack[start..end].to_string(),
    })
}

fn straighten_quotes(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{201C}' | '\u{201D}' => '"',
            c => c,
        })
        .collect()
}

/// Give `new` the curly quotes the matched file text uses (opening after whitespace or an opening
/// bracket, closing otherwise; an apostrophe inside a word is a right single quote).
fn apply_quote_style(actual: &str, new: &str) -> String {
    let doubles = actual.contains(['\u{201C}', '\u{201D}']);
    let singles = actual.contains(['\u{2018}', '\u{2019}']);
    let chars: Vec<char> = new.chars().collect();
    let opens = |i: usize| {
        i == 0
            || matches!(
                chars[i - 1],
                ' ' | '\t' | '\n' | '\r' | '(' | '[' | '{' | '\u{2014}' | '\u{2013}'
            )
    };
    chars
        .iter()
        .enumerate()
        .map(|(i, &c)| match c {
            '"' if doubles => {
                if opens(i) {
                    '\u{201C}'
                } else {
                    '\u{201D}'
                }
            }
            '\'' if singles => {
                let letter = |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(|c| c.is_alphabetic());
                if letter(i.checked_sub(1)) && letter(Some(i + 1)) {
                    '\u{2019}'
                } else if opens(i) {
                    '\u{2018}'
                } else {
                    '\u{2019}'
                }
            }
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(old: &str, new: &str, all: bool) -> EditOp {
        EditOp {
            old_string: old.into(),
            new_string: new.into(),
            replace_all: all,
        }
    }

    #[test]
    fn straight_quotes_match_curly_ones_and_the_replacement_takes_their_style() {
        let text = "say \u{201C}hello\u{201D} now\n";
        let applied = apply_edits(text, &[op("\"hello\"", "\"bye\"", false)]).ok().unwrap();
        assert_eq!(applied.first_actual, "\u{201C}hello\u{201D}");
        assert_eq!(applied.text, "say \u{201C}bye\u{201D} now\n");
    }

    #[test]
    fn curly_quotes_typed_by_the_model_match_straight_ones_in_the_file() {
        let applied = apply_edits("it's \"x\"\n", &[op("it\u{2019}s", "it is", false)])
            .ok()
            .unwrap();
        assert_eq!(applied.first_actual, "it's");
        assert_eq!(applied.text, "it is \"x\"\n");
    }

    #[test]
    fn deleting_a_line_removes_its_break() {
        let applied = apply_edits("a\nb\nc\n", &[op("b", "", false)]).ok().unwrap();
        assert_eq!(applied.text, "a\nc\n");
    }

    #[test]
    fn edits_report_the_ends_they_left_alone() {
        let unchanged = |text: &str, edits: &[EditOp]| apply_edits(text, edits).ok().map(|a| a.unchanged);
        let known = |prefix, suffix| Some(KnownSame { prefix, suffix });
        assert_eq!(unchanged("0123456789", &[op("45", "x", false)]), known(4, 4));
        // Later edits count in the text as the earlier ones left it, from its end.
        assert_eq!(
            unchanged("0123456789", &[op("7", "77", false), op("2", "", false)]),
            known(2, 2)
        );
        // Past the first match, replace_all and a deleted line's break are not tracked.
        assert_eq!(unchanged("a1a2a3", &[op("a", "b", true)]), known(0, 0));
        assert_eq!(unchanged("x\nab\nc\n", &[op("ab", "", false)]), known(2, 0));
        assert_eq!(unchanged("", &[op("", "new\n", false)]), known(0, 0));
    }

    #[test]
    fn multi_edit_refuses_an_old_string_made_by_an_earlier_edit() {
        let failure = apply_edits("x y", &[op("x", "xz", false), op("z", "w", false)])
            .err()
            .unwrap();
        assert_eq!(failure.index, Some(1));
        assert!(failure.message.contains("substring of a new_string"));
    }

    #[test]
    fn find_agrees_with_str_find() {
        let haystack = "ab\u{e9}cab\u{e9}ab\u{e9}c\nxyz abc ab\u{e9}c\u{2019}x";
        for start in 0..haystack.len() {
            for end in start..=haystack.len() {
                if let (Some(needle), Some(suffix)) = (haystack.get(start..end), haystack.get(start..)) {
                    assert_eq!(find(haystack, needle), haystack.find(needle), "{needle:?}");
                    assert_eq!(find(suffix, needle), suffix.find(needle), "{needle:?} in {suffix:?}");
                }
            }
        }
        assert_eq!(find("abc", "abcd"), None);
        assert_eq!(find("", "ab"), None);
        assert_eq!(find("abc", ""), Some(0));
    }

    #[test]
    fn find_in_a_repetitive_text_hands_over_without_missing_the_match() {
        // The needle's two rarest bytes are in place at every other position, and the comparison
        // fails only at its end.
        let needle = format!("{}yx", "xy".repeat(100));
        let haystack = format!("{}{needle}z", "xy".repeat(5000));
        assert_eq!(find(&haystack, &needle), Some(10_000));
        assert_eq!(find(&haystack[..10_000], &needle), None);
    }
}
