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

/// Sizes as the CLI prints them: `512 bytes`, `1.5KB`, `256KB`, `10MB`.
pub(crate) fn format_bytes(bytes: usize) -> String {
    let kb = bytes as f64 / 1024.0;
    if kb < 1.0 {
        return format!("{bytes} bytes");
    }
    let one_decimal = |v: f64| {
        let s = format!("{v:.1}");
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    };
    if kb < 1024.0 {
        return format!("{}KB", one_decimal(kb));
    }
    let mb = kb / 1024.0;
    if mb < 1024.0 {
        return format!("{}MB", one_decimal(mb));
    }
    format!("{}GB", one_decimal(mb / 1024.0))
}
