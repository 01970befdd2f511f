//! The gateway's `chat`/`agent` events as UI events, the resync from history, and node mode,
//! with the real gateway's frames.

mod openclaw_support;

use openclaw_support::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use tether_core::events::{ErrorKind, SessionState, ToolKind, UiEvent};
use tether_core::openclaw::chat::{ChatMapper, ChatOutput};
use tether_core::openclaw::client::ClientOutput;
use tether_core::openclaw::history::History;
use tether_core::openclaw::node::{
    self, result_params, run_payload, Answer, FileFetch, FileFetchReply, NodeHandler, NodeSession, RunOutput, RunPlan,
    RunPrepare, RunRequest,
};

fn mapper() -> ChatMapper {
    let mut mapper = ChatMapper::new(4);
    mapper.watch(Some(SESSION.into()));
    mapper
}

fn feed(mapper: &mut ChatMapper, frames: &[String]) -> Vec<ChatOutput> {
    frames
        .iter()
        .flat_map(|text| {
            let frame: Value = serde_json::from_str(text).unwrap();
            mapper.on_event(frame["event"].as_str().unwrap(), &frame["payload"])
        })
        .collect()
}

fn ui(outputs: &[ChatOutput]) -> Vec<UiEvent> {
    outputs
        .iter()
        .filter_map(|o| match o {
            ChatOutput::Ui(event) => Some(event.clone()),
            _ => None,
        })
        .collect()
}

fn text_of(events: &[UiEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            UiEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn dones(events: &[UiEvent]) -> Vec<&UiEvent> {
    events.iter().filter(|e| matches!(e, UiEvent::Done { .. })).collect()
}

fn event(name: &str, payload: Value) -> String {
    json!({"type":"event","event":name,"payload":payload}).to_string()
}

fn chat(run: &str, payload: Value) -> String {
    let mut p = json!({"runId": run, "sessionKey": SESSION, "agentId": "main"});
    p.as_object_mut().unwrap().extend(payload.as_object().unwrap().clone());
    event("chat", p)
}

fn agent(run: &str, stream: &str, data: Value) -> String {
    let mut payload = json!({"runId": run, "stream": stream, "data": data, "sessionKey": SESSION, "agentId": "main"});
    if stream == "tool" {
        // The gateway spreads the session row over tool events' payloads (seen live).
        payload["kind"] = json!("direct");
        payload["session"] = json!({"key": SESSION, "kind": "direct"});
    }
    event("agent", payload)
}

fn message(text: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "text", "text": text}]})
}

#[test]
fn a_streamed_turn_shows_its_text_once_from_the_chat_stream() {
    let events = ui(&feed(&mut mapper(), &chat_turn()));
    assert_eq!(text_of(&events), TURN_TEXT);
    assert_eq!(
        events[0],
        UiEvent::Status {
            state: SessionState::Running
        }
    );
    assert_eq!(
        events[1],
        UiEvent::MessageStart {
            message_id: RUN.into(),
            parent_tool_use_id: None
        }
    );
    assert_eq!(
        events[2],
        UiEvent::Activity {
            activity: Some("preparing_workspace".into())
        }
    );
    let done = dones(&events);
    assert!(
        matches!(done[..], [UiEvent::Done { subtype, is_error: false, session_id, result: Some(result), stop_reason: Some(stop), .. }]
        if subtype == "success" && session_id == SESSION && result == TURN_TEXT && stop == "stop")
    );
    assert!(events.contains(&UiEvent::Usage {
        input_tokens: 0,
        output_tokens: 20,
        cache_read_tokens: 0,
        cache_creation_tokens: 0,
        cost_usd: None
    }));
    assert_eq!(
        events.last(),
        Some(&UiEvent::Status {
            state: SessionState::Idle
        })
    );
}

#[test]
fn a_repeated_or_stale_delta_adds_nothing() {
    let mut mapper = mapper();
    let frames = [
        chat(
            "r1",
            json!({"state": "delta", "deltaText": "Hello", "message": message("Hello")}),
        ),
        chat(
            "r1",
            json!({"state": "delta", "deltaText": "Hello", "message": message("Hello")}),
        ),
        chat(
            "r1",
            json!({"state": "delta", "deltaText": " world", "message": message("Hello world")}),
        ),
        chat(
            "r1",
            json!({"state": "delta", "deltaText": " world", "message": message("Hello")}),
        ),
    ];
    assert_eq!(text_of(&ui(&feed(&mut mapper, &frames))), "Hello world");
}

#[test]
fn replace_rewrites_the_whole_message() {
    let mut mapper = mapper();
    let frames = [
        chat(
            "r1",
            json!({"state": "delta", "deltaText": "Draft one", "message": message("Draft one")}),
        ),
        chat(
            "r1",
            json!({"state": "delta", "deltaText": "Final", "replace": true, "message": message("Final")}),
        ),
        chat(
            "r1",
            json!({"state": "delta", "deltaText": " answer", "message": message("Final answer")}),
        ),
    ];
    let outputs = feed(&mut mapper, &frames);
    assert!(outputs.contains(&ChatOutput::Ui(UiEvent::MessageReplace {
        message_id: "r1".into(),
        text: "Final".into()
    })));
    assert_eq!(
        text_of(&ui(&outputs)),
        "Draft one answer",
        "deltas around the replacement"
    );
}

#[test]
fn a_tool_turn_shows_the_call_its_input_and_its_result() {
    let run = "3c05213c-98b1-48d4-8015-1f738039bfd9";
    let frames = [
        agent(
            run,
            "item",
            json!({"kind":"preamble","title":"Preamble","phase":"update","progressText":"Let me check.","itemId":"commentary-0"}),
        ),
        agent(
            run,
            "item",
            json!({"itemId":"tool:call_fake_1","toolCallId":"call_fake_1","name":"read","kind":"tool","phase":"start","title":"Read from HELLO.txt","status":"running","meta":"from HELLO.txt"}),
        ),
        agent(
            run,
            "tool",
            json!({"phase":"start","name":"read","toolCallId":"call_fake_1","args":{"path":"HELLO.txt"}}),
        ),
        agent(
            run,
            "tool",
            json!({"phase":"result","name":"read","toolCallId":"call_fake_1","meta":"from HELLO.txt","isError":false,"result":{"content":[{"type":"text","text":"hello from the workspace file\n"}],"details":{"kind":"text","content":"hello from the workspace file\n"}}}),
        ),
        agent(
            run,
            "item",
            json!({"itemId":"tool:call_fake_1","toolCallId":"call_fake_1","name":"read","kind":"tool","phase":"end","status":"completed"}),
        ),
    ];
    let events = ui(&feed(&mut mapper(), &frames));
    let tools: Vec<&UiEvent> = events
        .iter()
        .filter(|e| {
            matches!(
                e,
                UiEvent::ToolCallStart { .. } | UiEvent::ToolCallUpdate { .. } | UiEvent::ToolCallResult { .. }
            )
        })
        .collect();
    assert_eq!(tools.len(), 3, "{tools:#?}");
    assert!(
        matches!(tools[0], UiEvent::ToolCallStart { id, name, input, kind: ToolKind::Read, title, .. }
        if id == "call_fake_1" && name == "read" && *input == json!({}) && title == "Read from HELLO.txt")
    );
    assert!(matches!(tools[1], UiEvent::ToolCallUpdate { input, locations, .. }
        if *input == json!({"path": "HELLO.txt"}) && locations[0].path == "HELLO.txt"));
    assert!(
        matches!(tools[2], UiEvent::ToolCallResult { is_error: false, content, structured: Some(_), .. }
        if content == "hello from the workspace file\n")
    );
}

#[test]
fn without_tool_events_the_item_stream_still_shows_the_call() {
    let frames = [
        agent(
            "r2",
            "item",
            json!({"toolCallId":"c1","name":"exec","kind":"tool","phase":"start","title":"exec ls"}),
        ),
        agent(
            "r2",
            "item",
            json!({"toolCallId":"c1","name":"exec","kind":"tool","phase":"end","status":"failed"}),
        ),
    ];
    let events = ui(&feed(&mut mapper(), &frames));
    assert!(events.iter().any(|e| matches!(
        e,
        UiEvent::ToolCallStart {
            kind: ToolKind::Execute,
            ..
        }
    )));
    assert!(events
        .iter()
        .any(|e| matches!(e, UiEvent::ToolCallResult { is_error: true, .. })));
}

#[test]
fn an_abort_ends_the_turn_as_stopped() {
    let frames = [
        chat(
            "r3",
            json!({"state": "delta", "deltaText": "Counting: 1", "message": message("Counting: 1")}),
        ),
        agent(
            "r3",
            "lifecycle",
            json!({"phase":"end","status":"cancelled","aborted":true,"stopReason":"rpc"}),
        ),
        chat("r3", json!({"seq": 6, "state": "aborted", "stopReason": "rpc"})),
        agent(
            "r3",
            "lifecycle",
            json!({"phase":"error","error":"This operation was aborted"}),
        ),
    ];
    let events = ui(&feed(&mut mapper(), &frames));
    assert!(events.iter().any(|e| matches!(
        e,
        UiEvent::Error {
            kind: ErrorKind::Interrupted,
            ..
        }
    )));
    assert!(
        matches!(dones(&events)[..], [UiEvent::Done { is_error: true, stop_reason: Some(s), result: Some(r), .. }] if s == "rpc" && r == "Counting: 1")
    );
}

#[test]
fn the_second_of_two_error_events_is_dropped() {
    let run = "48f6b67b-27d1-4924-a316-8e3040a4786e";
    let frames = [
        chat(
            run,
            json!({"seq":9,"state":"error","errorMessage":"LLM request failed: provider rejected the request schema or tool payload.","errorDetail":{"provider":"fake","model":"fake-model","failoverReason":"format","providerRuntimeFailureKind":"schema"}}),
        ),
        event(
            "chat",
            json!({"runId": run, "sessionKey": SESSION, "seq": 1, "state": "error", "errorMessage": "⚠️ Agent failed before reply: LLM request failed: provider rejected the request schema or tool payload."}),
        ),
    ];
    let events = ui(&feed(&mut mapper(), &frames));
    assert_eq!(dones(&events).len(), 1);
    let errors: Vec<&UiEvent> = events.iter().filter(|e| matches!(e, UiEvent::Error { .. })).collect();
    assert!(
        matches!(errors[..], [UiEvent::Error { kind: ErrorKind::Api, message, .. }] if message.starts_with("LLM request failed"))
    );
}

#[test]
fn other_sessions_and_unknown_events_are_ignored() {
    let mut mapper = mapper();
    let other = event(
        "chat",
        json!({"runId": "x", "sessionKey": "agent:main:other", "state": "delta", "deltaText": "no", "message": message("no")}),
    );
    let unknown = [
        event("sessions.changed", json!({"sessionKey": SESSION, "reason": "create"})),
        event("health", json!({"ok": true})),
        event("presence", json!([])),
        event("board.changed", json!({"sessionKey": SESSION, "revision": 2})),
        agent("r9", "lifecycle", json!({"phase": "start"})),
    ];
    assert!(feed(&mut mapper, &[other]).is_empty());
    assert!(feed(&mut mapper, &unknown).is_empty());
}

#[test]
fn thinking_and_plan_streams_map_to_thinking_and_todos() {
    let frames = [
        agent("r4", "thinking", json!({"text": "Let me", "delta": "Let me"})),
        agent("r4", "thinking", json!({"text": "Let me think", "delta": " think"})),
        agent(
            "r4",
            "plan",
            json!({"phase":"update","title":"Plan updated","source":"openclaw","steps":[{"step":"Read the file","status":"completed"},{"step":"Fix it","status":"in_progress"}],"explanation":"1/2 complete"}),
        ),
    ];
    let events = ui(&feed(&mut mapper(), &frames));
    let thinking: String = events
        .iter()
        .filter_map(|e| match e {
            UiEvent::ThinkingDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking, "Let me think");
    let todos = events.iter().find_map(|e| match e {
        UiEvent::TodoUpdate { todos } => Some(todos.clone()),
        _ => None,
    });
    let todos = todos.unwrap();
    assert_eq!(
        (todos[1].content.as_str(), todos[1].status.as_str()),
        ("Fix it", "in_progress")
    );
}

#[test]
fn protocol_3_kind_events_map_as_the_seed_describes() {
    let mut mapper = ChatMapper::new(3);
    let frames = [
        event("agent", json!({"kind": "text_delta", "content": "Reading "})),
        event(
            "agent",
            json!({"kind": "tool_start", "tool": "readFile", "id": "tool-call-1", "title": "Reading src/main.ts", "input": {"path": "src/main.ts"}}),
        ),
        event(
            "agent",
            json!({"kind": "tool_result", "id": "tool-call-1", "output": "file body", "error": null}),
        ),
        event(
            "agent",
            json!({"kind": "a2ui", "payload": {"type": "createSurface", "surface": {"id": "s1"}, "components": []}}),
        ),
        event("agent", json!({"kind": "text_delta", "content": "done."})),
        event("agent", json!({"kind": "done", "stopReason": "end_turn"})),
    ];
    let outputs = feed(&mut mapper, &frames);
    let events = ui(&outputs);
    assert_eq!(text_of(&events), "Reading done.");
    assert!(events
        .iter()
        .any(|e| matches!(e, UiEvent::ToolCallResult { content, is_error: false, .. } if content == "file body")));
    assert!(outputs
        .iter()
        .any(|o| matches!(o, ChatOutput::Canvas(m) if m["type"] == "createSurface")));
    assert_eq!(dones(&events).len(), 1);
}

fn history_payload(text: &str, stop: Option<&str>, active: &[&str]) -> Value {
    json!({"sessionKey": SESSION, "messages": [
        {"role": "user", "content": "Say hello please.", "__openclaw": {"seq": 1}},
        {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": stop, "__openclaw": {"runId": RUN, "seq": 2}},
    ], "hasMore": false, "sessionInfo": {"activeRunIds": active}})
}

/// A turn cut off mid-stream by a lost connection; returns the history request's id.
fn cut_off_turn(client: &mut tether_core::openclaw::OpenClawClient) -> String {
    for frame in &chat_turn()[..9] {
        client.on_frame(frame);
    }
    let shown = client.take_outputs();
    assert!(
        matches!(shown.iter().rev().find(|o| matches!(o, ClientOutput::Ui(UiEvent::TextDelta { .. }))),
        Some(ClientOutput::Ui(UiEvent::TextDelta { text, .. })) if text == " from the fake")
    );
    client.on_close(1012, "service restart", 2_000);
    client.advance(3_000);
    client.on_open(3_000);
    client.on_frame(CHALLENGE);
    let connect = sent_ids(&client.take_outputs())[0].clone();
    client.on_frame(&hello_ok(&connect));
    let outputs = client.take_outputs();
    let history = sent(&outputs)
        .into_iter()
        .find(|f| f["method"] == "chat.history")
        .expect("resync reads the history");
    assert_eq!(history["params"]["sessionKey"], SESSION);
    history["id"].as_str().unwrap().to_string()
}

#[test]
fn after_a_reconnect_the_history_brings_the_missed_text_once_and_ends_the_turn() {
    let mut client = connected_client();
    let id = cut_off_turn(&mut client);
    let reply = json!({"type": "res", "id": id, "ok": true, "payload": history_payload(TURN_TEXT, Some("stop"), &[])});
    client.on_frame(&reply.to_string());
    let outputs = client.take_outputs();
    let events: Vec<UiEvent> = outputs
        .iter()
        .filter_map(|o| match o {
            ClientOutput::Ui(e) => Some(e.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(text_of(&events), " LLM. This reply was streamed token by token.");
    assert!(matches!(dones(&events)[..], [UiEvent::Done { is_error: false, .. }]));
    assert!(outputs
        .iter()
        .any(|o| matches!(o, ClientOutput::History { history: h, resync: true, .. } if h.messages.len() == 2)));
    // The gateway's late final for the run changes nothing.
    client.on_frame(&chat_turn()[15].replace("\"seq\":31", "\"seq\":1"));
    assert!(client.take_outputs().iter().all(|o| !matches!(o, ClientOutput::Ui(_))));
}

#[test]
fn a_turn_the_gateway_lost_in_a_restart_is_marked_interrupted_with_its_text_kept() {
    let mut client = connected_client();
    let id = cut_off_turn(&mut client);
    let reply =
        json!({"type": "res", "id": id, "ok": true, "payload": history_payload("Hello from the fake", None, &[])});
    client.on_frame(&reply.to_string());
    let events: Vec<UiEvent> = client
        .take_outputs()
        .into_iter()
        .filter_map(|o| match o {
            ClientOutput::Ui(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(text_of(&events), "");
    assert!(events.iter().any(|e| matches!(
        e,
        UiEvent::Error {
            kind: ErrorKind::Interrupted,
            ..
        }
    )));
    assert!(matches!(dones(&events)[..], [UiEvent::Done { result: Some(r), .. }] if r == "Hello from the fake"));
}

#[test]
fn a_run_still_active_after_a_reconnect_goes_on_streaming_without_repeats() {
    let mut client = connected_client();
    let id = cut_off_turn(&mut client);
    let reply = json!({"type": "res", "id": id, "ok": true, "payload": history_payload("Hello from the fake LLM.", None, &[RUN])});
    client.on_frame(&reply.to_string());
    let mut shown = String::new();
    for output in client.take_outputs() {
        if let ClientOutput::Ui(UiEvent::TextDelta { text, .. }) = output {
            shown.push_str(&text);
        }
    }
    for frame in &chat_turn()[9..] {
        // New connection: its frame counter starts again.
        let mut frame: Value = serde_json::from_str(frame).unwrap();
        frame["seq"] = json!(frame["seq"].as_u64().unwrap() - 10);
        client.on_frame(&frame.to_string());
    }
    for output in client.take_outputs() {
        if let ClientOutput::Ui(UiEvent::TextDelta { text, .. }) = output {
            shown.push_str(&text);
        }
    }
    assert_eq!(shown, " LLM. This reply was streamed token by token.");
}

#[test]
fn a_tool_turns_history_offers_its_last_message_and_all_of_them_joined() {
    let history = History::parse(&json!({"sessionKey": SESSION, "messages": [
        {"role": "user", "content": "TOOLTEST"},
        {"role": "assistant", "content": [{"type": "text", "text": "Let me check."}, {"type": "toolCall", "id": "c1"}], "__openclaw": {"runId": "r"}},
        {"role": "toolResult", "content": [{"type": "text", "text": "hello"}], "__openclaw": {"runId": "r"}},
        {"role": "assistant", "content": [{"type": "text", "text": "The tool said: hello"}], "stopReason": "stop", "__openclaw": {"runId": "r"}},
    ]}));
    assert_eq!(
        history.run_texts("r"),
        vec!["The tool said: hello", "Let me check.\n\nThe tool said: hello"]
    );
    assert!(history.run_finished("r"));
}

#[test]
fn a_preamble_before_a_tool_call_shows_as_activity() {
    let frames = [agent(
        "r5",
        "item",
        json!({"kind":"preamble","title":"Preamble","phase":"update","progressText":"Let me check.","itemId":"commentary-0"}),
    )];
    let events = ui(&feed(&mut mapper(), &frames));
    assert!(events.contains(&UiEvent::Activity {
        activity: Some("Let me check.".into())
    }));
    assert_eq!(text_of(&events), "");
}

#[test]
fn history_reads_runs_and_their_endings() {
    let history = History::parse(&history_payload("Hi", Some("stop"), &["other"]));
    assert_eq!(history.run_texts(RUN), vec!["Hi".to_string()]);
    assert!(history.run_finished(RUN));
    assert_eq!(history.active_run_ids, vec!["other"]);
    assert!(history.run_texts("nope").is_empty());
}

/// A node handler that allows what it is told to and runs nothing itself.
#[derive(Default)]
struct Gate {
    allow: bool,
    ran: Vec<Vec<String>>,
}

impl NodeHandler for Gate {
    fn prepare(&mut self, _id: &str, request: &RunPrepare) -> Answer<RunPlan> {
        Answer::Now(if self.allow {
            Ok(RunPlan {
                argv: request.argv.clone(),
                cwd: request.cwd.clone(),
                command_text: request.raw_command.clone().unwrap_or_default(),
                agent_id: request.agent_id.clone(),
                session_key: request.session_key.clone(),
            })
        } else {
            Err(node::NodeError::denied("the user refused"))
        })
    }
    fn run(&mut self, _id: &str, plan: &RunPlan, _request: &RunRequest) -> Answer<RunOutput> {
        self.ran.push(plan.argv.clone());
        Answer::Later
    }
    fn which(&mut self, _id: &str, bins: &[String]) -> Answer<BTreeMap<String, String>> {
        Answer::Now(Ok(bins.iter().map(|b| (b.clone(), format!("/usr/bin/{b}"))).collect()))
    }
    fn fetch_file(&mut self, _id: &str, _request: &FileFetch) -> Answer<FileFetchReply> {
        Answer::Later
    }
}

fn invoke(id: &str, command: &str, params: Value) -> Value {
    json!({"id": id, "nodeId": "node-1", "command": command, "paramsJSON": params.to_string(), "timeoutMs": 30000, "idempotencyKey": "k"})
}

const ARGV: [&str; 3] = ["/bin/sh", "-lc", "echo hi-from-node && uname -s"];

#[test]
fn node_runs_only_what_tether_allowed_and_each_plan_once() {
    let mut session = NodeSession::default();
    let mut gate = Gate {
        allow: true,
        ..Gate::default()
    };
    let prepare = invoke(
        "i1",
        "system.run.prepare",
        json!({"command": ARGV, "rawCommand": "echo hi-from-node && uname -s", "agentId": "main", "sessionKey": SESSION, "security": "full", "ask": "off"}),
    );
    let reply = session.on_invoke(&prepare, &mut gate).unwrap();
    assert_eq!(reply["ok"], true);
    assert_eq!(reply["payload"]["plan"]["argv"], json!(ARGV));
    assert_eq!(reply["payload"]["plan"]["commandText"], "echo hi-from-node && uname -s");
    let run = invoke(
        "i2",
        "system.run",
        json!({"command": ARGV, "rawCommand": "echo hi-from-node && uname -s", "timeoutMs": 1800000, "runId": "r"}),
    );
    assert_eq!(session.on_invoke(&run, &mut gate), None, "runs; the answer comes later");
    assert_eq!(gate.ran, vec![ARGV.map(str::to_string).to_vec()]);
    let answer = session
        .answer(
            "i2",
            node::Reply::Run(Ok(RunOutput {
                exit_code: Some(0),
                timed_out: false,
                stdout: "hi-from-node\nLinux\n".into(),
                stderr: String::new(),
                error: None,
            })),
        )
        .unwrap();
    assert_eq!(answer["payload"]["success"], true);
    // The same plan again, or another command: refused before anything runs.
    let again = session
        .on_invoke(&invoke("i3", "system.run", json!({"command": ARGV})), &mut gate)
        .unwrap();
    let other = session
        .on_invoke(
            &invoke("i4", "system.run", json!({"command": ["/bin/sh", "-lc", "rm -rf /"]})),
            &mut gate,
        )
        .unwrap();
    for refused in [again, other] {
        assert_eq!(refused["ok"], false);
        assert_eq!(refused["error"]["code"], "SYSTEM_RUN_DENIED");
    }
    assert_eq!(gate.ran.len(), 1);
}

#[test]
fn a_refused_prepare_reaches_the_gateway_as_a_denial() {
    let mut session = NodeSession::default();
    let mut gate = Gate::default();
    let reply = session
        .on_invoke(&invoke("i1", "system.run.prepare", json!({"command": ARGV})), &mut gate)
        .unwrap();
    assert_eq!(
        reply,
        json!({"id": "i1", "nodeId": "node-1", "ok": false, "error": {"code": "SYSTEM_RUN_DENIED", "message": "the user refused"}})
    );
}

#[test]
fn node_which_file_fetch_and_unknown_commands() {
    let mut session = NodeSession::default();
    let mut gate = Gate::default();
    let which = session
        .on_invoke(&invoke("w", "system.which", json!({"bins": ["sh"]})), &mut gate)
        .unwrap();
    assert_eq!(which["payload"], json!({"bins": {"sh": "/usr/bin/sh"}}));
    let fetch = invoke(
        "f",
        "file.fetch",
        json!({"path": "/ws/a.txt", "maxBytes": 8388608, "followSymlinks": false, "preflightOnly": true}),
    );
    assert_eq!(session.on_invoke(&fetch, &mut gate), None);
    let binding = node::FileBinding {
        canonical_path: "/ws/a.txt".into(),
        device: "2049".into(),
        inode: "77".into(),
    };
    let answer = session
        .answer("f", node::Reply::File(Ok(FileFetchReply::Preflight(binding))))
        .unwrap();
    assert_eq!(
        answer["payload"],
        json!({"ok": true, "path": "/ws/a.txt", "binding": {"kind": "existing", "device": "2049", "inode": "77"}})
    );
    let camera = session
        .on_invoke(&invoke("c", "camera.snap", json!({})), &mut gate)
        .unwrap();
    assert_eq!(camera["error"]["code"], "UNSUPPORTED");
    let broken = session
        .on_invoke(
            &json!({"id": "b", "nodeId": "n", "command": "system.run", "paramsJSON": "{"}),
            &mut gate,
        )
        .unwrap();
    assert_eq!(broken["error"]["code"], "INVALID_REQUEST");
}

#[test]
fn run_results_carry_the_success_flag_the_gateway_requires() {
    let failed = run_payload(&RunOutput {
        exit_code: Some(2),
        timed_out: false,
        stdout: String::new(),
        stderr: "no".into(),
        error: None,
    });
    assert_eq!(failed["success"], false);
    assert_eq!(failed["exitCode"], 2);
    let params = result_params("id", "node", Ok(json!({"x": 1})));
    assert_eq!(
        params,
        json!({"id": "id", "nodeId": "node", "ok": true, "payload": {"x": 1}})
    );
}
