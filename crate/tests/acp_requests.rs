//! What an ACP agent asks of Tether, on a real temporary workspace: its permission questions with
//! its own options, `fs/*` and `terminal/*` behind the gate, Tether's tools over the MCP bridge
//! behind the gate, cancellation (every open question answered `cancelled`), and hostile frames
//! (each refused with a clear error, the session going on).

mod acp_support;

use acp_support::*;
use futures::executor::block_on;
use serde_json::{json, Value};
use tether_core::agent::AgentOutput;
use tether_core::backend::SessionOp;
use tether_core::gate::{UserAnswer, UserDecision};

fn answered(s: &Session, id: &str, decision: UserDecision) -> Vec<AgentOutput> {
    block_on(s.agent.answer_permission(id, UserAnswer::new(decision))).unwrap()
}

fn ready(remote: bool, mode: Option<&str>) -> Session {
    let s = session_with(config(None), remote, mode).unwrap();
    open(&s, claude_caps());
    s
}

fn in_turn(s: &Session) -> Value {
    request(&sent(&s.agent.prompt("go", &[])), "session/prompt")["id"].clone()
}

// -- the agent's own permission questions ---------------------------------------------------------

fn own_edit_question(id: u64) -> Value {
    agent_request(
        id,
        "session/request_permission",
        json!({"sessionId": "s1",
        "toolCall": {"toolCallId": "w1", "title": "Writing to new.txt", "kind": "edit", "status": "pending",
                     "content": [{"type": "diff", "path": "new.txt", "oldText": null, "newText": "hi\n"}]},
        "options": [{"optionId": "proceed_always", "name": "Allow always", "kind": "allow_always"},
                    {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "cancel", "name": "Reject", "kind": "reject_once"},
                    {"optionId": "later", "name": "Later", "kind": "defer"}]}),
    )
}

#[test]
fn the_agents_own_question_shows_its_own_options_and_the_answer_names_one() {
    let s = ready(false, None);
    let out = from_agent(&s, own_edit_question(0));
    let shown = events(&out);
    // Announced first (gemini-cli names a call only in its question), then asked.
    assert_eq!(of_type(&shown, "toolCallStart")[0]["id"], "w1");
    let ask = of_type(&shown, "permissionRequest")[0];
    let options: Vec<&str> = ask["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["optionId"].as_str().unwrap())
        .collect();
    assert_eq!(
        options,
        ["proceed_always", "proceed_once", "cancel"],
        "unknown kinds are not offered"
    );
    let out = choose(&s, ask, "proceed_once");
    assert_eq!(
        response_to(&out, 0)["result"]["outcome"],
        json!({"outcome": "selected", "optionId": "proceed_once"})
    );
    // The change allowed there is written without a second question.
    let write = from_agent(
        &s,
        agent_request(
            1,
            "fs/write_text_file",
            json!({"sessionId": "s1", "path": s.ws.path("new.txt"), "content": "hi\n"}),
        ),
    );
    assert!(of_type(&events(&write), "permissionRequest").is_empty());
    assert_eq!(response_to(&write, 1)["result"], json!({}));
    assert_eq!(s.ws.read("new.txt").as_deref(), Some("hi\n"));
}

#[test]
fn a_question_about_tethers_own_tool_is_allowed_at_once() {
    let s = ready(true, None);
    let out = from_agent(
        &s,
        agent_request(
            0,
            "session/request_permission",
            json!({"sessionId": "s1",
            "toolCall": {"toolCallId": "toolu_1", "title": "mcp__tether__Read", "kind": "other", "rawInput": {"file_path": "/x"},
                         "_meta": {"claudeCode": {"toolName": "mcp__tether__Read"}}},
            "options": [{"optionId": "allow-once", "name": "Yes", "kind": "allow_once"}, {"optionId": "reject", "name": "No", "kind": "reject_once"}]}),
        ),
    );
    assert_eq!(response_to(&out, 0)["result"]["outcome"]["optionId"], "allow-once");
    assert!(of_type(&events(&out), "permissionRequest").is_empty());
}

#[test]
fn after_a_cancel_every_open_question_is_answered_cancelled_and_withdrawn() {
    let s = ready(false, None);
    in_turn(&s);
    let asked = events(&from_agent(&s, own_edit_question(7)));
    let ask_id = of_type(&asked, "permissionRequest")[0]["id"].clone();
    let out = s.agent.operate(SessionOp::Interrupt).unwrap();
    let messages = sent(&out);
    assert!(messages
        .iter()
        .any(|m| m["method"] == "session/cancel" && m["params"]["sessionId"] == "s1"));
    assert_eq!(
        response_to(&out, 7)["result"]["outcome"],
        json!({"outcome": "cancelled"})
    );
    assert_eq!(of_type(&events(&out), "permissionCancelled")[0]["id"], ask_id);
    // A late answer from the user changes nothing.
    assert!(answered(&s, ask_id.as_str().unwrap(), UserDecision::Allow).is_empty());
}

#[test]
fn cancel_request_withdraws_the_question_it_names() {
    let s = ready(false, None);
    in_turn(&s);
    from_agent(&s, own_edit_question(3));
    let out = from_agent(
        &s,
        json!({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 3}}),
    );
    assert_eq!(response_to(&out, 3)["error"]["code"], -32800);
    assert_eq!(of_type(&events(&out), "permissionCancelled").len(), 1);
}

// -- fs/* ------------------------------------------------------------------------------------------

#[test]
fn reads_see_the_workspace_in_the_agents_namespace_with_a_line_range() {
    let s = ready(true, None);
    let mirror = s.mirror.clone().unwrap();
    let out = from_agent(
        &s,
        agent_request(
            1,
            "fs/read_text_file",
            json!({"sessionId": "s1", "path": format!("{mirror}/notes.txt"), "line": 2, "limit": 1}),
        ),
    );
    assert_eq!(response_to(&out, 1)["result"]["content"], "second line\n");
    let out = from_agent(
        &s,
        agent_request(
            2,
            "fs/read_text_file",
            json!({"sessionId": "s1", "path": format!("{mirror}/missing.txt")}),
        ),
    );
    assert_eq!(response_to(&out, 2)["error"]["code"], -32002);
}

#[test]
fn requests_for_paths_outside_the_workspace_are_refused_clearly() {
    let s = ready(false, None);
    for (id, method, params) in [
        (
            1,
            "fs/read_text_file",
            json!({"sessionId": "s1", "path": "/etc/passwd"}),
        ),
        (
            2,
            "fs/write_text_file",
            json!({"sessionId": "s1", "path": format!("{}/../escape.txt", s.ws.root()), "content": "x"}),
        ),
        (
            3,
            "terminal/create",
            json!({"sessionId": "s1", "command": "ls", "cwd": "/etc"}),
        ),
    ] {
        let out = from_agent(&s, agent_request(id, method, params));
        let error = &response_to(&out, id)["error"];
        assert_eq!(error["code"], -32602, "{method}");
        assert!(
            error["message"].as_str().unwrap().contains("outside the workspace"),
            "{error}"
        );
    }
    assert!(!std::path::Path::new(&format!("{}/../escape.txt", s.ws.root())).exists());
}

#[test]
fn a_write_is_reviewed_like_an_edit_then_written_or_refused() {
    let s = ready(false, None);
    let path = s.ws.path("notes.txt");
    from_agent(
        &s,
        agent_request(1, "fs/read_text_file", json!({"sessionId": "s1", "path": path})),
    );
    let out = from_agent(
        &s,
        agent_request(
            2,
            "fs/write_text_file",
            json!({"sessionId": "s1", "path": path, "content": "goodbye\n"}),
        ),
    );
    let ask = of_type(&events(&out), "permissionRequest")[0].clone();
    assert_eq!(ask["review"]["proposed"], "goodbye\n");
    assert_eq!(ask["review"]["original"], "hello world\nsecond line\n");
    let out = answered(&s, ask["id"].as_str().unwrap(), UserDecision::Deny);
    assert_eq!(response_to(&out, 2)["error"]["code"], -32003);
    assert_eq!(s.ws.read("notes.txt").unwrap(), "hello world\nsecond line\n");
    let out = from_agent(
        &s,
        agent_request(
            3,
            "fs/write_text_file",
            json!({"sessionId": "s1", "path": path, "content": "goodbye\n"}),
        ),
    );
    let ask = of_type(&events(&out), "permissionRequest")[0].clone();
    // The user changed the proposal in review: that is what is written.
    let mut allow = UserAnswer::new(UserDecision::Allow);
    allow.user_content = Some("goodbye, edited\n".into());
    let out = block_on(s.agent.answer_permission(ask["id"].as_str().unwrap(), allow)).unwrap();
    assert_eq!(response_to(&out, 3)["result"], json!({}));
    assert_eq!(s.ws.read("notes.txt").unwrap(), "goodbye, edited\n");
}

// -- terminal/* ------------------------------------------------------------------------------------

#[test]
fn a_terminal_runs_in_the_workspace_and_reports_its_output_and_exit() {
    let s = ready(false, Some("bypassPermissions"));
    let out = from_agent(
        &s,
        agent_request(
            1,
            "terminal/create",
            json!({"sessionId": "s1", "command": "sh", "args": ["-c", "pwd; echo hi > made.txt; exit 3"]}),
        ),
    );
    let terminal = response_to(&out, 1)["result"]["terminalId"].clone();
    assert_eq!(terminal, "tether-terminal-1");
    // The output pump ran to the end (the native host waits for output in follow-ups).
    let shown = events(&out);
    let output: String = of_type(&shown, "terminalOutput")
        .iter()
        .map(|e| e["output"].as_str().unwrap())
        .collect();
    assert!(output.contains(s.ws.root()), "{output}");
    let exit = of_type(&shown, "terminalOutput")
        .into_iter()
        .find(|e| e["exited"] == true)
        .unwrap()
        .clone();
    assert_eq!(exit["exitCode"], 3);
    assert_eq!(s.ws.read("made.txt").as_deref(), Some("hi\n"));
    let out = from_agent(
        &s,
        agent_request(
            2,
            "terminal/wait_for_exit",
            json!({"sessionId": "s1", "terminalId": terminal}),
        ),
    );
    assert_eq!(response_to(&out, 2)["result"], json!({"exitCode": 3, "signal": null}));
    let out = from_agent(
        &s,
        agent_request(3, "terminal/output", json!({"sessionId": "s1", "terminalId": terminal})),
    );
    let result = &response_to(&out, 3)["result"];
    assert!(result["output"].as_str().unwrap().contains(s.ws.root()));
    assert_eq!(result["exitStatus"]["exitCode"], 3);
    let out = from_agent(
        &s,
        agent_request(
            4,
            "terminal/release",
            json!({"sessionId": "s1", "terminalId": terminal}),
        ),
    );
    assert_eq!(response_to(&out, 4)["result"], json!({}));
    let out = from_agent(
        &s,
        agent_request(5, "terminal/output", json!({"sessionId": "s1", "terminalId": terminal})),
    );
    assert_eq!(response_to(&out, 5)["error"]["code"], -32602);
}

#[test]
fn a_terminal_command_goes_through_the_gate_first() {
    let s = ready(false, None);
    let out = from_agent(
        &s,
        agent_request(
            1,
            "terminal/create",
            json!({"sessionId": "s1", "command": "rm", "args": ["-rf", "x y"]}),
        ),
    );
    let ask = of_type(&events(&out), "permissionRequest")[0].clone();
    assert_eq!(ask["toolName"], "Bash");
    assert_eq!(ask["input"]["command"], "rm -rf 'x y'");
    let out = answered(&s, ask["id"].as_str().unwrap(), UserDecision::Deny);
    assert_eq!(response_to(&out, 1)["error"]["code"], -32003);
}

// -- Tether's tools over the MCP bridge --------------------------------------------------------------

fn mcp(s: &Session, message: Value) -> Vec<AgentOutput> {
    block_on(s.agent.on_mcp_message(1, &message.to_string()))
}

#[test]
fn tethers_tools_over_the_bridge_go_through_the_gate() {
    let s = ready(true, None);
    let mirror = s.mirror.clone().unwrap();
    let init = mcp_replies(&mcp(
        &s,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}),
    ));
    assert_eq!(init[0]["result"]["protocolVersion"], "2025-06-18");
    // A read inside the workspace needs nobody's answer.
    let read = mcp(
        &s,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "Read", "arguments": {"file_path": format!("{mirror}/notes.txt")}}}),
    );
    assert!(mcp_replies(&read)[0]["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("hello world"));
    // An edit asks, with the review, as Claude Code's do; the card joins the agent's tool card.
    let edit = mcp(
        &s,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "Edit",
        "arguments": {"file_path": format!("{mirror}/notes.txt"), "old_string": "hello", "new_string": "goodbye"},
        "_meta": {"claudecode/toolUseId": "toolu_9"}}}),
    );
    assert!(mcp_replies(&edit).is_empty(), "no reply before the answer");
    let ask = of_type(&events(&edit), "permissionRequest")[0].clone();
    assert_eq!(
        (ask["toolName"].as_str(), ask["toolUseId"].as_str()),
        (Some("Edit"), Some("toolu_9"))
    );
    assert_eq!(ask["review"]["proposed"], "goodbye world\nsecond line\n");
    let out = answered(&s, ask["id"].as_str().unwrap(), UserDecision::Allow);
    let reply = &mcp_replies(&out)[0];
    assert_eq!(
        (reply["id"].as_i64(), reply["result"]["isError"].as_bool()),
        (Some(2), Some(false))
    );
    assert_eq!(s.ws.read("notes.txt").unwrap(), "goodbye world\nsecond line\n");
    // A refused call tells the model so.
    let bash = mcp(
        &s,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "Bash", "arguments": {"command": "touch nope"}}}),
    );
    let ask = of_type(&events(&bash), "permissionRequest")[0].clone();
    let mut deny = UserAnswer::new(UserDecision::Deny);
    deny.reason = Some("not now".into());
    let out = block_on(s.agent.answer_permission(ask["id"].as_str().unwrap(), deny)).unwrap();
    let reply = &mcp_replies(&out)[0];
    assert_eq!(reply["result"]["isError"], true);
    assert!(reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("not now"));
    assert!(s.ws.read("nope").is_none());
}

#[test]
fn a_stopped_turn_withdraws_tethers_tool_calls_waiting_for_the_user() {
    let s = ready(false, None);
    in_turn(&s);
    let bash = mcp(
        &s,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "Bash", "arguments": {"command": "touch x"}}}),
    );
    let ask_id = of_type(&events(&bash), "permissionRequest")[0]["id"].clone();
    let out = s.agent.operate(SessionOp::Interrupt).unwrap();
    assert_eq!(of_type(&events(&out), "permissionCancelled")[0]["id"], ask_id);
    let reply = &mcp_replies(&out)[0];
    assert_eq!(
        (reply["id"].as_i64(), reply["result"]["isError"].as_bool()),
        (Some(4), Some(true))
    );
}

#[test]
fn mcp_over_acp_reaches_the_same_gated_tools() {
    let s = session_with(config(None), false, None).unwrap();
    let started = block_on(s.agent.start());
    let init = request(&sent(&started), "initialize").clone();
    let caps = json!({"protocolVersion": 1, "agentCapabilities": {"mcpCapabilities": {"acp": true}}});
    let opened = from_agent(&s, answer(&init["id"], caps));
    assert_eq!(
        request(&sent(&opened), "session/new")["params"]["mcpServers"],
        json!([{"type": "acp", "name": "tether", "serverId": "tether"}])
    );
    let out = from_agent(&s, agent_request(1, "mcp/connect", json!({"serverId": "tether"})));
    assert_eq!(response_to(&out, 1)["result"]["connectionId"], "tether");
    let out = from_agent(
        &s,
        agent_request(
            2,
            "mcp/message",
            json!({"connectionId": "tether", "method": "tools/call",
        "params": {"name": "Read", "arguments": {"file_path": s.ws.path("notes.txt")}}}),
        ),
    );
    assert!(response_to(&out, 2)["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("second line"));
}

// -- hostile frames --------------------------------------------------------------------------------

#[test]
fn hostile_frames_get_clear_errors_and_the_session_goes_on() {
    let s = ready(false, None);
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{{\"x\":\"{}\"}}}}",
        "a".repeat(2_000_000)
    );
    let frames: Vec<(String, &str)> = vec![
        ("not json at all {".into(), "not JSON"),
        ("[1,2,3]".into(), "not JSON-RPC"),
        (
            json!({"jsonrpc": "2.0", "id": 424242, "result": {}}).to_string(),
            "never sent",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 9, "method": "fs/write_text_file", "params": {"path": 3}}).to_string(),
            "unreadable request",
        ),
        (huge, "unreadable notification"),
    ];
    for (frame, said) in frames {
        let out = block_on(s.agent.on_message(&frame));
        let notices = of_type(&events(&out), "error")
            .into_iter()
            .map(|e| e["message"].as_str().unwrap().to_string())
            .collect::<Vec<_>>();
        assert!(notices.iter().any(|n| n.contains(said)), "{said}: {notices:?}");
    }
    // Unknown methods: method not found; unknown notifications: ignored.
    let out = from_agent(&s, agent_request(10, "_zed/open_file", json!({})));
    assert_eq!(response_to(&out, 10)["error"]["code"], -32601);
    assert!(from_agent(
        &s,
        json!({"jsonrpc": "2.0", "method": "_auth/status_update", "params": {}})
    )
    .is_empty());
    // A request for another session is refused.
    let out = from_agent(
        &s,
        agent_request(
            11,
            "fs/read_text_file",
            json!({"sessionId": "other", "path": s.ws.path("notes.txt")}),
        ),
    );
    assert_eq!(response_to(&out, 11)["error"]["code"], -32602);
    // And a turn still works.
    let prompt_id = in_turn(&s);
    let done = events(&from_agent(&s, answer(&prompt_id, json!({"stopReason": "end_turn"}))));
    assert_eq!(of_type(&done, "done")[0]["isError"], false);
}
