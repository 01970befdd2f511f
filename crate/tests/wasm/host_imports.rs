//! The host imports through the wasm boundary: `WasmHost` over the real Node host, and over
//! scripted JS hosts for the error paths.

use crate::support::*;
use futures::join;
use js_sys::Reflect;
use tether_core::host::{Clock, Exec, ExecRequest, FileKind, FileSystem, HostErrorKind, Search};
use tether_core::wasm::WasmHost;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

fn command(command: &str, cwd: &str) -> ExecRequest {
    ExecRequest {
        command: command.to_string(),
        cwd: cwd.to_string(),
        env: Vec::new(),
        timeout_ms: 30_000,
        max_output_bytes: 1024 * 1024,
    }
}

fn error_with_code(code: &str, message: &str) -> JsValue {
    let error = js_sys::Error::new(message);
    Reflect::set(&error, &"code".into(), &code.into()).unwrap_or_else(|e| panic!("{e:?}"));
    error.into()
}

#[wasm_bindgen_test]
async fn write_file_then_read_file_round_trips_every_byte() {
    let fx = Fixture::new();
    let host = fx.host();
    let bytes: Vec<u8> = (0..=255u8).chain([0, 0xff, b'\n']).collect();
    let file = fx.path("bytes.bin");
    host.write_file(&file, &bytes).await.unwrap();
    assert_eq!(host.read_file(&file, 1 << 20).await.unwrap(), bytes);
}

#[wasm_bindgen_test]
async fn write_file_replaces_content_keeps_the_mode_and_leaves_no_temp_file() {
    let fx = Fixture::new();
    let host = fx.host();
    let script = fx.path("run.sh");
    write_text(&script, "old\n");
    chmod(&script, 0o755);
    host.write_file(&script, b"new\n").await.unwrap();
    assert_eq!(read_text(&script), "new\n");
    assert_eq!(file_mode(&script), 0o755);
    let names: Vec<String> = host
        .read_dir(&fx.dir)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, vec!["run.sh".to_string()]);
}

#[wasm_bindgen_test]
async fn write_file_through_a_symlink_updates_the_target_and_keeps_the_link() {
    let fx = Fixture::new();
    let host = fx.host();
    let target = fx.path("target.txt");
    let link = fx.path("link.txt");
    write_text(&target, "before\n");
    symlink(&target, &link);
    host.write_file(&link, b"after\n").await.unwrap();
    assert!(is_symlink(&link));
    assert_eq!(read_text(&target), "after\n");
}

#[wasm_bindgen_test]
fn sha256_hex_from_node_matches_the_cores_own() {
    let fx = Fixture::new();
    let host = fx.host();
    // FIPS 180-2's "abc", then a megabyte of every byte value (the audit log's digest of a write).
    assert_eq!(
        host.sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    let big: Vec<u8> = (0..1 << 20).map(|i: u32| (i % 251) as u8).collect();
    assert_eq!(host.sha256_hex(&big), tether_core::host::sha256_hex(&big));
    assert_eq!(host.sha256_hex(b""), tether_core::host::sha256_hex(b""));
}

#[wasm_bindgen_test]
async fn write_file_into_a_missing_directory_is_not_found() {
    let fx = Fixture::new();
    let err = fx
        .host()
        .write_file(&fx.path("no/such/dir/f.txt"), b"x")
        .await
        .unwrap_err();
    assert_eq!(err.kind, HostErrorKind::NotFound, "{err:?}");
}

#[wasm_bindgen_test]
async fn stat_follows_symlinks_and_lstat_reports_them() {
    let fx = Fixture::new();
    let host = fx.host();
    write_text(&fx.path("f.txt"), "12345");
    make_dir(&fx.path("d"));
    symlink(&fx.path("f.txt"), &fx.path("l"));

    let file = host.stat(&fx.path("f.txt")).await.unwrap();
    assert_eq!((file.kind, file.size), (FileKind::File, 5));
    assert!(
        file.mtime_ms > 1.0e12,
        "mtime is in ms since the epoch: {}",
        file.mtime_ms
    );
    assert_eq!(host.stat(&fx.path("d")).await.unwrap().kind, FileKind::Directory);
    assert_eq!(host.stat(&fx.path("l")).await.unwrap().kind, FileKind::File);
    assert_eq!(host.lstat(&fx.path("l")).await.unwrap().kind, FileKind::Symlink);
    assert_eq!(host.lstat(&fx.path("f.txt")).await.unwrap().kind, FileKind::File);
}

#[wasm_bindgen_test]
async fn mtimes_come_in_order_with_none_for_a_file_that_cannot_be_stated() {
    let fx = Fixture::new();
    write_text(&fx.path("old.txt"), "");
    write_text(&fx.path("new.txt"), "");
    set_mtime(&fx.path("old.txt"), 1_600_000_000_000.0);
    set_mtime(&fx.path("new.txt"), 1_700_000_000_000.0);
    let paths = ["new.txt", "missing.txt", "old.txt"].map(|name| fx.path(name));
    let times = fx.host().mtimes(&paths).await;
    assert_eq!(times, vec![Some(1_700_000_000_000.0), None, Some(1_600_000_000_000.0)]);
}

#[wasm_bindgen_test]
async fn mtimes_fall_back_to_a_stat_per_file_without_a_whole_answer() {
    let paths = ["/a".to_string(), "/b".to_string()];
    let without = WasmHost::new(plain_value_host()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(without.mtimes(&paths).await, vec![Some(1000.0), Some(1000.0)]);
    let short = WasmHost::new(short_mtimes_host()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(short.mtimes(&paths).await, vec![Some(1000.0), Some(1000.0)]);
}

#[wasm_bindgen_test]
async fn read_dir_lists_names_with_their_kinds() {
    let fx = Fixture::new();
    write_text(&fx.path("a.txt"), "a");
    make_dir(&fx.path("b"));
    symlink(&fx.path("a.txt"), &fx.path("c"));
    let mut entries = fx.host().read_dir(&fx.dir).await.unwrap();
    entries.sort_by(|x, y| x.name.cmp(&y.name));
    let listed: Vec<(String, FileKind)> = entries.into_iter().map(|e| (e.name, e.kind)).collect();
    assert_eq!(
        listed,
        vec![
            ("a.txt".to_string(), FileKind::File),
            ("b".to_string(), FileKind::Directory),
            ("c".to_string(), FileKind::Symlink),
        ]
    );
}

#[wasm_bindgen_test]
async fn real_path_resolves_symlinks() {
    let fx = Fixture::new();
    make_dir(&fx.path("real"));
    symlink(&fx.path("real"), &fx.path("alias"));
    let resolved = fx.host().real_path(&fx.path("alias")).await.unwrap();
    assert_eq!(resolved, fx.path("real"));
}

#[wasm_bindgen_test]
async fn missing_paths_are_not_found() {
    let fx = Fixture::new();
    let host = fx.host();
    let missing = fx.path("missing.txt");
    assert_eq!(
        host.read_file(&missing, 1 << 20).await.unwrap_err().kind,
        HostErrorKind::NotFound
    );
    assert_eq!(host.stat(&missing).await.unwrap_err().kind, HostErrorKind::NotFound);
    assert_eq!(
        host.real_path(&missing).await.unwrap_err().kind,
        HostErrorKind::NotFound
    );
    let err = host.read_dir(&missing).await.unwrap_err();
    assert_eq!(err.kind, HostErrorKind::NotFound);
    assert!(
        err.message.contains("missing.txt"),
        "the message names the path: {}",
        err.message
    );
}

#[wasm_bindgen_test]
async fn reading_a_directory_is_a_directory_error() {
    let fx = Fixture::new();
    let err = fx.host().read_file(&fx.dir, 1 << 20).await.unwrap_err();
    assert_eq!(err.kind, HostErrorKind::IsADirectory, "{err:?}");
}

#[wasm_bindgen_test]
async fn a_path_under_a_file_is_not_a_directory() {
    let fx = Fixture::new();
    write_text(&fx.path("f.txt"), "x");
    let err = fx.host().stat(&fx.path("f.txt/inner")).await.unwrap_err();
    assert_eq!(err.kind, HostErrorKind::NotADirectory, "{err:?}");
}

#[wasm_bindgen_test]
async fn create_dir_all_rename_and_remove_work_on_real_directories() {
    let fx = Fixture::new();
    let host = fx.host();
    host.create_dir_all(&fx.path("a/b/c")).await.unwrap();
    host.create_dir_all(&fx.path("a/b/c")).await.unwrap();
    write_text(&fx.path("a/b/c/f.txt"), "x");
    host.rename(&fx.path("a"), &fx.path("z")).await.unwrap();
    assert!(exists(&fx.path("z/b/c/f.txt")));
    assert!(
        host.remove(&fx.path("z"), false).await.is_err(),
        "a non-empty directory needs recursive"
    );
    host.remove(&fx.path("z/b/c/f.txt"), false).await.unwrap();
    host.remove(&fx.path("z"), true).await.unwrap();
    assert!(!exists(&fx.path("z")));
}

#[wasm_bindgen_test]
async fn create_dir_all_over_a_file_fails_with_already_exists() {
    let fx = Fixture::new();
    write_text(&fx.path("f"), "x");
    let err = fx.host().create_dir_all(&fx.path("f")).await.unwrap_err();
    assert_eq!(err.kind, HostErrorKind::AlreadyExists, "{err:?}");
}

#[wasm_bindgen_test]
async fn error_codes_map_to_kinds_whether_thrown_or_rejected() {
    let cases = [
        ("ENOENT", HostErrorKind::NotFound),
        ("EACCES", HostErrorKind::PermissionDenied),
        ("EPERM", HostErrorKind::PermissionDenied),
        ("EISDIR", HostErrorKind::IsADirectory),
        ("ENOTDIR", HostErrorKind::NotADirectory),
        ("EEXIST", HostErrorKind::AlreadyExists),
        ("ENOSYS", HostErrorKind::Unsupported),
        ("EFTYPE", HostErrorKind::NotAFile),
        ("EFBIG", HostErrorKind::TooLarge),
        ("FileNotFound", HostErrorKind::NotFound),
        ("NoPermissions", HostErrorKind::PermissionDenied),
        ("EBUSY", HostErrorKind::Other),
    ];
    for (code, kind) in cases {
        for as_rejection in [false, true] {
            let host = WasmHost::new(failing_host(&error_with_code(code, "it failed"), as_rejection)).unwrap();
            let err = host.read_file("/x", 1 << 20).await.unwrap_err();
            assert_eq!(
                (err.kind, err.message.as_str()),
                (kind, "it failed"),
                "{code} rejected={as_rejection}"
            );
        }
    }
}

#[wasm_bindgen_test]
async fn errors_without_a_code_are_other_with_their_message() {
    let host = WasmHost::new(failing_host(&JsValue::from_str("plain string"), true)).unwrap();
    let err = host.stat("/x").await.unwrap_err();
    assert_eq!((err.kind, err.message.as_str()), (HostErrorKind::Other, "plain string"));

    let host = WasmHost::new(failing_host(&js_sys::Error::new("no code").into(), false)).unwrap();
    let err = host.run(&command("true", "/")).await.unwrap_err();
    assert_eq!((err.kind, err.message.as_str()), (HostErrorKind::Other, "no code"));

    let host = WasmHost::new(failing_host(&JsValue::UNDEFINED, true)).unwrap();
    assert_eq!(
        host.read_file("/x", 1 << 20).await.unwrap_err().kind,
        HostErrorKind::Other
    );
}

#[wasm_bindgen_test]
async fn a_host_may_answer_with_plain_values_instead_of_promises() {
    let host = WasmHost::new(plain_value_host()).unwrap();
    assert_eq!(host.read_file("/a", 1 << 20).await.unwrap(), vec![1, 2, 3]);
    assert_eq!(host.stat("/a").await.unwrap().size, 3);
    assert_eq!(host.run(&command("x", "/")).await.unwrap().stdout, "out");
    assert_eq!(host.spawn_background(&command("x", "/")).await.unwrap(), "bg-plain");
    assert_eq!(host.ripgrep(&["x".to_string()], "/", 1000).await.unwrap(), None);
    assert_eq!(host.now_ms(), 1234.0);
}

#[wasm_bindgen_test]
async fn answers_of_the_wrong_shape_are_errors_not_panics() {
    let host = WasmHost::new(wrong_shape_host()).unwrap();
    let err = host.read_file("/a", 1 << 20).await.unwrap_err();
    assert!(err.message.contains("readFile"), "{err:?}");
    let err = host.stat("/a").await.unwrap_err();
    assert!(err.message.contains("stat"), "{err:?}");
    assert!(host.real_path("/a").await.is_err());
}

#[wasm_bindgen_test]
fn a_host_missing_methods_is_refused_naming_them() {
    let err = WasmHost::new(partial_host()).err().expect("refused");
    assert!(
        err.contains("writeFile") && err.contains("nowMs") && !err.contains("readFile,"),
        "{err}"
    );
}

#[wasm_bindgen_test]
async fn run_reports_stdout_stderr_and_the_exit_code() {
    let fx = Fixture::new();
    let out = fx
        .host()
        .run(&command("echo out; echo err >&2; exit 3", &fx.dir))
        .await
        .unwrap();
    assert_eq!(
        (
            out.stdout.as_str(),
            out.stderr.as_str(),
            out.exit_code,
            out.timed_out,
            out.truncated
        ),
        ("out\n", "err\n", Some(3), false, false)
    );
}

#[wasm_bindgen_test]
async fn run_uses_the_working_directory_and_extra_environment() {
    let fx = Fixture::new();
    let mut request = command("pwd; echo \"$TETHER_TEST_VALUE\"", &fx.dir);
    request.env = vec![("TETHER_TEST_VALUE".to_string(), "from the core".to_string())];
    let out = fx.host().run(&request).await.unwrap();
    assert_eq!(out.stdout, format!("{}\nfrom the core\n", fx.dir));
}

#[wasm_bindgen_test]
async fn run_kills_the_whole_process_group_on_timeout() {
    let fx = Fixture::new();
    let host = fx.host();
    let mut request = command("sleep 30 & echo $! > child.pid; wait", &fx.dir);
    request.timeout_ms = 500;
    let out = host.run(&request).await.unwrap();
    assert!(out.timed_out);
    assert_eq!(out.exit_code, None);
    // The backgrounded grandchild died with the group (a zombie counts as dead).
    let check = "pid=$(cat child.pid); if [ -e /proc/$pid ] && ! grep -q ') Z' /proc/$pid/stat; then echo alive; else echo dead; fi";
    let probe = host.run(&command(check, &fx.dir)).await.unwrap();
    assert_eq!(probe.stdout, "dead\n");
}

#[wasm_bindgen_test]
async fn run_caps_output_and_reports_truncation() {
    let fx = Fixture::new();
    let mut request = command("head -c 100000 /dev/zero | tr '\\0' a", &fx.dir);
    request.max_output_bytes = 1000;
    let out = fx.host().run(&request).await.unwrap();
    assert_eq!(out.stdout.len(), 1000);
    assert!(out.truncated);
    assert_eq!(out.exit_code, Some(0));
}

#[wasm_bindgen_test]
async fn run_in_a_missing_directory_is_not_found() {
    let fx = Fixture::new();
    let err = fx.host().run(&command("true", &fx.path("gone"))).await.unwrap_err();
    assert_eq!(err.kind, HostErrorKind::NotFound, "{err:?}");
    assert!(err.message.contains("gone"), "{err:?}");
}

#[wasm_bindgen_test]
async fn host_calls_overlap_instead_of_queueing() {
    let fx = Fixture::new();
    let host = fx.host();
    // The first waits (up to 10 s) for a flag only the second creates: run one after the other,
    // the first would give up and exit 1.
    let waiter = command(
        "for i in $(seq 1 200); do [ -f flag ] && exit 0; sleep 0.05; done; exit 1",
        &fx.dir,
    );
    let setter = command("sleep 0.2; touch flag", &fx.dir);
    let (waited, set) = join!(host.run(&waiter), host.run(&setter));
    assert_eq!(set.unwrap().exit_code, Some(0));
    assert_eq!(waited.unwrap().exit_code, Some(0));
}

/// Read a background process until `done` says so (or 10 s of polling), collecting stdout.
async fn read_until(host: &WasmHost, id: &str, done: impl Fn(&str, bool) -> bool) -> (String, bool, Option<i32>) {
    let mut stdout = String::new();
    for _ in 0..200 {
        let status = host.read_background(id).await.unwrap();
        stdout.push_str(&status.stdout);
        if done(&stdout, status.running) {
            return (stdout, status.running, status.exit_code);
        }
        sleep(50).await;
    }
    panic!("background process {id} never reached the expected state; output so far: {stdout:?}");
}

#[wasm_bindgen_test]
async fn background_output_is_read_incrementally_until_exit() {
    let fx = Fixture::new();
    let host = fx.host();
    let id = host
        .spawn_background(&command(
            "echo one; while [ ! -f go ]; do sleep 0.05; done; echo two; exit 4",
            &fx.dir,
        ))
        .await
        .unwrap();
    let (first, running, _) = read_until(&host, &id, |out, _| out.contains("one")).await;
    assert_eq!((first.as_str(), running), ("one\n", true));
    write_text(&fx.path("go"), "");
    let (rest, running, exit_code) = read_until(&host, &id, |_, running| !running).await;
    assert_eq!((rest.as_str(), running, exit_code), ("two\n", false, Some(4)));
}

#[wasm_bindgen_test]
async fn kill_background_stops_a_running_process_once() {
    let fx = Fixture::new();
    let host = fx.host();
    let id = host.spawn_background(&command("sleep 30", &fx.dir)).await.unwrap();
    assert!(host.kill_background(&id).await.unwrap());
    let status = host.read_background(&id).await.unwrap();
    assert!(!status.running);
    assert!(!host.kill_background(&id).await.unwrap(), "already stopped");
}

#[wasm_bindgen_test]
async fn an_unknown_background_id_is_not_found() {
    let fx = Fixture::new();
    let err = fx.host().read_background("bg-404").await.unwrap_err();
    assert_eq!(err.kind, HostErrorKind::NotFound);
    assert_eq!(
        fx.host().kill_background("bg-404").await.unwrap_err().kind,
        HostErrorKind::NotFound
    );
}

#[wasm_bindgen_test]
async fn ripgrep_is_none_on_a_host_without_it() {
    let fx = Fixture::new();
    let out = fx
        .host()
        .ripgrep(&["needle".to_string()], &fx.dir, 10_000)
        .await
        .unwrap();
    assert_eq!(out, None);
}

#[wasm_bindgen_test]
async fn ripgrep_runs_the_hosts_binary_with_the_arguments_in_cwd() {
    let scratch = Fixture::new();
    // A stand-in binary that shows what it was given: no ripgrep install needed for the plumbing.
    let fake_rg = scratch.path("fake-rg");
    write_text(&fake_rg, "#!/bin/sh\necho \"args:$*\"\npwd\nexit 1\n");
    chmod(&fake_rg, 0o755);
    let fx = Fixture::with_ripgrep(Some(fake_rg));
    let args = vec!["--files-with-matches".to_string(), "needle here".to_string()];
    let out = fx
        .host()
        .ripgrep(&args, &fx.dir, 10_000)
        .await
        .unwrap()
        .expect("the host has ripgrep");
    assert_eq!(
        out.stdout,
        format!("args:--files-with-matches needle here\n{}\n", fx.dir)
    );
    assert_eq!(out.exit_code, Some(1));
}

#[wasm_bindgen_test]
fn now_ms_is_wall_clock_milliseconds() {
    let fx = Fixture::new();
    let now = fx.host().now_ms();
    assert!((now - js_sys::Date::now()).abs() < 60_000.0, "{now}");
}
