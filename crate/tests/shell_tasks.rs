//! Background shells as tasks, for every backend: a shell Bash starts gets a task panel (its
//! start, its last lines while it runs, how it ended), Stop kills it without the agent, and the
//! session's end kills what still runs. Real processes in a temporary workspace, driven as the
//! driver does (`watchShells` when asked), through an ACP agent's MCP bridge (ACP agents offer no
//! `stopTask` of their own).

mod acp_support;

use acp_support::*;
use futures::executor::block_on;
use serde_json::{json, Value};
use std::process::Command;
use std::time::{Duration, Instant};
use tether_core::agent::{AgentOutput, WATCH_INTERVAL_MS};
use tether_core::backend::SessionOp;

fn shell_session() -> Session {
    let s = session_with(config(None), false, Some("bypassPermissions")).unwrap();
    open(&s, claude_caps());
    s
}

/// The model calls one of Tether's tools over the bridge, as the tool use `tool_use_id`.
fn call(s: &Session, tool_use_id: &str, tool: &str, arguments: Value) -> Vec<AgentOutput> {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments, "_meta": {"claudecode/toolUseId": tool_use_id}}});
    block_on(s.agent.on_mcp_message(1, &message.to_string()))
}

fn result_text(outputs: &[AgentOutput]) -> String {
    let reply = &mcp_replies(outputs)[0]["result"];
    reply["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

fn task_updates(outputs: &[AgentOutput]) -> Vec<Value> {
    events(outputs)
        .into_iter()
        .filter(|e| e["type"] == "taskUpdate")
        .collect()
}

fn watch_asked(outputs: &[AgentOutput]) -> Option<u64> {
    outputs.iter().find_map(|o| match o {
        AgentOutput::WatchShells { after_ms } => Some(*after_ms),
        _ => None,
    })
}

/// Start `command` in the background; returns its shell id and what the call put out.
fn start(s: &Session, command: &str, extra: Value) -> (String, Vec<AgentOutput>) {
    let mut input = json!({"command": command, "run_in_background": true});
    input
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let out = call(s, "toolu_bg", "Bash", input);
    let text = result_text(&out);
    let id = text
        .split("ID: ")
        .nth(1)
        .and_then(|rest| rest.split('.').next())
        .unwrap_or_else(|| panic!("no shell id in {text}"))
        .to_string();
    (id, out)
}

/// Watch as the driver does, until a panel update satisfies `done`; returns every update.
fn watch_until(s: &Session, what: &str, done: impl Fn(&Value) -> bool) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        let updates = task_updates(&block_on(s.agent.watch_shells()));
        let finished = updates.iter().any(&done);
        seen.extend(updates);
        if finished {
            return seen;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("gave up waiting until {what}; the updates: {seen:?}")
}

fn alive(pid: &str) -> bool {
    Command::new("kill")
        .args(["-0", pid])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn pid_in(s: &Session, file: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(pid) = s.ws.read(file).filter(|p| p.ends_with('\n')) {
            return pid.trim().to_string();
        }
        assert!(Instant::now() < deadline, "no pid in {file}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_background_shell_gets_a_panel_with_its_output_and_its_end_and_bash_output_still_gets_all() {
    let s = shell_session();
    let (id, out) = start(
        &s,
        "for i in 1 2 3; do echo line $i; sleep 0.3; done; echo oops >&2; exit 3",
        json!({"description": "Count to three"}),
    );
    let started = task_updates(&out);
    assert_eq!(started.len(), 1, "{out:?}");
    assert_eq!(started[0]["taskId"], id);
    assert_eq!(started[0]["toolUseId"], "toolu_bg");
    assert_eq!(started[0]["status"], "started");
    assert_eq!(started[0]["description"], "Count to three");
    assert_eq!(watch_asked(&out), Some(WATCH_INTERVAL_MS));

    let updates = watch_until(&s, "the shell ended", |u| u["status"] != "running");
    let live = updates
        .iter()
        .find(|u| u["status"] == "running")
        .expect("an update while it ran");
    assert!(live["output"].as_str().unwrap().starts_with("line 1"), "{live}");
    let end = updates.last().unwrap();
    assert_eq!(end["status"], "failed");
    assert_eq!(end["exitCode"], 3);
    assert_eq!(end["output"], "line 1\nline 2\nline 3\noops");
    let after = block_on(s.agent.watch_shells());
    assert_eq!(watch_asked(&after), None, "nothing runs any more: {after:?}");
    assert!(task_updates(&after).is_empty(), "the end is told once: {after:?}");

    // The panel read the output from the host; the model's BashOutput still gets all of it.
    let read = result_text(&call(&s, "toolu_read", "BashOutput", json!({"bash_id": id})));
    assert!(
        read.starts_with("<status>failed</status>\n\n<exit_code>3</exit_code>\n\n<stdout>\nline 1\nline 2\nline 3\n</stdout>\n\n<stderr>\noops\n</stderr>"),
        "{read}"
    );
}

#[test]
fn stop_kills_the_shell_without_the_agent_and_bash_output_says_it_was_killed() {
    let s = shell_session();
    let (id, _) = start(&s, "echo $$ > shell.pid; echo ready; sleep 30", json!({}));
    let pid = pid_in(&s, "shell.pid");
    watch_until(&s, "the first line", |u| u["output"] == "ready");

    let stopped = s.agent.operate(SessionOp::StopTask { id: id.clone() }).unwrap();
    assert!(sent(&stopped).is_empty(), "nothing goes to the agent: {stopped:?}");
    assert_eq!(watch_asked(&stopped), Some(0), "killed at the next watch, at once");
    let updates = watch_until(&s, "the shell stopped", |u| u["status"] == "stopped");
    assert_eq!(updates.last().unwrap()["exitCode"], Value::Null);
    assert!(!alive(&pid), "the process is gone");

    let read = result_text(&call(&s, "toolu_read", "BashOutput", json!({"bash_id": id})));
    assert!(
        read.starts_with("<status>killed</status>\n\n<stdout>\nready\n</stdout>"),
        "{read}"
    );
    // A task that is no shell's is the agent's, and this one has no stopTask.
    let refused = s.agent.operate(SessionOp::StopTask { id: "a1b2".into() }).unwrap_err();
    assert!(refused.to_string().contains("not supported"), "{refused}");
}

#[test]
fn a_shell_the_model_kills_shows_stopped_and_one_past_its_lifetime_shows_timed_out() {
    let s = shell_session();
    let (killed, _) = start(&s, "sleep 30", json!({}));
    let (limited, _) = start(&s, "sleep 30", json!({"timeout": 1500, "description": "Wait a while"}));
    let kill = result_text(&call(&s, "toolu_kill", "KillShell", json!({"shell_id": killed})));
    assert!(kill.contains("Successfully killed shell"), "{kill}");
    let updates = watch_until(&s, "the killed one stopped", |u| u["taskId"] == killed.as_str());
    assert_eq!(updates.last().unwrap()["status"], "stopped");
    let updates = watch_until(&s, "the limited one ended", |u| u["taskId"] == limited.as_str());
    assert_eq!(updates.last().unwrap()["status"], "timed_out");
}

#[test]
fn the_panel_gets_only_the_last_lines_of_a_long_output() {
    let s = shell_session();
    let (id, _) = start(&s, "seq 1 5000", json!({}));
    let updates = watch_until(&s, "the shell completed", |u| u["status"] == "completed");
    for update in &updates {
        let output = update["output"].as_str().unwrap();
        assert!(output.lines().count() <= 40 && output.len() <= 4000, "{output}");
    }
    let last: Vec<&str> = updates.last().unwrap()["output"].as_str().unwrap().lines().collect();
    assert_eq!(last.len(), 40);
    assert_eq!((last[0], last[39]), ("4961", "5000"));
    let read = result_text(&call(&s, "toolu_read", "BashOutput", json!({"bash_id": id})));
    let expected: Vec<String> = (1..=5000).map(|n| n.to_string()).collect();
    assert!(
        read.contains(&format!("<stdout>\n{}\n</stdout>", expected.join("\n"))),
        "BashOutput got every line"
    );
}

#[test]
fn the_session_end_kills_the_shells_still_running() {
    let s = shell_session();
    let (first, _) = start(&s, "echo $$ > one.pid; sleep 30", json!({}));
    let (second, _) = start(&s, "echo $$ > two.pid; sleep 30", json!({}));
    let pids = [pid_in(&s, "one.pid"), pid_in(&s, "two.pid")];
    let ended = task_updates(&block_on(s.agent.end_shells()));
    let stopped: Vec<&str> = ended
        .iter()
        .filter(|u| u["status"] == "stopped")
        .map(|u| u["taskId"].as_str().unwrap())
        .collect();
    assert_eq!(stopped, [first.as_str(), second.as_str()]);
    let deadline = Instant::now() + Duration::from_secs(5);
    while pids.iter().any(|pid| alive(pid)) {
        assert!(Instant::now() < deadline, "the shells are gone");
        std::thread::sleep(Duration::from_millis(20));
    }
}
