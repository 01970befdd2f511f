//! Deleting an ACP agent's past sessions: `session/delete` where the agent advertises
//! `sessionCapabilities.delete` (claude-agent-acp 0.101.0 does; measured: it answers `{}`, the
//! session leaves `session/list` and its transcript file goes, a second delete answers `{}` too),
//! answered as one `sessionDeleted` event; an agent without it is not offered deletion.

mod acp_support;

use acp_support::*;
use serde_json::{json, Value};
use tether_core::backend::{SessionOp, SessionOpKind};

fn deleting_caps() -> Value {
    let mut caps = claude_caps();
    caps["agentCapabilities"]["sessionCapabilities"]["delete"] = json!({});
    caps
}

fn delete(s: &Session, id: &str) -> Value {
    let sent = sent(&s.agent.operate(SessionOp::Delete { id: id.into() }).unwrap());
    request(&sent, "session/delete").clone()
}

#[test]
fn deletion_is_offered_only_by_an_agent_that_advertises_it() {
    let with = session(Some("claude-agent-acp"), false);
    open(&with, deleting_caps());
    assert!(with.agent.offers().contains(&SessionOpKind::Delete));
    let without = session(Some("claude-agent-acp"), false);
    open(&without, claude_caps());
    assert!(!without.agent.offers().contains(&SessionOpKind::Delete));
    let refused = without
        .agent
        .operate(SessionOp::Delete { id: "old".into() })
        .unwrap_err();
    assert!(refused.to_string().contains("not supported"), "{refused}");
}

#[test]
fn a_past_session_is_deleted_with_session_delete_and_its_answer_is_one_event() {
    let s = session(Some("claude-agent-acp"), false);
    open(&s, deleting_caps());
    let request = delete(&s, "old-session");
    assert_eq!(request["params"], json!({"sessionId": "old-session"}));
    let answered = events(&from_agent(&s, answer(&request["id"], json!({}))));
    assert_eq!(
        answered,
        vec![json!({"type": "sessionDeleted", "id": "old-session", "error": null})]
    );
}

#[test]
fn a_refused_deletion_says_why_in_its_event() {
    let s = session(Some("claude-agent-acp"), false);
    open(&s, deleting_caps());
    let request = delete(&s, "old-session");
    let refusal =
        json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32002, "message": "Resource not found"}});
    let answered = events(&from_agent(&s, refusal));
    let deleted = of_type(&answered, "sessionDeleted");
    assert_eq!(deleted.len(), 1, "{answered:?}");
    assert_eq!(deleted[0]["id"], "old-session");
    let reason = deleted[0]["error"].as_str().unwrap();
    assert!(
        reason.contains("session/delete") && reason.contains("Resource not found"),
        "{reason}"
    );
}
