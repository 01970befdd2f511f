//! Diffs on `similar`: hunks in Claude's `structuredPatch` shape (jsdiff's) and unified text.
//!
//! Only the changed middle of the two texts is handed to Myers: the common prefix and suffix are cut
//! off at line boundaries first (keeping the context lines), so a one-line edit of a 10 MB file costs
//! two linear scans. The size limits apply to that middle; past them, or for inputs that would take
//! long, the caller gets a [`DiffSummary`] instead of a diff. Myers itself runs under a time budget
//! (`similar`'s relative timeout, which works on wasm through `web-time`): past it, `similar` finishes
//! with a coarser but still valid diff rather than blocking.

mod select;

pub use select::{apply_hunks, hunk_label};

use crate::bytes::{repeat_byte, zero_byte_mask};
use serde::{Deserialize, Serialize};
use similar::algorithms::{myers, Capture, Replace};
use similar::DiffOp;
use std::fmt::Write as _;
use std::time::Duration;

/// Context lines around each change, as Claude Code uses for Edit and Write.
pub const DEFAULT_CONTEXT: usize = 3;

/// The marker jsdiff puts after a line that has no final newline.
pub const NO_NEWLINE_MARKER: &str = "\\ No newline at end of file";

/// Bounds on the work one diff may take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiffLimits {
    /// Changed region (both sides together) beyond which only a summary is returned.
    pub max_bytes: usize,
    /// Lines of the changed region (both sides together) beyond which only a summary is returned.
    pub max_lines: usize,
    /// Time budget for Myers; past it the diff is coarser, never late.
    pub timeout: Duration,
}

impl Default for DiffLimits {
    fn default() -> Self {
        DiffLimits {
            max_bytes: 4 * 1024 * 1024,
            max_lines: 100_000,
            timeout: Duration::from_millis(500),
        }
    }
}

/// One hunk, as jsdiff's `structuredPatch` (and so Claude Code's `structuredPatch`) has it:
/// 1-based starts, and `lines` prefixed with `' '`, `'-'` or `'+'`, without their line break.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Hunk {
    pub old_start: usize,
    pub old_lines: usize,
    pub new_start: usize,
    pub new_lines: usize,
    pub lines: Vec<String>,
}

/// What is said about a change too large to diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffSummary {
    pub old_lines: usize,
    pub new_lines: usize,
    pub old_bytes: usize,
    pub new_bytes: usize,
}

impl DiffSummary {
    fn of(old: &str, new: &str) -> Self {
        DiffSummary {
            old_lines: count_lines(old),
            new_lines: count_lines(new),
            old_bytes: old.len(),
            new_bytes: new.len(),
        }
    }

    /// One sentence for a human or the model.
    pub fn describe(&self) -> String {
        format!(
            "The change is too large to show as a diff: {} lines ({} bytes) before, {} lines ({} bytes) after.",
            self.old_lines, self.old_bytes, self.new_lines, self.new_bytes
        )
    }
}

/// A diff, or a summary when the change was too large to diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Diff {
    Patch { hunks: Vec<Hunk> },
    Summary(DiffSummary),
}

impl Diff {
    /// The hunks; none for a summary (what Claude Code reports when its diff times out).
    pub fn hunks(&self) -> &[Hunk] {
        match self {
            Diff::Patch { hunks } => hunks,
            Diff::Summary(_) => &[],
        }
    }

    pub fn is_summary(&self) -> bool {
        matches!(self, Diff::Summary(_))
    }

    /// Unified diff text with `---`/`+++` headers naming `path` (jsdiff's `createPatch` layout
    /// without its `Index:` banner); for a summary, its one-sentence description.
    pub fn unified(&self, path: &str) -> String {
        match self {
            Diff::Summary(summary) => summary.describe(),
            Diff::Patch { hunks } => {
                let body: usize = hunks.iter().flat_map(|h| &h.lines).map(|l| l.len() + 1).sum();
                let mut out = String::with_capacity(body + 2 * path.len() + 16 + hunks.len() * 32);
                let _ = writeln!(out, "--- {path}");
                let _ = writeln!(out, "+++ {path}");
                for hunk in hunks {
                    // An empty range is named by the line before it, as in GNU diff and jsdiff.
                    let old_start = hunk.old_start.saturating_sub(usize::from(hunk.old_lines == 0));
                    let new_start = hunk.new_start.saturating_sub(usize::from(hunk.new_lines == 0));
                    let _ = writeln!(
                        out,
                        "@@ -{old_start},{} +{new_start},{} @@",
                        hunk.old_lines, hunk.new_lines
                    );
                    for line in &hunk.lines {
                        out.push_str(line);
                        out.push('\n');
                    }
                }
                out
            }
        }
    }
}

/// Hunks between two texts with `context` lines around each change, within [`DiffLimits::default`].
pub fn structured_patch(old: &str, new: &str, context: usize) -> Diff {
    structured_patch_with(old, new, context, &DiffLimits::default())
}

/// Unified diff text for `path` (or the summary sentence), within [`DiffLimits::default`].
pub fn unified_diff(path: &str, old: &str, new: &str, context: usize) -> String {
    structured_patch(old, new, context).unified(path)
}

/// What a caller knows of two texts it diffs: their first `prefix` and last `suffix` bytes are
/// the same (the new text was made by copying them), so they need not be compared again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KnownSame {
    pub prefix: usize,
    pub suffix: usize,
}

/// [`structured_patch`] for texts that agree where `known` says: the same hunks, without the
/// two passes over the whole texts that finding the change costs otherwise.
pub fn structured_patch_knowing(old: &str, new: &str, context: usize, known: KnownSame) -> Diff {
    patch(old, new, context, &DiffLimits::default(), known)
}

pub fn structured_patch_with(old: &str, new: &str, context: usize, limits: &DiffLimits) -> Diff {
    patch(old, new, context, limits, KnownSame::default())
}

fn patch(old: &str, new: &str, context: usize, limits: &DiffLimits, known: KnownSame) -> Diff {
    let Some(window) = Window::around_change(old, new, context, known) else {
        return Diff::Patch { hunks: Vec::new() };
    };
    let old_mid = &old[window.start..window.old_end];
    let new_mid = &new[window.start..window.new_end];
    if old_mid.len() + new_mid.len() > limits.max_bytes
        || count_lines(old_mid) + count_lines(new_mid) > limits.max_lines
    {
        return Diff::Summary(DiffSummary::of(old, new));
    }
    // Lines end at `\n` only, as in jsdiff (similar's own line tokenizer also splits at a lone `\r`).
    let old_lines: Vec<&str> = old_mid.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new_mid.split_inclusive('\n').collect();
    // Myers on `&str` lines only, called directly: `TextDiff` would compile every algorithm for
    // every element type into the wasm. Past the deadline Myers returns a coarser, valid diff.
    let mut capture = Replace::new(Capture::new());
    let deadline = deadline_after(limits.timeout);
    let Ok(()) = myers::diff_deadline(
        &mut capture,
        &old_lines,
        0..old_lines.len(),
        &new_lines,
        0..new_lines.len(),
        deadline,
    );
    let ops = capture.into_inner().into_ops();
    let hunks = similar::group_diff_ops(ops, context)
        .iter()
        .filter_map(|group| hunk_of(&old_lines, &new_lines, group, window.first_line))
        .collect();
    Diff::Patch { hunks }
}

/// similar's deadline type: std's Instant natively, web-time's on wasm (std's panics there).
#[cfg(not(target_arch = "wasm32"))]
fn deadline_after(timeout: std::time::Duration) -> Option<std::time::Instant> {
    std::time::Instant::now().checked_add(timeout)
}

#[cfg(target_arch = "wasm32")]
fn deadline_after(timeout: std::time::Duration) -> Option<similar::Instant> {
    similar::Instant::now().checked_add(timeout)
}

fn hunk_of(old: &[&str], new: &[&str], group: &[DiffOp], line_offset: usize) -> Option<Hunk> {
    let first = group.first()?;
    let last = group.last()?;
    let old_range = first.old_range().start..last.old_range().end;
    let new_range = first.new_range().start..last.new_range().end;
    let mut lines = Vec::with_capacity(old_range.len() + new_range.len());
    for op in group {
        let (_, old_ops, new_ops) = op.as_tag_tuple();
        match op {
            DiffOp::Equal { .. } => old_ops.for_each(|i| push_line(&mut lines, ' ', old.get(i).copied())),
            DiffOp::Delete { .. } => old_ops.for_each(|i| push_line(&mut lines, '-', old.get(i).copied())),
            DiffOp::Insert { .. } => new_ops.for_each(|i| push_line(&mut lines, '+', new.get(i).copied())),
            DiffOp::Replace { .. } => {
                old_ops.for_each(|i| push_line(&mut lines, '-', old.get(i).copied()));
                new_ops.for_each(|i| push_line(&mut lines, '+', new.get(i).copied()));
            }
        }
    }
    Some(Hunk {
        old_start: line_offset + old_range.start + 1,
        old_lines: old_range.len(),
        new_start: line_offset + new_range.start + 1,
        new_lines: new_range.len(),
        lines,
    })
}

fn push_line(lines: &mut Vec<String>, prefix: char, token: Option<&str>) {
    let Some(token) = token else { return };
    let (text, terminated) = match token.strip_suffix('\n') {
        Some(text) => (text, true),
        None => (token, false),
    };
    let mut line = String::with_capacity(text.len() + 1);
    line.push(prefix);
    line.push_str(text);
    lines.push(line);
    // Only a file's last line can lack its break; the window ends at a line break otherwise.
    if !terminated {
        lines.push(NO_NEWLINE_MARKER.to_string());
    }
}

/// The part of both texts that differs, widened to whole lines plus `context` lines each side.
/// `old[..start] == new[..start]` and `old[old_end..] == new[new_end..]`.
struct Window {
    start: usize,
    old_end: usize,
    new_end: usize,
    /// Lines before `start` (0-based line number of the window's first line).
    first_line: usize,
}

impl Window {
    /// None when the texts are the same.
    fn around_change(old: &str, new: &str, context: usize, known: KnownSame) -> Option<Self> {
        let (ob, nb) = (old.as_bytes(), new.as_bytes());
        let known_prefix = known.prefix.min(ob.len()).min(nb.len());
        debug_assert_eq!(ob[..known_prefix], nb[..known_prefix], "KnownSame.prefix is wrong");
        let prefix = known_prefix + common_prefix_len(&ob[known_prefix..], &nb[known_prefix..]);
        if prefix == ob.len() && prefix == nb.len() {
            return None;
        }
        let mut start = line_start_at_or_before(ob, prefix);
        for _ in 0..context {
            if start == 0 {
                break;
            }
            start = line_start_at_or_before(ob, start - 1);
        }
        let (old_rest, new_rest) = (&ob[start..], &nb[start..]);
        let known_suffix = known.suffix.min(old_rest.len()).min(new_rest.len());
        let (old_rest, new_rest) = (
            &old_rest[..old_rest.len() - known_suffix],
            &new_rest[..new_rest.len() - known_suffix],
        );
        debug_assert_eq!(
            ob[old_rest.len() + start..],
            nb[new_rest.len() + start..],
            "KnownSame.suffix is wrong"
        );
        let suffix = known_suffix + common_suffix_len(old_rest, new_rest);
        // The first line break inside the common suffix ends the window (both sides agree there).
        let suffix_start = ob.len() - suffix;
        let mut old_end = match ob[suffix_start..].iter().position(|&b| b == b'\n') {
            Some(i) => suffix_start + i + 1,
            None => ob.len(),
        };
        for _ in 0..context {
            if old_end == ob.len() {
                break;
            }
            old_end = match ob[old_end..].iter().position(|&b| b == b'\n') {
                Some(i) => old_end + i + 1,
                None => ob.len(),
            };
        }
        let tail = ob.len() - old_end;
        Some(Window {
            start,
            old_end,
            new_end: nb.len() - tail,
            first_line: count_newlines(&ob[..start]),
        })
    }
}

// The scans below go eight bytes at a time through `split_first_chunk`: the wasm build is
// optimised for size, where slice comparison is a byte-at-a-time `memcmp` and iterator adapters
// are called out of line per element.

fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (mut a_rest, mut b_rest) = (&a[..n], &b[..n]);
    let mut i = 0;
    while let (Some((wa, ta)), Some((wb, tb))) = (a_rest.split_first_chunk::<8>(), b_rest.split_first_chunk::<8>()) {
        let diff = u64::from_le_bytes(*wa) ^ u64::from_le_bytes(*wb);
        if diff != 0 {
            // Little-endian: the lowest set bit is in the first differing byte.
            return i + (diff.trailing_zeros() / 8) as usize;
        }
        i += 8;
        (a_rest, b_rest) = (ta, tb);
    }
    i + a_rest.iter().zip(b_rest).take_while(|(x, y)| x == y).count()
}

/// Scanned forwards, remembering the last difference: backwards, the wasm build does not inline
/// the word reads and runs several times slower. The caller passes the texts from the start of
/// the change, so either way the bytes after the change are the ones read.
fn common_suffix_len(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (mut a_rest, mut b_rest) = (&a[a.len() - n..], &b[b.len() - n..]);
    // One past the last differing byte, counted from the start of the compared tails.
    let mut differs_until = 0;
    let mut i = 0;
    while let (Some((wa, ta)), Some((wb, tb))) = (a_rest.split_first_chunk::<8>(), b_rest.split_first_chunk::<8>()) {
        let diff = u64::from_le_bytes(*wa) ^ u64::from_le_bytes(*wb);
        if diff != 0 {
            // Little-endian: the highest set bit is in the last differing byte.
            differs_until = i + 8 - (diff.leading_zeros() / 8) as usize;
        }
        i += 8;
        (a_rest, b_rest) = (ta, tb);
    }
    for (j, (x, y)) in a_rest.iter().zip(b_rest).enumerate() {
        if x != y {
            differs_until = i + j + 1;
        }
    }
    n - differs_until
}

fn line_start_at_or_before(bytes: &[u8], pos: usize) -> usize {
    bytes[..pos].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
}

fn count_newlines(bytes: &[u8]) -> usize {
    let newlines = repeat_byte(b'\n');
    let mut count = 0;
    let mut rest = bytes;
    while let Some((word, tail)) = rest.split_first_chunk::<8>() {
        count += zero_byte_mask(u64::from_le_bytes(*word) ^ newlines).count_ones() as usize;
        rest = tail;
    }
    count + rest.iter().filter(|&&b| b == b'\n').count()
}

/// Lines as a diff counts them: a final line without a break still counts.
fn count_lines(text: &str) -> usize {
    let newlines = count_newlines(text.as_bytes());
    if text.is_empty() || text.ends_with('\n') {
        newlines
    } else {
        newlines + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(hunk: &Hunk) -> Vec<&str> {
        hunk.lines.iter().map(String::as_str).collect()
    }

    #[test]
    fn one_changed_line_gives_claude_shaped_hunk() {
        let diff = structured_patch("hello world\nsecond line\n", "goodbye world\nsecond line\n", 3);
        let hunks = diff.hunks();
        assert_eq!(hunks.len(), 1);
        assert_eq!(
            (
                hunks[0].old_start,
                hunks[0].old_lines,
                hunks[0].new_start,
                hunks[0].new_lines
            ),
            (1, 2, 1, 2)
        );
        assert_eq!(lines(&hunks[0]), ["-hello world", "+goodbye world", " second line"]);
        let json = serde_json::to_value(&hunks[0]).unwrap();
        assert_eq!(json["oldStart"], 1);
        assert_eq!(json["newLines"], 2);
    }

    #[test]
    fn hunk_line_numbers_count_the_trimmed_prefix() {
        let old: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 50\n", "line fifty\n");
        let hunks = structured_patch(&old, &new, 3).hunks().to_vec();
        assert_eq!(hunks.len(), 1);
        assert_eq!((hunks[0].old_start, hunks[0].old_lines), (47, 7));
        assert_eq!(hunks[0].lines[0], " line 47");
        assert_eq!(hunks[0].lines[3], "-line 50");
        assert_eq!(hunks[0].lines[4], "+line fifty");
        assert_eq!(hunks[0].lines[7], " line 53");
    }

    #[test]
    fn far_apart_changes_make_separate_hunks() {
        let old: String = (1..=40).map(|i| format!("{i}\n")).collect();
        let new = old.replace("\n5\n", "\nfive\n").replace("\n35\n", "\nthirty-five\n");
        let hunks = structured_patch(&old, &new, 3).hunks().to_vec();
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[1].old_start, 32);
    }

    #[test]
    fn missing_final_newline_is_marked() {
        let hunks = structured_patch("a\nb", "a\nc", 3).hunks().to_vec();
        assert_eq!(
            lines(&hunks[0]),
            [" a", "-b", NO_NEWLINE_MARKER, "+c", NO_NEWLINE_MARKER]
        );
        let added = structured_patch("a", "a\n", 3).hunks().to_vec();
        assert_eq!(lines(&added[0]), ["-a", NO_NEWLINE_MARKER, "+a"]);
    }

    #[test]
    fn creation_from_empty_uses_zero_start_in_unified_text() {
        let diff = structured_patch("", "x\ny\n", 3);
        assert_eq!(diff.hunks()[0].old_start, 1);
        assert_eq!(diff.hunks()[0].old_lines, 0);
        assert_eq!(
            diff.unified("/w/f.txt"),
            "--- /w/f.txt\n+++ /w/f.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n"
        );
    }

    #[test]
    fn a_lone_carriage_return_does_not_end_a_line() {
        let hunks = structured_patch("a\rb\nc\n", "a\rB\nc\n", 3).hunks().to_vec();
        assert_eq!(lines(&hunks[0]), ["-a\rb", "+a\rB", " c"]);
    }

    #[test]
    fn empty_ranges_are_numbered_as_jsdiff_numbers_them() {
        let inserted = structured_patch("1\n2\n3\n4\n5\n6\n", "1\n2\n3\n4\nnew\n5\n6\n", 0)
            .hunks()
            .to_vec();
        assert_eq!(
            (
                inserted[0].old_start,
                inserted[0].old_lines,
                inserted[0].new_start,
                inserted[0].new_lines
            ),
            (5, 0, 5, 1)
        );
        let deleted = structured_patch("a\nb\nc\n", "a\nc\n", 0).hunks().to_vec();
        assert_eq!(
            (
                deleted[0].old_start,
                deleted[0].old_lines,
                deleted[0].new_start,
                deleted[0].new_lines
            ),
            (2, 1, 2, 0)
        );
        assert!(Diff::Patch { hunks: deleted }.unified("f").contains("@@ -2,1 +1,0 @@"));
    }

    #[test]
    fn identical_texts_have_no_hunks() {
        assert!(structured_patch("same\n", "same\n", 3).hunks().is_empty());
    }

    #[test]
    fn multibyte_text_diffs_on_char_boundaries() {
        let hunks = structured_patch("héllo\nwörld\n", "héllo\nwörlds\n", 1)
            .hunks()
            .to_vec();
        assert_eq!(lines(&hunks[0]), [" héllo", "-wörld", "+wörlds"]);
    }

    #[test]
    fn oversized_change_becomes_a_summary() {
        let limits = DiffLimits {
            max_bytes: 10,
            ..DiffLimits::default()
        };
        let diff = structured_patch_with("aaaaaaaa\n", "bbbbbbbb\n", 3, &limits);
        assert_eq!(
            diff,
            Diff::Summary(DiffSummary {
                old_lines: 1,
                new_lines: 1,
                old_bytes: 9,
                new_bytes: 9
            })
        );
        assert!(diff.hunks().is_empty());
        assert!(diff.unified("f").contains("too large"));
    }

    #[test]
    fn known_same_ends_give_the_hunks_a_full_comparison_gives() {
        let old: String = (1..=60).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 30\n", "line 30\nline 30b\n")
            .replace("line 31\n", "line 31!\n");
        let at = old.find("line 30\n").unwrap_or(0);
        let known = KnownSame {
            prefix: at,
            suffix: old.len() - old.find("line 32").unwrap_or(0),
        };
        assert_eq!(
            structured_patch_knowing(&old, &new, 3, known),
            structured_patch(&old, &new, 3)
        );
        // Knowing less than there is changes nothing either.
        let less = KnownSame { prefix: 3, suffix: 2 };
        assert_eq!(
            structured_patch_knowing(&old, &new, 3, less),
            structured_patch(&old, &new, 3)
        );
        assert!(
            structured_patch_knowing(&old, &old, 3, KnownSame { prefix: 5, suffix: 5 })
                .hunks()
                .is_empty()
        );
    }

    #[test]
    fn word_at_a_time_scans_agree_with_byte_at_a_time_ones() {
        let base: Vec<u8> = (0..40u8).map(|i| if i % 5 == 0 { b'\n' } else { b'a' + i }).collect();
        for len in 0..base.len() {
            let a = &base[..len];
            assert_eq!(count_newlines(a), a.iter().filter(|&&b| b == b'\n').count());
            for at in 0..len {
                let mut b = a.to_vec();
                b[at] ^= 0x80;
                assert_eq!(common_prefix_len(a, &b), at);
                assert_eq!(common_suffix_len(a, &b), len - at - 1);
                // Unequal lengths: compared up to the shorter one, from its own end for suffixes.
                assert_eq!(common_prefix_len(a, &b[..at]), at);
                assert_eq!(common_suffix_len(&a[at..], a), len - at);
            }
            assert_eq!(common_prefix_len(a, a), len);
            assert_eq!(common_suffix_len(a, a), len);
        }
    }

    #[test]
    fn small_edit_in_a_huge_text_still_gets_a_patch() {
        let old = "x\n".repeat(300_000);
        let new = format!("{}y\n{}", "x\n".repeat(150_000), "x\n".repeat(149_999));
        let diff = structured_patch(&old, &new, 3);
        assert_eq!(diff.hunks().len(), 1);
        assert_eq!(diff.hunks()[0].old_start, 150_001 - 3);
    }
}
