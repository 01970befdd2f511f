//! Text helpers shared by the file tools: decoding with BOM and line-ending detection (so an edit
//! writes back exactly the conventions the file had), binary and image detection.

/// The line ending a file uses, decided by its first line break.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnding {
    Lf,
    CrLf,
}

impl LineEnding {
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::CrLf => "\r\n",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16Le,
}

/// A text file decoded for the model: `text` always uses `\n` line breaks; the original
/// conventions are kept to encode it back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    pub bom: bool,
    pub encoding: Encoding,
    pub line_ending: LineEnding,
    /// UTF-8 with invalid bytes, which `text` shows as U+FFFD (so writing it back would change them).
    pub invalid_utf8: bool,
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
const UTF16LE_BOM: &[u8] = b"\xFF\xFE";

/// Decode file bytes. Returns None for binary content (NUL bytes or mostly invalid UTF-8).
pub fn decode(bytes: &[u8]) -> Option<Decoded> {
    let (raw, bom, encoding, invalid_utf8) = if let Some(rest) = bytes.strip_prefix(UTF8_BOM) {
        let (raw, invalid) = utf8_lossy(rest);
        (raw, true, Encoding::Utf8, invalid)
    } else if let Some(rest) = bytes.strip_prefix(UTF16LE_BOM) {
        let units: Vec<u16> = rest.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
        (String::from_utf16_lossy(&units), true, Encoding::Utf16Le, false)
    } else {
        if is_binary(bytes) {
            return None;
        }
        let (raw, invalid) = utf8_lossy(bytes);
        (raw, false, Encoding::Utf8, invalid)
    };
    let line_ending = detect_line_ending(&raw);
    // A byte search for `\r` first: most files have none, and it is much faster than a substring search.
    let text = if contains_byte(raw.as_bytes(), b'\r') && raw.contains("\r\n") {
        raw.replace("\r\n", "\n")
    } else {
        raw
    };
    Some(Decoded {
        text,
        bom,
        encoding,
        line_ending,
        invalid_utf8,
    })
}

/// UTF-8 bytes as text, and whether any were invalid (replaced by U+FFFD). Valid text, the usual
/// case, is validated once and copied once.
fn utf8_lossy(bytes: &[u8]) -> (String, bool) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (text.to_owned(), false),
        Err(_) => (String::from_utf8_lossy(bytes).into_owned(), true),
    }
}

/// Encode `text` (with `\n` breaks) back to bytes with the given conventions.
pub fn encode(text: &str, bom: bool, encoding: Encoding, line_ending: LineEnding) -> Vec<u8> {
    let text = match line_ending {
        LineEnding::Lf => std::borrow::Cow::Borrowed(text),
        LineEnding::CrLf => std::borrow::Cow::Owned(normalize_newlines(text).replace('\n', "\r\n")),
    };
    match encoding {
        Encoding::Utf8 => {
            let mut out = Vec::with_capacity(text.len() + 3);
            if bom {
                out.extend_from_slice(UTF8_BOM);
            }
            out.extend_from_slice(text.as_bytes());
            out
        }
        Encoding::Utf16Le => {
            let mut out = Vec::with_capacity(text.len() * 2 + 2);
            out.extend_from_slice(UTF16LE_BOM);
            for unit in text.encode_utf16() {
                out.extend_from_slice(&unit.to_le_bytes());
            }
            out
        }
    }
}

/// [`encode`], taking the text: plain UTF-8 with `\n` breaks becomes the bytes without a copy.
pub fn encode_owned(text: String, bom: bool, encoding: Encoding, line_ending: LineEnding) -> Vec<u8> {
    match (bom, encoding, line_ending) {
        (false, Encoding::Utf8, LineEnding::Lf) => text.into_bytes(),
        _ => encode(&text, bom, encoding, line_ending),
    }
}

impl Decoded {
    /// Encode new text with this file's conventions.
    pub fn encode_like(&self, text: &str) -> Vec<u8> {
        encode(text, self.bom, self.encoding, self.line_ending)
    }
}

/// `byte` repeated in all eight bytes of a word.
pub(crate) const fn repeat_byte(byte: u8) -> u64 {
    u64::from_le_bytes([byte; 8])
}

/// The high bit of each byte of `x` that is zero, and no other bit (exact: no carry crosses a
/// byte). With `x = word ^ repeat_byte(b)` these are the bytes of `word` equal to `b`.
pub(crate) const fn zero_byte_mask(x: u64) -> u64 {
    const LOW7: u64 = repeat_byte(0x7f);
    !(((x & LOW7) + LOW7) | x | LOW7)
}

/// Whether `bytes` holds `byte`, eight bytes at a time inline: in the wasm build about twice as
/// fast as `memchr`, whose portable code reads four bytes at a time there and is not inlined.
pub(crate) fn contains_byte(bytes: &[u8], byte: u8) -> bool {
    let pattern = repeat_byte(byte);
    let mut rest = bytes;
    while let Some((word, tail)) = rest.split_first_chunk::<8>() {
        if zero_byte_mask(u64::from_le_bytes(*word) ^ pattern) != 0 {
            return true;
        }
        rest = tail;
    }
    rest.contains(&byte)
}

/// `\r\n` → `\n` (the model's strings may carry either).
pub fn normalize_newlines(text: &str) -> String {
    if text.contains('\r') {
        text.replace("\r\n", "\n")
    } else {
        text.to_string()
    }
}

pub fn detect_line_ending(text: &str) -> LineEnding {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => LineEnding::CrLf,
        _ => LineEnding::Lf,
    }
}

/// Binary if the first 8 KiB hold a NUL byte or more than 30% of them are not valid UTF-8 (a
/// few stray bytes in a short file are text in a legacy encoding, as the CLI reads it too).
pub fn is_binary(bytes: &[u8]) -> bool {
    let sample = &bytes[..bytes.len().min(8192)];
    if sample.contains(&0) {
        return true;
    }
    match std::str::from_utf8(sample) {
        Ok(_) => false,
        Err(e) => {
            // A multi-byte character cut by the sample boundary is not evidence of binary.
            if e.error_len().is_none() && sample.len() == 8192 {
                return false;
            }
            let invalid = String::from_utf8_lossy(sample).matches('\u{FFFD}').count();
            invalid * 10 > sample.len() * 3
        }
    }
}

/// The image MIME type for files the model can see as images, by magic bytes.
pub fn image_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(b"\xFF\xD8\xFF") {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// Whether a file name has an image extension (used to refuse non-image bytes behind such a name
/// with a clear message).
pub fn has_image_extension(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".png", ".jpg", ".jpeg", ".gif", ".webp"]
        .iter()
        .any(|e| lower.ends_with(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_file_round_trips_byte_for_byte() {
        let bytes = b"a\r\nb\r\n";
        let d = decode(bytes).unwrap();
        assert_eq!(d.text, "a\nb\n");
        assert_eq!(d.line_ending, LineEnding::CrLf);
        assert_eq!(d.encode_like(&d.text), bytes);
    }

    #[test]
    fn utf8_bom_is_kept_out_of_the_text_and_written_back() {
        let bytes = b"\xEF\xBB\xBFhello\n";
        let d = decode(bytes).unwrap();
        assert_eq!(d.text, "hello\n");
        assert!(d.bom);
        assert_eq!(d.encode_like("bye\n"), b"\xEF\xBB\xBFbye\n");
    }

    #[test]
    fn utf16le_with_bom_decodes_and_encodes() {
        let d = decode(&encode("héllo\n", true, Encoding::Utf16Le, LineEnding::CrLf)).unwrap();
        assert_eq!(d.text, "héllo\n");
        assert_eq!(d.encoding, Encoding::Utf16Le);
        assert_eq!(d.line_ending, LineEnding::CrLf);
    }

    #[test]
    fn invalid_utf8_is_flagged_with_or_without_a_bom() {
        let latin1 = [b"caf\xE9 ".repeat(20), b"\n".to_vec()].concat();
        let decoded = decode(&latin1);
        assert!(decoded.as_ref().is_some_and(|d| d.invalid_utf8), "{decoded:?}");
        assert!(decoded.is_some_and(|d| d.text.starts_with("caf\u{FFFD} ")));
        assert!(decode(&[b"\xEF\xBB\xBF".as_slice(), &latin1].concat()).is_some_and(|d| d.invalid_utf8));
        assert!(decode("caf\u{e9}\n".as_bytes()).is_some_and(|d| !d.invalid_utf8));
        assert!(decode(&encode("x\n", true, Encoding::Utf16Le, LineEnding::Lf)).is_some_and(|d| !d.invalid_utf8));
        // A short file with a few legacy bytes is text too (2.1.330's Read shows it), not binary.
        assert!(decode(b"caf\xE9 cr\xE8me\nplain line\n").is_some_and(|d| d.invalid_utf8));
    }

    #[test]
    fn byte_search_finds_a_byte_at_every_offset_and_no_other() {
        let mut bytes = vec![b'a'; 40];
        assert!(!contains_byte(&bytes, b'\r'));
        for at in 0..bytes.len() {
            bytes[at] = b'\r';
            assert!(contains_byte(&bytes, b'\r'), "at {at}");
            assert!(!contains_byte(&bytes, b'\n'));
            bytes[at] = b'a';
        }
        // Bytes one bit away from the one sought do not count.
        assert!(!contains_byte(
            &[0x0c, 0x0f, 0x8d, 0x4d, 0x0d ^ 0x80, 1, 2, 3, 4],
            b'\r'
        ));
    }

    #[test]
    fn nul_bytes_mean_binary() {
        assert!(decode(b"\x00\x01\x02abc").is_none());
        assert!(!is_binary("unicode ✓ ünïcødé".as_bytes()));
    }

    #[test]
    fn images_are_recognised_by_magic_bytes() {
        assert_eq!(image_mime(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
        assert_eq!(image_mime(b"not an image"), None);
    }
}
