//! Splitting a shell command line into simple commands, the way the permission check needs it:
//! at unquoted `&&`, `||`, `;`, `|`, `|&`, `&` and newlines, keeping quotes, escapes, command
//! substitutions and heredoc bodies intact. It is not a shell: anything it does not follow
//! (subshells, brace groups, unterminated quotes) marks the command as opaque, which keeps it from
//! being allowed without asking.

/// One word of a simple command: the source text and the value after quote removal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    pub raw: String,
    pub value: String,
}

/// A redirection such as `> out.txt`, `2>&1` or `<<EOF` (heredoc body not kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    pub op: String,
    pub target: String,
}

impl Redirect {
    /// Whether the redirection writes to a file (as opposed to reading, duplicating a file
    /// descriptor, or discarding into /dev/null).
    pub fn writes_file(&self) -> bool {
        if !self.op.contains('>') || self.target == "/dev/null" {
            return false;
        }
        let duplicates_fd = self.op.ends_with('&') && (self.target == "-" || self.target.parse::<u32>().is_ok());
        !duplicates_fd
    }
}

/// One simple command of a command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The command's source text, trimmed (heredoc bodies excluded).
    pub text: String,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// Bodies of `$(…)`, backticks, `<(…)` and `>(…)`: other commands whose output becomes part
    /// of this one.
    pub substitutions: Vec<String>,
    /// An unquoted or double-quoted `$NAME` / `${…}`: the words are only known when it runs.
    pub has_expansion: bool,
    /// A shape this splitter does not look inside (subshell, brace group, unterminated quote).
    pub opaque: bool,
}

impl SimpleCommand {
    /// The words joined by single spaces, redirections left out (what prefix rules match).
    pub fn joined(&self) -> String {
        self.words.iter().map(|w| w.raw.as_str()).collect::<Vec<_>>().join(" ")
    }
}

#[derive(Default)]
struct WordBuf {
    raw: String,
    value: String,
}

struct Splitter {
    chars: Vec<char>,
    pos: usize,
    commands: Vec<SimpleCommand>,
    current: SimpleCommand,
    start: Option<usize>,
    end: usize,
    word: Option<WordBuf>,
    pending_redirect: Option<String>,
    pending_heredocs: Vec<(String, bool)>,
}

/// Split a command line into its simple commands. Empty commands are dropped.
pub fn split_commands(line: &str) -> Vec<SimpleCommand> {
    let mut s = Splitter {
        chars: line.chars().collect(),
        pos: 0,
        commands: Vec::new(),
        current: SimpleCommand::default(),
        start: None,
        end: 0,
        word: None,
        pending_redirect: None,
        pending_heredocs: Vec::new(),
    };
    s.run();
    s.commands
}

impl Splitter {
    fn peek(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn mark(&mut self) {
        if self.start.is_none() {
            self.start = Some(self.pos);
        }
    }

    fn word_mut(&mut self) -> &mut WordBuf {
        self.word.get_or_insert_with(WordBuf::default)
    }

    /// Append source chars `from..to` to the current word, raw and value alike.
    fn push_span(&mut self, from: usize, to: usize) {
        let text: String = self.chars[from..to.min(self.chars.len())].iter().collect();
        let word = self.word_mut();
        word.raw.push_str(&text);
        word.value.push_str(&text);
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == ' ' || c == '\t' || c == '\r' {
                self.finish_word();
                self.pos += 1;
                continue;
            }
            match c {
                '\\' => self.backslash(),
                '\'' => self.single_quote(),
                '"' => self.double_quote(),
                '`' => self.backtick(),
                '$' => self.dollar(),
                '#' if self.word.is_none() => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                '\n' => {
                    self.finish_word();
                    self.pos += 1;
                    self.skip_heredoc_bodies();
                    self.finish_command();
                }
                ';' => {
                    self.finish_word();
                    self.pos += if self.peek(1) == Some(';') { 2 } else { 1 };
                    self.finish_command();
                }
                '|' => {
                    self.finish_word();
                    self.pos += if matches!(self.peek(1), Some('|') | Some('&')) {
                        2
                    } else {
                        1
                    };
                    self.finish_command();
                }
                '&' if self.peek(1) == Some('>') => self.redirect(),
                '&' => {
                    self.finish_word();
                    self.pos += if self.peek(1) == Some('&') { 2 } else { 1 };
                    self.finish_command();
                }
                '<' | '>' if self.peek(1) == Some('(') => {
                    self.mark();
                    self.substitution_paren(1);
                }
                '<' | '>' => self.redirect(),
                '(' | ')' => {
                    self.mark();
                    self.finish_word();
                    self.current.opaque = true;
                    self.pos += 1;
                    self.end = self.pos;
                }
                _ => {
                    self.mark();
                    self.push_span(self.pos, self.pos + 1);
                    self.pos += 1;
                    self.end = self.pos;
                }
            }
        }
        self.finish_word();
        self.finish_command();
    }

    fn backslash(&mut self) {
        self.mark();
        match self.peek(1) {
            // Line continuation.
            Some('\n') => self.pos += 2,
            Some(next) => {
                let word = self.word_mut();
                word.raw.push('\\');
                word.raw.push(next);
                word.value.push(next);
                self.pos += 2;
                self.end = self.pos;
            }
            None => {
                self.push_span(self.pos, self.pos + 1);
                self.pos += 1;
                self.end = self.pos;
            }
        }
    }

    fn single_quote(&mut self) {
        self.mark();
        let open = self.pos;
        let close = (open + 1..self.chars.len()).find(|&i| self.chars[i] == '\'');
        let close = match close {
            Some(close) => close,
            None => {
                self.current.opaque = true;
                self.chars.len()
            }
        };
        let inner: String = self.chars[open + 1..close].iter().collect();
        let raw: String = self.chars[open..(close + 1).min(self.chars.len())].iter().collect();
        let word = self.word_mut();
        word.raw.push_str(&raw);
        word.value.push_str(&inner);
        self.pos = close + 1;
        self.end = self.pos.min(self.chars.len());
    }

    fn double_quote(&mut self) {
        self.mark();
        self.word_mut().raw.push('"');
        self.pos += 1;
        loop {
            let Some(c) = self.peek(0) else {
                self.current.opaque = true;
                break;
            };
            match c {
                '"' => {
                    self.word_mut().raw.push('"');
                    self.pos += 1;
                    break;
                }
                '\\' => {
                    let next = self.peek(1);
                    let word = self.word_mut();
                    word.raw.push('\\');
                    match next {
                        Some(n @ ('"' | '\\' | '$' | '`')) => {
                            word.raw.push(n);
                            word.value.push(n);
                            self.pos += 2;
                        }
                        Some('\n') => {
                            word.raw.push('\n');
                            self.pos += 2;
                        }
                        Some(n) => {
                            word.raw.push(n);
                            word.value.push('\\');
                            word.value.push(n);
                            self.pos += 2;
                        }
                        None => self.pos += 1,
                    }
                }
                '`' => self.backtick(),
                '$' => self.dollar(),
                _ => {
                    self.push_span(self.pos, self.pos + 1);
                    self.pos += 1;
                }
            }
        }
        self.end = self.pos.min(self.chars.len());
    }

    fn backtick(&mut self) {
        self.mark();
        let open = self.pos;
        let mut i = open + 1;
        while i < self.chars.len() && self.chars[i] != '`' {
            i += if self.chars[i] == '\\' { 2 } else { 1 };
        }
        if i >= self.chars.len() {
            self.current.opaque = true;
        }
        let close = i.min(self.chars.len());
        self.current
            .substitutions
            .push(self.chars[open + 1..close].iter().collect());
        self.push_span(open, close + 1);
        self.pos = close + 1;
        self.end = self.pos.min(self.chars.len());
    }

    fn dollar(&mut self) {
        self.mark();
        match self.peek(1) {
            Some('(') => self.substitution_paren(1),
            Some('{') => {
                self.current.has_expansion = true;
                let close = self.matching(self.pos + 1, '{', '}');
                self.push_span(self.pos, close + 1);
                self.pos = close + 1;
            }
            Some(c) if c.is_ascii_alphanumeric() || "_@*#?!$-".contains(c) => {
                self.current.has_expansion = true;
                let mut end = self.pos + 2;
                if c.is_ascii_alphabetic() || c == '_' {
                    while self
                        .chars
                        .get(end)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                    {
                        end += 1;
                    }
                }
                self.push_span(self.pos, end);
                self.pos = end;
            }
            _ => {
                self.push_span(self.pos, self.pos + 1);
                self.pos += 1;
            }
        }
        self.end = self.pos.min(self.chars.len());
    }

    /// `$(…)`, `<(…)` or `>(…)` with the `(` at `pos + offset`.
    fn substitution_paren(&mut self, offset: usize) {
        let open = self.pos + offset;
        let close = self.matching(open, '(', ')');
        self.current
            .substitutions
            .push(self.chars[open + 1..close.min(self.chars.len())].iter().collect());
        self.push_span(self.pos, close + 1);
        self.pos = close + 1;
        self.end = self.pos.min(self.chars.len());
    }

    /// Index of the bracket closing the one at `open`, skipping quoted text; the end of input
    /// (and an opaque command) when there is none.
    fn matching(&mut self, open: usize, opening: char, closing: char) -> usize {
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        let mut i = open;
        while i < self.chars.len() {
            let c = self.chars[i];
            match quote {
                Some('\'') if c == '\'' => quote = None,
                Some('\'') => {}
                Some(_) if c == '\\' => i += 1,
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if c == '\\' => i += 1,
                None if c == '\'' || c == '"' || c == '`' => quote = Some(c),
                None if c == opening => depth += 1,
                None if c == closing => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i;
                    }
                }
                None => {}
            }
            i += 1;
        }
        self.current.opaque = true;
        self.chars.len()
    }

    fn redirect(&mut self) {
        self.mark();
        // A word made only of digits right before the operator is its file descriptor.
        let fd = match &self.word {
            Some(w) if !w.raw.is_empty() && w.raw.chars().all(|c| c.is_ascii_digit()) => {
                let fd = w.raw.clone();
                self.word = None;
                fd
            }
            _ => {
                self.finish_word();
                String::new()
            }
        };
        let rest: String = self.chars[self.pos..(self.pos + 3).min(self.chars.len())]
            .iter()
            .collect();
        let op = ["&>>", "<<<", "<<-", "&>", ">>", ">&", ">|", "<<", "<&", "<>", ">", "<"]
            .into_iter()
            .find(|op| rest.starts_with(op))
            .unwrap_or(">");
        self.pos += op.chars().count();
        self.end = self.pos;
        if self.pending_redirect.is_some() {
            self.current.opaque = true;
        }
        self.pending_redirect = Some(format!("{fd}{op}"));
    }

    fn finish_word(&mut self) {
        let Some(word) = self.word.take() else {
            return;
        };
        if let Some(op) = self.pending_redirect.take() {
            let bare_op = op.trim_start_matches(|c: char| c.is_ascii_digit());
            if bare_op == "<<" || bare_op == "<<-" {
                self.pending_heredocs.push((word.value.clone(), bare_op == "<<-"));
            }
            self.current.redirects.push(Redirect { op, target: word.value });
        } else {
            self.current.words.push(Word {
                raw: word.raw,
                value: word.value,
            });
        }
    }

    /// After a newline: skip the bodies of heredocs opened on the line just ended.
    fn skip_heredoc_bodies(&mut self) {
        for (delimiter, strip_tabs) in std::mem::take(&mut self.pending_heredocs) {
            loop {
                if self.pos >= self.chars.len() {
                    return;
                }
                let line_end = (self.pos..self.chars.len())
                    .find(|&i| self.chars[i] == '\n')
                    .unwrap_or(self.chars.len());
                let line: String = self.chars[self.pos..line_end].iter().collect();
                self.pos = (line_end + 1).min(self.chars.len());
                let line = if strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    &line
                };
                if line.trim_end_matches('\r') == delimiter {
                    break;
                }
            }
        }
    }

    fn finish_command(&mut self) {
        self.finish_word();
        if self.pending_redirect.take().is_some() {
            self.current.opaque = true;
        }
        let mut command = std::mem::take(&mut self.current);
        if let Some(start) = self.start.take() {
            let end = self.end.clamp(start, self.chars.len());
            command.text = self.chars[start..end].iter().collect::<String>().trim().to_string();
        }
        if !command.words.is_empty() || !command.redirects.is_empty() || command.opaque {
            self.commands.push(command);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<String> {
        split_commands(line).into_iter().map(|c| c.text).collect()
    }

    #[test]
    fn splits_at_operators_and_newlines() {
        assert_eq!(
            texts("git status && npm test || echo no; ls | wc -l\npwd & date"),
            vec!["git status", "npm test", "echo no", "ls", "wc -l", "pwd", "date"]
        );
    }

    #[test]
    fn quotes_keep_operators_inside_words() {
        let cmds = split_commands(r#"echo "a && b" 'c; d' e\;f"#);
        assert_eq!(cmds.len(), 1);
        let values: Vec<_> = cmds[0].words.iter().map(|w| w.value.as_str()).collect();
        assert_eq!(values, vec!["echo", "a && b", "c; d", "e;f"]);
    }

    #[test]
    fn redirections_are_not_words_or_separators() {
        let cmds = split_commands("npm test 2>&1 > out.log");
        assert_eq!(cmds.len(), 1);
        assert_eq!(cmds[0].joined(), "npm test");
        assert_eq!(cmds[0].redirects.len(), 2);
        assert!(!cmds[0].redirects[0].writes_file());
        assert!(cmds[0].redirects[1].writes_file());
    }

    #[test]
    fn substitutions_are_recorded() {
        let cmds = split_commands("echo $(rm -rf x; ls) `whoami` \"$(date)\"");
        assert_eq!(cmds.len(), 1);
        assert_eq!(cmds[0].substitutions, vec!["rm -rf x; ls", "whoami", "date"]);
        let plain = split_commands("echo '$(not run)'");
        assert!(plain[0].substitutions.is_empty());
        assert!(!plain[0].has_expansion);
    }

    #[test]
    fn heredoc_bodies_are_skipped() {
        let cmds = split_commands("cat <<'EOF' > notes.txt\nrm -rf /\nEOF\necho done");
        assert_eq!(
            texts("cat <<EOF\nrm -rf /\nEOF\necho done"),
            vec!["cat <<EOF", "echo done"]
        );
        assert_eq!(cmds[0].redirects[0].op, "<<");
        assert_eq!(cmds[0].redirects[0].target, "EOF");
    }

    #[test]
    fn subshells_and_unterminated_quotes_are_opaque() {
        assert!(split_commands("(cd x && rm y)").iter().any(|c| c.opaque));
        assert!(split_commands("echo 'oops").iter().all(|c| c.opaque));
        assert!(split_commands("echo $HOME")[0].has_expansion);
    }
}
