//! The NDJSON framing every stdio peer uses (`LineSplitter`, the wasm's `NdjsonSplitter`): however
//! the stream is cut into chunks, it gives exactly the frames a plain reading of the whole stream
//! gives (lines, oversized lines, lines that are not UTF-8), and never holds more than its limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tether_core::framing::{Frame, LineSplitter};

/// The frames of a whole stream, read plainly: split at `\n`, a `\r` before it dropped, blank
/// lines skipped, the last line delivered at the end.
fn reference(stream: &[u8], max: usize) -> Vec<Frame> {
    let mut frames = Vec::new();
    for segment in stream.split(|&b| b == b'\n') {
        if segment.len() > max {
            frames.push(Frame::Oversized { bytes: segment.len() });
            continue;
        }
        let line = segment.strip_suffix(b"\r").unwrap_or(segment);
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        frames.push(match std::str::from_utf8(line) {
            Ok(text) => Frame::Line { line: text.to_string() },
            Err(e) => Frame::InvalidUtf8 {
                bytes: line.len(),
                valid_up_to: e.valid_up_to(),
            },
        });
    }
    frames
}

fuzz_target!(|data: &[u8]| {
    let Some((&[limit, cuts_seed], stream)) = data.split_first_chunk::<2>() else {
        return;
    };
    let max = 1 + usize::from(limit % 64);
    let mut splitter = LineSplitter::new(max);
    let mut frames = Vec::new();
    // Chunk lengths from the seed: a deterministic walk through 1..=16.
    let mut rest = stream;
    let mut step = usize::from(cuts_seed);
    while !rest.is_empty() {
        step = (step * 31 + 7) % 251;
        let n = (1 + step % 16).min(rest.len());
        let (chunk, tail) = rest.split_at(n);
        frames.extend(splitter.push(chunk));
        rest = tail;
    }
    frames.extend(splitter.finish());
    assert_eq!(frames, reference(stream, max));
});
