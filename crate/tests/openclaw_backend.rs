//! The OpenClaw backend through `Agent<NativeHost, OpenClawBackend>`, against a real temporary
//! workspace: the sockets it asks the driver for, the handshake with the device, sends with
//! idempotency keys, sessions, the pairing question, and the node's commands served with Tether's
//! tools behind the permission gate (frames as the real gateway sends them: openclaw-node-mode.md).

mod common;
mod openclaw_support;

use base64::Engine;
use common::TempWorkspace;
use futures::executor::block_on;
use openclaw_support::{hello_ok, CHALLENGE};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tether_core::agent::{Agent, AgentOutput};
use tether_core::backend::{SessionOp, SessionOpKind, TransportEvent, TransportRequest};
use tether_core::config::CommonConfig;
use tether_core::events::{CanvasUpdate, UiEvent};
use tether_core::gate::UserAnswer;
use tether_core::native::NativeHost;
use tether_core::openclaw::{DeviceConfig, NodeConfig, OpenClawBackend, OpenClawConfig, GATEWAY, NODE};

type ClawAgent = Agent<NativeHost, OpenClawBackend>;

const URL: &str = "ws://127.0.0.1:18789";
const NODE_ID: &str = "5b0c6a5f7e1d4c2b9a8f7e6d5c4b3a291807f6e5d4c3b2a1908f7e6d5c4b3a29";

fn device(id: &str) -> DeviceConfig {
    DeviceConfig {
        id: id.into(),
        public_key: "6QLGygmPFOkMsxtMKafgM3JHEEfI6nEmA8xXO8vJVvU".into(),
    }
}

fn agent(ws: &TempWorkspace, with_node: bool, resume: Option<&str>) -> ClawAgent {
    let common = CommonConfig {
        root: ws.root().to_string(),
        home_dir: ws.root().to_string(),
        resume: resume.map(str::to_string),
        ..CommonConfig::default()
    };
    let config = OpenClawConfig {
        gateway_url: URL.into(),
        token: Some("t0ken".into()),
        device: Some(device("operator-device")),
        node: with_node.then(|| NodeConfig {
            device: device(NODE_ID),
            display_name: Some("test workspace".into()),
            platform: Some("linux".into()),
            ..NodeConfig::default()
        }),
        instance_id: Some("inst".into()),
        ..OpenClawConfig::default()
    };
    Agent::new(NativeHost::new(), common, |context| {
        Ok(Box::new(OpenClawBackend::new(context, config)))
    })
    .unwrap()
}

fn requests(outputs: &[AgentOutput]) -> Vec<TransportRequest> {
    outputs
        .iter()
        .filter_map(|o| match o {
            AgentOutput::Transport { request } => Some(request.clone()),
            _ => None,
        })
        .collect()
}

fn events(outputs: &[AgentOutput]) -> Vec<UiEvent> {
    outputs
        .iter()
        .filter_map(|o| match o {
            AgentOutput::Event { event } => Some(event.clone()),
            _ => None,
        })
        .collect()
}

/// The frames sent on `channel`, as JSON.
fn frames(outputs: &[AgentOutput], channel: &str) -> Vec<Value> {
    requests(outputs)
        .into_iter()
        .filter_map(|r| match r {
            TransportRequest::Send { channel: c, text } if c == channel => Some(serde_json::from_str(&text).unwrap()),
            _ => None,
        })
        .collect()
}

fn deliver(agent: &ClawAgent, event: TransportEvent) -> Vec<AgentOutput> {
    block_on(agent.on_transport(event))
}

/// One of the backend's own commands (it offers them).
fn command(agent: &ClawAgent, name: &str, args: Value) -> Vec<AgentOutput> {
    agent
        .operate(SessionOp::Command {
            name: name.into(),
            args,
        })
        .unwrap()
}

fn frame(agent: &ClawAgent, channel: &str, text: &str) -> Vec<AgentOutput> {
    deliver(
        agent,
        TransportEvent::Frame {
            channel: channel.into(),
            text: text.into(),
        },
    )
}

/// Open `channel`, pass the challenge and the signature, answer the connect with hello-ok.
/// Returns the connect request and what the hello brought.
fn handshake(agent: &ClawAgent, channel: &str) -> (Value, Vec<AgentOutput>) {
    handshake_answered(agent, channel, hello_ok)
}

/// The handshake, with `hello` answering the connect (by its id).
fn handshake_answered(agent: &ClawAgent, channel: &str, hello: fn(&str) -> String) -> (Value, Vec<AgentOutput>) {
    deliver(
        agent,
        TransportEvent::Opened {
            channel: channel.into(),
        },
    );
    let challenged = frame(agent, channel, CHALLENGE);
    let payload = requests(&challenged)
        .into_iter()
        .find_map(|r| match r {
            TransportRequest::Sign { payload, .. } => Some(payload),
            _ => None,
        })
        .expect("a device signs the challenge");
    assert!(payload.starts_with("v3|"), "{payload}");
    let signed = deliver(
        agent,
        TransportEvent::Signed {
            channel: channel.into(),
            signature: "c2lnbmF0dXJl".into(),
        },
    );
    let connect = frames(&signed, channel).remove(0);
    let hello = frame(agent, channel, &hello(connect["id"].as_str().unwrap()));
    (connect, hello)
}

fn started(ws: &TempWorkspace, with_node: bool) -> ClawAgent {
    let agent = agent(ws, with_node, None);
    block_on(agent.start());
    agent
}

/// A node command from the gateway, as `node.invoke.request` carries it.
fn invoke(id: &str, command: &str, params: Value) -> String {
    json!({"type": "event", "event": "node.invoke.request", "payload": {"id": id, "nodeId": NODE_ID,
        "command": command, "paramsJSON": params.to_string(), "timeoutMs": 30_000}})
    .to_string()
}

/// The `node.invoke.result` params sent for invocation `id`.
fn result_for(outputs: &[AgentOutput], id: &str) -> Option<Value> {
    frames(outputs, NODE)
        .into_iter()
        .find(|f| f["method"] == "node.invoke.result" && f["params"]["id"] == id)
        .map(|f| f["params"].clone())
}

fn permission(outputs: &[AgentOutput]) -> Option<tether_core::events::PermissionRequest> {
    events(outputs).into_iter().find_map(|e| match e {
        UiEvent::PermissionRequest(request) => Some(request),
        _ => None,
    })
}

fn answer(agent: &ClawAgent, id: &str, option: &str) -> Vec<AgentOutput> {
    block_on(agent.answer_permission(id, UserAnswer::option(option))).unwrap()
}

#[test]
fn start_opens_the_operator_and_node_sockets_and_a_device_signs_each_handshake() {
    let ws = TempWorkspace::new();
    let agent = agent(&ws, true, None);
    let outputs = block_on(agent.start());
    let opens: Vec<(String, String)> = requests(&outputs)
        .into_iter()
        .filter_map(|r| match r {
            TransportRequest::Open { channel, url, .. } => Some((channel, url)),
            _ => None,
        })
        .collect();
    assert_eq!(opens, vec![(GATEWAY.into(), URL.into()), (NODE.into(), URL.into())]);
    let (connect, hello) = handshake(&agent, GATEWAY);
    assert_eq!(connect["params"]["device"]["id"], "operator-device");
    assert_eq!(connect["params"]["client"]["id"], "cli");
    let scopes = connect["params"]["scopes"].to_string();
    assert!(
        scopes.contains("operator.pairing") && scopes.contains("operator.admin"),
        "{scopes}"
    );
    assert!(events(&hello)
        .iter()
        .any(|e| matches!(e, UiEvent::SessionInit { session_id, .. } if session_id == "agent:main:tether-inst")));
    let (node_connect, _) = handshake(&agent, NODE);
    assert_eq!(node_connect["params"]["role"], "node");
    assert_eq!(node_connect["params"]["client"]["id"], "node-host");
    assert_eq!(node_connect["params"]["client"]["platform"], "linux");
    assert_eq!(node_connect["params"]["device"]["id"], NODE_ID);
}

#[test]
fn a_prompt_made_while_connecting_is_sent_with_an_idempotency_key_once_connected() {
    let ws = TempWorkspace::new();
    let agent = started(&ws, false);
    let early = agent.prompt("Say hello please.", &[]);
    assert!(frames(&early, GATEWAY).is_empty(), "nothing sent before the hello");
    let (_, hello) = handshake(&agent, GATEWAY);
    let send = frames(&hello, GATEWAY)
        .into_iter()
        .find(|f| f["method"] == "chat.send")
        .expect("sent on connect");
    assert_eq!(send["params"]["sessionKey"], "agent:main:tether-inst");
    assert_eq!(send["params"]["message"], "Say hello please.");
    assert_eq!(send["params"]["idempotencyKey"], "tether-inst-1");
    let next = agent.prompt("Again.", &[]);
    let second = frames(&next, GATEWAY)
        .into_iter()
        .find(|f| f["method"] == "chat.send")
        .unwrap();
    assert_eq!(second["params"]["idempotencyKey"], "tether-inst-2");
}

#[test]
fn a_send_the_gateway_asks_to_retry_is_sent_again_with_the_same_idempotency_key() {
    let ws = TempWorkspace::new();
    let agent = started(&ws, false);
    handshake(&agent, GATEWAY);
    let sent = agent.prompt("Say hello please.", &[]);
    let first = frames(&sent, GATEWAY)
        .into_iter()
        .find(|f| f["method"] == "chat.send")
        .unwrap();
    // The real gateway's answer to a send that raced the creation of its session.
    let refusal = json!({"type": "res", "id": first["id"], "ok": false, "error": {"code": "INVALID_REQUEST",
        "message": "SessionMutationAuthorizationChangedError: session changed before chat.send; retry the request"}});
    let retried = frame(&agent, GATEWAY, &refusal.to_string());
    let again = frames(&retried, GATEWAY)
        .into_iter()
        .find(|f| f["method"] == "chat.send")
        .expect("sent again");
    assert_ne!(again["id"], first["id"]);
    assert_eq!(again["params"]["idempotencyKey"], first["params"]["idempotencyKey"]);
    assert!(
        !events(&retried).iter().any(|e| matches!(e, UiEvent::Done { .. })),
        "the turn goes on"
    );
}

#[test]
fn deletion_is_offered_only_to_an_operator_holding_operator_admin() {
    let ws = TempWorkspace::new();
    let agent = started(&ws, false);
    handshake(&agent, GATEWAY);
    assert!(!agent.offers().contains(&SessionOpKind::Delete));
    let refused = agent
        .operate(SessionOp::Delete {
            id: "agent:main:old".into(),
        })
        .unwrap_err();
    assert!(refused.to_string().contains("not supported"), "{refused}");
}

/// hello-ok granting `operator.admin` too (as the gateway does when it is asked for).
fn admin_hello(id: &str) -> String {
    hello_ok(id).replace(r#""operator.write"]"#, r#""operator.write","operator.admin"]"#)
}

#[test]
fn a_past_session_is_deleted_with_sessions_delete_and_its_answer_is_one_event() {
    let ws = TempWorkspace::new();
    let agent = started(&ws, false);
    handshake_answered(&agent, GATEWAY, admin_hello);
    assert!(agent.offers().contains(&SessionOpKind::Delete));
    let deleting = agent
        .operate(SessionOp::Delete {
            id: "agent:main:old".into(),
        })
        .unwrap();
    let delete = frames(&deleting, GATEWAY).remove(0);
    assert_eq!(delete["method"], "sessions.delete");
    assert_eq!(delete["params"], json!({"key": "agent:main:old"}));
    let answer = json!({"type": "res", "id": delete["id"], "ok": true, "payload": {"ok": true, "key": "agent:main:old", "deleted": true}});
    let deleted = events(&frame(&agent, GATEWAY, &answer.to_string()));
    assert!(
        deleted
            .iter()
            .any(|e| matches!(e, UiEvent::SessionDeleted { id, error: None } if id == "agent:main:old")),
        "{deleted:?}"
    );
    let again = frames(
        &agent
            .operate(SessionOp::Delete {
                id: "agent:main:main".into(),
            })
            .unwrap(),
        GATEWAY,
    )
    .remove(0);
    let refusal = json!({"type": "res", "id": again["id"], "ok": false, "error": {"code": "INVALID_REQUEST", "message": "Cannot delete the main session"}});
    let refused = events(&frame(&agent, GATEWAY, &refusal.to_string()));
    assert!(
        refused.iter().any(|e| matches!(e, UiEvent::SessionDeleted { error: Some(reason), .. } if reason.contains("Cannot delete the main session"))),
        "{refused:?}"
    );
}

#[test]
fn sessions_are_listed_created_and_loaded_with_their_transcript() {
    let ws = TempWorkspace::new();
    let agent = started(&ws, false);
    handshake(&agent, GATEWAY);
    let listed = agent.operate(SessionOp::List).unwrap();
    let list = frames(&listed, GATEWAY).remove(0);
    assert_eq!(list["method"], "sessions.list");
    let answer = json!({"type": "res", "id": list["id"], "ok": true, "payload": {"sessions": [
        {"key": "agent:main:a", "label": "First", "updatedAt": 5, "hasActiveRun": true}, {"key": "agent:main:b"}]}});
    let shown = frame(&agent, GATEWAY, &answer.to_string());
    assert!(events(&shown)
        .iter()
        .any(|e| matches!(e, UiEvent::SessionList { sessions }
        if sessions.len() == 2 && sessions[0].title.as_deref() == Some("First") && sessions[0].running)));
    let created = agent.operate(SessionOp::New).unwrap();
    let create = frames(&created, GATEWAY)
        .into_iter()
        .find(|f| f["method"] == "sessions.create")
        .unwrap();
    assert_eq!(create["params"]["key"], "tether-inst-s1");
    let reply = json!({"type": "res", "id": create["id"], "ok": true, "payload": {"ok": true, "key": "agent:main:tether-inst-s1"}});
    let made = frame(&agent, GATEWAY, &reply.to_string());
    assert!(events(&made)
        .iter()
        .any(|e| matches!(e, UiEvent::SessionInit { session_id, .. } if session_id == "agent:main:tether-inst-s1")));
    let loaded = agent
        .operate(SessionOp::Load {
            id: "agent:main:a".into(),
        })
        .unwrap();
    let history = frames(&loaded, GATEWAY)
        .into_iter()
        .find(|f| f["method"] == "chat.history")
        .unwrap();
    assert_eq!(history["params"], json!({"sessionKey": "agent:main:a", "limit": 50}));
    let page = json!({"type": "res", "id": history["id"], "ok": true, "payload": {"sessionKey": "agent:main:a", "messages": [
        {"role": "user", "content": "hi"}, {"role": "toolResult", "content": "x"}, {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}],
        "hasMore": true, "nextOffset": 3}});
    let transcript = frame(&agent, GATEWAY, &page.to_string());
    let Some(UiEvent::Transcript {
        session_id,
        messages,
        has_more,
        older,
    }) = events(&transcript)
        .into_iter()
        .find(|e| matches!(e, UiEvent::Transcript { .. }))
    else {
        panic!("a transcript")
    };
    assert_eq!((session_id.as_str(), has_more, older), ("agent:main:a", true, false));
    assert_eq!(
        messages.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(),
        ["hi", "hello"]
    );
    let older_page = command(&agent, "historyOlder", json!({}));
    let again = frames(&older_page, GATEWAY)
        .into_iter()
        .find(|f| f["method"] == "chat.history")
        .unwrap();
    assert_eq!(again["params"]["offset"], 3);
}

/// Both connections up and the node paired: the agent the node tests start from.
fn paired(ws: &TempWorkspace) -> ClawAgent {
    let agent = started(ws, true);
    handshake(&agent, GATEWAY);
    let (_, node_hello) = handshake(&agent, NODE);
    let list = frames(&node_hello, GATEWAY)
        .into_iter()
        .find(|f| f["method"] == "node.list")
        .expect("both up: the pairing looks for the node");
    let entry = json!({"nodeId": NODE_ID, "clientId": "node-host", "connected": true, "commands": [],
        "approvalState": "pending-approval", "pendingRequestId": "req-1",
        "pendingDeclaredCommands": ["system.run.prepare", "system.run", "system.which", "file.fetch"]});
    let listed = frame(
        &agent,
        GATEWAY,
        &json!({"type": "res", "id": list["id"], "ok": true, "payload": {"nodes": [entry]}}).to_string(),
    );
    let question = permission(&listed).unwrap_or_else(|| panic!("the pairing is one question: {listed:?}"));
    assert_eq!(question.id, "openclaw-pair:req-1");
    assert_eq!(question.tool_name, "PairNode");
    assert!(question.requires_user_interaction);
    assert!(
        question.outlives_turn,
        "the pairing is not part of a turn: its card stays when the turn ends"
    );
    let options: Vec<&str> = question.options.iter().map(|o| o.option_id.as_str()).collect();
    assert_eq!(options, ["approve", "decline"]);
    let approved = answer(&agent, "openclaw-pair:req-1", "approve");
    let approve = frames(&approved, GATEWAY)
        .into_iter()
        .find(|f| f["method"] == "node.pair.approve")
        .unwrap();
    assert_eq!(approve["params"], json!({"requestId": "req-1"}));
    let done = frame(
        &agent,
        GATEWAY,
        &json!({"type": "res", "id": approve["id"], "ok": true, "payload": {"ok": true}}).to_string(),
    );
    assert!(events(&done)
        .iter()
        .any(|e| matches!(e, UiEvent::Error { message, .. } if message.contains("node now"))));
    agent
}

#[test]
fn a_command_the_user_allows_runs_in_the_workspace_and_its_output_goes_back() {
    let ws = TempWorkspace::new();
    let agent = paired(&ws);
    let text = "echo from-node > proof.txt && cat proof.txt";
    let argv = json!(["/bin/sh", "-lc", text]);
    let prepare = frame(
        &agent,
        NODE,
        &invoke(
            "i1",
            "system.run.prepare",
            json!({"command": argv, "rawCommand": text, "agentId": "main", "sessionKey": "agent:main:x"}),
        ),
    );
    let asked = permission(&prepare).expect("a command that writes is asked about");
    assert_eq!(asked.tool_name, "Bash");
    assert_eq!(asked.input["command"], text);
    assert!(result_for(&prepare, "i1").is_none(), "no answer before the user's");
    let allowed = answer(&agent, &asked.id, "allow");
    let plan = result_for(&allowed, "i1").expect("the plan goes back");
    assert_eq!(plan["ok"], true);
    assert_eq!(plan["payload"]["plan"]["argv"], argv);
    assert_eq!(plan["payload"]["plan"]["commandText"], text);
    let ran = frame(
        &agent,
        NODE,
        &invoke(
            "i2",
            "system.run",
            json!({"command": argv, "rawCommand": text, "timeoutMs": 1_800_000}),
        ),
    );
    let result = result_for(&ran, "i2").expect("the run's result");
    assert_eq!(result["ok"], true, "{result}");
    assert_eq!(result["payload"]["success"], true);
    assert_eq!(result["payload"]["exitCode"], 0);
    assert_eq!(result["payload"]["stdout"], "from-node");
    assert_eq!(ws.read("proof.txt").as_deref(), Some("from-node\n"));
    // The plan is used once: the same run again is refused without running.
    std::fs::remove_file(ws.path("proof.txt")).unwrap();
    let again = frame(&agent, NODE, &invoke("i3", "system.run", json!({"command": argv})));
    let refused = result_for(&again, "i3").unwrap();
    assert_eq!(refused["error"]["code"], "SYSTEM_RUN_DENIED");
    assert_eq!(ws.read("proof.txt"), None);
}

#[test]
fn a_command_the_user_rejects_reaches_the_agent_as_a_denial() {
    let ws = TempWorkspace::new();
    let agent = paired(&ws);
    let prepare = frame(
        &agent,
        NODE,
        &invoke(
            "i1",
            "system.run.prepare",
            json!({"command": ["/bin/sh", "-lc", "rm -rf build"]}),
        ),
    );
    let asked = permission(&prepare).unwrap();
    let rejected = block_on(agent.answer_permission(
        &asked.id,
        UserAnswer {
            reason: Some("not on this machine".into()),
            ..UserAnswer::option("deny")
        },
    ))
    .unwrap();
    let result = result_for(&rejected, "i1").unwrap();
    assert_eq!(result["ok"], false);
    assert_eq!(result["error"]["code"], "SYSTEM_RUN_DENIED");
    assert_eq!(result["error"]["message"], "not on this machine");
}

#[test]
fn a_read_only_command_is_allowed_by_the_rules_without_asking() {
    let ws = TempWorkspace::new();
    let agent = paired(&ws);
    let prepare = frame(
        &agent,
        NODE,
        &invoke("i1", "system.run.prepare", json!({"command": ["/bin/sh", "-lc", "ls"]})),
    );
    assert!(permission(&prepare).is_none());
    assert_eq!(result_for(&prepare, "i1").unwrap()["ok"], true);
}

#[test]
fn a_file_is_handed_over_whole_with_its_digest_after_the_gate_allows_the_read() {
    let ws = TempWorkspace::new();
    let agent = paired(&ws);
    let path = ws.write("notes.txt", "notes for the gateway\n");
    let preflight = frame(
        &agent,
        NODE,
        &invoke(
            "f1",
            "file.fetch",
            json!({"path": path, "maxBytes": 8_388_608, "followSymlinks": false, "preflightOnly": true}),
        ),
    );
    let found = result_for(&preflight, "f1").expect("a read inside the workspace is allowed by the rules");
    assert_eq!(found["payload"]["path"], path);
    let binding = found["payload"]["binding"].clone();
    assert_eq!(binding["kind"], "existing");
    let fetched = frame(
        &agent,
        NODE,
        &invoke(
            "f2",
            "file.fetch",
            json!({"path": path, "expectedCanonicalPath": path, "expectedBinding": binding}),
        ),
    );
    let file = result_for(&fetched, "f2").unwrap()["payload"].clone();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(file["base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(bytes, b"notes for the gateway\n");
    let digest: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(file["sha256"], digest);
    assert_eq!(file["size"], 22);
    assert_eq!(file["mimeType"], "text/plain");
    // Changed after the preflight: refused.
    std::thread::sleep(std::time::Duration::from_millis(20));
    ws.write("notes.txt", "changed in between\n");
    let stale = frame(
        &agent,
        NODE,
        &invoke(
            "f3",
            "file.fetch",
            json!({"path": path, "expectedCanonicalPath": path, "expectedBinding": binding}),
        ),
    );
    assert_eq!(result_for(&stale, "f3").unwrap()["error"]["code"], "FILE_CHANGED");
}

#[test]
fn a_file_outside_the_workspace_is_asked_about_and_a_refusal_is_a_denial() {
    let ws = TempWorkspace::new();
    let agent = paired(&ws);
    let outside = TempWorkspace::new();
    let path = outside.write("secret.txt", "elsewhere\n");
    let asked = frame(
        &agent,
        NODE,
        &invoke("f1", "file.fetch", json!({"path": path, "preflightOnly": true})),
    );
    let question = permission(&asked).expect("outside the workspace: asked");
    assert_eq!(question.tool_name, "Read");
    let refused = answer(&agent, &question.id, "deny");
    assert_eq!(
        result_for(&refused, "f1").unwrap()["error"]["code"],
        "SYSTEM_RUN_DENIED"
    );
}

#[test]
fn a_node_command_with_mistyped_params_is_refused_as_invalid_never_read_as_an_empty_one() {
    let ws = TempWorkspace::new();
    let agent = paired(&ws);
    for (id, command, params) in [
        ("m1", "system.run.prepare", json!({"command": "rm -rf /"})),
        ("m2", "system.run.prepare", json!({"command": []})),
        ("m3", "system.run.prepare", json!({"command": ["/bin/sh", 7]})),
        ("m4", "system.run.prepare", json!({"command": ["true"], "cwd": 7})),
        ("m5", "system.run", json!({"command": {"argv": ["true"]}})),
        ("m6", "file.fetch", json!({"path": ["a.txt"]})),
        ("m7", "file.fetch", json!({})),
    ] {
        let outputs = frame(&agent, NODE, &invoke(id, command, params));
        assert!(permission(&outputs).is_none(), "{id}: nothing asked");
        let result = result_for(&outputs, id).unwrap_or_else(|| panic!("{id}: answered"));
        assert_eq!(result["error"]["code"], "INVALID_REQUEST", "{id}: {result}");
    }
    let long = frame(
        &agent,
        NODE,
        &invoke("m8", "file.fetch", json!({"path": "x".repeat(200_000)})),
    );
    let message = result_for(&long, "m8").unwrap()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.chars().count() <= 2_001, "a hostile path is not echoed whole");
}

#[test]
fn unknown_node_commands_are_refused_and_a_symlink_is_not_followed() {
    let ws = TempWorkspace::new();
    let agent = paired(&ws);
    let unknown = frame(&agent, NODE, &invoke("u1", "camera.snap", json!({})));
    assert_eq!(result_for(&unknown, "u1").unwrap()["error"]["code"], "UNSUPPORTED");
    let target = ws.write("real.txt", "real\n");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&target, ws.path("link.txt")).unwrap();
        let linked = frame(
            &agent,
            NODE,
            &invoke(
                "s1",
                "file.fetch",
                json!({"path": ws.path("link.txt"), "preflightOnly": true}),
            ),
        );
        assert_eq!(result_for(&linked, "s1").unwrap()["error"]["code"], "SYMLINK");
    }
}

/// The answer to the request `method` among `sent`, as the gateway gives it.
fn respond(agent: &ClawAgent, sent: &[Value], method: &str, payload: Value) -> Vec<AgentOutput> {
    let id = sent
        .iter()
        .find(|f| f["method"] == method)
        .unwrap_or_else(|| panic!("no {method} among {sent:?}"))["id"]
        .clone();
    let res = json!({"type": "res", "id": id, "ok": true, "payload": payload});
    frame(agent, GATEWAY, &res.to_string())
}

fn widget_replies(outputs: &[AgentOutput]) -> Vec<CanvasUpdate> {
    events(outputs)
        .into_iter()
        .filter_map(|e| match e {
            UiEvent::Canvas {
                update: update @ CanvasUpdate::WidgetReply { .. },
            } => Some(update),
            _ => None,
        })
        .collect()
}

/// A board with one granted widget `chart` (its page and ticket) and one `pending` waiting.
fn board_with_widgets(agent: &ClawAgent) -> Vec<AgentOutput> {
    let refresh = frames(&command(agent, "canvasRefresh", json!({})), GATEWAY);
    let board = json!({"sessionKey": "agent:main:tether-inst", "revision": 3, "tabs": [], "widgets": [
        {"name": "chart", "contentKind": "html", "grantState": "none", "revision": 2, "instanceId": "i1",
         "frameUrl": "/__openclaw__/board/s/chart/index.html?bt=T1", "viewTicket": "T1", "viewTicketTtlMs": 1200000},
        {"name": "pending", "contentKind": "html", "grantState": "pending", "revision": 1, "instanceId": "i2",
         "declaredSummary": ["network: https://api.example"]}]});
    respond(agent, &refresh, "board.get", board)
}

#[test]
fn the_board_gives_each_widget_its_page_ticket_and_grant_state() {
    let ws = TempWorkspace::new();
    let agent = started(&ws, false);
    handshake(&agent, GATEWAY);
    let shown = events(&board_with_widgets(&agent));
    let Some(UiEvent::Canvas {
        update: CanvasUpdate::Board { widgets, .. },
    }) = shown.iter().find(|e| matches!(e, UiEvent::Canvas { .. }))
    else {
        panic!("no board among {shown:?}")
    };
    assert_eq!(
        widgets[0].frame_url.as_deref(),
        Some("http://127.0.0.1:18789/__openclaw__/board/s/chart/index.html?bt=T1")
    );
    assert_eq!(widgets[0].view_ticket.as_deref(), Some("T1"));
    assert_eq!(widgets[0].view_ticket_ttl_ms, Some(1_200_000));
    assert_eq!(widgets[1].grant_state, "pending");
    assert_eq!(widgets[1].frame_url, None);
    assert_eq!(widgets[1].declared_summary, vec!["network: https://api.example"]);
}

#[test]
fn a_widgets_calls_go_out_with_the_ticket_the_board_gave_it_and_every_call_is_answered() {
    let ws = TempWorkspace::new();
    let agent = started(&ws, false);
    handshake(&agent, GATEWAY);
    board_with_widgets(&agent);
    let call = |method: &str, params: Value| {
        command(
            &agent,
            "canvasAction",
            json!({"kind": "widgetCall", "widget": "chart", "callId": "c1", "method": method, "params": params}),
        )
    };

    let emitted = call("state.emit", json!({"payload": {"go": 1}, "ticket": "FORGED"}));
    let sent = frames(&emitted, GATEWAY);
    let event = sent
        .iter()
        .find(|f| f["method"] == "board.event")
        .expect("a board event");
    assert_eq!(event["params"], json!({"ticket": "T1", "payload": {"go": 1}}));
    let answered = respond(&agent, &sent, "board.event", json!({"ok": true, "appended": true}));
    assert_eq!(
        widget_replies(&answered),
        vec![CanvasUpdate::WidgetReply {
            widget: "chart".into(),
            call_id: "c1".into(),
            ok: true,
            result: json!({"ok": true, "appended": true}),
            error: None,
        }]
    );

    let read = frames(
        &call(
            "data.read",
            json!({"bindingId": "session.usage", "params": {"days": 7}}),
        ),
        GATEWAY,
    );
    assert!(read.iter().any(|f| f["method"] == "board.data.read"
        && f["params"] == json!({"ticket": "T1", "bindingId": "session.usage", "params": {"days": 7}})));
    let run = frames(&call("action.run", json!({"action": "github.rerun"})), GATEWAY);
    assert!(run
        .iter()
        .any(|f| f["method"] == "board.action" && f["params"] == json!({"ticket": "T1", "action": "github.rerun"})));
    let cron = frames(&call("cron.trigger", json!({"jobId": "j9"})), GATEWAY);
    assert!(cron.iter().any(|f| f["method"] == "board.action"
        && f["params"] == json!({"ticket": "T1", "action": "cron.trigger", "jobId": "j9"})));

    // Refused here, each answered as an error (nothing sent).
    for (method, params, why) in [
        ("fs.delete", json!({}), "which Tether does not offer"),
        ("data.read", json!({}), "needs a string bindingId"),
        ("action.run", json!({"action": "x", "params": [1]}), "must be an object"),
    ] {
        let refused = call(method, params);
        assert!(frames(&refused, GATEWAY).is_empty(), "{method}: nothing sent");
        let replies = widget_replies(&refused);
        assert!(
            matches!(&replies[..], [CanvasUpdate::WidgetReply { ok: false, error: Some(e), .. }] if e.contains(why)),
            "{method}: {replies:?}"
        );
    }
    let unknown = command(
        &agent,
        "canvasAction",
        json!({"kind": "widgetCall", "widget": "pending", "callId": "c2", "method": "state.emit"}),
    );
    assert!(
        matches!(&widget_replies(&unknown)[..], [CanvasUpdate::WidgetReply { ok: false, error: Some(e), .. }] if e.contains("no view on the board"))
    );
}

#[test]
fn a_widget_the_user_approves_is_granted_and_the_board_read_again() {
    let ws = TempWorkspace::new();
    let agent = started(&ws, false);
    handshake(&agent, GATEWAY);
    board_with_widgets(&agent);
    let grant = frames(
        &command(
            &agent,
            "canvasAction",
            json!({"kind": "widgetGrant", "widget": "pending", "granted": true, "revision": 1, "instanceId": "i2"}),
        ),
        GATEWAY,
    );
    let request = grant
        .iter()
        .find(|f| f["method"] == "board.widget.grant")
        .expect("a grant");
    assert_eq!(
        request["params"],
        json!({"sessionKey": "agent:main:tether-inst", "name": "pending", "decision": "granted", "revision": 1, "instanceId": "i2"})
    );
    let granted = respond(
        &agent,
        &grant,
        "board.widget.grant",
        json!({"sessionKey": "agent:main:tether-inst", "revision": 4, "tabs": [], "widgets": []}),
    );
    assert!(
        frames(&granted, GATEWAY).iter().any(|f| f["method"] == "board.get"),
        "the board read again for the views"
    );
}

#[test]
fn canvas_actions_reach_the_document_or_the_agent_and_a_malformed_one_is_a_notice() {
    let ws = TempWorkspace::new();
    let agent = started(&ws, false);
    handshake(&agent, GATEWAY);
    let sent = |args: Value| frames(&command(&agent, "canvasAction", args), GATEWAY);

    let document = sent(json!({"kind": "document", "docId": "d1"}));
    assert!(document
        .iter()
        .any(|f| f["method"] == "canvas.document.view" && f["params"] == json!({"docId": "d1"})));

    let surface = sent(json!({"kind": "surface", "surfaceId": "s1", "action": "onClick",
        "context": {"componentId": "c2"}}));
    let send = surface
        .iter()
        .find(|f| f["method"] == "chat.send")
        .expect("a message to the agent");
    assert_eq!(
        send["params"]["message"],
        r#"[canvas] onClick on surface s1: {"componentId":"c2"}"#
    );

    let malformed = command(&agent, "canvasAction", json!({"kind": "widgetCall"}));
    assert!(frames(&malformed, GATEWAY).is_empty(), "nothing sent");
    assert!(events(&malformed)
        .iter()
        .any(|e| matches!(e, UiEvent::Error { message, .. } if message.contains("The canvas action was not sent"))));
}
