//! Read-after-write coherence over a lagging file system: a host whose `read_file` and `stat` keep
//! answering with the pre-write state for a few calls after each write (as VS Code's remote file
//! system can), driven through the real tools.

use futures::executor::block_on;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fs;
use tether_core::host::{
    BackgroundStatus, Clock, DirEntry, Exec, ExecOutput, ExecRequest, FileSystem, HostError, HostResult, Metadata,
    Search,
};
use tether_core::native::NativeHost;
use tether_core::tools::{ToolOutput, Toolset, ToolsetConfig};

/// The state a lagging host still reports for a path it wrote; `None` = the file did not exist yet.
struct StaleView {
    before: Option<(Vec<u8>, Metadata)>,
    /// `read_file`/`stat` calls (together) still answered from the stale view.
    calls_left: usize,
}

/// NativeHost, except that after a write, the next `lag_calls` reads and stats of the file see it
/// as it was before the write (absent, for a new file). Both lag together and catch up together, as one
/// stale remote snapshot would.
struct LaggingHost {
    inner: NativeHost,
    lag_calls: usize,
    stale: RefCell<HashMap<String, StaleView>>,
    /// The file system calls made, in order, by method name.
    calls: RefCell<Vec<&'static str>>,
}

impl LaggingHost {
    fn new(lag_calls: usize) -> Self {
        LaggingHost {
            inner: NativeHost::new(),
            lag_calls,
            stale: RefCell::new(HashMap::new()),
            calls: RefCell::new(Vec::new()),
        }
    }

    fn record(&self, call: &'static str) {
        self.calls.borrow_mut().push(call);
    }

    fn is_lagging(&self, path: &str) -> bool {
        self.stale.borrow().contains_key(path)
    }

    /// Take one call from the stale view of `path`, if it still has any.
    fn stale_answer<T>(&self, path: &str, pick: impl Fn(&StaleView) -> T) -> Option<T> {
        let mut stale = self.stale.borrow_mut();
        let view = stale.get_mut(path)?;
        let answer = pick(view);
        view.calls_left -= 1;
        if view.calls_left == 0 {
            stale.remove(path);
        }
        Some(answer)
    }
}

impl FileSystem for LaggingHost {
    async fn read_file(&self, path: &str, max_bytes: u64) -> HostResult<Vec<u8>> {
        self.record("read_file");
        match self.stale_answer(path, |v| v.before.as_ref().map(|(bytes, _)| bytes.clone())) {
            Some(Some(bytes)) => Ok(bytes),
            Some(None) => Err(HostError::not_found(path)),
            None => self.inner.read_file(path, max_bytes).await,
        }
    }

    async fn write_file(&self, path: &str, data: &[u8]) -> HostResult<()> {
        self.record("write_file");
        let before = match (self.inner.read_file(path, u64::MAX).await, self.inner.stat(path).await) {
            (Ok(bytes), Ok(meta)) => Some((bytes, meta)),
            _ => None,
        };
        self.inner.write_file(path, data).await?;
        if self.lag_calls == 0 {
            return Ok(());
        }
        self.stale.borrow_mut().insert(
            path.to_string(),
            StaleView {
                before,
                calls_left: self.lag_calls,
            },
        );
        Ok(())
    }

    async fn stat(&self, path: &str) -> HostResult<Metadata> {
        self.record("stat");
        match self.stale_answer(path, |v| v.before.as_ref().map(|(_, meta)| meta.clone())) {
            Some(Some(meta)) => Ok(meta),
            Some(None) => Err(HostError::not_found(path)),
            None => self.inner.stat(path).await,
        }
    }

    async fn lstat(&self, path: &str) -> HostResult<Metadata> {
        self.inner.lstat(path).await
    }

    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        self.inner.read_dir(path).await
    }

    async fn create_dir_all(&self, path: &str) -> HostResult<()> {
        self.inner.create_dir_all(path).await
    }

    async fn rename(&self, from: &str, to: &str) -> HostResult<()> {
        self.inner.rename(from, to).await
    }

    async fn remove(&self, path: &str, recursive: bool) -> HostResult<()> {
        self.inner.remove(path, recursive).await
    }

    async fn real_path(&self, path: &str) -> HostResult<String> {
        self.record("real_path");
        self.inner.real_path(path).await
    }
}

impl Exec for LaggingHost {
    async fn run(&self, request: &ExecRequest) -> HostResult<ExecOutput> {
        self.inner.run(request).await
    }

    async fn spawn_background(&self, request: &ExecRequest) -> HostResult<String> {
        self.inner.spawn_background(request).await
    }

    async fn read_background(&self, id: &str) -> HostResult<BackgroundStatus> {
        self.inner.read_background(id).await
    }

    async fn kill_background(&self, id: &str) -> HostResult<bool> {
        self.inner.kill_background(id).await
    }
}

impl Search for LaggingHost {
    async fn ripgrep(&self, args: &[String], cwd: &str, timeout_ms: u64) -> HostResult<Option<ExecOutput>> {
        self.inner.ripgrep(args, cwd, timeout_ms).await
    }
}

impl Clock for LaggingHost {
    fn now_ms(&self) -> f64 {
        self.inner.now_ms()
    }
}

mod common;

use common::TempWorkspace;

struct Lagging {
    files: TempWorkspace,
    ts: Toolset<LaggingHost>,
}

impl Lagging {
    fn new(lag_calls: usize) -> Self {
        let files = TempWorkspace::new();
        let ts = Toolset::new(LaggingHost::new(lag_calls), ToolsetConfig::new(files.root())).unwrap();
        Lagging { files, ts }
    }

    fn put(&self, name: &str, content: &str) -> String {
        self.files.write(name, content)
    }

    fn ok(&self, tool: &str, args: Value) -> ToolOutput {
        let out = block_on(self.ts.call(tool, args));
        assert!(!out.is_error, "{tool} failed: {}", out.text_content());
        out
    }

    fn read_content(&self, path: &str) -> String {
        let out = self.ok("Read", json!({"file_path": path}));
        out.structured.unwrap()["file"]["content"].as_str().unwrap().to_string()
    }

    /// What the host itself answers right now (consumes one lagging call).
    fn host_view(&self, path: &str) -> String {
        String::from_utf8(block_on(self.ts.host.read_file(path, u64::MAX)).unwrap()).unwrap()
    }
}

#[test]
fn read_right_after_write_returns_the_written_content_while_the_host_lags() {
    let ws = Lagging::new(10);
    let path = ws.put("a.txt", "old content\n");
    assert_eq!(ws.read_content(&path), "old content\n");
    ws.ok("Write", json!({"file_path": path, "content": "new content, longer\n"}));
    assert_eq!(ws.read_content(&path), "new content, longer\n");
    // The host really is stale: asked directly, it still shows the old bytes.
    assert_eq!(ws.host_view(&path), "old content\n");
    assert_eq!(ws.read_content(&path), "new content, longer\n");
}

#[test]
fn read_right_after_edit_returns_the_edited_content_while_the_host_lags() {
    let ws = Lagging::new(10);
    let path = ws.put("a.txt", "alpha\nbeta\n");
    ws.read_content(&path);
    ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "beta", "new_string": "gamma delta"}),
    );
    assert!(ws.ts.host.is_lagging(&path));
    assert_eq!(ws.read_content(&path), "alpha\ngamma delta\n");
}

#[test]
fn a_second_edit_right_after_the_first_is_not_refused_as_changed() {
    let ws = Lagging::new(10);
    let path = ws.put("a.txt", "one\ntwo\n");
    ws.read_content(&path);
    ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "one", "new_string": "1"}),
    );
    ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "two", "new_string": "2"}),
    );
    assert!(ws.ts.host.is_lagging(&path));
    assert_eq!(ws.read_content(&path), "1\n2\n");
}

#[test]
fn the_written_content_stays_visible_when_the_host_catches_up() {
    let ws = Lagging::new(3);
    let path = ws.put("a.txt", "before\n");
    ws.read_content(&path);
    ws.ok("Write", json!({"file_path": path, "content": "after the write\n"}));
    let mut reads = 0;
    while ws.ts.host.is_lagging(&path) {
        assert_eq!(ws.read_content(&path), "after the write\n");
        reads += 1;
        assert!(reads < 10, "the host never caught up");
    }
    assert_eq!(ws.read_content(&path), "after the write\n");
}

#[test]
fn an_external_change_is_seen_on_the_next_read() {
    let ws = Lagging::new(2);
    let path = ws.put("a.txt", "ours\n");
    ws.read_content(&path);
    ws.ok("Write", json!({"file_path": path, "content": "ours, rewritten\n"}));
    while ws.ts.host.is_lagging(&path) {
        ws.read_content(&path);
    }
    fs::write(&path, "changed by someone else, with another size\n").unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert_eq!(ws.read_content(&path), "changed by someone else, with another size\n");
}

#[test]
fn a_new_file_reads_back_while_the_host_does_not_show_it_yet() {
    let ws = Lagging::new(10);
    let path = format!("{}/created.txt", ws.ts.paths.root());
    ws.ok("Write", json!({"file_path": path, "content": "fresh\n"}));
    assert_eq!(ws.read_content(&path), "fresh\n");
    ws.ok(
        "Edit",
        json!({"file_path": path, "old_string": "fresh", "new_string": "edited"}),
    );
    assert_eq!(ws.read_content(&path), "edited\n");
}

#[test]
fn edits_of_a_read_file_take_one_stat_before_and_one_after_each_write_and_no_reread() {
    let expected = ["real_path", "stat", "write_file", "stat"];
    for lag_calls in [0, 10] {
        let ws = Lagging::new(lag_calls);
        let path = ws.put("a.txt", "one\ntwo\n");
        ws.read_content(&path);
        ws.ts.host.calls.borrow_mut().clear();
        ws.ok(
            "Edit",
            json!({"file_path": path, "old_string": "one", "new_string": "1"}),
        );
        assert_eq!(*ws.ts.host.calls.borrow(), expected, "lag {lag_calls}");
        ws.ts.host.calls.borrow_mut().clear();
        ws.ok(
            "Edit",
            json!({"file_path": path, "old_string": "two", "new_string": "2"}),
        );
        assert_eq!(*ws.ts.host.calls.borrow(), expected, "lag {lag_calls}");
        assert_eq!(ws.read_content(&path), "1\n2\n");
    }
}

#[test]
fn a_search_of_the_workspace_root_asks_the_host_for_no_real_path() {
    let ws = Lagging::new(0);
    ws.put("a.txt", "needle\n");
    let root = ws.ts.paths.root().to_string();
    for (tool, args) in [
        ("Grep", json!({"pattern": "needle", "path": root})),
        ("Glob", json!({"pattern": "*.txt", "path": root})),
    ] {
        ws.ts.host.calls.borrow_mut().clear();
        ws.ok(tool, args);
        assert!(
            !ws.ts.host.calls.borrow().contains(&"real_path"),
            "{tool}: {:?}",
            ws.ts.host.calls.borrow()
        );
    }
}
