//! Claude Code's context meter: after each turn the session asks the CLI `get_context_usage` and
//! shows its answer (the shape measured with the real CLI 2.1.330) with the session's cost.

use serde_json::{json, Value};
use tether_core::claude::init::RemoteEnvironment;
use tether_core::claude::{Output, Session, SessionConfig};
use tether_core::events::{ContextCategory, UiEvent};

fn session() -> Session {
    Session::new(SessionConfig::new(RemoteEnvironment {
        cwd: "/remote/project".into(),
        os: "Linux".into(),
        shell: "bash".into(),
        git_branch: None,
    }))
}

fn result_line(total_cost_usd: f64) -> String {
    json!({
        "type": "result", "subtype": "success", "is_error": false, "duration_ms": 132, "num_turns": 1,
        "session_id": "s-1", "result": "Hello there.", "stop_reason": "end_turn",
        "total_cost_usd": total_cost_usd,
        "usage": {"input_tokens": 42, "output_tokens": 7, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    })
    .to_string()
}

/// The request the session wrote after the turn, as (request id, subtype).
fn written_request(out: &[Output]) -> Option<(String, String)> {
    out.iter().find_map(|o| match o {
        Output::WriteLine(line) => {
            let v: Value = serde_json::from_str(line).unwrap();
            (v["type"] == "control_request").then(|| {
                (
                    v["request_id"].as_str().unwrap().to_string(),
                    v["request"]["subtype"].as_str().unwrap().to_string(),
                )
            })
        }
        _ => None,
    })
}

fn events(out: Vec<Output>) -> Vec<UiEvent> {
    out.into_iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e),
            _ => None,
        })
        .collect()
}

/// The answer of the real CLI 2.1.330 after one turn (gridRows left out).
fn usage_answer(request_id: &str) -> String {
    json!({"type": "control_response", "response": {"subtype": "success", "request_id": request_id, "response": {
        "categories": [
            {"id": "system_prompt", "name": "System prompt", "tokens": 420, "kind": "used"},
            {"id": "skills", "name": "Skills", "tokens": 2067, "kind": "used"},
            {"id": "autocompact_buffer", "name": "Autocompact buffer", "tokens": 33000, "kind": "buffer"},
            {"id": "free_space", "name": "Free space", "tokens": 964513, "kind": "free"}
        ],
        "totalTokens": 2487, "maxTokens": 1000000, "rawMaxTokens": 1000000, "percentage": 0
    }}})
    .to_string()
}

#[test]
fn a_finished_turn_asks_for_the_context_usage() {
    let mut session = session();
    let out = session.on_line(&result_line(0.000308));
    assert!(events(out.clone()).iter().any(|e| matches!(e, UiEvent::Done { .. })));
    let (_, subtype) = written_request(&out).expect("a request after the turn");
    assert_eq!(subtype, "get_context_usage");
}

#[test]
fn the_answer_shows_the_used_tokens_the_categories_and_the_running_cost() {
    let mut session = session();
    session.on_line(&result_line(0.000308));
    let (id, _) = written_request(&session.on_line(&result_line(0.000616))).unwrap();
    let shown = events(session.on_line(&usage_answer(&id)));
    assert_eq!(
        shown,
        vec![UiEvent::ContextUsage {
            used: 2487,
            size: 1_000_000,
            cost: Some(0.000616),
            currency: Some("USD".into()),
            breakdown: vec![
                ContextCategory {
                    name: "System prompt".into(),
                    tokens: 420
                },
                ContextCategory {
                    name: "Skills".into(),
                    tokens: 2067
                },
            ],
        }]
    );
}

#[test]
fn a_cli_that_cannot_count_shows_no_error() {
    let mut session = session();
    let (id, _) = written_request(&session.on_line(&result_line(0.0))).unwrap();
    let refused = json!({"type": "control_response", "response": {"subtype": "error", "request_id": id, "error": "Not logged in"}});
    assert!(events(session.on_line(&refused.to_string())).is_empty());
}
