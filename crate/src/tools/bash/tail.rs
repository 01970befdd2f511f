//! What a background shell's panel shows: the last lines of its output, bounded, as a terminal
//! would leave them (colour codes gone, a line rewritten with `\r` shown as its last version).

/// The panel's view of a shell: at most this many of its last lines…
pub(super) const TAIL_LINES: usize = 40;
/// …and at most this many characters, however long the lines.
pub(super) const TAIL_CHARS: usize = 4000;

/// The last lines of a shell's output (stdout and stderr as they came), bounded.
#[derive(Default)]
pub(super) struct Tail {
    text: String,
}

impl Tail {
    pub(super) fn push(&mut self, chunk: &str) {
        if chunk.is_empty() {
            return;
        }
        self.text.push_str(chunk);
        // Kept in the raw form (escape sequences and `\r` cleaned when shown, where a sequence
        // split across two reads is whole again), with some room over what is shown for them.
        let keep = TAIL_CHARS * 2;
        let chars = self.text.chars().count();
        if chars > keep {
            let cut = self.text.char_indices().nth(chars - keep).map_or(0, |(i, _)| i);
            self.text.drain(..cut);
        }
        let lines = self.text.matches('\n').count();
        if lines > TAIL_LINES * 2 {
            let cut = self
                .text
                .match_indices('\n')
                .nth(lines - TAIL_LINES * 2)
                .map_or(0, |(i, _)| i + 1);
            self.text.drain(..cut);
        }
    }

    /// The text for the panel: the last [`TAIL_LINES`] lines, at most [`TAIL_CHARS`]
    /// characters, without terminal escape sequences.
    pub(super) fn shown(&self) -> String {
        let clean = terminal_text(&self.text);
        let lines: Vec<&str> = clean.trim_end_matches('\n').split('\n').collect();
        let from = lines.len().saturating_sub(TAIL_LINES);
        let text = lines[from..].join("\n");
        let chars = text.chars().count();
        if chars <= TAIL_CHARS {
            return text;
        }
        let cut = text.char_indices().nth(chars - TAIL_CHARS).map_or(0, |(i, _)| i);
        text[cut..].to_string()
    }
}

/// `text` as a terminal shows it: CSI and OSC escape sequences (colours, cursor moves, titles)
/// removed, other control characters but tab and line break dropped, and a line that `\r`
/// rewrote (a progress bar) reduced to its last version.
fn terminal_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut line = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                Some('[') => {
                    // Parameters and intermediates, up to the final byte (@ to ~).
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    // Up to BEL or ESC \.
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\n' => {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            '\r' if chars.peek().is_some_and(|&next| next != '\n') => line.clear(),
            '\t' => line.push(c),
            c if c.is_control() => {}
            c => line.push(c),
        }
    }
    out.push_str(&line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_keeps_the_last_lines_within_its_bounds() {
        let mut tail = Tail::default();
        for i in 0..1000 {
            tail.push(&format!("line {i}\n"));
        }
        let shown = tail.shown();
        assert_eq!(shown.lines().count(), TAIL_LINES);
        assert!(shown.ends_with("line 999"), "{shown}");
        assert!(tail.text.len() <= TAIL_CHARS * 2 * 4);
        tail.push(&"x".repeat(100_000));
        let shown = tail.shown();
        assert_eq!(shown.chars().count(), TAIL_CHARS);
        assert!(tail.text.chars().count() <= TAIL_CHARS * 2);
    }

    #[test]
    fn escape_sequences_and_carriage_returns_are_shown_as_a_terminal_would() {
        assert_eq!(
            terminal_text("\u{1b}[32mready\u{1b}[0m in 300 ms\r\n"),
            "ready in 300 ms\n"
        );
        assert_eq!(terminal_text("10%\r50%\r100%\ndone"), "100%\ndone");
        assert_eq!(terminal_text("\u{1b}]0;title\u{7}a\tb\u{8}"), "a\tb");
        let mut tail = Tail::default();
        tail.push("\u{1b}[3");
        tail.push("1mred\u{1b}[0m\n");
        assert_eq!(tail.shown(), "red");
    }
}
