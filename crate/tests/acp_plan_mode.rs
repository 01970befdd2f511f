//! Plan mode with an ACP agent: Tether's mode and the agent's own plan mode move together, the
//! agent's file writes and terminals are refused in plan mode without a question, and its
//! ExitPlanMode question (claude-agent-acp 0.101.0's options) is the user's; once the agent left
//! plan mode, the next write is asked about as usual.

mod acp_support;

use acp_support::*;
use serde_json::{json, Value};
use tether_core::backend::SessionOp;
use tether_core::permissions::PermissionMode;

fn ready(mode: Option<&str>) -> (Session, Vec<Value>) {
    let s = session_with(config(None), false, mode).unwrap();
    let (sent, _) = open(&s, claude_caps());
    (s, sent)
}

fn set_mode_requests(messages: &[Value]) -> Vec<&Value> {
    messages.iter().filter(|m| m["method"] == "session/set_mode").collect()
}

fn write_request(s: &Session, id: u64, file: &str) -> Value {
    agent_request(
        id,
        "fs/write_text_file",
        json!({"sessionId": "s1", "path": s.ws.path(file), "content": "planned\n"}),
    )
}

/// claude-agent-acp's question when its model calls ExitPlanMode.
fn exit_plan_question(id: u64) -> Value {
    agent_request(
        id,
        "session/request_permission",
        json!({"sessionId": "s1",
        "toolCall": {"toolCallId": "toolu_1", "name": "ExitPlanMode", "status": "pending", "rawInput": {},
                     "title": "Approve Plan", "kind": "switch_mode", "content": []},
        "options": [{"optionId": "exit-plan-default", "name": "Yes, manually approve edits", "kind": "allow_once"},
                    {"optionId": "exit-plan-auto", "name": "Yes, and use auto mode", "kind": "allow_always"},
                    {"optionId": "reject", "name": "No, keep planning", "kind": "reject_once"}]}),
    )
}

#[test]
fn a_session_started_in_plan_mode_puts_the_agent_in_its_plan_mode() {
    let (_s, sent) = ready(Some("plan"));
    let requests = set_mode_requests(&sent);
    assert_eq!(requests.len(), 1, "{sent:?}");
    assert_eq!(requests[0]["params"], json!({"sessionId": "s1", "modeId": "plan"}));
}

#[test]
fn tethers_mode_picker_moves_the_agent_into_plan_mode_and_out() {
    let (s, opened) = ready(None);
    assert!(set_mode_requests(&opened).is_empty());
    let into = sent(
        &s.agent
            .operate(SessionOp::SetMode {
                mode: PermissionMode::Plan,
            })
            .unwrap(),
    );
    assert_eq!(set_mode_requests(&into)[0]["params"]["modeId"], "plan");
    let id = set_mode_requests(&into)[0]["id"].clone();
    from_agent(&s, answer(&id, json!({})));
    let out = sent(
        &s.agent
            .operate(SessionOp::SetMode {
                mode: PermissionMode::AcceptEdits,
            })
            .unwrap(),
    );
    assert_eq!(set_mode_requests(&out)[0]["params"]["modeId"], "default");
    assert_eq!(s.agent.mode(), PermissionMode::AcceptEdits);
}

#[test]
fn the_agent_entering_plan_mode_puts_tether_in_plan_mode_and_writes_are_refused_without_a_question() {
    let (s, _) = ready(None);
    let shown = events(&from_agent(
        &s,
        update(json!({"sessionUpdate": "current_mode_update", "currentModeId": "plan"})),
    ));
    assert!(
        shown.contains(&json!({"type": "modeChanged", "mode": "plan"})),
        "{shown:?}"
    );
    assert_eq!(s.agent.mode(), PermissionMode::Plan);
    let out = from_agent(&s, write_request(&s, 1, "planned.txt"));
    assert!(of_type(&events(&out), "permissionRequest").is_empty());
    let error = response_to(&out, 1)["error"]["message"].as_str().unwrap().to_string();
    assert!(error.contains("while in plan mode"), "{error}");
    assert_eq!(s.ws.read("planned.txt"), None);
    let out = from_agent(
        &s,
        agent_request(
            2,
            "terminal/create",
            json!({"sessionId": "s1", "command": "touch", "args": ["x"]}),
        ),
    );
    assert!(of_type(&events(&out), "permissionRequest").is_empty());
    assert!(response_to(&out, 2)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Cannot call Bash while in plan mode."));
}

#[test]
fn an_approved_exit_plan_mode_leaves_plan_mode_and_the_next_write_is_asked_about() {
    let (s, _) = ready(Some("plan"));
    assert_eq!(s.agent.mode(), PermissionMode::Plan);
    let out = from_agent(&s, exit_plan_question(7));
    let ask = of_type(&events(&out), "permissionRequest")[0].clone();
    let options: Vec<&str> = ask["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["optionId"].as_str().unwrap())
        .collect();
    assert_eq!(options, ["exit-plan-default", "exit-plan-auto", "reject"]);
    let out = choose(&s, &ask, "exit-plan-default");
    assert_eq!(
        response_to(&out, 7)["result"]["outcome"],
        json!({"outcome": "selected", "optionId": "exit-plan-default"})
    );
    // What claude-agent-acp sends once the plan is approved.
    let shown = events(&from_agent(
        &s,
        update(json!({"sessionUpdate": "current_mode_update", "currentModeId": "default"})),
    ));
    assert!(
        shown.contains(&json!({"type": "modeChanged", "mode": "default"})),
        "{shown:?}"
    );
    assert_eq!(s.agent.mode(), PermissionMode::Default);
    let out = from_agent(&s, write_request(&s, 8, "planned.txt"));
    assert_eq!(
        of_type(&events(&out), "permissionRequest").len(),
        1,
        "the usual question"
    );
}

#[test]
fn always_on_exit_plan_mode_leaves_no_rule_behind() {
    let (s, _) = ready(Some("plan"));
    let out = from_agent(&s, exit_plan_question(7));
    let ask = of_type(&events(&out), "permissionRequest")[0].clone();
    choose(&s, &ask, "exit-plan-auto");
    from_agent(
        &s,
        update(json!({"sessionUpdate": "current_mode_update", "currentModeId": "auto"})),
    );
    assert_eq!(s.agent.mode(), PermissionMode::Default);
    // Another of the agent's own tools is still asked about.
    let out = from_agent(
        &s,
        agent_request(
            9,
            "session/request_permission",
            json!({"sessionId": "s1", "toolCall": {"toolCallId": "f1", "title": "Fetch", "kind": "fetch", "status": "pending"},
                   "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}, {"optionId": "no", "name": "Reject", "kind": "reject_once"}]}),
        ),
    );
    assert_eq!(of_type(&events(&out), "permissionRequest").len(), 1);
}
