//! A made-up agent behind the backend seam ([`backend::ScriptedBackend`], in this folder and known
//! nowhere else), driven through the generic agent: a whole turn with a permission question, the
//! user's answer, a tool run and the end of the turn, with no change anywhere in the core.

mod backend;
#[path = "../common/mod.rs"]
mod common;

use backend::{acp_options, ScriptedBackend};
use common::{events, sent, TempWorkspace};
use futures::executor::block_on;
use serde_json::{json, Value};
use tether_core::agent::{Agent, AgentOutput};
use tether_core::backend::{SessionOp, SessionOpKind};
use tether_core::config::CommonConfig;
use tether_core::gate::UserAnswer;
use tether_core::native::NativeHost;
use tether_core::permissions::PermissionMode;

type ScriptedAgent = Agent<NativeHost, ScriptedBackend>;

fn agent(ws: &TempWorkspace) -> ScriptedAgent {
    let config = CommonConfig {
        root: ws.root().to_string(),
        home_dir: "/home/tester".into(),
        ..CommonConfig::default()
    };
    let agent = Agent::new(NativeHost::new(), config, |_| Ok(Box::new(ScriptedBackend::new()))).unwrap();
    block_on(agent.start());
    agent
}

/// The agent's side: one message of its protocol.
fn from_agent(agent: &ScriptedAgent, message: Value) -> Vec<AgentOutput> {
    block_on(agent.on_message(&message.to_string()))
}

fn permission_question(id: u64, name: &str, input: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "session/request_permission",
        "params": {"toolCall": {"id": format!("use-{id}"), "name": name, "input": input}, "options": acp_options()}})
}

#[test]
fn a_turn_asks_the_user_runs_the_tool_the_answer_allows_and_ends() {
    let ws = TempWorkspace::new();
    let agent = agent(&ws);
    assert_eq!(
        sent(&agent.initialize()),
        Vec::<Value>::new(),
        "start already sent initialize"
    );

    let prompt = sent(&agent.prompt("make notes.txt", &[]));
    assert_eq!(prompt[0]["method"], "session/prompt");
    let prompt_id = prompt[0]["id"].clone();

    // The agent wants to write a file: the gate asks the user, with the agent's own options and a
    // review of the new file.
    let path = ws.path("notes.txt");
    let input = json!({"file_path": path, "content": "one\n"});
    let asked = from_agent(&agent, permission_question(7, "Write", input.clone()));
    assert!(
        sent(&asked).is_empty(),
        "nothing is answered before the user: {asked:?}"
    );
    let request = events(&asked).remove(0);
    assert_eq!(request["type"], "permissionRequest");
    let kinds: Vec<&str> = request["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["allow_once", "allow_always", "reject_once", "reject_always"]);
    assert_eq!(request["review"]["proposed"], "one\n");
    assert_eq!(request["alwaysLabel"], "Allow all edits for this session");

    // The user picks the agent's "allow once"; the agent hears exactly that option.
    let answered =
        block_on(agent.answer_permission(request["id"].as_str().unwrap(), UserAnswer::option("allow-once"))).unwrap();
    assert_eq!(
        sent(&answered),
        [json!({"jsonrpc": "2.0", "id": 7, "result": {"outcome": {"optionId": "allow-once"}}})]
    );
    assert_eq!(agent.mode(), PermissionMode::Default, "allow once changes no mode");

    // The agent runs Tether's Write; the result goes back to it.
    let call = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "Write", "arguments": input, "toolUseId": "use-7"}});
    let ran = from_agent(&agent, call);
    let result = sent(&ran).remove(0);
    assert_eq!(
        (result["id"].clone(), result["result"]["isError"].clone()),
        (json!(8), json!(false)),
        "{result}"
    );
    assert_eq!(ws.read("notes.txt").as_deref(), Some("one\n"));

    // The agent reports and ends the turn.
    let told = from_agent(
        &agent,
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"text": "Made it."}}),
    );
    assert_eq!(events(&told)[0]["text"], "Made it.");
    let done = from_agent(
        &agent,
        json!({"jsonrpc": "2.0", "id": prompt_id, "result": {"stopReason": "end_turn"}}),
    );
    let done = events(&done).remove(0);
    assert_eq!(
        (done["type"].clone(), done["stopReason"].clone()),
        (json!("done"), json!("end_turn"))
    );
}

#[test]
fn what_the_rules_allow_is_answered_with_the_agents_allow_option_without_asking() {
    let ws = TempWorkspace::new();
    ws.write("a.txt", "x\n");
    let agent = agent(&ws);
    let out = from_agent(
        &agent,
        permission_question(3, "Read", json!({"file_path": ws.path("a.txt")})),
    );
    assert!(events(&out).is_empty(), "{out:?}");
    assert_eq!(sent(&out)[0]["result"]["outcome"]["optionId"], "allow-once");
}

#[test]
fn what_the_mode_refuses_is_answered_with_the_agents_reject_option() {
    let ws = TempWorkspace::new();
    let agent = agent(&ws);
    let switched = sent(
        &agent
            .operate(SessionOp::SetMode {
                mode: PermissionMode::DontAsk,
            })
            .unwrap(),
    );
    assert_eq!(
        switched[0],
        json!({"jsonrpc": "2.0", "method": "session/set_mode", "params": {"mode": "dontAsk"}})
    );
    let out = from_agent(
        &agent,
        permission_question(4, "Bash", json!({"command": "npm publish"})),
    );
    assert_eq!(sent(&out)[0]["result"]["outcome"]["optionId"], "reject-once");
    assert_eq!(events(&out)[0]["type"], "permissionDenied");
}

#[test]
fn reject_always_reaches_the_agent_as_chosen() {
    let ws = TempWorkspace::new();
    let agent = agent(&ws);
    let out = from_agent(
        &agent,
        permission_question(5, "WebFetch", json!({"url": "https://example.com"})),
    );
    let request = events(&out).remove(0);
    let answered =
        block_on(agent.answer_permission(request["id"].as_str().unwrap(), UserAnswer::option("reject-always")))
            .unwrap();
    assert_eq!(sent(&answered)[0]["result"]["outcome"]["optionId"], "reject-always");
}

#[test]
fn operations_the_backend_lacks_say_so_and_those_it_has_send_its_messages() {
    let ws = TempWorkspace::new();
    let agent = agent(&ws);
    let error = agent.operate(SessionOp::List).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Listing sessions is not supported by this agent (Scripted agent)"
    );
    assert!(!agent.offers().contains(&SessionOpKind::Fork));
    let fork = agent.operate(SessionOp::Fork { id: "s".into() });
    let login = agent.operate(SessionOp::Authenticate { method: "oauth".into() });
    assert!(fork.is_err() && login.is_err());
    assert_eq!(
        sent(&agent.operate(SessionOp::Close).unwrap())[0]["method"],
        "session/close"
    );
    let set_model = |value: &str| SessionOp::SetConfigOption {
        option: "model".into(),
        value: Some(value.into()),
    };
    let model = sent(&agent.operate(set_model("fast")).unwrap());
    assert_eq!(model[0]["params"], json!({"model": "fast"}));
    let temperature = SessionOp::SetConfigOption {
        option: "temperature".into(),
        value: Some("1".into()),
    };
    assert!(agent.operate(temperature).is_err());
    assert_eq!(
        sent(&agent.operate(SessionOp::Interrupt).unwrap())[0]["method"],
        "session/cancel"
    );
}

#[test]
fn an_unknown_request_from_the_agent_is_answered_method_not_found() {
    let ws = TempWorkspace::new();
    let agent = agent(&ws);
    let out = from_agent(&agent, json!({"jsonrpc": "2.0", "id": 9, "method": "fs/format_disk"}));
    assert_eq!(sent(&out)[0]["error"]["code"], -32601);
}
