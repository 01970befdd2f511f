//! What the file tools share about files: the CLI's limits on what one read returns, and how it
//! names sizes and file types.

/// Largest file read whole (no `limit`, no `allow_large`): the CLI's 256 KB. Within it, 2.1.330
/// returns every line (there is no default line limit any more); the token cap pages the rest.
pub const MAX_WHOLE_FILE_BYTES: usize = 256 * 1024;
/// The CLI's token budget for one read.
pub const MAX_TOKENS: usize = 25_000;

/// Lower-case extension without the dot; empty when there is none.
pub(crate) fn extension(path: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match name.rfind('.') {
        Some(i) if i > 0 => name[i + 1..].to_ascii_lowercase(),
        _ => String::new(),
    }
}

/// Sizes as the CLI prints them: `512 bytes`, `1.5KB`, `256KB`, `10MB`. The CLI writes
/// `(size / unit).toFixed(1)` without a trailing `.0`; toFixed rounds a tie up (1.25 to 1.3, where
/// Rust's `{:.1}` gives 1.2), which integer tenths do exactly.
pub(crate) fn format_bytes(bytes: usize) -> String {
    const KB: u64 = 1024;
    let bytes_wide = bytes as u64;
    let (unit, name) = match bytes_wide {
        b if b < KB => return format!("{bytes} bytes"),
        b if b < KB * KB => (KB, "KB"),
        b if b < KB * KB * KB => (KB * KB, "MB"),
        _ => (KB * KB * KB, "GB"),
    };
    let tenths = (bytes_wide.saturating_mul(10) + unit / 2) / unit;
    match tenths % 10 {
        0 => format!("{}{name}", tenths / 10),
        tenth => format!("{}.{tenth}{name}", tenths / 10),
    }
}
