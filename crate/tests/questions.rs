//! Questions for the user: ExitPlanMode's plan on its question, and one form for Claude Code's
//! AskUserQuestion (its `can_use_tool`, answered `allow` with the answers in `updatedInput`, as
//! 2.1.330 reads them) and an ACP agent's `elicitation/create` form (answered `accept` with the
//! content; Skip declines).

mod acp_support;

use acp_support::{
    agent_request, claude_caps, events, from_agent, of_type, open, response_to, session, Session, TempWorkspace,
};
use futures::executor::block_on;
use serde_json::{json, Value};
use tether_core::agent::{Agent, AgentOutput};
use tether_core::claude::{ClaudeBackend, ClaudeConfig};
use tether_core::config::CommonConfig;
use tether_core::events::answers_from_json;
use tether_core::gate::UserAnswer;
use tether_core::native::NativeHost;

fn ask_user_question() -> Value {
    json!({"questions": [
        {"question": "Which color?", "header": "Color", "multiSelect": false,
         "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]},
        {"question": "Which sizes?", "header": "Sizes", "multiSelect": true,
         "options": [{"label": "S", "description": "small"}, {"label": "L", "description": "large"}]}
    ]})
}

fn with_answers(option: &str, answers: Value) -> UserAnswer {
    UserAnswer {
        answers: Some(answers_from_json(&answers).unwrap()),
        ..UserAnswer::option(option)
    }
}

fn claude_agent(ws: &TempWorkspace) -> Agent<NativeHost, ClaudeBackend> {
    let common = CommonConfig {
        root: ws.root().to_string(),
        home_dir: "/home/tester".into(),
        ..CommonConfig::default()
    };
    let agent = Agent::new(NativeHost::new(), common, |context| {
        Ok(Box::new(ClaudeBackend::new(context, ClaudeConfig::default())))
    })
    .unwrap();
    block_on(agent.start());
    agent
}

/// The CLI's `can_use_tool` for AskUserQuestion, as 2.1.330 sends it.
fn cli_asks(agent: &Agent<NativeHost, ClaudeBackend>) -> Vec<AgentOutput> {
    let line = json!({"type": "control_request", "request_id": "ask-1", "request": {
        "subtype": "can_use_tool", "tool_name": "AskUserQuestion", "display_name": "AskUserQuestion",
        "input": ask_user_question(), "tool_use_id": "toolu_ask", "requires_user_interaction": true}});
    block_on(agent.on_message(&line.to_string()))
}

fn control_response(outputs: &[AgentOutput]) -> Value {
    acp_support::sent(outputs)
        .into_iter()
        .find(|line| line["type"] == "control_response")
        .map(|line| line["response"]["response"].clone())
        .unwrap_or_else(|| panic!("no control_response in {outputs:?}"))
}

#[test]
fn claude_codes_ask_user_question_is_a_form_whose_answers_are_the_tools_updated_input() {
    let ws = TempWorkspace::new();
    let agent = claude_agent(&ws);
    let shown = events(&cli_asks(&agent));
    let ask = of_type(&shown, "permissionRequest")[0];
    let fields = ask["form"]["fields"].as_array().unwrap();
    assert_eq!(fields.len(), 2);
    assert_eq!(
        (fields[0]["id"].as_str(), fields[0]["kind"].as_str()),
        (Some("Which color?"), Some("single"))
    );
    assert_eq!(
        (fields[1]["kind"].as_str(), fields[1]["other"].as_bool()),
        (Some("multiple"), Some(true))
    );
    let options: Vec<&str> = ask["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["optionId"].as_str().unwrap())
        .collect();
    assert_eq!(options, ["submit", "skip"]);
    let answer = with_answers(
        "submit",
        json!({"Which color?": "a dark red", "Which sizes?": ["S", "L"]}),
    );
    let out = block_on(agent.answer_permission(ask["id"].as_str().unwrap(), answer)).unwrap();
    let response = control_response(&out);
    assert_eq!(response["behavior"], "allow");
    assert_eq!(response["updatedInput"]["questions"], ask_user_question()["questions"]);
    assert_eq!(
        response["updatedInput"]["answers"],
        json!({"Which color?": "a dark red", "Which sizes?": "S, L"})
    );
}

#[test]
fn skipping_claude_codes_question_refuses_the_tool() {
    let ws = TempWorkspace::new();
    let agent = claude_agent(&ws);
    let shown = events(&cli_asks(&agent));
    let id = of_type(&shown, "permissionRequest")[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let out = block_on(agent.answer_permission(&id, UserAnswer::option("skip"))).unwrap();
    assert_eq!(control_response(&out)["behavior"], "deny");
}

/// claude-agent-acp 0.101.0's elicitation for an AskUserQuestion (one question).
fn elicitation(id: u64) -> Value {
    agent_request(
        id,
        "elicitation/create",
        json!({"mode": "form", "sessionId": "s1", "toolCallId": "toolu_ask",
        "message": "Which color?",
        "requestedSchema": {"type": "object", "properties": {
            "question_0": {"type": "string", "title": "Color", "oneOf": [{"const": "Red", "title": "Red", "description": "warm"}, {"const": "Blue", "title": "Blue"}]},
            "question_0_custom": {"type": "string", "title": "Other", "description": "Type your own answer, or add a note to the option you chose above (optional)."}}}}),
    )
}

fn acp_ready() -> Session {
    let s = session(Some("claude-agent-acp"), false);
    let (sent, _) = open(&s, claude_caps());
    let init = sent.iter().find(|m| m["method"] == "initialize").unwrap();
    assert_eq!(
        init["params"]["clientCapabilities"]["elicitation"],
        json!({"form": {}}),
        "forms are advertised"
    );
    s
}

#[test]
fn an_acp_form_elicitation_is_the_same_form_and_its_answers_the_content() {
    let s = acp_ready();
    let shown = events(&from_agent(&s, elicitation(7)));
    let ask = of_type(&shown, "permissionRequest")[0];
    assert_eq!(ask["title"], "Which color?");
    let kinds: Vec<&str> = ask["form"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["single", "text"]);
    let answer = with_answers("submit", json!({"question_0": "Red", "question_0_custom": "dark"}));
    let out = block_on(s.agent.answer_permission(ask["id"].as_str().unwrap(), answer)).unwrap();
    let result = &response_to(&out, 7)["result"];
    assert_eq!(
        result,
        &json!({"action": "accept", "content": {"question_0": "Red", "question_0_custom": "dark"}})
    );
}

#[test]
fn skipping_an_acp_form_declines_it_and_a_url_elicitation_is_declined_unasked() {
    let s = acp_ready();
    let shown = events(&from_agent(&s, elicitation(8)));
    let id = of_type(&shown, "permissionRequest")[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let out = block_on(s.agent.answer_permission(&id, UserAnswer::option("skip"))).unwrap();
    assert_eq!(response_to(&out, 8)["result"], json!({"action": "decline"}));
    let url = agent_request(
        9,
        "elicitation/create",
        json!({"mode": "url", "sessionId": "s1", "message": "Log in", "elicitationId": "e1", "url": "https://example.com"}),
    );
    let out = from_agent(&s, url);
    assert_eq!(response_to(&out, 9)["result"], json!({"action": "decline"}));
    assert!(of_type(&events(&out), "permissionRequest").is_empty());
}

#[test]
fn claude_codes_plan_question_carries_the_plan_of_the_models_call() {
    // 2.1.330 asks about ExitPlanMode with `input: {}`; the plan is in the model's tool_use.
    let ws = TempWorkspace::new();
    let agent = claude_agent(&ws);
    let plan = "# Add a greeting\n1. Create greeting.txt\n";
    let assistant = json!({"type": "assistant", "parent_tool_use_id": null, "session_id": "s", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m", "stop_reason": null,
        "content": [{"type": "tool_use", "id": "toolu_plan", "name": "ExitPlanMode", "input": {"plan": plan}}]}});
    block_on(agent.on_message(&assistant.to_string()));
    let ask = json!({"type": "control_request", "request_id": "plan-1", "request": {
        "subtype": "can_use_tool", "tool_name": "ExitPlanMode", "display_name": "ExitPlanMode",
        "input": {}, "tool_use_id": "toolu_plan", "requires_user_interaction": true}});
    let shown = events(&block_on(agent.on_message(&ask.to_string())));
    let request = of_type(&shown, "permissionRequest")[0];
    assert_eq!(request["input"]["plan"], plan);
    // The CLI gets its own input back.
    let out = block_on(agent.answer_permission(request["id"].as_str().unwrap(), UserAnswer::option("allow"))).unwrap();
    assert_eq!(control_response(&out)["updatedInput"], json!({}));
}
