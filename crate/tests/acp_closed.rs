//! A closed agent (force-local) whose switch did not take: simulated by the agent asking to run,
//! or reporting as running, one of its own tools that writes or runs a command, as gemini-cli does
//! when its settings file is ignored. Tether refuses the call, stops the session with an error
//! naming the agent and the tool, ends the turn, and sends nothing more; a refused call of a
//! working switch, and the same tools on a local folder, go on as before.

mod acp_support;

use acp_support::*;
use serde_json::{json, Value};
use tether_core::agent::AgentOutput;

fn ready(profile: &str, remote: bool, caps: Value) -> (Session, Value) {
    let s = session(Some(profile), remote);
    open(&s, caps);
    let prompt = request(&sent(&s.agent.prompt("go", &[])), "session/prompt")["id"].clone();
    (s, prompt)
}

/// gemini-cli's question before its own `run_shell_command` (no `tool_call` before it).
fn shell_question(id: u64) -> Value {
    agent_request(
        id,
        "session/request_permission",
        json!({"sessionId": "s1",
        "toolCall": {"toolCallId": "run_shell_command-1", "title": "echo local > local.txt", "kind": "execute", "status": "pending",
                     "rawInput": {"command": "echo local > local.txt"}},
        "options": [{"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "cancel", "name": "Reject", "kind": "reject_once"}]}),
    )
}

fn errors(outputs: &[AgentOutput]) -> Vec<String> {
    of_type(&events(outputs), "error")
        .iter()
        .map(|e| e["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_closed_agent_asking_to_run_its_own_shell_is_refused_and_the_session_stops() {
    let (s, prompt) = ready("gemini", true, gemini_caps());
    let out = from_agent(&s, shell_question(7));
    assert_eq!(
        response_to(&out, 7)["result"]["outcome"],
        json!({"outcome": "selected", "optionId": "cancel"})
    );
    let shown = events(&out);
    assert!(
        of_type(&shown, "permissionRequest").is_empty(),
        "never asked, even with --approve all"
    );
    let message = &errors(&out)[0];
    assert!(message.contains("Gemini CLI is not closed"), "{message}");
    assert!(
        message.contains("echo local > local.txt") && message.contains("execute"),
        "{message}"
    );
    assert!(
        sent(&out).iter().any(|m| m["method"] == "session/cancel"),
        "the turn is stopped"
    );
    // The turn ends as an error, and nothing more is sent to the agent.
    let ended = from_agent(&s, answer(&prompt, json!({"stopReason": "cancelled"})));
    let done = of_type(&events(&ended), "done")[0].clone();
    assert_eq!(done["isError"], true);
    let again = s.agent.prompt("more", &[]);
    assert!(sent(&again).is_empty());
    assert!(errors(&again)[0].contains("is not closed"));
}

#[test]
fn a_closed_agent_reporting_its_own_write_as_running_stops_the_session() {
    let (s, _) = ready("claude-agent-acp", true, claude_caps());
    let write = json!({"sessionUpdate": "tool_call", "toolCallId": "toolu_1", "title": "Write builtin.txt", "kind": "edit",
                       "status": "in_progress", "rawInput": {"file_path": "builtin.txt", "content": "x"}});
    let out = from_agent(&s, update(write));
    let message = &errors(&out)[0];
    assert!(
        message.contains("Claude Agent is not closed") && message.contains("Write builtin.txt"),
        "{message}"
    );
    assert!(sent(&out).iter().any(|m| m["method"] == "session/cancel"));
}

#[test]
fn a_refused_own_tool_of_a_closed_agent_and_tethers_tools_go_on() {
    let (s, _) = ready("claude-agent-acp", true, claude_caps());
    // claude-agent-acp announces the model's call of a tool it does not have, then fails it.
    let refused = json!({"sessionUpdate": "tool_call", "toolCallId": "toolu_2", "title": "Bash", "kind": "execute", "status": "pending"});
    let failed = json!({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_2", "status": "failed",
                        "rawOutput": "No such tool available: Bash"});
    let tethers = json!({"sessionUpdate": "tool_call", "toolCallId": "toolu_3", "title": "mcp__tether__Bash", "kind": "execute",
                         "status": "in_progress", "rawInput": {"command": "ls"},
                         "_meta": {"claudeCode": {"toolName": "mcp__tether__Bash"}}});
    for frame in [refused, failed, tethers] {
        let out = from_agent(&s, update(frame));
        assert!(errors(&out).is_empty(), "{:?}", errors(&out));
        assert!(sent(&out).is_empty());
    }
}

#[test]
fn on_a_local_folder_the_agents_own_shell_is_asked_about_as_before() {
    let (s, _) = ready("gemini", false, gemini_caps());
    let out = from_agent(&s, shell_question(7));
    assert!(errors(&out).is_empty());
    assert_eq!(of_type(&events(&out), "permissionRequest").len(), 1);
}
