//! Bash, BashOutput and KillShell through `Toolset::call` on a NativeHost and a real temp dir.

use futures::executor::block_on;
use serde_json::{json, Value};
use std::fs;
use std::thread::sleep;
use std::time::{Duration, Instant};
use tempfile::TempDir;
use tether_core::native::NativeHost;
use tether_core::tools::{ToolOutput, Toolset, ToolsetConfig};

struct Ws {
    _dir: TempDir,
    ts: Toolset<NativeHost>,
}

impl Ws {
    fn new() -> Self {
        Self::with(|c| c)
    }

    fn with(configure: impl FnOnce(ToolsetConfig) -> ToolsetConfig) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().to_string_lossy().into_owned();
        let ts = Toolset::new(NativeHost::new(), configure(ToolsetConfig::new(root))).unwrap();
        Ws { _dir: dir, ts }
    }

    fn root(&self) -> &str {
        self.ts.paths.root()
    }

    fn call(&self, tool: &str, args: Value) -> ToolOutput {
        block_on(self.ts.call(tool, args))
    }

    fn bash(&self, command: &str) -> ToolOutput {
        self.call("Bash", json!({"command": command}))
    }

    /// Poll BashOutput until the shell is no longer running; returns all output seen.
    fn wait_for_shell(&self, id: &str) -> (Vec<String>, Value) {
        let mut seen = Vec::new();
        let give_up = Instant::now() + Duration::from_secs(20);
        loop {
            let out = self.call("BashOutput", json!({"bash_id": id}));
            assert!(!out.is_error, "{}", out.text_content());
            let data = out.structured.clone().unwrap();
            seen.extend(data["stdout"].as_str().unwrap_or("").lines().map(str::to_string));
            if data["status"] != "running" || Instant::now() > give_up {
                return (seen, data);
            }
            sleep(Duration::from_millis(20));
        }
    }
}

fn started_id(out: &ToolOutput) -> String {
    assert!(!out.is_error, "{}", out.text_content());
    out.structured.as_ref().unwrap()["backgroundTaskId"]
        .as_str()
        .unwrap()
        .to_string()
}

fn process_alive(pattern: &str) -> bool {
    std::process::Command::new("pgrep")
        .args(["-f", pattern])
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

#[test]
fn bash_returns_stdout() {
    let ws = Ws::new();
    let out = ws.bash("echo hello");
    assert!(!out.is_error);
    assert_eq!(out.text_content(), "hello");
    assert_eq!(out.structured.unwrap()["exitCode"], 0);
}

#[test]
fn bash_reports_stderr_and_a_failing_exit_code() {
    let ws = Ws::new();
    let out = ws.bash("echo out; echo oops >&2; exit 3");
    assert!(out.is_error);
    assert_eq!(out.text_content(), "out\noops\nExit code 3");
    let data = out.structured.unwrap();
    assert_eq!(data["exitCode"], 3);
    assert_eq!(data["stderr"], "oops\nExit code 3");
}

#[test]
fn bash_runs_in_the_workspace_root() {
    let ws = Ws::new();
    assert_eq!(ws.bash("pwd").text_content(), ws.root());
}

#[test]
fn bash_timeout_kills_the_whole_pipeline() {
    let ws = Ws::new();
    let marker = format!("sleep 4{}", std::process::id() % 1000 + 100);
    let out = ws.call(
        "Bash",
        json!({"command": format!("echo started; {marker} | cat"), "timeout": 300}),
    );
    assert!(out.is_error);
    let text = out.text_content();
    assert!(text.starts_with("started"), "{text}");
    assert!(text.contains("Command timed out after 0.3s"), "{text}");
    assert_eq!(out.structured.unwrap()["timedOut"], true);
    sleep(Duration::from_millis(100));
    assert!(
        !process_alive(&marker),
        "the sleep in the pipeline survived the timeout"
    );
}

#[test]
fn bash_output_over_the_cap_is_truncated_with_a_note() {
    let ws = Ws::new();
    let out = ws.bash("for i in $(seq 1 20000); do echo line-$i; done");
    let text = out.text_content();
    assert!(text.chars().count() < 30_100, "{}", text.len());
    assert!(text.contains("lines truncated] ..."), "{}", &text[text.len() - 100..]);
    assert!(text.starts_with("line-1\nline-2\n"));
}

#[test]
fn bash_working_directory_persists_between_calls() {
    let ws = Ws::new();
    fs::create_dir(format!("{}/sub", ws.root())).unwrap();
    assert!(!ws.bash("cd sub").is_error);
    assert_eq!(ws.bash("pwd").text_content(), format!("{}/sub", ws.root()));
}

#[test]
fn bash_cd_outside_the_workspace_is_reset_with_a_note() {
    let ws = Ws::new();
    let out = ws.bash("cd /");
    assert!(out
        .text_content()
        .contains(&format!("Shell cwd was reset to {}", ws.root())));
    assert_eq!(ws.bash("pwd").text_content(), ws.root());
}

#[test]
fn bash_starts_at_the_root_when_its_directory_was_removed() {
    let ws = Ws::new();
    fs::create_dir(format!("{}/gone", ws.root())).unwrap();
    ws.bash("cd gone");
    fs::remove_dir(format!("{}/gone", ws.root())).unwrap();
    let out = ws.bash("pwd");
    let text = out.text_content();
    assert!(text.starts_with(ws.root()), "{text}");
    assert!(text.contains("Shell cwd was reset to"), "{text}");
}

#[test]
fn bash_rewrites_mirror_paths_in_the_command() {
    let ws = Ws::with(|c| ToolsetConfig {
        mirror: Some("/home/laptop/.tether/mirror/proj".into()),
        ..c
    });
    fs::write(format!("{}/data.txt", ws.root()), "remote data\n").unwrap();
    let out = ws.bash("cat /home/laptop/.tether/mirror/proj/data.txt");
    assert_eq!(out.text_content(), "remote data");
}

#[test]
fn bash_keeps_unicode_and_survives_invalid_utf8() {
    let ws = Ws::new();
    assert_eq!(ws.bash("echo 'héllo ✓ 日本'").text_content(), "héllo ✓ 日本");
    let out = ws.bash("printf 'a\\377b\\n'");
    assert!(!out.is_error);
    assert_eq!(out.text_content(), "a\u{FFFD}b");
}

#[test]
fn bash_handles_heredocs_and_a_trailing_comment() {
    let ws = Ws::new();
    let out = ws.bash("cat <<'EOF'\nline one\nline two\nEOF\n# done");
    assert_eq!(out.text_content(), "line one\nline two");
    assert_eq!(ws.bash("echo hi # a comment").text_content(), "hi");
}

#[test]
fn bash_passes_the_configured_environment() {
    let ws = Ws::with(|c| ToolsetConfig {
        env: vec![("TETHER_TEST_VALUE".into(), "42".into())],
        ..c
    });
    assert_eq!(ws.bash("echo $TETHER_TEST_VALUE $GIT_EDITOR").text_content(), "42 true");
}

#[test]
fn bash_refuses_an_empty_command() {
    let ws = Ws::new();
    let out = ws.bash("   ");
    assert!(out.is_error);
    assert!(out.text_content().contains("empty"));
}

#[test]
fn bash_with_no_output_says_so() {
    let ws = Ws::new();
    assert_eq!(ws.bash("true").text_content(), "(no output)");
}

#[test]
fn background_run_is_read_incrementally_then_completes_with_its_exit_code() {
    let ws = Ws::new();
    let out = ws.call(
        "Bash",
        json!({"command": "echo first; sleep 0.3; echo second; exit 4", "run_in_background": true}),
    );
    let id = started_id(&out);
    assert_eq!(id, "bash_1");
    assert!(out
        .text_content()
        .contains("Command running in background with ID: bash_1"));
    let (seen, data) = ws.wait_for_shell(&id);
    assert_eq!(seen, ["first", "second"]);
    assert_eq!(data["status"], "completed");
    assert_eq!(data["exitCode"], 4);
    // Output already read is not returned again.
    let again = ws.call("BashOutput", json!({"bash_id": id}));
    assert!(!again.text_content().contains("first"));
    assert!(again.text_content().contains("<exit_code>4</exit_code>"));
}

#[test]
fn bash_output_filter_keeps_matching_lines() {
    let ws = Ws::new();
    let id = started_id(&ws.call(
        "Bash",
        json!({"command": "printf 'ok 1\\nerror: bad\\nok 2\\n'", "run_in_background": true}),
    ));
    sleep(Duration::from_millis(200));
    let out = ws.call("BashOutput", json!({"bash_id": id, "filter": "^error"}));
    let text = out.text_content();
    assert!(text.contains("<stdout>\nerror: bad\n</stdout>"), "{text}");
    assert!(!text.contains("ok 1"));
}

#[test]
fn bash_output_rejects_an_invalid_filter() {
    let ws = Ws::new();
    let id = started_id(&ws.call("Bash", json!({"command": "true", "run_in_background": true})));
    let out = ws.call("BashOutput", json!({"bash_id": id, "filter": "(unclosed"}));
    assert!(out.is_error);
    assert!(out.text_content().starts_with("Invalid filter regex"));
}

#[test]
fn kill_shell_stops_a_running_command() {
    let ws = Ws::new();
    let marker = format!("sleep 5{}", std::process::id() % 1000 + 100);
    let id = started_id(&ws.call("Bash", json!({"command": marker.clone(), "run_in_background": true})));
    sleep(Duration::from_millis(100));
    let out = ws.call("KillShell", json!({"shell_id": id}));
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(
        out.text_content(),
        format!("Successfully killed shell: bash_1 ({marker})")
    );
    sleep(Duration::from_millis(100));
    assert!(!process_alive(&marker));
    let status = ws.call("BashOutput", json!({"bash_id": id}));
    assert!(status.text_content().starts_with("<status>killed</status>"));
}

#[test]
fn kill_shell_on_an_exited_shell_says_so() {
    let ws = Ws::new();
    let id = started_id(&ws.call("Bash", json!({"command": "true", "run_in_background": true})));
    ws.wait_for_shell(&id);
    let out = ws.call("KillShell", json!({"shell_id": id}));
    assert!(out.is_error);
    assert!(out.text_content().contains("already exited"));
}

#[test]
fn unknown_shell_ids_are_reported_with_the_known_ones() {
    let ws = Ws::new();
    let out = ws.call("BashOutput", json!({"bash_id": "bash_9"}));
    assert!(out.text_content().contains("No background shells have been started"));
    started_id(&ws.call("Bash", json!({"command": "true", "run_in_background": true})));
    let out = ws.call("KillShell", json!({"shell_id": "nope"}));
    assert!(out.is_error);
    assert_eq!(out.text_content(), "No shell found with ID: nope. Known shells: bash_1");
}
