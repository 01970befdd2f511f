//! Read: numbered lines like `cat -n` (`N<TAB>line`, as Claude Code 2.1.330 shows them), images as
//! MCP image content, notebooks as cells, with the CLI's size limits and messages.

use super::files::{extension, format_bytes, MAX_TOKENS, MAX_WHOLE_FILE_BYTES};
use super::text::{self, Encoding};
use super::{
    content_hash, devices, notebook, parse_input, Content, Host, ToolError, ToolOutput, ToolResult, ToolSpec, Toolset,
};
use crate::cache::{CachedRead, MAX_FILE_BYTES};
use crate::host::{HostError, HostErrorKind};
use crate::json::read_struct;
use crate::paths::PathStyle;
use base64::Engine as _;
use serde_json::{json, Value};

/// Largest line range returned when a `limit` is given (the CLI's `maxTokens * 128`).
pub const MAX_SELECTED_BYTES: usize = MAX_TOKENS * 128;
/// Largest image sent to the model (the CLI's target raw size; we do not resize images).
pub const MAX_IMAGE_BYTES: usize = 3_932_160;

const PARTIAL_VIEW: &str = "[Truncated: PARTIAL view \u{2014} ";

pub static SPEC: ToolSpec = ToolSpec {
    name: "Read",
    title: "Read file",
    description: "Reads a file from the workspace's filesystem. You can access any file directly by using this tool.
Assume this tool is able to read all files in the workspace. If the User provides a path to a file assume that path is valid. It is okay to read a file that does not exist; an error will be returned.

Usage:
- The file_path parameter must be an absolute path, not a relative path
- By default, it reads up to 2000 lines starting from the beginning of the file
- When you already know which part of the file you need, only read that part. This can be important for larger files.
- Results are returned using cat -n format, with line numbers starting at 1
- This tool allows Claude Code to read images (eg PNG, JPG, etc). When reading an image file the contents are presented visually as Claude Code is a multimodal LLM.
- This tool can read Jupyter notebooks (.ipynb files) and returns all cells with their outputs, combining code, text, and visualizations.
- This tool can only read files, not directories. To list files in a directory, use the LS tool.
- If you read a file that exists but has empty contents you will receive a system reminder warning in place of file contents.
- Do NOT re-read a file you just edited to verify \u{2014} Edit/Write would have errored if the change failed, and the harness tracks file state for you.",
    input_schema,
    read_only: true,
    destructive: false,
};

fn input_schema() -> Value {
    super::schema(
        r##"{
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "properties": {
        "file_path": {"type": "string", "description": "The absolute path to the file to read"},
        "offset": {"type": "integer", "minimum": 0, "maximum": 9007199254740991, "description": "The line number to start reading from. Only provide if the file is too large to read at once"},
        "limit": {"type": "integer", "exclusiveMinimum": 0, "maximum": 9007199254740991, "description": "The number of lines to read. Only provide if the file is too large to read at once."},
        "allow_large": {"type": "boolean", "description": "Set to true to read a text file, or a line range of one, that is over the usual size limits, up to what still fits in your context. Only use this when you genuinely need all of it or the user asked for the whole file; otherwise read it in parts with offset and limit, or search it."}
      },
      "required": ["file_path"],
      "additionalProperties": false
    }"##,
    )
}

/// Checked and coerced by [`parse_input`]: numbers are integers, and below their minimum absent.
struct ReadInput {
    file_path: String,
    offset: Option<i64>,
    limit: Option<i64>,
    allow_large: bool,
}

read_struct!(ReadInput {
    file_path: required "file_path",
    offset: default "offset",
    limit: default "limit",
    allow_large: default "allow_large",
});

pub async fn run<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ToolOutput> {
    let input: ReadInput = parse_input("Read", args)?;
    let path = ts.resolve_path(&input.file_path).await?;
    refuse_device_path(ts, &input.file_path, &path).await?;
    let read = match ts.cache.read(&ts.host, &path).await {
        Ok(read) => read,
        Err(e) => return Err(read_error(ts, &input.file_path, &path, e).await),
    };
    let ext = extension(&path);
    if ext == "ipynb" {
        let output = notebook::render_for_read(&input.file_path, &read.bytes)?;
        ts.record_read(&path, &read.meta, content_hash(&read.bytes));
        return Ok(output);
    }
    let image_ext = text::has_image_extension(&path);
    if image_ext || (ext.is_empty() && text::image_mime(&read.bytes).is_some()) {
        return read_image(&input.file_path, &read.bytes);
    }
    // Offset 0 and negative offsets read from the start; a non-positive limit is no limit (CLI).
    // Offset 0 also numbers the lines from 0, as 2.1.330 does.
    let to_usize = |n: i64| usize::try_from(n).unwrap_or(usize::MAX);
    let offset = input.offset.filter(|o| *o > 0).map_or(1, to_usize);
    let limit = input.limit.filter(|l| *l > 0).map(to_usize);
    let lines = Lines {
        offset,
        limit,
        first_number: if input.offset == Some(0) { 0 } else { offset },
        allow_large: input.allow_large,
    };
    read_text(ts, &input.file_path, &path, &read, lines)
}

/// Which lines a Read asked for.
struct Lines {
    /// The first line read (1-based).
    offset: usize,
    limit: Option<usize>,
    /// The number shown on the first line (0 when the model asked for offset 0).
    first_number: usize,
    /// Over the size limit anyway (the token cap still pages the text).
    allow_large: bool,
}

fn read_text<H: Host>(
    ts: &Toolset<H>,
    file_path: &str,
    path: &str,
    read: &CachedRead,
    lines: Lines,
) -> ToolResult<ToolOutput> {
    let Lines {
        offset,
        limit,
        first_number,
        allow_large,
    } = lines;
    if limit.is_none() && !allow_large && read.bytes.len() > MAX_WHOLE_FILE_BYTES {
        return Err(ToolError(format!(
            "File content ({}) exceeds maximum allowed size ({}). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. To read it anyway, up to what still fits in your context, call Read again with allow_large: true \u{2014} only if you genuinely need all of it or the user asked for the whole file.",
            format_bytes(read.bytes.len()),
            format_bytes(MAX_WHOLE_FILE_BYTES)
        )));
    }
    let Some(decoded) = text::decode(&read.bytes) else {
        let ext = extension(path);
        let kind = if ext.is_empty() {
            String::new()
        } else {
            format!(" .{ext}")
        };
        return Err(ToolError::invalid(format!(
            "This tool cannot read binary files. The file appears to be a binary{kind} file. Use a skill for this file type if one is available, or a shell command or script that can read the format."
        )));
    };
    let not_utf8 = decoded.encoding == Encoding::Utf8 && !is_valid_utf8_after_bom(&read.bytes);

    let selection = select_lines(&decoded.text, offset - 1, limit.unwrap_or(usize::MAX));
    if limit.is_some() && selection.content.len() > MAX_SELECTED_BYTES {
        return Err(ToolError(format!(
            "The requested line range contains over {} of text, more than a read can return. Use a smaller limit \u{2014} or, if a single line is this large, no limit will fit it: search for specific content instead.",
            format_bytes(MAX_SELECTED_BYTES)
        )));
    }
    let mut content = selection.content;
    let mut num_lines = selection.num_lines;
    let mut banner = None;
    let mut truncated_by_token_cap = false;
    let tokens = estimate_tokens(content, &extension(path));
    if tokens > MAX_TOKENS {
        let whole_file = offset == 1 && limit.is_none();
        if !whole_file {
            return Err(ToolError(format!(
                "File content ({tokens} tokens) exceeds maximum allowed tokens ({MAX_TOKENS}). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file."
            )));
        }
        let page = first_page_under_cap(content, tokens);
        truncated_by_token_cap = true;
        banner = Some(if page.cut_inside_line {
            format!(
                "{PARTIAL_VIEW}{file_path}: showing the first {} of {} characters ({tokens} tokens, cap {MAX_TOKENS}); this file has very long lines and cannot be paginated by line. Use Grep to find a specific section, or Read with offset/limit to page through it. Do NOT answer from this excerpt alone if the answer may be elsewhere in the file.]",
                page.content.chars().count(),
                content.chars().count()
            )
        } else {
            format!(
                "{PARTIAL_VIEW}{file_path}: showing lines 1-{n} of {total} total ({tokens} tokens, cap {MAX_TOKENS}). Call Read with offset={next} limit={n} for the next page, or Grep to find a specific section. Do NOT answer from this page alone if the answer may be further in the file.]",
                n = page.num_lines,
                total = selection.total_lines,
                next = page.num_lines + 1
            )
        });
        content = page.content;
        num_lines = page.num_lines;
    }

    let total_lines = selection.total_lines;
    let mut body = if !content.is_empty() {
        number_lines(content, first_number)
    } else if num_lines >= 1 && total_lines > 1 {
        format!("{first_number}\t")
    } else if num_lines >= 1 || total_lines == 0 {
        "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>".to_string()
    } else {
        format!(
            "<system-reminder>Warning: the file exists but is shorter than the provided offset ({offset}). The file has {total_lines} lines.</system-reminder>"
        )
    };
    if not_utf8 {
        body.push_str("\n\n[This file is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary. Its undecodable bytes show above as U+FFFD. Edit and Write will refuse it: change it with a shell command that keeps its encoding, or ask the user whether to convert it to UTF-8.]");
    }
    ts.record_read(path, &read.meta, content_hash(&read.bytes));

    let mut file = json!({
        "filePath": file_path,
        "content": content,
        "numLines": num_lines,
        "startLine": first_number,
        "totalLines": total_lines,
    });
    if truncated_by_token_cap {
        file["truncatedByTokenCap"] = json!(true);
    }
    let mut output = ToolOutput::text(body).with_structured(json!({"type": "text", "file": file}));
    if let Some(banner) = banner {
        output.content.push(Content::Text(banner));
    }
    Ok(output)
}

struct Selection<'a> {
    /// The selected lines joined by `\n` (a slice of the text).
    content: &'a str,
    num_lines: usize,
    /// Lines in the file; text after the last line break counts as a line, even when empty.
    total_lines: usize,
}

/// Lines `first..first + max` (0-based) of `text`, without building a line vector: a 10 MB file
/// read with offset/limit costs one scan.
fn select_lines(text: &str, first: usize, max: usize) -> Selection<'_> {
    let end_line = first.saturating_add(max);
    let (mut line, mut pos) = (0usize, 0usize);
    let (mut start, mut end) = (None, text.len());
    loop {
        if line == first {
            start = Some(pos);
        }
        match text[pos..].find('\n') {
            Some(i) => {
                if line + 1 == end_line {
                    end = pos + i;
                }
                pos += i + 1;
                line += 1;
            }
            None => {
                line += 1;
                break;
            }
        }
    }
    match start {
        Some(start) => Selection {
            content: &text[start..end.max(start)],
            num_lines: end_line.min(line) - first,
            total_lines: line,
        },
        None => Selection {
            content: "",
            num_lines: 0,
            total_lines: line,
        },
    }
}

/// `N<TAB>line` per line, numbering from `start`.
pub(crate) fn number_lines(content: &str, start: usize) -> String {
    let lines = content.bytes().filter(|&b| b == b'\n').count() + 1;
    let mut out = String::with_capacity(content.len() + lines * 8);
    for (i, line) in content.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&(start + i).to_string());
        out.push('\t');
        out.push_str(line.strip_suffix('\r').unwrap_or(line));
    }
    out
}

/// The CLI's rough estimate: characters per token by file type.
fn estimate_tokens(content: &str, ext: &str) -> usize {
    let chars_per_token = match ext {
        "json" | "jsonl" | "jsonc" => 2.0,
        _ => 4.0,
    };
    (content.chars().count() as f64 / chars_per_token).round() as usize
}

struct Page<'a> {
    content: &'a str,
    num_lines: usize,
    cut_inside_line: bool,
}

/// The CLI's auto-pagination of an over-budget whole-file read: keep a proportional share of the
/// lines (with 15% headroom), shrinking until the estimate fits; if one line alone is too long, cut
/// by characters instead.
fn first_page_under_cap(content: &str, tokens: usize) -> Page<'_> {
    let chars = content.chars().count();
    let chars_per_token = (chars as f64 / tokens.max(1) as f64).max(0.5);
    let estimate = |s: &str| s.chars().count() as f64 / chars_per_token;
    let cap = MAX_TOKENS as f64;
    let line_ends: Vec<usize> = content
        .match_indices('\n')
        .map(|(i, _)| i)
        .chain(std::iter::once(content.len()))
        .collect();
    let lines = line_ends.len();
    let scaled = (lines as f64 * cap / tokens.max(1) as f64 * 0.85).floor() as usize;
    let mut keep = scaled.clamp(1, lines);
    let mut page = &content[..line_ends[keep - 1]];
    for _ in 0..6 {
        if estimate(page) <= cap || keep <= 1 {
            break;
        }
        keep = ((keep as f64 * 0.7).floor() as usize).max(1);
        page = &content[..line_ends[keep - 1]];
    }
    if estimate(page) <= cap && !page.trim().is_empty() {
        return Page {
            content: page,
            num_lines: keep,
            cut_inside_line: false,
        };
    }
    let mut take = ((cap * chars_per_token * 0.85).floor() as usize).max(1);
    let mut page = prefix_chars(content, take);
    for _ in 0..6 {
        if estimate(page) <= cap {
            break;
        }
        take = ((take as f64 * 0.7).floor() as usize).max(1);
        page = prefix_chars(content, take);
    }
    Page {
        content: page,
        num_lines: page.bytes().filter(|&b| b == b'\n').count() + 1,
        cut_inside_line: true,
    }
}

fn prefix_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

fn read_image(file_path: &str, bytes: &[u8]) -> ToolResult<ToolOutput> {
    if bytes.is_empty() {
        return Err(ToolError(format!("Image file is empty: {file_path}")));
    }
    let Some(mime) = text::image_mime(bytes) else {
        return Err(ToolError(format!(
            "File has an image extension but its content is not a valid PNG/JPEG/GIF/WebP. Detected: {}. This usually means a download saved an error/login page instead of the image. Use `file \"{file_path}\"` to confirm, or read it as text with Bash (e.g. `head -c 500`).",
            describe_content(bytes)
        )));
    };
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(ToolError(format!(
            "Image file ({}) is larger than the {} that can be sent to the model, and images are not resized here. Resize it or use a smaller image.",
            format_bytes(bytes.len()),
            format_bytes(MAX_IMAGE_BYTES)
        )));
    }
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    let structured = json!({
        "type": "image",
        "file": {"base64": data, "type": mime, "originalSize": bytes.len()},
    });
    Ok(ToolOutput {
        content: vec![Content::Image {
            data_base64: data,
            mime_type: mime.to_string(),
        }],
        is_error: false,
        structured: Some(structured),
    })
}

fn describe_content(bytes: &[u8]) -> &'static str {
    let head = &bytes[..bytes.len().min(512)];
    let text = String::from_utf8_lossy(head);
    let trimmed = text.trim_start().to_ascii_lowercase();
    if trimmed.starts_with("<!doctype html") || trimmed.starts_with("<html") {
        "HTML text"
    } else if trimmed.starts_with('<') {
        "XML or HTML text"
    } else if trimmed.starts_with('{') || trimmed.starts_with('[') {
        "JSON text"
    } else if text::is_binary(bytes) {
        "unrecognised binary data"
    } else {
        "plain text"
    }
}

/// The CLI's refusal of a device or process file, named as given or as it resolves; outside the
/// workspace (where symlinks are not checked otherwise), also where its links lead.
async fn refuse_device_path<H: Host>(ts: &Toolset<H>, file_path: &str, path: &str) -> ToolResult<()> {
    if ts.paths.style() != PathStyle::Posix {
        return Ok(());
    }
    let mut refusal = devices::refusal(file_path).or_else(|| devices::refusal(path));
    if refusal.is_none() && !ts.paths.contains(path) {
        if let Ok(real) = ts.host.real_path(path).await {
            refusal = devices::refusal(&real).map(|_| {
                format!("Cannot read '{file_path}': it leads to {real}, a device or process file that this tool does not read.")
            });
        }
    }
    refusal.map_or(Ok(()), |message| Err(ToolError::invalid(message)))
}

/// What the model is told when a file cannot be read.
async fn read_error<H: Host>(ts: &Toolset<H>, file_path: &str, path: &str, e: HostError) -> ToolError {
    match e.kind {
        HostErrorKind::NotFound => ToolError(missing_file_message(ts, path).await),
        // The CLI's own words (its read fails on the directory).
        HostErrorKind::IsADirectory => {
            ToolError(format!("EISDIR: illegal operation on a directory, read '{file_path}'"))
        }
        HostErrorKind::PermissionDenied => ToolError(format!("Permission denied: cannot read {file_path}.")),
        // Worded as the CLI's Edit and Write refuse such a file (its own Read waits on a FIFO).
        HostErrorKind::NotAFile => ToolError::invalid(format!(
            "{file_path} exists but is not a regular file (a device, FIFO or socket). Read only reads regular files."
        )),
        HostErrorKind::TooLarge => ToolError::invalid(format!(
            "File is too large to read: the largest file this tool reads is {}. Search it with Grep, or read a part of it with a shell command (sed -n, head or tail).",
            format_bytes(MAX_FILE_BYTES as usize)
        )),
        _ => ToolError(format!("Could not read {file_path}: {}", e.message)),
    }
}

/// The CLI's text for a missing file, with a similarly named sibling when there is one.
pub(crate) async fn missing_file_message<H: Host>(ts: &Toolset<H>, path: &str) -> String {
    let mut message = format!(
        "File does not exist. Note: your current working directory is {}.",
        ts.paths.root()
    );
    if let Some(similar) = similar_file(ts, path).await {
        message.push_str(&format!(" Did you mean {similar}?"));
    }
    message
}

/// A sibling with the same name in another case, or the same stem with another extension (one
/// `read_dir`; nothing when the directory is missing).
async fn similar_file<H: Host>(ts: &Toolset<H>, path: &str) -> Option<String> {
    let dir = ts.paths.parent(path)?;
    let name = ts.paths.file_name(path);
    let stem = file_stem(name);
    let mut entries = ts.host.read_dir(&dir).await.ok()?;
    crate::sort::sort_by(&mut entries, |a, b| a.name.cmp(&b.name));
    let found = entries
        .iter()
        .find(|e| e.name != name && e.name.eq_ignore_ascii_case(name))
        .or_else(|| entries.iter().find(|e| e.name != name && file_stem(&e.name) == stem))?;
    Some(ts.paths.join(&dir, &found.name))
}

fn file_stem(name: &str) -> &str {
    match name.rfind('.') {
        Some(i) if i > 0 => &name[..i],
        _ => name,
    }
}

pub(crate) fn is_valid_utf8_after_bom(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_with_a_tab_and_a_trailing_break_shows_as_an_empty_line() {
        assert_eq!(number_lines("a\nb\n", 1), "1\ta\n2\tb\n3\t");
        assert_eq!(number_lines("x", 41), "41\tx");
    }

    #[test]
    fn selection_counts_the_text_after_the_last_break_as_a_line() {
        let s = select_lines("a\nb\nc", 1, 1);
        assert_eq!((s.content, s.num_lines, s.total_lines), ("b", 1, 3));
        let s = select_lines("a\nb\n", 0, 2000);
        assert_eq!((s.content, s.num_lines, s.total_lines), ("a\nb\n", 3, 3));
        let s = select_lines("a\n", 5, 10);
        assert_eq!((s.content, s.num_lines, s.total_lines), ("", 0, 2));
        let s = select_lines("", 0, 10);
        assert_eq!((s.content, s.num_lines, s.total_lines), ("", 1, 1));
    }

    #[test]
    fn sizes_are_formatted_like_the_cli() {
        assert_eq!(format_bytes(512), "512 bytes");
        assert_eq!(format_bytes(256 * 1024), "256KB");
        assert_eq!(format_bytes(1536), "1.5KB");
        assert_eq!(format_bytes(10 * 1024 * 1024), "10MB");
        assert_eq!(format_bytes(MAX_SELECTED_BYTES), "3.1MB");
        // Ties round up, as JavaScript's toFixed does: 1280 bytes are 1.25KB.
        assert_eq!(format_bytes(1280), "1.3KB");
        assert_eq!(format_bytes(1023), "1023 bytes");
        assert_eq!(format_bytes(1024 * 1024 - 1), "1024KB");
        assert_eq!(format_bytes(3 * 1024 * 1024 * 1024 / 2), "1.5GB");
    }

    #[test]
    fn a_single_huge_line_is_cut_by_characters() {
        let line = "é".repeat(200_000);
        let tokens = estimate_tokens(&line, "txt");
        let page = first_page_under_cap(&line, tokens);
        assert!(page.cut_inside_line);
        assert!(estimate_tokens(page.content, "txt") <= MAX_TOKENS);
    }
}
