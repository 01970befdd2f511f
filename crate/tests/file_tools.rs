//! Parity suite for the file tools: each test drives one tool through `Toolset::call` on a real
//! temporary directory and checks one behaviour (result text, structured result, bytes on disk).

use futures::executor::block_on;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;
use tempfile::TempDir;
use tether_core::diff::Diff;
use tether_core::native::NativeHost;
use tether_core::tools::edit::{self, WriteRequest};
use tether_core::tools::{Content, ToolOutput, Toolset, ToolsetConfig};

struct Workspace {
    /// Kept so the directory lives as long as the workspace.
    _dir: TempDir,
    ts: Toolset<NativeHost>,
}

impl Workspace {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().to_string_lossy().into_owned();
        let ts = Toolset::new(NativeHost::new(), ToolsetConfig::new(root)).unwrap();
        Workspace { _dir: dir, ts }
    }

    fn root(&self) -> String {
        self.ts.paths.root().to_string()
    }

    fn path(&self, rel: &str) -> String {
        format!("{}/{rel}", self.root())
    }

    fn put(&self, rel: &str, bytes: impl AsRef<[u8]>) -> String {
        let path = self.path(rel);
        if let Some(parent) = Path::new(&path).parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(&path, bytes).unwrap();
        path
    }

    fn bytes(&self, rel: &str) -> Vec<u8> {
        fs::read(self.path(rel)).unwrap()
    }

    fn call(&self, tool: &str, args: Value) -> ToolOutput {
        block_on(self.ts.call(tool, args))
    }

    fn ok(&self, tool: &str, args: Value) -> ToolOutput {
        let out = self.call(tool, args);
        assert!(!out.is_error, "{tool} failed: {}", out.text_content());
        out
    }

    fn err(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args);
        assert!(out.is_error, "{tool} should have failed, got: {}", out.text_content());
        out.text_content()
    }

    fn read(&self, path: &str) -> ToolOutput {
        self.ok("Read", json!({"file_path": path}))
    }
}

fn structured(out: &ToolOutput) -> &Value {
    out.structured.as_ref().expect("structured result")
}

/// Make sure a rewrite of a file shows a different mtime (coarse file system clocks).
fn bump_mtime(path: &str) {
    let file = fs::File::options().write(true).open(path).unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    file.set_modified(later).unwrap();
}

// ---------------------------------------------------------------- Read

#[test]
fn read_numbers_lines_like_cat_n_and_reports_file_read_output() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "hello world\nsecond line\n");
    let out = ws.read(&path);
    assert_eq!(out.text_content(), "1\thello world\n2\tsecond line\n3\t");
    assert_eq!(
        structured(&out),
        &json!({"type": "text", "file": {
            "filePath": path, "content": "hello world\nsecond line\n",
            "numLines": 3, "startLine": 1, "totalLines": 3
        }})
    );
}

#[test]
fn read_with_offset_and_limit_returns_only_that_range() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "one\ntwo\nthree\nfour\nfive\n");
    let out = ws.ok("Read", json!({"file_path": path, "offset": 2, "limit": 2}));
    assert_eq!(out.text_content(), "2\ttwo\n3\tthree");
    assert_eq!(structured(&out)["file"]["numLines"], 2);
    assert_eq!(structured(&out)["file"]["startLine"], 2);
    assert_eq!(structured(&out)["file"]["totalLines"], 6);
}

#[test]
fn read_accepts_offset_and_limit_given_as_strings() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "one\ntwo\nthree\n");
    let out = ws.ok("Read", json!({"file_path": path, "offset": "3", "limit": "1"}));
    assert_eq!(out.text_content(), "3\tthree");
}

#[test]
fn read_of_empty_file_warns_in_a_system_reminder() {
    let ws = Workspace::new();
    let path = ws.put("empty.txt", "");
    assert_eq!(
        ws.read(&path).text_content(),
        "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
    );
}

#[test]
fn read_past_the_end_warns_about_the_offset() {
    let ws = Workspace::new();
    let path = ws.put("short.txt", "a\nb");
    let out = ws.ok("Read", json!({"file_path": path, "offset": 10}));
    assert_eq!(
        out.text_content(),
        "<system-reminder>Warning: the file exists but is shorter than the provided offset (10). The file has 2 lines.</system-reminder>"
    );
}

#[test]
fn read_of_crlf_file_shows_lines_without_carriage_returns() {
    let ws = Workspace::new();
    let path = ws.put("crlf.txt", "alpha\r\nbeta\r\n");
    assert_eq!(ws.read(&path).text_content(), "1\talpha\n2\tbeta\n3\t");
}

#[test]
fn read_of_bom_file_hides_the_bom() {
    let ws = Workspace::new();
    let path = ws.put("bom.txt", b"\xEF\xBB\xBFfirst\nsecond");
    assert_eq!(ws.read(&path).text_content(), "1\tfirst\n2\tsecond");
}

#[test]
fn read_of_utf16_file_decodes_it() {
    let ws = Workspace::new();
    let mut bytes = vec![0xFF, 0xFE];
    for unit in "héllo\n".encode_utf16() {
        bytes.extend_from_slice(&unit.to_le_bytes());
    }
    let path = ws.put("utf16.txt", bytes);
    assert_eq!(ws.read(&path).text_content(), "1\théllo\n2\t");
}

#[test]
fn read_of_a_legacy_encoded_file_shows_replacement_characters_and_says_why() {
    let ws = Workspace::new();
    let path = ws.put(
        "latin1.txt",
        b"caf\xE9 cr\xE8me br\xFBl\xE9e, a line long enough to be judged as text, mostly ascii\n",
    );
    let text = ws.read(&path).text_content();
    assert!(text.starts_with("1\tcaf\u{FFFD} cr\u{FFFD}me"), "{text}");
    assert!(text.contains("[This file is not valid UTF-8"), "{text}");
}

#[test]
fn read_shows_an_image_without_extension_by_its_magic_bytes() {
    let ws = Workspace::new();
    let path = ws.put("screenshot", [b"GIF89a".as_slice(), &[1u8; 16]].concat());
    let out = ws.read(&path);
    assert!(matches!(&out.content[0], Content::Image { mime_type, .. } if mime_type == "image/gif"));
}

#[test]
fn read_with_offset_keeps_multibyte_characters_whole() {
    let ws = Workspace::new();
    let path = ws.put("u.txt", "ünïcødé\n日本語のテキスト\n🎉 party\n");
    let out = ws.ok("Read", json!({"file_path": path, "offset": 2, "limit": 2}));
    assert_eq!(out.text_content(), "2\t日本語のテキスト\n3\t🎉 party");
}

#[test]
fn read_refuses_binary_files() {
    let ws = Workspace::new();
    let path = ws.put("blob.bin", b"\x00\x01\x02\x03binary\x00");
    let message = ws.err("Read", json!({"file_path": path}));
    assert!(message
        .starts_with("<tool_use_error>This tool cannot read binary files. The file appears to be a binary .bin file"));
}

#[test]
fn read_returns_png_as_image_content_and_structured_image() {
    let ws = Workspace::new();
    let png = [b"\x89PNG\r\n\x1a\n".as_slice(), &[0u8; 24]].concat();
    let path = ws.put("pic.png", &png);
    let out = ws.read(&path);
    let Content::Image { data_base64, mime_type } = &out.content[0] else {
        panic!("expected an image, got {:?}", out.content);
    };
    assert_eq!(mime_type, "image/png");
    assert_eq!(structured(&out)["type"], "image");
    assert_eq!(structured(&out)["file"]["base64"], data_base64.as_str());
    assert_eq!(structured(&out)["file"]["type"], "image/png");
    assert_eq!(structured(&out)["file"]["originalSize"], png.len());
}

#[test]
fn read_refuses_an_image_extension_over_non_image_bytes() {
    let ws = Workspace::new();
    let path = ws.put("fake.png", "<!DOCTYPE html><html>login</html>");
    let message = ws.err("Read", json!({"file_path": path}));
    assert!(
        message.contains("not a valid PNG/JPEG/GIF/WebP. Detected: HTML text"),
        "{message}"
    );
}

#[test]
fn read_refuses_images_over_the_size_limit() {
    let ws = Workspace::new();
    let mut big = b"\xFF\xD8\xFF".to_vec();
    big.resize(4 * 1024 * 1024, 7);
    let path = ws.put("big.jpg", big);
    let message = ws.err("Read", json!({"file_path": path}));
    assert!(
        message.starts_with("Image file (4MB) is larger than the 3.8MB"),
        "{message}"
    );
}

const NOTEBOOK: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "intro",
   "metadata": {},
   "source": [
    "# Title\n",
    "Some text"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "calc",
   "metadata": {
    "tags": []
   },
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "42\n"
     ]
    }
   ],
   "source": [
    "print(6 * 7)"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "name": "python3"
  },
  "language_info": {
   "name": "python"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

#[test]
fn read_renders_notebook_cells_with_their_outputs() {
    let ws = Workspace::new();
    let path = ws.put("nb.ipynb", NOTEBOOK);
    let out = ws.read(&path);
    assert_eq!(
        out.text_content(),
        "<cell id=\"intro\"><cell_type>markdown</cell_type># Title\nSome text</cell id=\"intro\">\n<cell id=\"calc\">print(6 * 7)</cell id=\"calc\">\n\n42\n"
    );
    let cells = &structured(&out)["file"]["cells"];
    assert_eq!(structured(&out)["type"], "notebook");
    assert_eq!(cells[1]["cell_id"], "calc");
    assert_eq!(cells[1]["execution_count"], 3);
    assert_eq!(cells[1]["outputs"][0]["text"], "42\n");
}

#[test]
fn read_of_a_directory_fails_as_the_cli_does() {
    let ws = Workspace::new();
    fs::create_dir(ws.path("sub")).unwrap();
    let message = ws.err("Read", json!({"file_path": ws.path("sub")}));
    assert_eq!(
        message,
        format!("EISDIR: illegal operation on a directory, read '{}'", ws.path("sub"))
    );
}

#[test]
fn read_of_a_missing_file_suggests_a_similarly_named_one() {
    let ws = Workspace::new();
    ws.put("src/config.yaml", "a: 1\n");
    let message = ws.err("Read", json!({"file_path": ws.path("src/config.yml")}));
    assert_eq!(
        message,
        format!(
            "File does not exist. Note: your current working directory is {}. Did you mean {}?",
            ws.root(),
            ws.path("src/config.yaml")
        )
    );
}

#[test]
fn read_refuses_paths_outside_the_workspace() {
    let ws = Workspace::new();
    let outside = tempfile::tempdir().unwrap();
    let file = outside.path().join("secret.txt");
    fs::write(&file, "secret").unwrap();
    let message = ws.err("Read", json!({"file_path": file.to_string_lossy()}));
    assert!(message.contains("outside"), "{message}");
}

#[cfg(unix)]
#[test]
fn with_outside_paths_allowed_a_symlink_out_is_still_refused_but_the_real_path_reads() {
    // The agent allows outside paths after the user approved them; the permission engine judges
    // paths as written, so a workspace path that leads out through a link must still be refused.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().to_string_lossy().into_owned();
    let config = ToolsetConfig {
        allow_outside_root: true,
        ..ToolsetConfig::new(root.clone())
    };
    let ts = Toolset::new(NativeHost::new(), config).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().canonicalize().unwrap().join("secret.txt");
    fs::write(&secret, "key\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), format!("{root}/link")).unwrap();
    let via_link = block_on(ts.call("Read", json!({"file_path": format!("{root}/link/secret.txt")})));
    assert!(via_link.is_error, "{}", via_link.text_content());
    assert!(
        via_link.text_content().contains("symbolic link"),
        "{}",
        via_link.text_content()
    );
    let direct = block_on(ts.call("Read", json!({"file_path": secret.to_string_lossy()})));
    assert!(!direct.is_error, "{}", direct.text_content());
    assert!(direct.text_content().contains("key"));
}

#[cfg(unix)]
#[test]
fn read_refuses_a_symlink_leading_outside_the_workspace() {
    let ws = Workspace::new();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), ws.path("link.txt")).unwrap();
    let message = ws.err("Read", json!({"file_path": ws.path("link.txt")}));
    assert!(message.contains("through a symbolic link"), "{message}");
}

/// About 10 MB of numbered lines.
fn ten_megabytes() -> String {
    let mut text = String::with_capacity(10_600_000);
    for i in 1..=200_000 {
        text.push_str(&format!("line {i:06} {}\n", "x".repeat(40)));
    }
    text
}

#[test]
fn read_of_a_10mb_file_refuses_without_limit_and_reads_with_offset_and_limit() {
    let ws = Workspace::new();
    let path = ws.put("big.txt", ten_megabytes());
    let message = ws.err("Read", json!({"file_path": path}));
    assert!(
        message
            .starts_with("File content (10.1MB) exceeds maximum allowed size (256KB). Use offset and limit parameters"),
        "{message}"
    );
    let out = ws.ok("Read", json!({"file_path": path, "offset": 150_000, "limit": 2}));
    let x = "x".repeat(40);
    assert_eq!(
        out.text_content(),
        format!("150000\tline 150000 {x}\n150001\tline 150001 {x}")
    );
    assert_eq!(structured(&out)["file"]["totalLines"], 200_001);
}

#[test]
fn read_without_limit_returns_every_line_within_the_limits() {
    let ws = Workspace::new();
    let text: String = (1..=2500).map(|i| format!("{i}\n")).collect();
    let path = ws.put("long.txt", text);
    let out = ws.read(&path);
    assert_eq!(structured(&out)["file"]["numLines"], 2501);
    assert_eq!(out.content.len(), 1, "no banner");
    assert!(out.text_content().ends_with("2500\t2500\n2501\t"));
}

#[test]
fn read_from_offset_zero_numbers_the_lines_from_zero() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "one\ntwo\nthree\n");
    let out = ws.ok("Read", json!({"file_path": path, "offset": 0, "limit": 2}));
    assert_eq!(out.text_content(), "0\tone\n1\ttwo");
}

#[test]
fn read_over_the_size_limit_points_to_allow_large_which_reads_it() {
    let ws = Workspace::new();
    let text: String = (1..=30000).map(|i| format!("row {i} zzzz\n")).collect();
    let path = ws.put("huge.txt", text);
    let message = ws.err("Read", json!({"file_path": path}));
    assert!(message.ends_with("call Read again with allow_large: true \u{2014} only if you genuinely need all of it or the user asked for the whole file."), "{message}");
    let out = ws.ok("Read", json!({"file_path": path, "allow_large": true}));
    assert!(out.text_content().starts_with("1\trow 1 zzzz\n"));
}

#[test]
fn read_of_a_text_over_the_token_budget_returns_a_first_page() {
    let ws = Workspace::new();
    let text: String = (1..=1500).map(|i| format!("{i:04} {}\n", "y".repeat(120))).collect();
    let path = ws.put("wide.txt", text);
    let out = ws.read(&path);
    let file = &structured(&out)["file"];
    assert_eq!(file["truncatedByTokenCap"], true);
    let shown = file["numLines"].as_u64().unwrap();
    assert!(shown > 100 && shown < 1500, "{shown}");
    let Content::Text(banner) = &out.content[1] else {
        panic!()
    };
    assert!(
        banner.contains(&format!("showing lines 1-{shown} of 1501 total")),
        "{banner}"
    );
}

// ---------------------------------------------------------------- Write

#[test]
fn write_creates_a_new_file_and_its_directories() {
    let ws = Workspace::new();
    let path = ws.path("new/dir/file.txt");
    let out = ws.ok("Write", json!({"file_path": path, "content": "fresh\n"}));
    assert_eq!(
        out.text_content(),
        format!("File created successfully at: {path} (file state is current in your context \u{2014} no need to Read it back)")
    );
    assert_eq!(ws.bytes("new/dir/file.txt"), b"fresh\n");
    let s = structured(&out);
    assert_eq!(s["type"], "create");
    assert_eq!(s["originalFile"], Value::Null);
    assert_eq!(s["structuredPatch"], json!([]));
}

#[test]
fn write_over_an_unread_workspace_file_is_allowed_but_not_over_an_unread_notebook() {
    let ws = Workspace::new();
    let path = ws.put("keep.txt", "old\n");
    let out = ws.ok("Write", json!({"file_path": path, "content": "new\n"}));
    assert!(out
        .text_content()
        .starts_with(&format!("The file {path} has been updated successfully.")));
    assert_eq!(ws.bytes("keep.txt"), b"new\n");
    let notebook = ws.put("nb.ipynb", NOTEBOOK);
    let message = ws.err("Write", json!({"file_path": notebook, "content": "{}"}));
    assert_eq!(
        message,
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
    );
    assert_eq!(ws.bytes("nb.ipynb"), NOTEBOOK.as_bytes());
}

#[test]
fn write_over_a_read_file_keeps_its_bom_and_writes_the_line_breaks_as_given() {
    let ws = Workspace::new();
    let path = ws.put("win.txt", b"\xEF\xBB\xBFold\r\ntext\r\n");
    ws.read(&path);
    let out = ws.ok("Write", json!({"file_path": path, "content": "new\ntext\n"}));
    assert!(out
        .text_content()
        .starts_with(&format!("The file {path} has been updated successfully.")));
    assert_eq!(ws.bytes("win.txt"), b"\xEF\xBB\xBFnew\ntext\n");
    let s = structured(&out);
    assert_eq!(s["type"], "update");
    assert_eq!(s["originalFile"], "old\ntext\n");
    assert_eq!(s["structuredPatch"][0]["lines"], json!(["-old", "+new", " text"]));
}

#[test]
fn write_refuses_a_file_changed_since_it_was_read() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "v1\n");
    ws.read(&path);
    fs::write(&path, "version two\n").unwrap();
    bump_mtime(&path);
    let message = ws.err("Write", json!({"file_path": path, "content": "mine\n"}));
    assert!(
        message.starts_with("<tool_use_error>File has been modified since read"),
        "{message}"
    );
    assert_eq!(ws.bytes("a.txt"), b"version two\n");
}

#[test]
fn write_refuses_paths_outside_the_workspace() {
    let ws = Workspace::new();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("x.txt");
    ws.err("Write", json!({"file_path": target.to_string_lossy(), "content": "x"}));
    assert!(!target.exists());
}

#[cfg(unix)]
#[test]
fn write_through_a_symlink_leading_outside_is_refused_and_nothing_is_written_there() {
    let ws = Workspace::new();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("target.txt"), "outside\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.path("escape")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("target.txt"), ws.path("link.txt")).unwrap();

    let message = ws.err("Write", json!({"file_path": ws.path("escape/new.txt"), "content": "x"}));
    assert!(message.contains("through a symbolic link"), "{message}");
    let message = ws.err("Write", json!({"file_path": ws.path("link.txt"), "content": "x"}));
    assert!(message.contains("through a symbolic link"), "{message}");

    assert!(!outside.path().join("new.txt").exists());
    assert_eq!(fs::read(outside.path().join("target.txt")).unwrap(), b"outside\n");
}

// ---------------------------------------------------------------- Edit

#[test]
fn edit_through_a_symlink_leading_outside_is_refused_and_the_target_is_untouched() {
    let ws = Workspace::new();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("target.txt"), "outside\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("target.txt"), ws.path("link.txt")).unwrap();

    let message = ws.err(
        "Edit",
        json!({"file_path": ws.path("link.txt"), "old_string": "outside", "new_string": "changed"}),
    );
    assert!(message.contains("through a symbolic link"), "{message}");
    assert_eq!(fs::read(outside.path().join("target.txt")).unwrap(), b"outside\n");
}

#[test]
fn edit_replaces_a_unique_match_and_reports_the_patch() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "hello world\nsecond line\n");
    ws.read(&path);
    let out = ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "hello world", "new_string": "goodbye world"}),
    );
    assert_eq!(
        out.text_content(),
        format!("The file {path} has been updated successfully. (file state is current in your context \u{2014} no need to Read it back)")
    );
    assert_eq!(ws.bytes("a.txt"), b"goodbye world\nsecond line\n");
    assert_eq!(
        structured(&out),
        &json!({
            "filePath": path,
            "oldString": "hello world",
            "newString": "goodbye world",
            "originalFile": "hello world\nsecond line\n",
            "structuredPatch": [{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2,
                                 "lines": ["-hello world", "+goodbye world", " second line"]}],
            "userModified": false,
            "replaceAll": false,
        })
    );
}

#[test]
fn edit_refuses_an_ambiguous_match_with_the_count() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "x = 1\nx = 1\nx = 1\n");
    ws.read(&path);
    let message = ws.err(
        "Edit",
        json!({"file_path": path, "old_string": "x = 1", "new_string": "x = 2"}),
    );
    assert_eq!(
        message,
        "<tool_use_error>Found 3 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: x = 1</tool_use_error>"
    );
    assert_eq!(ws.bytes("a.txt"), b"x = 1\nx = 1\nx = 1\n");
}

#[test]
fn edit_with_replace_all_replaces_every_occurrence() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "foo bar foo\nfoo\n");
    ws.read(&path);
    let out = ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "foo", "new_string": "baz", "replace_all": true}),
    );
    assert!(out.text_content().starts_with(&format!(
        "The file {path} has been updated. All occurrences were successfully replaced."
    )));
    assert_eq!(ws.bytes("a.txt"), b"baz bar baz\nbaz\n");
    assert_eq!(structured(&out)["replaceAll"], true);
}

#[test]
fn edit_reports_a_string_that_is_not_in_the_file() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "abc\n");
    ws.read(&path);
    let message = ws.err(
        "Edit",
        json!({"file_path": path, "old_string": "xyz", "new_string": "q"}),
    );
    assert_eq!(
        message,
        "<tool_use_error>String to replace not found in file.\nString: xyz</tool_use_error>"
    );
}

#[test]
fn edit_refuses_identical_old_and_new_strings() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "abc\n");
    ws.read(&path);
    let message = ws.err(
        "Edit",
        json!({"file_path": path, "old_string": "abc", "new_string": "abc"}),
    );
    assert_eq!(
        message,
        "<tool_use_error>No changes to make: old_string and new_string are exactly the same.</tool_use_error>"
    );
}

#[test]
fn edit_of_an_unread_workspace_file_applies_without_claiming_the_file_is_in_context() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "abc\n");
    let out = ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "abc", "new_string": "d"}),
    );
    assert_eq!(
        out.text_content(),
        format!("The file {path} has been updated successfully.")
    );
    assert_eq!(ws.bytes("a.txt"), b"d\n");
}

#[test]
fn edit_of_a_file_modified_on_disk_since_it_was_read_applies_when_it_still_can_and_says_so() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "abc\n");
    ws.read(&path);
    fs::write(&path, "abc\nadded by someone\n").unwrap();
    bump_mtime(&path);
    let out = ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "abc", "new_string": "d"}),
    );
    assert!(out.text_content().ends_with("the edit applied cleanly, but the file contains other changes not in your context. Read it before edits that depend on surrounding content.)"), "{}", out.text_content());
    assert_eq!(ws.bytes("a.txt"), b"d\nadded by someone\n");
}

#[test]
fn edit_refuses_a_file_modified_on_disk_since_it_was_read_when_the_old_string_is_gone() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "abc\n");
    ws.read(&path);
    fs::write(&path, "xyz\nadded by someone\n").unwrap();
    bump_mtime(&path);
    let message = ws.err(
        "Edit",
        json!({"file_path": path, "old_string": "abc", "new_string": "d"}),
    );
    assert_eq!(
        message,
        "<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>"
    );
    assert_eq!(ws.bytes("a.txt"), b"xyz\nadded by someone\n");
}

#[test]
fn edit_of_a_crlf_file_matches_lf_strings_and_writes_crlf() {
    let ws = Workspace::new();
    let path = ws.put("w.txt", "one\r\ntwo\r\nthree\r\n");
    ws.read(&path);
    ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "one\ntwo", "new_string": "uno\ndos\ndos-bis"}),
    );
    assert_eq!(ws.bytes("w.txt"), b"uno\r\ndos\r\ndos-bis\r\nthree\r\n");
}

#[test]
fn edit_keeps_the_bom_and_the_missing_final_newline() {
    let ws = Workspace::new();
    let path = ws.put("b.txt", b"\xEF\xBB\xBFkeep\nlast line");
    ws.read(&path);
    ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "last", "new_string": "final"}),
    );
    assert_eq!(ws.bytes("b.txt"), b"\xEF\xBB\xBFkeep\nfinal line");
}

#[test]
fn edit_handles_multibyte_unicode_in_strings_and_file() {
    let ws = Workspace::new();
    let path = ws.put("u.txt", "naïve café\n日本語\n🎉\n");
    ws.read(&path);
    ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "日本語\n🎉", "new_string": "中文\n🎊✓"}),
    );
    assert_eq!(String::from_utf8(ws.bytes("u.txt")).unwrap(), "naïve café\n中文\n🎊✓\n");
}

#[test]
fn edit_of_a_utf16_file_writes_utf16_back() {
    let ws = Workspace::new();
    let utf16 = |text: &str| {
        let mut bytes = vec![0xFF, 0xFE];
        for unit in text.encode_utf16() {
            bytes.extend_from_slice(&unit.to_le_bytes());
        }
        bytes
    };
    let path = ws.put("u16.txt", utf16("first\r\nsecond\r\n"));
    ws.read(&path);
    ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "second", "new_string": "zweite"}),
    );
    assert_eq!(ws.bytes("u16.txt"), utf16("first\r\nzweite\r\n"));
}

#[test]
fn edit_refuses_a_legacy_encoded_file_rather_than_corrupt_it() {
    let ws = Workspace::new();
    let original = b"caf\xE9 cr\xE8me br\xFBl\xE9e, a line long enough to be judged as text, mostly ascii\n";
    let path = ws.put("latin1.txt", original);
    ws.read(&path);
    let message = ws.err(
        "Edit",
        json!({"file_path": path, "old_string": "long", "new_string": "short"}),
    );
    assert!(message.starts_with("File is not valid UTF-8"), "{message}");
    assert_eq!(ws.bytes("latin1.txt"), original);
}

#[test]
fn edit_with_an_empty_old_string_creates_a_missing_file() {
    let ws = Workspace::new();
    let path = ws.path("made/by/edit.txt");
    let out = ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "", "new_string": "created\n"}),
    );
    assert_eq!(ws.bytes("made/by/edit.txt"), b"created\n");
    assert_eq!(structured(&out)["structuredPatch"][0]["lines"], json!(["+created"]));
}

#[test]
fn edit_with_an_empty_old_string_refuses_an_existing_file() {
    let ws = Workspace::new();
    let path = ws.put("a.txt", "content\n");
    ws.read(&path);
    let message = ws.err("Edit", json!({"file_path": path, "old_string": "", "new_string": "x"}));
    assert_eq!(
        message,
        "<tool_use_error>Cannot create new file - file already exists.</tool_use_error>"
    );
}

#[test]
fn edit_of_a_missing_file_says_it_does_not_exist() {
    let ws = Workspace::new();
    let message = ws.err(
        "Edit",
        json!({"file_path": ws.path("nope.txt"), "old_string": "a", "new_string": "b"}),
    );
    assert!(message.starts_with("<tool_use_error>File does not exist. Note: your current working directory is"));
}

#[test]
fn edit_refuses_notebooks_and_points_to_notebook_edit() {
    let ws = Workspace::new();
    let path = ws.put("nb.ipynb", NOTEBOOK);
    ws.read(&path);
    let message = ws.err(
        "Edit",
        json!({"file_path": path, "old_string": "print", "new_string": "show"}),
    );
    assert_eq!(
        message,
        "<tool_use_error>File is a Jupyter Notebook. Use the NotebookEdit to edit this file.</tool_use_error>"
    );
}

#[test]
fn edit_refuses_binary_files_without_writing() {
    let ws = Workspace::new();
    let path = ws.put("blob.dat", b"ab\x00cd");
    let message = ws.err(
        "Edit",
        json!({"file_path": path, "old_string": "ab", "new_string": "x"}),
    );
    assert!(message.starts_with("File has NUL bytes in its first 8 KB"), "{message}");
    assert_eq!(ws.bytes("blob.dat"), b"ab\x00cd");
}

#[test]
fn edit_of_a_10mb_file_works_after_a_ranged_read() {
    let ws = Workspace::new();
    let original = ten_megabytes();
    let path = ws.put("big.txt", &original);
    ws.ok("Read", json!({"file_path": path, "offset": 100_000, "limit": 5}));
    let out = ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "line 100002 ", "new_string": "LINE 100002 "}),
    );
    let hunks = structured(&out)["structuredPatch"].as_array().unwrap().clone();
    assert_eq!(hunks.len(), 1);
    assert_eq!(hunks[0]["oldStart"], 99_999);
    let written = String::from_utf8(ws.bytes("big.txt")).unwrap();
    assert_eq!(written, original.replacen("line 100002 ", "LINE 100002 ", 1));
}

// ---------------------------------------------------------------- MultiEdit

#[test]
fn multi_edit_applies_edits_in_order_on_the_result_of_the_previous() {
    let ws = Workspace::new();
    let path = ws.put("m.txt", "alpha beta\ngamma\n");
    ws.read(&path);
    let out = ws.ok(
        "MultiEdit",
        json!({"file_path": path, "edits": [
            {"old_string": "alpha", "new_string": "ALPHA"},
            {"old_string": "ALPHA beta", "new_string": "one two"},
            {"old_string": "gamma", "new_string": "three"}
        ]}),
    );
    assert_eq!(ws.bytes("m.txt"), b"one two\nthree\n");
    assert!(out.text_content().starts_with(&format!(
        "Applied 3 edits to {path}:\n1. Replaced \"alpha\" with \"ALPHA\""
    )));
    assert_eq!(structured(&out)["edits"][2]["new_string"], "three");
}

#[test]
fn multi_edit_is_all_or_nothing_and_names_the_failing_edit() {
    let ws = Workspace::new();
    let path = ws.put("m.txt", "one\ntwo\n");
    ws.read(&path);
    let message = ws.err(
        "MultiEdit",
        json!({"file_path": path, "edits": [
            {"old_string": "one", "new_string": "1"},
            {"old_string": "missing", "new_string": "x"}
        ]}),
    );
    assert_eq!(
        message,
        "<tool_use_error>edits[1] failed: String to replace not found in file.\nString: missing\nNo edits were applied; the file is unchanged.</tool_use_error>"
    );
    assert_eq!(ws.bytes("m.txt"), b"one\ntwo\n");
}

#[test]
fn multi_edit_can_create_a_file_then_edit_it() {
    let ws = Workspace::new();
    let path = ws.path("created.txt");
    ws.ok(
        "MultiEdit",
        json!({"file_path": path, "edits": [
            {"old_string": "", "new_string": "fn main() {}\n"},
            {"old_string": "{}", "new_string": "{ run(); }"}
        ]}),
    );
    assert_eq!(ws.bytes("created.txt"), b"fn main() { run(); }\n");
}

#[test]
fn multi_edit_refuses_an_empty_edit_list() {
    let ws = Workspace::new();
    let message = ws.err("MultiEdit", json!({"file_path": ws.path("a.txt"), "edits": []}));
    assert!(message.contains("at least one edit"), "{message}");
}

// ---------------------------------------------------------------- NotebookEdit

#[test]
fn notebook_edit_replaces_a_cell_and_leaves_the_rest_byte_for_byte() {
    let ws = Workspace::new();
    let path = ws.put("nb.ipynb", NOTEBOOK);
    ws.read(&path);
    let out = ws.ok(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "calc", "new_source": "print(42)"}),
    );
    assert_eq!(out.text_content(), "Updated cell calc with print(42)");
    let expected = NOTEBOOK
        .replace("\"execution_count\": 3", "\"execution_count\": null")
        .replace(
            "   \"outputs\": [\n    {\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n      \"42\\n\"\n     ]\n    }\n   ],\n   \"source\": [\n    \"print(6 * 7)\"\n   ]",
            "   \"outputs\": [],\n   \"source\": \"print(42)\"",
        );
    assert_eq!(String::from_utf8(ws.bytes("nb.ipynb")).unwrap(), expected);
    let s = structured(&out);
    assert_eq!(s["old_source"], "print(6 * 7)");
    assert_eq!(s["cell_type"], "code");
    assert_eq!(s["language"], "python");
}

#[test]
fn notebook_edit_inserts_a_code_cell_after_the_named_one_with_a_fresh_id() {
    let ws = Workspace::new();
    let path = ws.put("nb.ipynb", NOTEBOOK);
    ws.read(&path);
    let out = ws.ok(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "intro", "new_source": "x = 1", "cell_type": "code", "edit_mode": "insert"}),
    );
    let notebook: Value = serde_json::from_slice(&ws.bytes("nb.ipynb")).unwrap();
    let cell = &notebook["cells"][1];
    let id = cell["id"].as_str().unwrap();
    assert_eq!(id.len(), 8);
    assert_eq!(out.text_content(), format!("Inserted cell {id} with x = 1"));
    assert_eq!(
        cell,
        &json!({"cell_type": "code", "id": id, "source": "x = 1", "metadata": {}, "execution_count": null, "outputs": []})
    );
    assert_eq!(notebook["cells"].as_array().unwrap().len(), 3);
}

#[test]
fn notebook_edit_inserts_at_the_start_without_a_cell_id() {
    let ws = Workspace::new();
    let path = ws.put("nb.ipynb", NOTEBOOK);
    ws.read(&path);
    ws.ok(
        "NotebookEdit",
        json!({"notebook_path": path, "new_source": "# Top", "cell_type": "markdown", "edit_mode": "insert"}),
    );
    let notebook: Value = serde_json::from_slice(&ws.bytes("nb.ipynb")).unwrap();
    assert_eq!(notebook["cells"][0]["source"], "# Top");
    assert_eq!(notebook["cells"][0]["cell_type"], "markdown");
    assert!(notebook["cells"][0].get("outputs").is_none());
}

#[test]
fn notebook_edit_deletes_a_cell_named_in_the_index_form() {
    let ws = Workspace::new();
    let path = ws.put("nb.ipynb", NOTEBOOK);
    ws.read(&path);
    let out = ws.ok(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "cell-0", "new_source": "", "edit_mode": "delete"}),
    );
    assert_eq!(out.text_content(), "Deleted cell cell-0");
    let notebook: Value = serde_json::from_slice(&ws.bytes("nb.ipynb")).unwrap();
    assert_eq!(notebook["cells"].as_array().unwrap().len(), 1);
    assert_eq!(notebook["cells"][0]["id"], "calc");
}

#[test]
fn notebook_edit_reports_an_unknown_cell() {
    let ws = Workspace::new();
    let path = ws.put("nb.ipynb", NOTEBOOK);
    ws.read(&path);
    let message = ws.err(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "zzz", "new_source": "x"}),
    );
    assert_eq!(
        message,
        "<tool_use_error>Cell with ID \"zzz\" not found in notebook.</tool_use_error>"
    );
    let message = ws.err(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "cell-9", "new_source": "x"}),
    );
    assert_eq!(
        message,
        "<tool_use_error>Cell with index 9 does not exist in notebook.</tool_use_error>"
    );
}

#[test]
fn notebook_edit_refuses_a_notebook_that_is_not_json() {
    let ws = Workspace::new();
    let path = ws.path("bad.ipynb");
    // Written by the model, so known to it without a Read.
    ws.ok("Write", json!({"file_path": path, "content": "{ not json"}));
    let message = ws.err(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "a", "new_source": "x"}),
    );
    assert_eq!(message, "Notebook is not valid JSON.");
}

#[test]
fn notebook_edit_requires_a_prior_read() {
    let ws = Workspace::new();
    let path = ws.put("nb.ipynb", NOTEBOOK);
    let message = ws.err(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "calc", "new_source": "x"}),
    );
    assert_eq!(
        message,
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
    );
}

#[test]
fn read_reports_a_notebook_that_is_not_valid_json() {
    let ws = Workspace::new();
    let path = ws.put(
        "odd.ipynb",
        "{\"cells\": [{\"cell_type\": \"code\", \"source\": \"a\"}], \"x\": [}",
    );
    let message = ws.err("Read", json!({"file_path": path}));
    assert!(message.starts_with("Notebook file is not valid JSON"), "{message}");
}

// ---------------------------------------------------------------- propose / commit

#[test]
fn propose_computes_the_new_file_without_touching_the_disk() {
    let ws = Workspace::new();
    let path = ws.put("p.txt", "one\ntwo\n");
    ws.read(&path);
    let proposal = block_on(edit::propose(
        &ws.ts,
        "Edit",
        json!({"file_path": path, "old_string": "two", "new_string": "2"}),
    ))
    .unwrap();
    assert_eq!(proposal.original.as_deref(), Some("one\ntwo\n"));
    assert_eq!(proposal.proposed, "one\n2\n");
    assert_eq!(proposal.request.tool(), "Edit");
    assert_eq!(ws.bytes("p.txt"), b"one\ntwo\n");
    let diff = edit::diff_of(&proposal);
    assert_eq!(diff.hunks()[0].lines, [" one", "-two", "+2"]);
    assert!(matches!(diff, Diff::Patch { .. }));
    assert_eq!(
        diff.unified(&path),
        format!("--- {path}\n+++ {path}\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n")
    );
}

#[test]
fn commit_with_user_content_writes_it_and_reports_user_modified() {
    let ws = Workspace::new();
    let path = ws.put("p.txt", "one\r\ntwo\r\n");
    ws.read(&path);
    let proposal = block_on(edit::propose(
        &ws.ts,
        "Edit",
        json!({"file_path": path, "old_string": "two", "new_string": "2"}),
    ))
    .unwrap();
    let out = block_on(edit::commit(
        &ws.ts,
        proposal,
        Some("one\r\nTWO (user)\r\n".to_string()),
    ))
    .unwrap();
    assert_eq!(ws.bytes("p.txt"), b"one\r\nTWO (user)\r\n");
    assert_eq!(
        out.text_content(),
        format!("The file {path} has been updated successfully. The user modified your proposed changes before accepting them.")
    );
    assert_eq!(structured(&out)["userModified"], true);
    assert_eq!(structured(&out)["newString"], "2");
}

#[test]
fn commit_with_unchanged_user_content_is_not_user_modified() {
    let ws = Workspace::new();
    let path = ws.path("w.txt");
    let proposal = block_on(edit::propose(
        &ws.ts,
        "Write",
        json!({"file_path": path, "content": "x\n"}),
    ))
    .unwrap();
    assert!(matches!(proposal.request, WriteRequest::Write));
    let out = block_on(edit::commit(&ws.ts, proposal, Some("x\n".to_string()))).unwrap();
    assert_eq!(structured(&out)["userModified"], false);
}

#[test]
fn commit_is_refused_when_the_file_changed_during_review() {
    let ws = Workspace::new();
    let path = ws.put("p.txt", "one\ntwo\n");
    ws.read(&path);
    let proposal = block_on(edit::propose(
        &ws.ts,
        "Edit",
        json!({"file_path": path, "old_string": "two", "new_string": "2"}),
    ))
    .unwrap();
    fs::write(&path, "one\ntwo\nthree (external)\n").unwrap();
    bump_mtime(&path);
    let message = block_on(edit::commit(&ws.ts, proposal, None)).unwrap_err().0;
    assert!(
        message.contains("was changed on disk while your change was waiting for review"),
        "{message}"
    );
    assert_eq!(ws.bytes("p.txt"), b"one\ntwo\nthree (external)\n");
}

#[test]
fn commit_of_a_new_file_is_refused_when_someone_created_it_meanwhile() {
    let ws = Workspace::new();
    let path = ws.path("race.txt");
    let proposal = block_on(edit::propose(
        &ws.ts,
        "Write",
        json!({"file_path": path, "content": "mine\n"}),
    ))
    .unwrap();
    fs::write(&path, "theirs\n").unwrap();
    let message = block_on(edit::commit(&ws.ts, proposal, None)).unwrap_err().0;
    assert!(message.contains("was created on disk"), "{message}");
    assert_eq!(ws.bytes("race.txt"), b"theirs\n");
}

#[test]
fn a_written_file_can_be_edited_without_reading_it_again() {
    let ws = Workspace::new();
    let path = ws.path("flow.txt");
    ws.ok("Write", json!({"file_path": path, "content": "a\nb\n"}));
    ws.ok("Edit", json!({"file_path": path, "old_string": "b", "new_string": "c"}));
    assert_eq!(ws.read(&path).text_content(), "1\ta\n2\tc\n3\t");
}

// ---------------------------------------------------------------- specs

#[test]
fn file_tool_schemas_are_strict_json_schema_2020_12_objects_as_the_clis() {
    for spec in tether_core::tools::specs().iter().take(5) {
        let schema = (spec.input_schema)();
        assert_eq!(schema["additionalProperties"], false, "{}", spec.name);
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{}",
            spec.name
        );
        assert!(spec.description.len() > 200, "{}", spec.name);
    }
    let multi = (tether_core::tools::edit::MULTI_EDIT_SPEC.input_schema)();
    assert_eq!(multi["properties"]["edits"]["minItems"], 1);
    assert_eq!(
        multi["required"],
        json!(["file_path", "edits"]),
        "MultiEdit = {{file_path, edits: [{{old_string, new_string, replace_all?}}]}}"
    );
}

#[test]
fn edit_matches_old_string_as_given_so_a_crlf_in_it_is_not_found() {
    let ws = Workspace::new();
    let path = ws.put("crlf.txt", "one\r\ntwo\r\n");
    ws.read(&path);
    let message = ws.err(
        "Edit",
        json!({"file_path": path, "old_string": "one\r\ntwo", "new_string": "1\r\n2"}),
    );
    assert!(
        message.starts_with("<tool_use_error>String to replace not found in file."),
        "{message}"
    );
    ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "one\ntwo", "new_string": "1\n2"}),
    );
    assert_eq!(ws.bytes("crlf.txt"), b"1\r\n2\r\n");
}

#[test]
fn notebook_edit_turning_a_code_cell_to_markdown_keeps_its_emptied_run_fields() {
    let ws = Workspace::new();
    let path = ws.put("nb.ipynb", NOTEBOOK);
    ws.read(&path);
    ws.ok(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "calc", "new_source": "prose", "cell_type": "markdown"}),
    );
    let notebook: Value = serde_json::from_slice(&ws.bytes("nb.ipynb")).unwrap();
    let cell = &notebook["cells"][1];
    assert_eq!(cell["cell_type"], "markdown");
    assert_eq!(cell["execution_count"], Value::Null);
    assert_eq!(cell["outputs"], json!([]));
    assert!(cell.as_object().unwrap().contains_key("execution_count"));
}
