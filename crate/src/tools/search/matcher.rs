//! The built-in searcher: ripgrep's line-oriented semantics on the `regex` crate (the engine rg is
//! built on, so patterns mean the same), reporting in rg's JSON terms (match and context blocks).
//!
//! Like rg: a UTF-8 BOM is dropped and UTF-16 files with a BOM are transcoded; files met while
//! walking that hold a NUL byte are binary and skipped, while a file named by the search path is
//! searched anyway; without multiline mode a match never crosses a line break, and a pattern with
//! a literal line break is refused; in multiline mode matches that share a line are one match.

use super::render::{Block, BlockKind, FileHits, Submatch};
use regex::bytes::{Regex, RegexBuilder};
use regex_syntax::hir::{Hir, HirKind};
use std::borrow::Cow;

/// rg's refusal of a line break in a line-oriented pattern, word for word (rg 14, the CLI's).
const NEWLINE_REFUSED: &str = "the literal \"\\n\" is not allowed in a regex\n\nConsider enabling multiline mode with the --multiline flag (or -U for short).\nWhen multiline mode is enabled, new line characters can be matched.";

#[derive(Debug)]
pub(crate) struct Matcher {
    regex: Regex,
    multiline: bool,
}

/// What the caller needs from a file.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Want {
    /// Whether it matches at all (`-l`).
    Any,
    /// Matching lines, or in multiline mode matches (`-c`).
    Count,
    /// Match and context blocks (`--json`).
    Content { before: usize, after: usize },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    Nothing,
    Matched,
    Count(u64),
    Hits(FileHits),
}

/// A run of lines holding one or more matches (one line unless multiline).
struct Range {
    first: usize,
    last: usize,
    /// Byte spans in the whole text.
    spans: Vec<(usize, usize)>,
}

impl Matcher {
    /// Compile as rg does; the error text is rg's.
    pub(crate) fn new(pattern: &str, case_insensitive: bool, multiline: bool) -> Result<Matcher, String> {
        if !multiline && has_literal_newline(pattern, case_insensitive) {
            return Err(NEWLINE_REFUSED.to_string());
        }
        // rg 14 (the one inside the CLI) compiles the pattern as a group, which shows in its
        // errors: `(?:foo()` with the caret under the group.
        let regex = RegexBuilder::new(&format!("(?:{pattern})"))
            .case_insensitive(case_insensitive)
            .multi_line(true)
            .dot_matches_new_line(multiline)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Matcher { regex, multiline })
    }

    /// Search one file. `named` is true when the search path names this file itself.
    pub(crate) fn search(&self, path: &str, raw: &[u8], named: bool, want: Want) -> Found {
        let text = without_bom(raw);
        let text = text.as_ref();
        let nul = text.iter().position(|&b| b == 0);
        if nul.is_some() && !named {
            return Found::Nothing;
        }
        // A line's match is also a match in the whole text, so this rules out most files at once.
        if !self.regex.is_match(text) {
            return Found::Nothing;
        }
        let lines = Lines::new(text);
        let ranges = self.ranges(text, &lines, matches!(want, Want::Any));
        if ranges.is_empty() {
            return Found::Nothing;
        }
        match want {
            Want::Any => Found::Matched,
            Want::Count => Found::Count(ranges.len() as u64),
            Want::Content { before, after } => Found::Hits(FileHits {
                path: path.to_string(),
                blocks: blocks(text, &lines, &ranges, before, after),
                binary_offset: nul.map(|n| n as u64),
            }),
        }
    }

    fn ranges(&self, text: &[u8], lines: &Lines, first_only: bool) -> Vec<Range> {
        let mut out: Vec<Range> = Vec::new();
        if self.multiline {
            for m in self.regex.find_iter(text) {
                let Some(first) = lines.line_of(m.start()) else {
                    continue;
                };
                let last = if m.end() > m.start() {
                    lines.line_of(m.end() - 1).unwrap_or(first)
                } else {
                    first
                };
                match out.last_mut() {
                    Some(prev) if first <= prev.last => {
                        prev.last = prev.last.max(last);
                        prev.spans.push((m.start(), m.end()));
                    }
                    _ => out.push(Range {
                        first,
                        last,
                        spans: vec![(m.start(), m.end())],
                    }),
                }
                if first_only {
                    break;
                }
            }
            return out;
        }
        // Jump from one whole-text match to the next and check its line on its own: a match
        // that exists within a line also starts there in the whole text, so no line is skipped.
        let mut pos = 0;
        while let Some(m) = self.regex.find_at(text, pos) {
            let Some(line) = lines.line_of(m.start()) else { break };
            let (start, end) = lines.span(line);
            let spans: Vec<(usize, usize)> = self
                .regex
                .find_iter(&text[start..end])
                .map(|m| (start + m.start(), start + m.end()))
                .collect();
            if !spans.is_empty() {
                out.push(Range {
                    first: line,
                    last: line,
                    spans,
                });
                if first_only {
                    break;
                }
            }
            match lines.starts.get(line + 1) {
                Some(&next) => pos = next,
                None => break,
            }
        }
        out
    }
}

/// Match and context blocks as rg's JSON printer emits them: context lines one per block, never
/// a line twice, after-context stopping where the next match begins.
fn blocks(text: &[u8], lines: &Lines, ranges: &[Range], before: usize, after: usize) -> Vec<Block> {
    let context = |line: usize| {
        let (start, end) = lines.span(line);
        Block {
            kind: BlockKind::Context,
            line_number: line as u64 + 1,
            text: String::from_utf8_lossy(&text[start..end]).into_owned(),
            submatches: Vec::new(),
        }
    };
    let mut out = Vec::new();
    let mut next_free = 0;
    for (i, range) in ranges.iter().enumerate() {
        for line in range.first.saturating_sub(before).max(next_free)..range.first {
            out.push(context(line));
        }
        let start = lines.span(range.first).0;
        let end = lines.span(range.last).1;
        out.push(Block {
            kind: BlockKind::Match,
            line_number: range.first as u64 + 1,
            text: String::from_utf8_lossy(&text[start..end]).into_owned(),
            submatches: range
                .spans
                .iter()
                .map(|&(s, e)| Submatch {
                    line_offset: text[start..s.max(start)].iter().filter(|&&b| b == b'\n').count() as u64,
                    text: String::from_utf8_lossy(&text[s..e]).into_owned(),
                })
                .collect(),
        });
        let limit = ranges.get(i + 1).map_or(lines.count(), |next| next.first);
        let stop = (range.last + 1 + after).min(limit);
        for line in range.last + 1..stop {
            out.push(context(line));
        }
        next_free = stop.max(range.last + 1);
    }
    out
}

/// Line boundaries of a text: a line ends at `\n` (kept out of the line); a final `\n` does not
/// start another line.
struct Lines {
    starts: Vec<usize>,
    len: usize,
    ends_with_newline: bool,
}

impl Lines {
    fn new(text: &[u8]) -> Lines {
        let mut starts = Vec::new();
        if !text.is_empty() {
            starts.push(0);
        }
        starts.extend(
            text.iter()
                .enumerate()
                .filter(|&(i, &b)| b == b'\n' && i + 1 < text.len())
                .map(|(i, _)| i + 1),
        );
        Lines {
            starts,
            len: text.len(),
            ends_with_newline: text.last() == Some(&b'\n'),
        }
    }

    fn count(&self) -> usize {
        self.starts.len()
    }

    /// The line holding byte `pos`; None past the last line.
    fn line_of(&self, pos: usize) -> Option<usize> {
        if self.starts.is_empty() || pos > self.len || (pos == self.len && self.ends_with_newline) {
            return None;
        }
        Some(self.starts.partition_point(|&s| s <= pos).saturating_sub(1))
    }

    /// Byte span of a line without its `\n`.
    fn span(&self, line: usize) -> (usize, usize) {
        let start = self.starts.get(line).copied().unwrap_or(self.len);
        let end = match self.starts.get(line + 1) {
            Some(&next) => next - 1,
            None if self.ends_with_newline => self.len.saturating_sub(1),
            None => self.len,
        };
        (start, end.max(start))
    }
}

/// rg's BOM sniffing: drop a UTF-8 BOM, transcode UTF-16 with a BOM to UTF-8.
fn without_bom(raw: &[u8]) -> Cow<'_, [u8]> {
    if let Some(rest) = raw.strip_prefix(b"\xEF\xBB\xBF") {
        return Cow::Borrowed(rest);
    }
    let utf16 = |rest: &[u8], from: fn([u8; 2]) -> u16| {
        let units: Vec<u16> = rest.chunks_exact(2).map(|c| from([c[0], c[1]])).collect();
        Cow::Owned(String::from_utf16_lossy(&units).into_bytes())
    };
    if let Some(rest) = raw.strip_prefix(b"\xFF\xFE") {
        return utf16(rest, u16::from_le_bytes);
    }
    if let Some(rest) = raw.strip_prefix(b"\xFE\xFF") {
        return utf16(rest, u16::from_be_bytes);
    }
    Cow::Borrowed(raw)
}

/// Whether the pattern spells out a line break (a class that merely includes one is fine, as in rg).
fn has_literal_newline(pattern: &str, case_insensitive: bool) -> bool {
    fn walk(hir: &Hir) -> bool {
        match hir.kind() {
            HirKind::Literal(lit) => lit.0.contains(&b'\n'),
            HirKind::Repetition(rep) => walk(&rep.sub),
            HirKind::Capture(cap) => walk(&cap.sub),
            HirKind::Concat(all) | HirKind::Alternation(all) => all.iter().any(walk),
            _ => false,
        }
    }
    regex_syntax::ParserBuilder::new()
        .case_insensitive(case_insensitive)
        .multi_line(true)
        .build()
        .parse(pattern)
        .is_ok_and(|hir| walk(&hir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(m: &Matcher, text: &str, before: usize, after: usize) -> Vec<(BlockKind, u64, String)> {
        match m.search("f", text.as_bytes(), true, Want::Content { before, after }) {
            Found::Hits(h) => h.blocks.into_iter().map(|b| (b.kind, b.line_number, b.text)).collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn context_never_repeats_a_line() {
        let m = Matcher::new("two|six", false, false).unwrap();
        let got = hits(&m, "one\ntwo\nthree\nfour\nfive\nsix\nseven\n", 1, 1);
        let numbers: Vec<u64> = got.iter().map(|g| g.1).collect();
        assert_eq!(numbers, vec![1, 2, 3, 5, 6, 7]);
        let got = hits(&m, "two\nsix\n", 2, 2);
        assert_eq!(got.len(), 2);
        assert!(got.iter().all(|g| g.0 == BlockKind::Match));
    }

    #[test]
    fn multiline_merges_matches_sharing_a_line() {
        let m = Matcher::new("foo.bar", false, true).unwrap();
        assert_eq!(
            m.search("f", b"foo\nbar\nfoo bar\nbaz\n", true, Want::Count),
            Found::Count(2)
        );
        let m = Matcher::new("o", false, true).unwrap();
        assert_eq!(
            m.search("f", b"foo\nbar\nfoo bar\n", true, Want::Count),
            Found::Count(2)
        );
    }

    #[test]
    fn line_mode_refuses_a_literal_newline_but_not_a_class() {
        assert!(Matcher::new("a\\nb", false, false)
            .unwrap_err()
            .contains("not allowed in a regex"));
        assert!(Matcher::new("a\\sb", false, false).is_ok());
        assert!(Matcher::new("a\\nb", false, true).is_ok());
    }

    #[test]
    fn regex_errors_read_like_the_clis_ripgrep() {
        let e = Matcher::new("foo(", false, false).unwrap_err();
        assert_eq!(e, "regex parse error:\n    (?:foo()\n    ^\nerror: unclosed group");
    }

    #[test]
    fn a_match_never_crosses_a_line_in_line_mode() {
        let m = Matcher::new("a\\sb", false, false).unwrap();
        assert_eq!(m.search("f", b"a\nb\n", true, Want::Count), Found::Nothing);
        assert_eq!(m.search("f", b"a\nb\na b\n", true, Want::Count), Found::Count(1));
    }

    #[test]
    fn binary_files_are_skipped_unless_named() {
        let m = Matcher::new("ab", false, false).unwrap();
        assert_eq!(m.search("f", b"ab\0cd\n", false, Want::Any), Found::Nothing);
        assert_eq!(m.search("f", b"ab\0cd\n", true, Want::Any), Found::Matched);
    }

    #[test]
    fn utf16_with_bom_is_searched_as_text() {
        let mut raw = vec![0xFF, 0xFE];
        for unit in "héllo\nworld\n".encode_utf16() {
            raw.extend_from_slice(&unit.to_le_bytes());
        }
        let m = Matcher::new("world", false, false).unwrap();
        assert_eq!(m.search("f", &raw, false, Want::Count), Found::Count(1));
    }

    #[test]
    fn empty_lines_and_final_newline() {
        let m = Matcher::new("^$", false, false).unwrap();
        assert_eq!(m.search("f", b"a\n\nb\n", true, Want::Count), Found::Count(1));
        assert_eq!(m.search("f", b"", true, Want::Count), Found::Nothing);
    }
}
