//! Byte scans eight bytes at a time, shared by the text decoding of the file tools and the diffs
//! (the ground floor: it depends on nothing).

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
