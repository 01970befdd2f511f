//! Steering an ACP agent's running turn: claude-agent-acp 0.101.0 advertises
//! `_meta.steering.supported` and takes `_session/steering` (measured; docs/ARCHITECTURE.md,
//! "Turn control"); an agent without it is not offered steering.

mod acp_support;

use acp_support::*;
use serde_json::{json, Value};
use tether_core::backend::{SessionOp, SessionOpKind};

fn steering_caps() -> Value {
    let mut caps = claude_caps();
    caps["_meta"] = json!({"steering": {"supported": true}});
    caps
}

fn steer(s: &Session, text: &str) -> Vec<Value> {
    sent(&s.agent.operate(SessionOp::Steer { text: text.into() }).unwrap())
}

#[test]
fn steering_is_offered_only_by_an_agent_that_advertises_it() {
    let with = session(Some("claude-agent-acp"), false);
    open(&with, steering_caps());
    assert!(with.agent.offers().contains(&SessionOpKind::Steer));
    let without = session(None, false);
    open(&without, gemini_caps());
    assert!(!without.agent.offers().contains(&SessionOpKind::Steer));
    let refused = without
        .agent
        .operate(SessionOp::Steer { text: "x".into() })
        .unwrap_err();
    assert!(refused.to_string().contains("not supported"), "{refused}");
}

#[test]
fn a_message_for_the_running_turn_goes_as_session_steering_and_ends_with_that_turn() {
    let s = session(Some("claude-agent-acp"), false);
    open(&s, steering_caps());
    let turn = sent(&s.agent.prompt("ALPHA", &[]));
    let prompt_id = request(&turn, "session/prompt")["id"].clone();
    let steering = steer(&s, "BRAVO");
    let request = request(&steering, "_session/steering");
    assert_eq!(request["params"]["sessionId"], "s1");
    assert_eq!(request["params"]["prompt"], json!([{"type": "text", "text": "BRAVO"}]));
    assert_eq!(request["params"]["_meta"]["steering"]["idleBehavior"], "promptRequired");
    let injected = from_agent(&s, answer(&request["id"], json!({"outcome": "injected"})));
    assert!(sent(&injected).is_empty(), "{injected:?}");
    // The one prompt's answer ends the turn, steered work included: one `done`, no new prompt.
    let ended = from_agent(&s, answer(&prompt_id, json!({"stopReason": "end_turn"})));
    assert_eq!(of_type(&events(&ended), "done").len(), 1);
    assert!(sent(&ended).iter().all(|m| m["method"] != "session/prompt"));
}

#[test]
fn a_message_the_agent_leaves_to_the_client_becomes_a_prompt_of_its_own() {
    let s = session(Some("claude-agent-acp"), false);
    open(&s, steering_caps());
    let turn = sent(&s.agent.prompt("ALPHA", &[]));
    let prompt_id = request(&turn, "session/prompt")["id"].clone();
    let steering = steer(&s, "BRAVO");
    let steer_id = request(&steering, "_session/steering")["id"].clone();
    // The turn ended before the agent saw the message.
    from_agent(&s, answer(&prompt_id, json!({"stopReason": "end_turn"})));
    let left = sent(&from_agent(
        &s,
        answer(
            &steer_id,
            json!({"outcome": "promptRequired", "reason": "noRunningTurn"}),
        ),
    ));
    assert_eq!(
        request(&left, "session/prompt")["params"]["prompt"],
        json!([{"type": "text", "text": "BRAVO"}])
    );
}

#[test]
fn steering_while_no_turn_runs_is_a_prompt() {
    let s = session(Some("claude-agent-acp"), false);
    open(&s, steering_caps());
    let sent = steer(&s, "hello");
    assert_eq!(request(&sent, "session/prompt")["params"]["prompt"][0]["text"], "hello");
}
