//! The tools end to end through the wasm boundary: `tools/call` on the exported class, the real
//! Node host, a real temporary directory.

use crate::support::*;
use futures::join;
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;

/// Lines of a Read result with their `cat -n` style numbers: (number, text) for "  12\ttext".
fn numbered_lines(text: &str) -> Vec<(u64, String)> {
    text.lines()
        .filter_map(|line| {
            let (number, content) = line.trim_start().split_once('\t')?;
            Some((number.parse().ok()?, content.to_string()))
        })
        .collect()
}

/// Whether a Glob/Grep listing names `relative` (under the root): the built-ins print paths inside
/// the working directory relative to it, and absolute paths otherwise.
fn lists(text: &str, root: &str, relative: &str) -> bool {
    let absolute = format!("{root}/{relative}");
    text.lines().any(|line| line == relative || line == absolute)
}

#[wasm_bindgen_test]
async fn write_creates_a_file_and_read_numbers_its_lines() {
    let fx = Fixture::new();
    let server = fx.server();
    let file = fx.path("notes/plan.txt");
    let written = call_tool(&server, "Write", json!({"file_path": file, "content": "alpha\nbeta\n"})).await;
    assert!(!written.is_error, "{}", written.text);
    assert_eq!(read_text(&file), "alpha\nbeta\n");

    let read = call_tool(&server, "Read", json!({"file_path": file})).await;
    assert!(!read.is_error, "{}", read.text);
    let lines = numbered_lines(&read.text);
    assert!(lines.contains(&(1, "alpha".to_string())), "{}", read.text);
    assert!(lines.contains(&(2, "beta".to_string())), "{}", read.text);
}

#[wasm_bindgen_test]
async fn read_of_a_missing_file_is_an_error_result() {
    let fx = Fixture::new();
    let read = call_tool(&fx.server(), "Read", json!({"file_path": fx.path("absent.txt")})).await;
    assert!(read.is_error);
    assert!(read.text.contains("does not exist"), "{}", read.text);
}

#[wasm_bindgen_test]
async fn edit_of_an_unread_file_applies_without_claiming_it_is_in_context() {
    let fx = Fixture::new();
    let file = fx.path("a.txt");
    write_text(&file, "hello world\n");
    let edit = call_tool(
        &fx.server(),
        "Edit",
        json!({"file_path": file, "old_string": "world", "new_string": "there"}),
    )
    .await;
    assert!(!edit.is_error, "{}", edit.text);
    assert_eq!(edit.text, format!("The file {file} has been updated successfully."));
    assert_eq!(read_text(&file), "hello there\n");
}

#[wasm_bindgen_test]
async fn edit_after_read_replaces_exactly_the_old_string() {
    let fx = Fixture::new();
    let server = fx.server();
    let file = fx.path("a.txt");
    write_text(&file, "one two three\nfour\n");
    assert!(!call_tool(&server, "Read", json!({"file_path": file})).await.is_error);
    let edit = call_tool(
        &server,
        "Edit",
        json!({"file_path": file, "old_string": "two three", "new_string": "2 3"}),
    )
    .await;
    assert!(!edit.is_error, "{}", edit.text);
    assert_eq!(read_text(&file), "one 2 3\nfour\n");
}

#[wasm_bindgen_test]
async fn glob_lists_the_matching_files() {
    let fx = Fixture::new();
    write_text(&fx.path("a.rs"), "");
    write_text(&fx.path("src/b.rs"), "");
    write_text(&fx.path("c.txt"), "");
    let glob = call_tool(&fx.server(), "Glob", json!({"pattern": "**/*.rs", "path": fx.dir})).await;
    assert!(!glob.is_error, "{}", glob.text);
    assert!(lists(&glob.text, &fx.dir, "a.rs"), "{}", glob.text);
    assert!(lists(&glob.text, &fx.dir, "src/b.rs"), "{}", glob.text);
    assert!(!glob.text.contains("c.txt"), "{}", glob.text);
}

#[wasm_bindgen_test]
async fn grep_by_default_lists_the_files_that_match() {
    let fx = Fixture::new();
    write_text(&fx.path("has.txt"), "a needle in here\n");
    write_text(&fx.path("sub/also.txt"), "needle\n");
    write_text(&fx.path("hasnt.txt"), "only hay\n");
    let grep = call_tool(&fx.server(), "Grep", json!({"pattern": "needle", "path": fx.dir})).await;
    assert!(!grep.is_error, "{}", grep.text);
    assert!(lists(&grep.text, &fx.dir, "has.txt"), "{}", grep.text);
    assert!(lists(&grep.text, &fx.dir, "sub/also.txt"), "{}", grep.text);
    assert!(!grep.text.contains("hasnt.txt"), "{}", grep.text);
}

#[wasm_bindgen_test]
async fn bash_returns_the_command_output() {
    let fx = Fixture::new();
    let bash = call_tool(&fx.server(), "Bash", json!({"command": "echo hello from bash"})).await;
    assert!(!bash.is_error, "{}", bash.text);
    assert!(bash.text.contains("hello from bash"), "{}", bash.text);
}

#[wasm_bindgen_test]
async fn bash_calls_run_concurrently() {
    let fx = Fixture::new();
    let server = fx.server();
    let flag = fx.path("flag");
    // The first waits (up to 10 s) for a flag only the second creates.
    let waiter =
        format!("for i in $(seq 1 200); do [ -f '{flag}' ] && echo saw-flag && exit 0; sleep 0.05; done; exit 1");
    let setter = format!("sleep 0.2; touch '{flag}'");
    let (waited, set) = join!(
        call_tool(&server, "Bash", json!({"command": waiter})),
        call_tool(&server, "Bash", json!({"command": setter}))
    );
    assert!(!set.is_error, "{}", set.text);
    assert!(waited.text.contains("saw-flag"), "{}", waited.text);
}

#[wasm_bindgen_test]
async fn invalidate_drops_a_cached_file_changed_behind_the_caches_back() {
    let fx = Fixture::new();
    let server = fx.server();
    let file = fx.path("a.txt");
    let fixed_mtime = 1_600_000_000_000.0;
    write_text(&file, "one\n");
    set_mtime(&file, fixed_mtime);
    assert!(!call_tool(&server, "Read", json!({"file_path": file})).await.is_error);
    // Same size, same mtime: only an invalidation can tell the cache the content changed.
    write_text(&file, "two\n");
    set_mtime(&file, fixed_mtime);
    server.invalidate(&file);
    let edit = call_tool(
        &server,
        "Edit",
        json!({"file_path": file, "old_string": "two", "new_string": "three"}),
    )
    .await;
    assert!(!edit.is_error, "{}", edit.text);
    assert_eq!(read_text(&file), "three\n");
}

#[wasm_bindgen_test]
async fn file_changed_resolves_and_later_reads_see_the_new_content() {
    let fx = Fixture::new();
    let server = fx.server();
    let file = fx.path("a.txt");
    write_text(&file, "first\n");
    assert!(!call_tool(&server, "Read", json!({"file_path": file})).await.is_error);
    write_text(&file, "second version\n");
    wasm_bindgen_futures::JsFuture::from(server.file_changed(file.clone()))
        .await
        .unwrap();
    let read = call_tool(&server, "Read", json!({"file_path": file})).await;
    assert!(
        numbered_lines(&read.text).contains(&(1, "second version".to_string())),
        "{}",
        read.text
    );
}
