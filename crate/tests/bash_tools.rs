//! Bash, BashOutput and KillShell against real processes in a temporary workspace.

use futures::executor::block_on;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::thread;
use std::time::Duration;
use tether_core::host::{Exec, ExecRequest, HostErrorKind};
use tether_core::native::NativeHost;
use tether_core::tools::{ToolOutput, Toolset, ToolsetConfig};

mod common;

use common::TempWorkspace;

fn workspace() -> (TempWorkspace, String) {
    let ws = TempWorkspace::new();
    let root = ws.root().to_string();
    (ws, root)
}

fn toolset_with(config: ToolsetConfig) -> Toolset<NativeHost> {
    Toolset::new(NativeHost::new(), config).expect("toolset")
}

fn setup() -> (TempWorkspace, String, Toolset<NativeHost>) {
    let (ws, root) = workspace();
    let ts = ws.toolset();
    (ws, root, ts)
}

fn call(ts: &Toolset<NativeHost>, tool: &str, args: Value) -> ToolOutput {
    block_on(ts.call(tool, args))
}

fn bash(ts: &Toolset<NativeHost>, command: &str) -> ToolOutput {
    call(ts, "Bash", json!({"command": command}))
}

fn structured(out: &ToolOutput) -> &Value {
    out.structured.as_ref().expect("structured result")
}

/// Poll until `done` holds; gives up (and fails) after about ten seconds.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..1000 {
        if done() {
            return;
        }
        thread::sleep(Duration::from_millis(10));
    }
    panic!("gave up waiting until {what}");
}

fn read_pid(path: &Path) -> String {
    wait_until("the pid file is written", || {
        std::fs::read_to_string(path).is_ok_and(|s| s.ends_with('\n'))
    });
    std::fs::read_to_string(path).expect("pid file").trim().to_string()
}

/// `ps`'s state letter for a process; empty when there is no such process at all.
fn process_state(pid: &str) -> String {
    let out = Command::new("ps")
        .args(["-o", "stat=", "-p", pid])
        .output()
        .expect("ps");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Running or stopped; a zombie has already died (orphans may wait for a busy init to reap them).
fn process_alive(pid: &str) -> bool {
    let state = process_state(pid);
    !state.is_empty() && !state.starts_with('Z')
}

fn kill_pid(pid: &str) {
    let _ = Command::new("kill").args(["-KILL", pid]).status();
}

fn start_background(ts: &Toolset<NativeHost>, command: &str) -> String {
    let out = call(ts, "Bash", json!({"command": command, "run_in_background": true}));
    assert!(!out.is_error, "{}", out.text_content());
    structured(&out)["backgroundTaskId"]
        .as_str()
        .expect("background id")
        .to_string()
}

fn bash_output(ts: &Toolset<NativeHost>, id: &str) -> ToolOutput {
    call(ts, "BashOutput", json!({"bash_id": id}))
}

#[test]
fn bash_echo_returns_stdout() {
    let (_dir, _root, ts) = setup();
    let out = bash(&ts, "echo hello");
    assert!(!out.is_error);
    assert_eq!(out.text_content(), "hello");
    let s = structured(&out);
    assert_eq!(s["stdout"], "hello");
    assert_eq!(s["exitCode"], 0);
    assert_eq!(s["interrupted"], false);
    assert_eq!(s["isImage"], false);
}

#[test]
fn bash_shows_stdout_then_stderr() {
    let (_dir, _root, ts) = setup();
    let out = bash(&ts, "echo to-stderr >&2; echo to-stdout");
    assert_eq!(out.text_content(), "to-stdout\nto-stderr");
    assert_eq!(structured(&out)["stderr"], "to-stderr");
}

#[test]
fn bash_reports_nonzero_exit_code_as_error_with_output() {
    let (_dir, _root, ts) = setup();
    let out = bash(&ts, "echo partial; echo broken >&2; exit 3");
    assert!(out.is_error);
    assert_eq!(out.text_content(), "Exit code 3\npartial\nbroken");
    assert_eq!(structured(&out)["exitCode"], 3);
}

#[test]
fn bash_treats_grep_without_match_as_success() {
    let (_dir, root, ts) = setup();
    std::fs::write(Path::new(&root).join("f.txt"), "alpha\n").expect("write");
    let out = bash(&ts, "grep beta f.txt");
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(out.text_content(), "(Bash completed with no output)");
    assert_eq!(structured(&out)["returnCodeInterpretation"], "No matches found");
}

#[test]
fn bash_timeout_kills_the_whole_pipeline() {
    let (_dir, root, ts) = setup();
    let out = call(
        &ts,
        "Bash",
        json!({"command": "echo before; sh -c 'echo $$ > sleeper.pid; exec sleep 100' | cat", "timeout": 1000}),
    );
    assert!(out.is_error);
    let text = out.text_content();
    assert!(
        text.starts_with("Exit code 143\nCommand timed out after 1s\nbefore"),
        "{text}"
    );
    assert_eq!(structured(&out)["timedOut"], true);
    let sleeper = read_pid(&Path::new(&root).join("sleeper.pid"));
    assert!(!process_alive(&sleeper), "sleep {sleeper} survived the timeout");
}

#[test]
fn bash_truncates_long_output_keeping_head_and_tail() {
    let (_dir, _root, ts) = setup();
    let out = bash(&ts, "seq 1 20000");
    assert!(!out.is_error);
    let text = out.text_content();
    assert!(text.starts_with("1\n2\n3\n"), "{}", &text[..20]);
    assert!(text.ends_with("\n19999\n20000"));
    assert!(text.chars().count() < 30_100, "{} chars", text.chars().count());
    let note = text
        .lines()
        .find(|l| l.contains("lines truncated"))
        .expect("truncation note");
    let kept = text.lines().filter(|l| l.parse::<u32>().is_ok()).count();
    assert_eq!(note, format!("... [{} lines truncated] ...", 20000 - kept));
}

#[test]
fn bash_cwd_persists_across_calls() {
    let (_dir, root, ts) = setup();
    std::fs::create_dir(Path::new(&root).join("sub")).expect("mkdir");
    assert_eq!(bash(&ts, "cd sub").text_content(), "(Bash completed with no output)");
    assert_eq!(bash(&ts, "pwd").text_content(), format!("{root}/sub"));
    assert_eq!(ts.cwd(), format!("{root}/sub"));
}

#[test]
fn bash_cwd_stays_when_the_command_fails() {
    let (_dir, root, ts) = setup();
    std::fs::create_dir(Path::new(&root).join("sub")).expect("mkdir");
    assert!(bash(&ts, "cd sub && false").is_error);
    assert_eq!(ts.cwd(), root);
}

#[test]
fn bash_cd_outside_workspace_resets_with_note() {
    let (_dir, root, ts) = setup();
    let out = bash(&ts, "cd / && echo moved");
    assert_eq!(out.text_content(), format!("moved\nShell cwd was reset to {root}"));
    assert_eq!(bash(&ts, "pwd").text_content(), root);
}

#[test]
fn bash_cwd_report_survives_a_command_redirecting_its_stdout() {
    let (_dir, root, ts) = setup();
    std::fs::create_dir(Path::new(&root).join("sub")).expect("mkdir");
    bash(&ts, "exec > log.txt; echo hidden; cd sub");
    assert_eq!(
        std::fs::read_to_string(Path::new(&root).join("log.txt")).expect("log"),
        "hidden\n"
    );
    assert_eq!(ts.cwd(), format!("{root}/sub"));
}

#[test]
fn bash_rewrites_mirror_paths_in_the_command() {
    let (_dir, root) = workspace();
    std::fs::write(Path::new(&root).join("file.txt"), "from the workspace\n").expect("write");
    let mut config = ToolsetConfig::new(root.clone());
    config.mirror = Some("/home/laptop/.tether/mirror".to_string());
    let ts = toolset_with(config);
    let out = bash(&ts, "cat /home/laptop/.tether/mirror/file.txt");
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(out.text_content(), "from the workspace");
}

#[test]
fn bash_passes_unicode_and_replaces_invalid_utf8() {
    let (_dir, _root, ts) = setup();
    assert_eq!(bash(&ts, "printf 'héllo ✓ 日本\\n'").text_content(), "héllo ✓ 日本");
    assert_eq!(bash(&ts, "printf 'a\\377b\\n'").text_content(), "a\u{FFFD}b");
}

#[test]
fn bash_runs_heredocs_and_trailing_comments() {
    let (_dir, _root, ts) = setup();
    let heredoc = bash(&ts, "cat <<'EOF'\nline one\n$HOME stays literal\nEOF");
    assert_eq!(heredoc.text_content(), "line one\n$HOME stays literal");
    assert_eq!(bash(&ts, "echo hi # a trailing comment").text_content(), "hi");
    let only_comment = bash(&ts, "# nothing to run");
    assert!(!only_comment.is_error);
    assert_eq!(only_comment.text_content(), "(Bash completed with no output)");
}

#[test]
fn bash_keeps_line_numbers_of_syntax_errors() {
    let (_dir, _root, ts) = setup();
    let out = bash(&ts, "echo ok\nno_such_command_xyz");
    assert!(out.is_error);
    assert!(
        out.text_content().contains("line 2: no_such_command_xyz"),
        "{}",
        out.text_content()
    );
}

#[test]
fn bash_in_a_deleted_directory_returns_to_the_root() {
    let (_dir, root, ts) = setup();
    std::fs::create_dir(Path::new(&root).join("gone")).expect("mkdir");
    bash(&ts, "cd gone");
    std::fs::remove_dir(Path::new(&root).join("gone")).expect("rmdir");
    let out = bash(&ts, "echo still works");
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(
        out.text_content(),
        format!("still works\nShell cwd was reset to {root}")
    );
}

#[test]
fn bash_in_a_missing_workspace_says_so() {
    let (dir, root) = workspace();
    let missing = format!("{root}/not-there");
    let ts = toolset_with(ToolsetConfig::new(missing.clone()));
    let out = bash(&ts, "echo hi");
    assert!(out.is_error);
    assert!(
        out.text_content().contains(&format!("{missing} does not exist")),
        "{}",
        out.text_content()
    );
    drop(dir);
}

#[test]
fn native_run_with_missing_cwd_is_a_not_found_error() {
    let (_dir, root) = workspace();
    let request = ExecRequest {
        command: "true".to_string(),
        cwd: format!("{root}/missing"),
        env: Vec::new(),
        timeout_ms: 10_000,
        max_output_bytes: 1024,
    };
    let err = block_on(NativeHost::new().run(&request)).expect_err("missing cwd");
    assert_eq!(err.kind, HostErrorKind::NotFound);
    assert!(err.message.contains("missing does not exist"), "{}", err.message);
}

#[test]
fn native_run_caps_each_stream_and_flags_truncation() {
    let (_dir, root) = workspace();
    let request = ExecRequest {
        command: "head -c 100000 /dev/zero | tr '\\0' x".to_string(),
        cwd: root,
        env: Vec::new(),
        timeout_ms: 10_000,
        max_output_bytes: 1000,
    };
    let out = block_on(NativeHost::new().run(&request)).expect("run");
    assert_eq!(out.stdout.len(), 1000);
    assert!(out.truncated);
    assert_eq!(out.exit_code, Some(0));
}

#[test]
fn native_run_returns_while_a_grandchild_keeps_stdout_open() {
    let (_dir, root, ts) = setup();
    let out = bash(&ts, "sleep 30 & echo $! > left.pid; echo started");
    assert_eq!(out.text_content(), "started");
    let left = read_pid(&Path::new(&root).join("left.pid"));
    assert!(process_alive(&left), "a process the command left running is not killed");
    kill_pid(&left);
}

#[test]
fn native_run_reaps_the_shell() {
    let (_dir, root, ts) = setup();
    bash(&ts, "echo $$ > shell.pid");
    let shell = read_pid(&Path::new(&root).join("shell.pid"));
    assert_eq!(process_state(&shell), "", "the shell {shell} was left as a zombie");
}

#[test]
fn bash_env_variables_reach_the_command() {
    let (_dir, root) = workspace();
    let mut config = ToolsetConfig::new(root);
    config.env = vec![
        ("TETHER_TEST_VAR".to_string(), "from config".to_string()),
        ("PAGER".to_string(), "less".to_string()),
    ];
    let ts = toolset_with(config);
    let out = bash(&ts, "echo \"$TETHER_TEST_VAR|$CLAUDECODE|$GIT_EDITOR|$PAGER\"");
    assert_eq!(out.text_content(), "from config|1|true|less");
}

#[test]
fn bash_clamps_a_timeout_above_the_maximum_with_a_note() {
    let (_dir, _root, ts) = setup();
    let out = call(&ts, "Bash", json!({"command": "echo hi", "timeout": 900000}));
    assert!(!out.is_error);
    let text = out.text_content();
    assert!(text.starts_with("hi\n"), "{text}");
    assert!(text.contains("exceeds the maximum of 600000ms"), "{text}");
}

#[test]
fn bash_rejects_an_empty_command() {
    let (_dir, _root, ts) = setup();
    let out = bash(&ts, "   ");
    assert!(out.is_error);
    assert!(out.text_content().contains("empty"));
}

#[test]
fn background_output_arrives_incrementally_then_completes_with_exit_code() {
    let (_dir, root, ts) = setup();
    let id = start_background(
        &ts,
        "echo first; while [ ! -f go ]; do sleep 0.02; done; echo second; echo oops >&2; exit 3",
    );
    assert_eq!(id, "bash_1");

    let mut seen = String::new();
    wait_until("the first line arrives", || {
        let out = bash_output(&ts, &id);
        assert!(
            out.text_content().starts_with("<status>running</status>"),
            "{}",
            out.text_content()
        );
        seen.push_str(structured(&out)["stdout"].as_str().unwrap_or(""));
        seen.contains("first")
    });
    assert_eq!(seen, "first\n");

    std::fs::write(Path::new(&root).join("go"), "").expect("write go");
    // A read while the shell is still finishing may already take "second": collect every read.
    let mut last = None;
    let (mut stdout, mut stderr) = (String::new(), String::new());
    wait_until("the command completes", || {
        let out = bash_output(&ts, &id);
        stdout.push_str(structured(&out)["stdout"].as_str().unwrap_or(""));
        stderr.push_str(structured(&out)["stderr"].as_str().unwrap_or(""));
        let done = structured(&out)["status"] != "running";
        last = Some(out);
        done
    });
    let out = last.expect("final output");
    let text = out.text_content();
    assert!(
        text.starts_with("<status>failed</status>\n\n<exit_code>3</exit_code>\n\n"),
        "{text}"
    );
    assert_eq!(stdout, "second\n", "old output is not repeated");
    assert_eq!(stderr, "oops\n");
    assert_eq!(structured(&out)["exitCode"], 3);
}

#[test]
fn background_shell_is_reaped_when_it_completes() {
    let (_dir, root, ts) = setup();
    let id = start_background(&ts, "echo $$ > bg.pid");
    let pid = read_pid(&Path::new(&root).join("bg.pid"));
    wait_until("the shell completes", || {
        structured(&bash_output(&ts, &id))["status"] == "completed"
    });
    assert_eq!(
        process_state(&pid),
        "",
        "the background shell {pid} was left as a zombie"
    );
}

#[test]
fn background_output_filter_keeps_matching_lines_case_insensitively() {
    let (_dir, _root, ts) = setup();
    let id = start_background(&ts, "printf 'apple\\nbanana\\nApricot\\n'; sleep 100");
    let mut text = String::new();
    wait_until("matching lines arrive", || {
        let out = call(&ts, "BashOutput", json!({"bash_id": id, "filter": "^a"}));
        text = out.text_content();
        text.contains("<stdout>")
    });
    assert!(text.contains("<stdout>\napple\nApricot\n</stdout>"), "{text}");
    assert!(!text.contains("banana"));
    call(&ts, "KillShell", json!({"shell_id": id}));
}

#[test]
fn background_output_rejects_an_invalid_filter() {
    let (_dir, _root, ts) = setup();
    let id = start_background(&ts, "echo x");
    let out = call(&ts, "BashOutput", json!({"bash_id": id, "filter": "(unclosed"}));
    assert!(out.is_error);
    assert!(
        out.text_content().starts_with("Invalid regex pattern \"(unclosed\""),
        "{}",
        out.text_content()
    );
}

#[test]
fn kill_shell_kills_a_running_sleep() {
    let (_dir, root, ts) = setup();
    let id = start_background(&ts, "echo $$ > bg.pid; exec sleep 100");
    let pid = read_pid(&Path::new(&root).join("bg.pid"));
    let out = call(&ts, "KillShell", json!({"shell_id": id}));
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(
        out.text_content(),
        r#"{"message":"Successfully killed shell: bash_1 (echo $$ > bg.pid; exec sleep 100)","shell_id":"bash_1"}"#
    );
    assert!(!process_alive(&pid), "sleep {pid} survived KillShell");
    let after = bash_output(&ts, &id);
    assert!(
        after.text_content().starts_with("<status>killed</status>"),
        "{}",
        after.text_content()
    );
}

#[test]
fn kill_shell_on_an_exited_shell_says_it_is_not_running() {
    let (_dir, _root, ts) = setup();
    let id = start_background(&ts, "true");
    wait_until("the shell completes", || {
        structured(&bash_output(&ts, &id))["status"] == "completed"
    });
    let out = call(&ts, "KillShell", json!({"shell_id": id}));
    assert!(out.is_error);
    assert!(
        out.text_content()
            .starts_with("Shell bash_1 is not running, so cannot be killed"),
        "{}",
        out.text_content()
    );
}

#[test]
fn unknown_shell_ids_are_reported_with_the_known_ones() {
    let (_dir, _root, ts) = setup();
    let none = bash_output(&ts, "bash_9");
    assert!(none.is_error);
    assert!(none
        .text_content()
        .starts_with("No shell found with ID: bash_9. No background shells"));
    start_background(&ts, "true");
    start_background(&ts, "true");
    let kill = call(&ts, "KillShell", json!({"shell_id": "nope"}));
    assert!(kill.is_error);
    assert_eq!(
        kill.text_content(),
        "No shell found with ID: nope. Known shells: bash_1, bash_2."
    );
}

#[test]
fn dropping_the_host_kills_background_processes() {
    let (_dir, root, ts) = setup();
    start_background(&ts, "echo $$ > bg.pid; exec sleep 100");
    let pid = read_pid(&Path::new(&root).join("bg.pid"));
    assert!(process_alive(&pid));
    drop(ts);
    assert!(!process_alive(&pid), "sleep {pid} outlived the host");
}

#[test]
fn background_lifetime_limit_stops_the_command() {
    let (_dir, root, ts) = setup();
    let id = call(
        &ts,
        "Bash",
        json!({"command": "echo $$ > bg.pid; exec sleep 100", "run_in_background": true, "timeout": 300}),
    );
    let id = structured(&id)["backgroundTaskId"].as_str().expect("id").to_string();
    let pid = read_pid(&Path::new(&root).join("bg.pid"));
    wait_until("the lifetime limit stops it", || {
        structured(&bash_output(&ts, &id))["status"] == "killed"
    });
    assert!(!process_alive(&pid));
}
