//! NDJSON framing: split a byte stream that arrives in arbitrary chunks into complete lines.
//! Lines are UTF-8 JSON; a line over the size limit is dropped (and reported) rather than buffered
//! without bound, and invalid UTF-8 never panics.

/// Lines longer than this are discarded: 64 MiB is far beyond any real message (a 10 MB file read
/// JSON-escaped fits comfortably).
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    Line(String),
    /// A line that exceeded the limit; its length so far.
    Oversized(usize),
}

pub struct LineSplitter {
    buf: Vec<u8>,
    max_line_bytes: usize,
    /// Inside an oversized line: drop bytes until the next newline.
    discarding: Option<usize>,
}

impl Default for LineSplitter {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_LINE_BYTES)
    }
}

impl LineSplitter {
    pub fn new(max_line_bytes: usize) -> Self {
        LineSplitter {
            buf: Vec::new(),
            max_line_bytes,
            discarding: None,
        }
    }

    /// Feed a chunk; returns the frames it completed. Empty lines are skipped, `\r\n` is accepted.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<Frame> {
        let mut frames = Vec::new();
        let mut rest = chunk;
        while let Some(pos) = rest.iter().position(|&b| b == b'\n') {
            let (head, tail) = rest.split_at(pos);
            rest = &tail[1..];
            if let Some(seen) = self.discarding.take() {
                frames.push(Frame::Oversized(seen + head.len()));
                continue;
            }
            if self.buf.len() + head.len() > self.max_line_bytes {
                frames.push(Frame::Oversized(self.buf.len() + head.len()));
                self.buf.clear();
                continue;
            }
            self.buf.extend_from_slice(head);
            let line = std::mem::take(&mut self.buf);
            if let Some(frame) = finish_line(line) {
                frames.push(frame);
            }
        }
        if let Some(seen) = self.discarding.as_mut() {
            *seen += rest.len();
        } else if self.buf.len() + rest.len() > self.max_line_bytes {
            self.discarding = Some(self.buf.len() + rest.len());
            self.buf.clear();
        } else {
            self.buf.extend_from_slice(rest);
        }
        frames
    }

    /// The stream ended: a final line without a newline still counts.
    pub fn finish(&mut self) -> Option<Frame> {
        if let Some(seen) = self.discarding.take() {
            return Some(Frame::Oversized(seen));
        }
        let line = std::mem::take(&mut self.buf);
        finish_line(line)
    }
}

fn finish_line(mut line: Vec<u8>) -> Option<Frame> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.iter().all(|b| b.is_ascii_whitespace()) {
        return None;
    }
    Some(Frame::Line(String::from_utf8_lossy(&line).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(frames: Vec<Frame>) -> Vec<String> {
        frames
            .into_iter()
            .map(|f| match f {
                Frame::Line(l) => l,
                Frame::Oversized(n) => format!("<oversized {n}>"),
            })
            .collect()
    }

    #[test]
    fn splits_lines_across_arbitrary_chunks() {
        let mut s = LineSplitter::default();
        assert!(s.push(b"{\"a\":").is_empty());
        assert_eq!(lines(s.push(b"1}\n{\"b\"")), vec!["{\"a\":1}"]);
        assert_eq!(lines(s.push(b":2}\r\n\n")), vec!["{\"b\":2}"]);
        assert_eq!(s.finish(), None);
    }

    #[test]
    fn final_line_without_newline_is_delivered_on_finish() {
        let mut s = LineSplitter::default();
        s.push(b"{\"x\":true}");
        assert_eq!(s.finish(), Some(Frame::Line("{\"x\":true}".into())));
    }

    #[test]
    fn oversized_lines_are_dropped_and_reported() {
        let mut s = LineSplitter::new(8);
        let out = lines(s.push(b"0123456789abc"));
        assert!(out.is_empty());
        assert_eq!(lines(s.push(b"def\nok\n")), vec!["<oversized 16>", "ok"]);
    }

    #[test]
    fn invalid_utf8_does_not_panic() {
        let mut s = LineSplitter::default();
        let out = lines(s.push(b"\xff\xfe{}\n"));
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn multibyte_characters_split_across_chunks_survive() {
        let mut s = LineSplitter::default();
        let text = "héllo ✓\n".as_bytes();
        let (a, b) = text.split_at(2);
        s.push(a);
        assert_eq!(lines(s.push(b)), vec!["héllo ✓"]);
    }
}
