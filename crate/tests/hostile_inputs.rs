//! The classes of hostile input the tools once failed on (issue 13), each through `Toolset::call`
//! on a real temporary directory: what is not a regular file, reads without bound, overlapping
//! writes of one file, and inputs the CLI's own tools refuse.

use futures::executor::block_on;
use futures::future::join_all;
use serde_json::{json, Value};
use std::cell::Cell;
use std::fs;
use std::process::Command;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;
use tether_core::host::{
    BackgroundStatus, Clock, DirEntry, Exec, ExecOutput, ExecRequest, FileSystem, HostErrorKind, HostResult, Metadata,
    Search,
};
use tether_core::mcp::McpServer;
use tether_core::native::NativeHost;
use tether_core::tools::{pipeline, ToolOutput, Toolset, ToolsetConfig};

mod common;

use common::TempWorkspace;

/// Runs `f` on its own thread and fails the test when it has not returned within 10 s (a read
/// that blocks on a FIFO never would).
fn within_seconds<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("the call did not return within 10 s")
}

fn mkfifo(path: &str) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

fn call(ts: &Toolset<NativeHost>, tool: &str, args: Value) -> ToolOutput {
    block_on(ts.call(tool, args))
}

fn error_of(out: ToolOutput) -> String {
    assert!(out.is_error, "expected an error, got: {}", out.text_content());
    out.text_content()
}

#[test]
fn a_fifo_in_the_workspace_is_refused_by_read_without_blocking() {
    let ws = TempWorkspace::new();
    let fifo = ws.path("pipe");
    mkfifo(&fifo);
    let root = ws.root().to_string();
    let text = within_seconds(move || {
        let ts = Toolset::new(NativeHost::new(), ToolsetConfig::new(root)).unwrap();
        error_of(call(&ts, "Read", json!({"file_path": fifo})))
    });
    assert_eq!(
        text,
        format!(
            "<tool_use_error>{} exists but is not a regular file (a device, FIFO or socket). Read only reads regular files.</tool_use_error>",
            ws.path("pipe")
        )
    );
}

#[test]
fn edit_write_and_notebook_edit_refuse_a_fifo_in_the_clis_words() {
    let ws = TempWorkspace::new();
    let fifo = ws.path("pipe");
    mkfifo(&fifo);
    let root = ws.root().to_string();
    let texts = within_seconds(move || {
        let ts = Toolset::new(NativeHost::new(), ToolsetConfig::new(root)).unwrap();
        [
            error_of(call(
                &ts,
                "Edit",
                json!({"file_path": fifo, "old_string": "a", "new_string": "b"}),
            )),
            error_of(call(&ts, "Write", json!({"file_path": fifo, "content": "x"}))),
            error_of(call(
                &ts,
                "MultiEdit",
                json!({"file_path": fifo, "edits": [{"old_string": "a", "new_string": "b"}]}),
            )),
        ]
    });
    let fifo = ws.path("pipe");
    assert_eq!(texts[0], format!("<tool_use_error>{fifo} exists but is not a regular file (a device, FIFO or socket). Edit only changes regular files.</tool_use_error>"));
    assert_eq!(texts[1], format!("<tool_use_error>{fifo} exists but is not a regular file (a device, FIFO or socket). Write only creates or overwrites regular files.</tool_use_error>"));
    assert!(
        texts[2].contains("MultiEdit only changes regular files"),
        "{}",
        texts[2]
    );
    let meta = fs::symlink_metadata(&fifo).unwrap();
    assert!(!meta.is_file(), "the FIFO is still a FIFO: nothing was written over it");
}

#[test]
fn a_unix_socket_in_the_workspace_is_refused_by_read() {
    let ws = TempWorkspace::new();
    let socket = ws.path("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let ts = ws.toolset();
    assert!(error_of(call(&ts, "Read", json!({"file_path": socket}))).contains("is not a regular file"));
}

#[test]
fn device_and_process_files_outside_the_root_are_refused_by_name() {
    let ws = TempWorkspace::new();
    let mut config = ToolsetConfig::new(ws.root());
    config.allow_outside_root = true;
    let ts = ws.toolset_with(config);
    assert_eq!(
        error_of(call(&ts, "Read", json!({"file_path": "/dev/zero"}))),
        "<tool_use_error>Cannot read '/dev/zero': this path names a device or process file that this tool does not read.</tool_use_error>"
    );
    // A regular file to stat (size 0): only its name tells it apart.
    assert!(error_of(call(&ts, "Read", json!({"file_path": "/proc/self/environ"}))).contains("device or process file"));
    // Through a link outside the workspace.
    let outside = tempfile::tempdir().unwrap();
    let link = outside.path().join("zero");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let text = error_of(call(&ts, "Read", json!({"file_path": link.to_str().unwrap()})));
    assert!(text.contains("device or process file"), "{text}");
}

#[test]
fn a_character_device_node_inside_the_root_is_refused() {
    let ws = TempWorkspace::new();
    let node = ws.path("zero");
    // mknod needs root (the tests run as root here); say so and skip otherwise.
    if !Command::new("mknod")
        .args([&node, "c", "1", "5"])
        .status()
        .is_ok_and(|s| s.success())
    {
        eprintln!("skipped: mknod needs root");
        return;
    }
    let ts = ws.toolset();
    assert!(error_of(call(&ts, "Read", json!({"file_path": node}))).contains("is not a regular file"));
}

#[test]
fn the_hosts_read_stops_at_its_limit_even_when_the_size_says_zero() {
    let host = NativeHost::new();
    // /proc files report a size of 0 and hold more.
    let err = block_on(host.read_file("/proc/self/status", 16)).unwrap_err();
    assert_eq!(err.kind, HostErrorKind::TooLarge, "{err:?}");
    let ws = TempWorkspace::new();
    let file = ws.write("big.bin", vec![7u8; 1000]);
    assert_eq!(
        block_on(host.read_file(&file, 999)).unwrap_err().kind,
        HostErrorKind::TooLarge
    );
    assert_eq!(block_on(host.read_file(&file, 1000)).unwrap().len(), 1000);
}

/// NativeHost, except that every file operation first yields to the executor once, as a real
/// asynchronous host (Node's fs, a remote) does, so concurrent tool calls interleave.
struct YieldingHost(NativeHost);

async fn yield_once() {
    let yielded = Cell::new(false);
    futures::future::poll_fn(|cx| {
        if yielded.replace(true) {
            std::task::Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await
}

impl FileSystem for YieldingHost {
    async fn read_file(&self, path: &str, max_bytes: u64) -> HostResult<Vec<u8>> {
        yield_once().await;
        self.0.read_file(path, max_bytes).await
    }
    async fn write_file(&self, path: &str, data: &[u8]) -> HostResult<()> {
        yield_once().await;
        self.0.write_file(path, data).await
    }
    async fn stat(&self, path: &str) -> HostResult<Metadata> {
        yield_once().await;
        self.0.stat(path).await
    }
    async fn lstat(&self, path: &str) -> HostResult<Metadata> {
        yield_once().await;
        self.0.lstat(path).await
    }
    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        self.0.read_dir(path).await
    }
    async fn create_dir_all(&self, path: &str) -> HostResult<()> {
        self.0.create_dir_all(path).await
    }
    async fn rename(&self, from: &str, to: &str) -> HostResult<()> {
        self.0.rename(from, to).await
    }
    async fn remove(&self, path: &str, recursive: bool) -> HostResult<()> {
        self.0.remove(path, recursive).await
    }
    async fn real_path(&self, path: &str) -> HostResult<String> {
        yield_once().await;
        self.0.real_path(path).await
    }
}

impl Exec for YieldingHost {
    async fn run(&self, request: &ExecRequest) -> HostResult<ExecOutput> {
        self.0.run(request).await
    }
    async fn spawn_background(&self, request: &ExecRequest) -> HostResult<String> {
        self.0.spawn_background(request).await
    }
    async fn read_background(&self, id: &str) -> HostResult<BackgroundStatus> {
        self.0.read_background(id).await
    }
    async fn kill_background(&self, id: &str) -> HostResult<bool> {
        self.0.kill_background(id).await
    }
}

impl Search for YieldingHost {}

impl Clock for YieldingHost {
    fn now_ms(&self) -> f64 {
        self.0.now_ms()
    }
}

#[test]
fn ten_concurrent_edits_of_one_file_all_land() {
    let ws = TempWorkspace::new();
    let tokens: Vec<String> = (0..10).map(|i| format!("token{i}")).collect();
    let file = ws.write("a.txt", tokens.join("\n") + "\n");
    let ts = Toolset::new(YieldingHost(NativeHost::new()), ToolsetConfig::new(ws.root())).unwrap();
    block_on(ts.call("Read", json!({"file_path": file})));
    let edits = tokens.iter().map(|token| {
        ts.call(
            "Edit",
            json!({"file_path": file, "old_string": token, "new_string": token.to_uppercase()}),
        )
    });
    let outputs = block_on(join_all(edits));
    for out in &outputs {
        assert!(!out.is_error, "{}", out.text_content());
    }
    let expected: Vec<String> = tokens.iter().map(|t| t.to_uppercase()).collect();
    assert_eq!(ws.read("a.txt").unwrap(), expected.join("\n") + "\n");
}

#[test]
fn concurrent_writes_and_edits_of_one_file_are_applied_in_the_order_they_came() {
    let ws = TempWorkspace::new();
    let file = ws.write("a.txt", "start\n");
    let ts = Toolset::new(YieldingHost(NativeHost::new()), ToolsetConfig::new(ws.root())).unwrap();
    block_on(ts.call("Read", json!({"file_path": file})));
    let calls = vec![
        ts.call("Write", json!({"file_path": file, "content": "one\n"})),
        ts.call(
            "Edit",
            json!({"file_path": file, "old_string": "one", "new_string": "two"}),
        ),
        ts.call(
            "Edit",
            json!({"file_path": file, "old_string": "two", "new_string": "three"}),
        ),
    ];
    for out in block_on(join_all(calls)) {
        assert!(!out.is_error, "{}", out.text_content());
    }
    assert_eq!(ws.read("a.txt").unwrap(), "three\n");
}

#[test]
fn of_two_reviewed_changes_from_one_version_the_second_is_refused() {
    let ws = TempWorkspace::new();
    let file = ws.write("a.txt", "alpha beta\n");
    let ts = ws.toolset();
    block_on(ts.call("Read", json!({"file_path": file})));
    let first = block_on(pipeline::propose(
        &ts,
        "Edit",
        json!({"file_path": file, "old_string": "alpha", "new_string": "A"}),
    ))
    .unwrap();
    let second = block_on(pipeline::propose(
        &ts,
        "Edit",
        json!({"file_path": file, "old_string": "beta", "new_string": "B"}),
    ))
    .unwrap();
    let (a, b) = block_on(futures::future::join(
        pipeline::commit(&ts, first, None),
        pipeline::commit(&ts, second, None),
    ));
    assert!(a.is_ok());
    let refused = b.unwrap_err().0;
    assert!(refused.contains("was changed on disk"), "{refused}");
    assert_eq!(ws.read("a.txt").unwrap(), "A beta\n", "the stale change wrote nothing");
}

#[test]
fn a_misspelt_parameter_is_refused_and_nothing_is_read_or_written() {
    let ws = TempWorkspace::new();
    let file = ws.write("a.txt", "alpha\n");
    let ts = ws.toolset();
    assert_eq!(
        error_of(call(&ts, "Read", json!({"file_path": file, "offest": 3}))),
        "<tool_use_error>InputValidationError: Read failed due to the following issue:\nAn unexpected parameter `offest` was provided</tool_use_error>"
    );
    let text = error_of(call(
        &ts,
        "Edit",
        json!({"file_path": file, "old_string": "alpha", "new_string": "x", "bogus": 1}),
    ));
    assert!(text.contains("An unexpected parameter `bogus` was provided"), "{text}");
    assert_eq!(ws.read("a.txt").unwrap(), "alpha\n");
}

#[test]
fn a_negative_offset_reads_from_the_start_as_the_cli_does() {
    let ws = TempWorkspace::new();
    let file = ws.write("a.txt", "alpha\nbeta\n");
    let ts = ws.toolset();
    let out = call(&ts, "Read", json!({"file_path": file, "offset": -1}));
    assert_eq!(out.text_content(), "1\talpha\n2\tbeta\n3\t");
}

fn server(ws: &TempWorkspace) -> McpServer<NativeHost> {
    McpServer::new(ws.toolset())
}

fn answer(server: &McpServer<NativeHost>, line: &str) -> Value {
    serde_json::from_str(&block_on(server.handle(line)).expect("an answer")).unwrap()
}

#[test]
fn a_batch_inside_a_batch_is_an_invalid_request_not_a_second_batch() {
    let ws = TempWorkspace::new();
    let server = server(&ws);
    let reply = answer(
        &server,
        r#"[[{"jsonrpc":"2.0","id":1,"method":"ping"}],{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
    );
    assert_eq!(reply[0]["error"]["code"], -32600, "{reply}");
    assert_eq!(reply[0]["id"], Value::Null);
    assert_eq!(reply[1], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}

#[test]
fn odd_ids_are_refused_and_the_server_answers_afterwards() {
    let ws = TempWorkspace::new();
    let server = server(&ws);
    for id in [r#"{"a":1}"#, "[1]", "true"] {
        let reply = answer(&server, &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        assert_eq!(reply["error"]["code"], -32600, "{id}: {reply}");
    }
    assert_eq!(
        answer(&server, r#"{"jsonrpc":"2.0","id":"x","method":"ping"}"#)["result"],
        json!({})
    );
}
