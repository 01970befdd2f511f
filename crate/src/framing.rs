//! NDJSON framing, the one every stdio peer uses (the agent's stdout in the session driver, the
//! MCP server's stdin; through the wasm export `NdjsonSplitter`): a byte stream that arrives in
//! arbitrary chunks split into complete lines. Bytes are decoded only once a line is whole, so a
//! character split across chunks survives; a line over the size limit is dropped and reported
//! rather than buffered without bound; a line that is not UTF-8 is reported, never repaired.

/// Lines longer than this are discarded: 64 MiB is far beyond any real message (a 10 MB file read
/// JSON-escaped fits comfortably).
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// What one line of the stream was.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    test,
    derive(ts_rs::TS),
    ts(
        rename = "NdjsonFrame",
        tag = "kind",
        rename_all = "camelCase",
        rename_all_fields = "camelCase"
    )
)]
pub enum Frame {
    /// A complete line, without its `\n` (or `\r\n`).
    Line { line: String },
    /// A line over the limit, dropped; `bytes` is its length.
    Oversized { bytes: usize },
    /// A line that is not UTF-8, dropped; the bytes before `valid_up_to` were valid.
    InvalidUtf8 { bytes: usize, valid_up_to: usize },
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

    pub fn max_line_bytes(&self) -> usize {
        self.max_line_bytes
    }

    /// Feed a chunk; returns the frames it completed. Empty lines are skipped, `\r\n` is accepted.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<Frame> {
        let mut frames = Vec::new();
        let mut rest = chunk;
        while let Some(pos) = memchr::memchr(b'\n', rest) {
            let (head, tail) = rest.split_at(pos);
            rest = &tail[1..];
            if let Some(seen) = self.discarding.take() {
                frames.push(Frame::Oversized {
                    bytes: seen + head.len(),
                });
                continue;
            }
            if self.buf.len() + head.len() > self.max_line_bytes {
                frames.push(Frame::Oversized {
                    bytes: self.buf.len() + head.len(),
                });
                self.buf.clear();
                continue;
            }
            let line = if self.buf.is_empty() {
                head.to_vec()
            } else {
                self.buf.extend_from_slice(head);
                std::mem::take(&mut self.buf)
            };
            frames.extend(finish_line(line));
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
            return Some(Frame::Oversized { bytes: seen });
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
    let bytes = line.len();
    Some(match String::from_utf8(line) {
        Ok(line) => Frame::Line { line },
        Err(e) => Frame::InvalidUtf8 {
            bytes,
            valid_up_to: e.utf8_error().valid_up_to(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(frames: Vec<Frame>) -> Vec<String> {
        frames
            .into_iter()
            .map(|f| match f {
                Frame::Line { line } => line,
                Frame::Oversized { bytes } => format!("<oversized {bytes}>"),
                Frame::InvalidUtf8 { bytes, valid_up_to } => format!("<not utf-8 {bytes} {valid_up_to}>"),
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
    fn every_split_of_a_stream_gives_the_same_lines() {
        let stream = "{\"a\":\"é✓\"}\r\n\n{\"b\":2}\n  \nlast".as_bytes();
        let whole = {
            let mut s = LineSplitter::default();
            let mut out = lines(s.push(stream));
            out.extend(lines(s.finish().into_iter().collect()));
            out
        };
        assert_eq!(whole, ["{\"a\":\"é✓\"}", "{\"b\":2}", "last"]);
        for cut in 0..stream.len() {
            for second in cut..stream.len() {
                let mut s = LineSplitter::default();
                let mut out = lines(s.push(&stream[..cut]));
                out.extend(lines(s.push(&stream[cut..second])));
                out.extend(lines(s.push(&stream[second..])));
                out.extend(lines(s.finish().into_iter().collect()));
                assert_eq!(out, whole, "cut at {cut} and {second}");
            }
        }
    }

    #[test]
    fn final_line_without_newline_is_delivered_on_finish() {
        let mut s = LineSplitter::default();
        s.push(b"{\"x\":true}");
        assert_eq!(
            s.finish(),
            Some(Frame::Line {
                line: "{\"x\":true}".into()
            })
        );
    }

    #[test]
    fn oversized_lines_are_dropped_and_reported() {
        let mut s = LineSplitter::new(8);
        let out = lines(s.push(b"0123456789abc"));
        assert!(out.is_empty());
        assert_eq!(lines(s.push(b"def\nok\n")), vec!["<oversized 16>", "ok"]);
    }

    #[test]
    fn invalid_utf8_is_reported_not_replaced() {
        let mut s = LineSplitter::default();
        assert_eq!(
            lines(s.push(b"{\"a\":\"\xff\xfe\"}\nok\n")),
            vec!["<not utf-8 10 6>", "ok"]
        );
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
