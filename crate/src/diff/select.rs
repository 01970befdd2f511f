//! Per-hunk review: the file with only some of a change's hunks applied.

use super::Hunk;

/// `original` with the accepted hunks of the change to `proposed` applied and the others left
/// out. `hunks` is the change's patch (as [`super::structured_patch_knowing`] made it from these two
/// texts); `accepted` are indices into it. The lines come from the two texts themselves, line
/// breaks included, so a missing final newline or CRLF stays as it is on either side. An error
/// when an index is out of range or a hunk does not fit the texts.
pub fn apply_hunks(original: &str, proposed: &str, hunks: &[Hunk], accepted: &[usize]) -> Result<String, String> {
    if let Some(bad) = accepted.iter().find(|&&i| i >= hunks.len()) {
        return Err(format!(
            "the change has {} hunks; there is no hunk {}",
            hunks.len(),
            bad + 1
        ));
    }
    let old: Vec<&str> = original.split_inclusive('\n').collect();
    let new: Vec<&str> = proposed.split_inclusive('\n').collect();
    let mut out = String::with_capacity(original.len().max(proposed.len()));
    let mut cursor = 0;
    for (index, hunk) in hunks.iter().enumerate() {
        let old_at = start_index(hunk.old_start, hunk.old_lines);
        let new_at = start_index(hunk.new_start, hunk.new_lines);
        let old_end = old_at + hunk.old_lines;
        let new_end = new_at + hunk.new_lines;
        if old_at < cursor || old_end > old.len() || new_end > new.len() {
            return Err(format!("hunk {} does not fit the file", index + 1));
        }
        let side = |prefix: [char; 2]| -> Vec<&str> {
            hunk.lines
                .iter()
                .filter(|l| l.starts_with(prefix))
                .map(|l| &l[1..])
                .collect()
        };
        let fits = |lines: &[&str], expected: Vec<&str>| {
            lines.len() == expected.len()
                && lines
                    .iter()
                    .zip(expected)
                    .all(|(line, want)| line.trim_end_matches(['\n', '\r']) == want.trim_end_matches('\r'))
        };
        if !fits(&old[old_at..old_end], side([' ', '-'])) || !fits(&new[new_at..new_end], side([' ', '+'])) {
            return Err(format!("hunk {} does not match the file", index + 1));
        }
        old[cursor..old_at].iter().for_each(|line| out.push_str(line));
        let taken = if accepted.contains(&index) {
            &new[new_at..new_end]
        } else {
            &old[old_at..old_end]
        };
        taken.iter().for_each(|line| out.push_str(line));
        cursor = old_end;
    }
    old[cursor..].iter().for_each(|line| out.push_str(line));
    Ok(out)
}

/// The 0-based line a hunk side starts at: jsdiff numbers an empty side by the line before it.
fn start_index(start: usize, lines: usize) -> usize {
    if lines == 0 {
        start
    } else {
        start.saturating_sub(1)
    }
}

/// How a hunk is named to people and to the model: "hunk 2 (lines 10–14)".
pub fn hunk_label(index: usize, hunk: &Hunk) -> String {
    let first = hunk.old_start.max(1);
    match hunk.old_lines {
        0 | 1 => format!("hunk {} (line {first})", index + 1),
        n => format!("hunk {} (lines {first}-{})", index + 1, first + n - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{structured_patch_knowing, KnownSame, DEFAULT_CONTEXT};

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    fn change(original: &str, edits: &[(usize, &str)]) -> String {
        original
            .lines()
            .enumerate()
            .map(|(i, line)| {
                let replaced = edits.iter().find(|(at, _)| *at == i + 1).map(|(_, with)| *with);
                format!("{}\n", replaced.unwrap_or(line))
            })
            .collect()
    }

    fn hunks_of(original: &str, proposed: &str) -> Vec<Hunk> {
        structured_patch_knowing(original, proposed, DEFAULT_CONTEXT, KnownSame::default())
            .hunks()
            .to_vec()
    }

    #[test]
    fn applies_only_the_accepted_hunks() {
        let original = numbered(40);
        let proposed = change(&original, &[(2, "two"), (20, "twenty"), (38, "thirty-eight")]);
        let hunks = hunks_of(&original, &proposed);
        assert_eq!(hunks.len(), 3);
        let result = apply_hunks(&original, &proposed, &hunks, &[0, 2]).unwrap();
        assert_eq!(result, change(&original, &[(2, "two"), (38, "thirty-eight")]));
        assert_eq!(apply_hunks(&original, &proposed, &hunks, &[0, 1, 2]).unwrap(), proposed);
        assert_eq!(apply_hunks(&original, &proposed, &hunks, &[]).unwrap(), original);
    }

    #[test]
    fn keeps_a_missing_final_newline_and_crlf() {
        let original = "a\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh\r\ni\r\nj\r\nk";
        let proposed = "A\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh\r\ni\r\nj\r\nK";
        let hunks = hunks_of(original, proposed);
        assert_eq!(hunks.len(), 2);
        assert_eq!(
            apply_hunks(original, proposed, &hunks, &[1]).unwrap(),
            "a\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh\r\ni\r\nj\r\nK"
        );
    }

    #[test]
    fn inserted_and_deleted_lines() {
        let original = numbered(30);
        let mut proposed = original.replace("line 3\n", "line 3\nnew A\nnew B\n");
        proposed = proposed.replace("line 25\n", "");
        let hunks = hunks_of(&original, &proposed);
        assert_eq!(hunks.len(), 2);
        let only_delete = apply_hunks(&original, &proposed, &hunks, &[1]).unwrap();
        assert_eq!(only_delete, original.replace("line 25\n", ""));
    }

    #[test]
    fn refuses_an_unknown_hunk_or_hunks_of_another_change() {
        let original = numbered(10);
        let proposed = change(&original, &[(5, "five")]);
        let hunks = hunks_of(&original, &proposed);
        assert!(apply_hunks(&original, &proposed, &hunks, &[1])
            .unwrap_err()
            .contains("no hunk 2"));
        let other = numbered(4);
        assert!(apply_hunks(&other, &proposed, &hunks, &[0]).is_err());
    }

    #[test]
    fn labels_name_the_original_lines() {
        let original = numbered(40);
        let proposed = change(&original, &[(20, "twenty")]);
        let hunks = hunks_of(&original, &proposed);
        assert_eq!(hunk_label(0, &hunks[0]), "hunk 1 (lines 17-23)");
    }
}
