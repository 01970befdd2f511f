//! From either engine's findings to the lines the CLI's Grep prints: rg's JSON blocks become
//! `path\0N:text` entries (`-` for context, `--` between separate runs when context was asked
//! for), long lines are omitted, `-o` prints each match alone, files are sorted by path; then
//! `head_limit`/`offset` paging. A port of the CLI's own post-processing, so both engines print
//! what the built-in prints.

use super::js_cmp;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlockKind {
    Match,
    Context,
}

/// One match inside a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Submatch {
    /// Line breaks in the block before the match starts.
    pub line_offset: u64,
    pub text: String,
}

/// One rg JSON `match` or `context` message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub kind: BlockKind,
    pub line_number: u64,
    /// The whole line(s), without the final line break.
    pub text: String,
    pub submatches: Vec<Submatch>,
}

/// The blocks of one file, between rg's `begin` and `end`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileHits {
    pub path: String,
    pub blocks: Vec<Block>,
    /// Where the first NUL byte is, for a binary file that was searched because it was named.
    pub binary_offset: Option<u64>,
}

/// One output line before the path is written out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// `--`: a gap between runs of lines.
    Break,
    /// `body` is `N:text`, `N-text` or a note, for the file at `path`.
    Line { path: String, body: String },
}

/// The CLI drops lines longer than this (in UTF-16 units, as JavaScript counts).
const MAX_LINE: usize = 500;

fn omit_long(text: &str, kind: BlockKind) -> String {
    if text.len() > MAX_LINE && text.encode_utf16().count() > MAX_LINE {
        match kind {
            BlockKind::Match => "[Omitted long matching line]".to_string(),
            BlockKind::Context => "[Omitted long context line]".to_string(),
        }
    } else {
        text.to_string()
    }
}

fn strip_cr(s: &str) -> &str {
    s.strip_suffix('\r').unwrap_or(s)
}

/// The entries of every file. `complete` files are sorted by path; a file cut short by a time
/// limit (`partial`) comes last. `breaks` is true when any context was asked for.
pub(crate) fn content_entries(
    mut complete: Vec<FileHits>,
    partial: Option<FileHits>,
    breaks: bool,
    only_matching: bool,
) -> Vec<Entry> {
    crate::sort::sort_by(&mut complete, |a, b| js_cmp(&a.path, &b.path));
    let mut last_line: u64 = 0;
    let mut groups: Vec<Vec<Entry>> = complete
        .iter()
        .map(|f| file_entries(f, breaks, only_matching, &mut last_line, true))
        .collect();
    if let Some(f) = &partial {
        groups.push(file_entries(f, breaks, only_matching, &mut last_line, false));
    }
    let mut out = Vec::new();
    for group in groups {
        if breaks && !out.is_empty() && !group.is_empty() {
            out.push(Entry::Break);
        }
        out.extend(group);
    }
    out
}

fn file_entries(f: &FileHits, breaks: bool, only_matching: bool, last_line: &mut u64, ended: bool) -> Vec<Entry> {
    let line = |body: String| Entry::Line {
        path: f.path.clone(),
        body,
    };
    let mut out: Vec<Entry> = Vec::new();
    for block in &f.blocks {
        let first = block.line_number;
        if breaks && !out.is_empty() && first > *last_line + 1 {
            out.push(Entry::Break);
        }
        if block.kind == BlockKind::Match && only_matching {
            let mut at = first;
            // Only the non-empty matches, as `rg -o` prints them.
            for sub in block.submatches.iter().filter(|s| !s.text.is_empty()) {
                let start = first + sub.line_offset;
                for (i, piece) in sub.text.split('\n').enumerate() {
                    at = start + i as u64;
                    out.push(line(format!("{at}:{}", omit_long(strip_cr(piece), BlockKind::Match))));
                }
            }
            *last_line = at;
            continue;
        }
        let sep = if block.kind == BlockKind::Match { ':' } else { '-' };
        let text = block.text.strip_suffix('\n').unwrap_or(&block.text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        let mut count = 0;
        for (i, piece) in text.split('\n').enumerate() {
            let number = first + i as u64;
            out.push(line(format!("{number}{sep}{}", omit_long(strip_cr(piece), block.kind))));
            count += 1;
        }
        *last_line = first + count - 1;
    }
    if ended {
        if let Some(offset) = f.binary_offset {
            let had_lines = !out.is_empty();
            // Lines holding the NUL itself are not shown; the note says why.
            out.retain(|e| !matches!(e, Entry::Line { body, .. } if body.contains('\0')));
            if had_lines {
                out.push(line(format!(
                    "binary file matches (found \"\\0\" byte around offset {offset})"
                )));
            }
        }
    }
    out
}

/// `head_limit`/`offset` paging: `None` means the default 250, `Some(0)` means no limit. Returns
/// the page and the limit that cut it (only when it did cut).
pub(crate) fn paginate<T>(items: Vec<T>, head_limit: Option<u64>, offset: u64) -> (Vec<T>, Option<u64>) {
    let total = items.len() as u64;
    let skip = usize::try_from(offset).unwrap_or(usize::MAX);
    let rest = items.into_iter().skip(skip);
    match head_limit {
        Some(0) => (rest.collect(), None),
        limit => {
            let limit = limit.unwrap_or(DEFAULT_HEAD_LIMIT);
            let page = rest.take(usize::try_from(limit).unwrap_or(usize::MAX)).collect();
            let cut = total.saturating_sub(offset) > limit;
            (page, cut.then_some(limit))
        }
    }
}

pub(crate) const DEFAULT_HEAD_LIMIT: u64 = 250;

/// `limit: N, offset: M` as the CLI writes the paging it applied.
pub(crate) fn pagination_label(applied_limit: Option<u64>, offset: u64) -> String {
    let mut parts = Vec::new();
    if let Some(limit) = applied_limit {
        parts.push(format!("limit: {limit}"));
    }
    if offset > 0 {
        parts.push(format!("offset: {offset}"));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(kind: BlockKind, n: u64, text: &str) -> Block {
        Block {
            kind,
            line_number: n,
            text: text.to_string(),
            submatches: Vec::new(),
        }
    }

    fn bodies(entries: &[Entry]) -> Vec<String> {
        entries
            .iter()
            .map(|e| match e {
                Entry::Break => "--".to_string(),
                Entry::Line { path, body } => format!("{path}|{body}"),
            })
            .collect()
    }

    #[test]
    fn gaps_and_files_are_separated_only_with_context() {
        let file = |p: &str| FileHits {
            path: p.to_string(),
            blocks: vec![block(BlockKind::Match, 1, "a"), block(BlockKind::Match, 5, "b")],
            binary_offset: None,
        };
        let with = content_entries(vec![file("b"), file("a")], None, true, false);
        assert_eq!(bodies(&with), ["a|1:a", "--", "a|5:b", "--", "b|1:a", "--", "b|5:b"]);
        let without = content_entries(vec![file("a")], None, false, false);
        assert_eq!(bodies(&without), ["a|1:a", "a|5:b"]);
    }

    #[test]
    fn only_matching_numbers_each_piece() {
        let mut b = block(BlockKind::Match, 3, "foo\nbar baz");
        b.submatches = vec![Submatch {
            line_offset: 0,
            text: "foo\nbar".into(),
        }];
        let f = FileHits {
            path: "p".into(),
            blocks: vec![b],
            binary_offset: None,
        };
        assert_eq!(
            bodies(&content_entries(vec![f], None, false, true)),
            ["p|3:foo", "p|4:bar"]
        );
    }

    #[test]
    fn long_lines_are_omitted() {
        let f = FileHits {
            path: "p".into(),
            blocks: vec![
                block(BlockKind::Context, 1, &"x".repeat(501)),
                block(BlockKind::Match, 2, "y"),
            ],
            binary_offset: None,
        };
        assert_eq!(
            bodies(&content_entries(vec![f], None, false, false)),
            ["p|1-[Omitted long context line]", "p|2:y"]
        );
    }

    #[test]
    fn paging_reports_the_limit_only_when_it_cut() {
        assert_eq!(paginate(vec![1, 2, 3], Some(2), 0), (vec![1, 2], Some(2)));
        assert_eq!(paginate(vec![1, 2, 3], Some(3), 0), (vec![1, 2, 3], None));
        assert_eq!(paginate(vec![1, 2, 3], Some(0), 1), (vec![2, 3], None));
        assert_eq!(paginate(vec![1, 2, 3], None, 5), (vec![], None));
        assert_eq!(pagination_label(Some(2), 1), "limit: 2, offset: 1");
    }
}
