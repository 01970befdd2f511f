//! Turn control with Claude Code: a message steered into the running turn, and stopping a task.
//! The lines are the CLI 2.1.330's, as measured (docs/ARCHITECTURE.md, "Turn control").

mod common;

use common::result_line;
use serde_json::{json, Value};
use tether_core::claude::init::RemoteEnvironment;
use tether_core::claude::protocol::McpManifest;
use tether_core::claude::{Output, Session, SessionConfig};
use tether_core::events::UiEvent;

fn started_session() -> Session {
    let environment = RemoteEnvironment {
        cwd: "/remote/project".into(),
        os: "Linux".into(),
        shell: "bash".into(),
        git_branch: None,
    };
    let mut session = Session::new(SessionConfig::new(environment));
    session.start(McpManifest {
        initialize_result: json!({}),
        tools_list_result: json!({"tools": []}),
    });
    session
}

fn only_write(outputs: &[Output]) -> Value {
    match outputs {
        [Output::WriteLine(line)] => serde_json::from_str(line).expect("our lines are JSON"),
        other => panic!("expected one line, got {other:?}"),
    }
}

fn dones(outputs: &[Output]) -> usize {
    outputs
        .iter()
        .filter(|o| matches!(o, Output::Event(UiEvent::Done { .. })))
        .count()
}

#[test]
fn a_steering_message_is_a_user_message_with_priority_now() {
    let mut session = started_session();
    assert_eq!(
        only_write(&session.steer("use tabs instead")),
        json!({"type":"user","session_id":"","message":{"role":"user","content":[{"type":"text","text":"use tabs instead"}]},
            "parent_tool_use_id":null,"priority":"now"})
    );
}

#[test]
fn the_turn_cut_short_for_a_steering_message_ends_without_done_and_the_next_one_with_it() {
    let mut session = started_session();
    session.steer("use tabs instead");
    // The CLI ends the running turn where it is, then answers the message in a turn of its own.
    let cut = session.on_line(&result_line("error_during_execution", "aborted_streaming"));
    assert!(cut.is_empty(), "{cut:?}");
    assert_eq!(dones(&session.on_line(&result_line("success", "completed"))), 1);
}

#[test]
fn a_steering_message_that_arrives_after_the_turn_ended_leaves_its_done_alone() {
    let mut session = started_session();
    session.steer("too late");
    assert_eq!(dones(&session.on_line(&result_line("success", "completed"))), 1);
    // The steer is spent: a later interrupted turn ends as usual.
    assert_eq!(dones(&session.on_line(&result_line("success", "aborted_tools"))), 1);
}

#[test]
fn stopping_a_task_is_the_stop_task_control_request() {
    let mut session = started_session();
    let request = only_write(&session.stop_task("a7f3c2"));
    assert_eq!(request["request"], json!({"subtype":"stop_task","task_id":"a7f3c2"}));
    let id = request["request_id"].as_str().unwrap().to_string();
    let answered = json!({"type":"control_response","response":{"subtype":"success","request_id":id,"response":{}}});
    assert!(session.on_line(&answered.to_string()).is_empty());
}
