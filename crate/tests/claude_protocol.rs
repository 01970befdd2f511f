//! The Claude Code session protocol: launch line, initialize, stdout → events, control requests
//! both ways, fed with real CLI lines (the reference examples and a recorded probe transcript).

use serde_json::{json, Value};
use std::path::PathBuf;
use tether_core::claude::init::RemoteEnvironment;
use tether_core::claude::launch::LaunchConfig;
use tether_core::claude::protocol::McpManifest;
use tether_core::claude::{Output, Session, SessionConfig};

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The MCP manifest the probe (tests/probe) runs with: one Read tool.
fn probe_manifest() -> McpManifest {
    McpManifest {
        initialize_result: json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": {"name": "tether", "version": "0.0.0-probe"}
        }),
        tools_list_result: json!({"tools": [{
            "name": "Read",
            "description": "Reads a file from the remote workspace.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "file_path": {"type": "string", "description": "The absolute path to the file to read"},
                    "offset": {"type": "number"},
                    "limit": {"type": "number"}
                },
                "required": ["file_path"]
            },
            "_meta": {"anthropic/alwaysLoad": true}
        }]}),
    }
}

/// The environment the probe runs with.
fn probe_config() -> SessionConfig {
    let environment = RemoteEnvironment {
        cwd: "/remote/project".into(),
        os: "Linux".into(),
        shell: "bash".into(),
        git_branch: Some("main".into()),
    };
    SessionConfig::new(environment)
}

fn write_lines(outputs: &[Output]) -> Vec<Value> {
    outputs
        .iter()
        .filter_map(|o| match o {
            Output::WriteLine(line) => Some(serde_json::from_str(line).expect("our lines are JSON")),
            _ => None,
        })
        .collect()
}

/// The launch the probe uses is exactly what the builder makes. `TETHER_UPDATE_FIXTURES=1`
/// rewrites the fixture after a deliberate change.
#[test]
fn probe_launch_fixture_matches_builder() {
    let launch = LaunchConfig::default().build(Vec::new());
    let mut session = Session::new(probe_config());
    let initialize = write_lines(&session.start(probe_manifest())).remove(0);
    let fixture = json!({
        "args": launch.args,
        "env": launch.env,
        "removedEnv": tether_core::claude::launch::REMOVED_ENV,
        "initialize": initialize,
    });
    let path = fixture_path("claude-launch.json");
    let text = serde_json::to_string_pretty(&fixture).unwrap() + "\n";
    if std::env::var_os("TETHER_UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        recorded, fixture,
        "run with TETHER_UPDATE_FIXTURES=1 and rerun the probe"
    );
}

// ---------------------------------------------------------------------------------------------
// helpers

use std::collections::{HashMap, VecDeque};
use tether_core::claude::launch::PermissionMode;
use tether_core::claude::protocol::{CliMessage, ImageInput};
use tether_core::claude::PermissionAnswer;
use tether_core::events::{ErrorKind, PermissionRequest, SessionState, Severity, ToolKind, UiEvent};

fn events(outputs: &[Output]) -> Vec<UiEvent> {
    outputs
        .iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

fn permission_requests(outputs: &[Output]) -> Vec<PermissionRequest> {
    outputs
        .iter()
        .filter_map(|o| match o {
            Output::PermissionRequest(p) => Some(p.clone()),
            _ => None,
        })
        .collect()
}

fn started_session() -> Session {
    let mut session = Session::new(probe_config());
    session.start(probe_manifest());
    session
}

fn line(value: Value) -> String {
    value.to_string()
}

/// The one line written, parsed.
fn only_write(outputs: &[Output]) -> Value {
    let mut lines = write_lines(outputs);
    assert_eq!(lines.len(), 1, "expected one line, got {outputs:?}");
    lines.remove(0)
}

fn can_use_tool(request_id: &str, tool_name: &str, extra: Value) -> String {
    let mut request = json!({
        "subtype": "can_use_tool",
        "tool_name": tool_name,
        "input": {"file_path": "/remote/project/a.txt", "content": "hi\n"},
        "tool_use_id": "toolu_1",
        "permission_suggestions": [
            {"type": "addRules", "rules": [{"toolName": tool_name}], "behavior": "allow", "destination": "localSettings"}
        ]
    });
    if let (Some(request), Value::Object(extra)) = (request.as_object_mut(), extra) {
        request.extend(extra);
    }
    line(json!({"type": "control_request", "request_id": request_id, "request": request}))
}

fn hook(input: Value) -> String {
    line(json!({
        "type": "control_request",
        "request_id": "hook-1",
        "request": {"subtype": "hook_callback", "callback_id": "tether-guard", "input": input, "tool_use_id": "toolu_1"}
    }))
}

fn guard_response(session: &mut Session, input: Value) -> Value {
    let response = only_write(&session.on_line(&hook(input)));
    assert_eq!(response["response"]["subtype"], "success");
    assert_eq!(response["response"]["request_id"], "hook-1");
    response["response"]["response"].clone()
}

fn denied_reason(response: &Value) -> Option<String> {
    (response.pointer("/hookSpecificOutput/permissionDecision") == Some(&json!("deny"))).then(|| {
        response["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    })
}

// ---------------------------------------------------------------------------------------------
// real lines: the reference examples and the probe transcript

struct Example {
    kind: String,
    line: String,
}

fn examples() -> Vec<Example> {
    let text = std::fs::read_to_string(fixture_path("claude-cli-examples.jsonl")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            Example {
                kind: v["kind"].as_str().unwrap().to_string(),
                line: v["line"].as_str().unwrap().to_string(),
            }
        })
        .collect()
}

#[test]
fn every_example_line_is_handled_without_panic() {
    let mut session = started_session();
    for example in examples() {
        session.on_line(&example.line);
        // The lab's server was called "bridge"; as Tether's the same lines must work too.
        let as_tether = example.line.replace("bridge", "tether");
        session.on_line(&as_tether);
        // Truncated lines are garbage, and must be tolerated as such.
        let cut: String = example.line.chars().take(example.line.chars().count() / 2).collect();
        assert!(session.on_line(&cut).is_empty(), "{}", example.kind);
    }
}

#[test]
fn example_cli_lines_map_to_the_expected_events() {
    for example in examples().into_iter().filter(|e| e.kind.starts_with("<<")) {
        let mut session = started_session();
        let line = example.line.replace("bridge", "tether");
        let out = session.on_line(&line);
        let evs = events(&out);
        let kind = example.kind.as_str();
        match kind {
            "<< system/init" => assert!(matches!(
                &evs[..],
                [UiEvent::SessionInit { session_id, model: Some(m), mcp_servers, .. }]
                    if session_id == "079801b7-9848-4db5-8a5b-c351e913992b" && m == "claude-opus-5-5"
                        && mcp_servers[0].name == "tether" && mcp_servers[0].status == "connected"
            )),
            "<< assistant text" => assert!(matches!(
                &evs[..],
                [UiEvent::MessageStart { .. }, UiEvent::TextDelta { text, .. }] if text == "I will read the file through the tether."
            )),
            "<< assistant tool_use" => assert!(matches!(
                &evs[..],
                [UiEvent::MessageStart { .. }, UiEvent::ToolCallStart { id, name, .. }]
                    if id == "toolu_fake_1" && name == "read_file"
            )),
            "<< control_request can_use_tool" => {
                let requests = permission_requests(&out);
                assert_eq!(requests.len(), 1);
                assert_eq!(requests[0].tool_name, "read_file");
                assert_eq!(requests[0].raw_tool_name, "mcp__tether__read_file");
                assert_eq!(requests[0].display_name.as_deref(), Some("Read File"));
                assert_eq!(requests[0].tool_use_id.as_deref(), Some("toolu_fake_1"));
            }
            "<< control_request mcp_message initialize" | "<< control_request mcp_message tools/list" => {
                assert!(matches!(&out[..], [Output::McpCall { .. }]), "{kind}: {out:?}")
            }
            "<< control_request mcp_message notifications/initialized" => {
                let written = only_write(&out);
                assert_eq!(
                    written["response"]["response"]["mcp_response"],
                    json!({"jsonrpc":"2.0","result":{},"id":0})
                );
            }
            "<< control_request mcp_message tools/call" => assert!(matches!(&out[..], [Output::McpCall { .. }])),
            "<< user tool_result" => assert!(matches!(
                &evs[..],
                [UiEvent::ToolCallResult { id, is_error: false, content, .. }]
                    if id == "toolu_fake_1" && content.contains("quick brown fox")
            )),
            "<< result/success" => assert!(matches!(
                &evs[..],
                [
                    UiEvent::Usage {
                        input_tokens: 84,
                        output_tokens: 14,
                        ..
                    },
                    UiEvent::Done {
                        is_error: false,
                        num_turns: 2,
                        ..
                    }
                ]
            )),
            "<< system/permission_denied" => assert!(matches!(
                &evs[..],
                [UiEvent::PermissionDenied { tool_name, reason: Some(r), .. }] if tool_name == "Write" && r == "mode"
            )),
            "<< control_request hook_callback" => {
                // The lab's callback id is not Tether's: refused rather than guessed at.
                let written = only_write(&out);
                assert_eq!(written["response"]["subtype"], "error");
            }
            "<< system/status" => assert_eq!(
                evs,
                vec![UiEvent::Activity {
                    activity: Some("requesting".into())
                }]
            ),
            "<< stream_event message_start" => assert!(matches!(&evs[..], [UiEvent::MessageStart { .. }])),
            "<< stream_event content_block_delta" => {
                assert!(matches!(&evs[..], [UiEvent::TextDelta { text, .. }] if text == "Hello from th"))
            }
            "<< stream_event message_stop" => assert!(matches!(&evs[..], [UiEvent::MessageStop { .. }])),
            "<< stream_event content_block_start"
            | "<< stream_event content_block_stop"
            | "<< stream_event message_delta"
            | "<< control_cancel_request"
            | "<< user text"
            | "<< user text (replay)" => assert!(out.is_empty(), "{kind}: {out:?}"),
            "<< control_response success" | "<< control_response error" | "<< control_response success initialize" => {
                // Responses to requests this session did not send are ignored.
                assert!(out.is_empty() || kind.ends_with("initialize"), "{kind}: {out:?}")
            }
            "<< control_response success mcp_response" | "<< control_response success behavior=allow" => {
                assert!(out.is_empty(), "{kind}")
            }
            "<< result/error_during_execution" => assert!(evs.iter().any(|e| matches!(
                e,
                UiEvent::Error {
                    kind: ErrorKind::Interrupted,
                    severity: Severity::Notice,
                    ..
                }
            ))),
            "<< system/session_state_changed" => assert_eq!(
                evs,
                vec![UiEvent::Status {
                    state: SessionState::Running
                }]
            ),
            "<< system/api_retry" => assert!(matches!(
                &evs[..],
                [UiEvent::ApiRetry { attempt: 1, max_retries: 10, delay_ms: 522, error_status: Some(529), error }] if error == "overloaded"
            )),
            other => panic!("no expectation for example kind {other}"),
        }
    }
}

#[test]
fn example_initialize_response_gives_models_and_commands() {
    let mut session = Session::new(probe_config());
    session.start(probe_manifest()); // tether-1
    let example = examples()
        .into_iter()
        .find(|e| e.kind == "<< control_response success initialize")
        .unwrap();
    let line = example.line.replace("\"host_req_1\"", "\"tether-1\"");
    let evs = events(&session.on_line(&line));
    let UiEvent::SessionReady {
        agent_version,
        models,
        commands,
        ..
    } = &evs[0]
    else {
        panic!("{evs:?}")
    };
    assert_eq!(agent_version.as_deref(), Some("2.1.330"));
    assert!(models.iter().any(|m| m.value == "sonnet"), "{models:?}");
    assert!(commands.iter().any(|c| c.name == "compact"));
}

/// Replays the probe transcript (tests/probe, the real CLI 2.1.330) through a Session: every line
/// the probe wrote must be exactly what the Session writes, and the CLI's lines must give the
/// expected events.
#[test]
fn probe_transcript_replays_line_for_line() {
    let text = std::fs::read_to_string(fixture_path("claude-transcript-probe.jsonl")).unwrap();
    let mut session = Session::new(probe_config());
    let mut expected_writes: VecDeque<Value> = VecDeque::new();
    let mut mcp_calls: Vec<String> = Vec::new();
    let mut permissions: HashMap<String, PermissionRequest> = HashMap::new();
    let mut all_events: Vec<UiEvent> = Vec::new();
    let mut compared = 0;
    let mut context_requests = 0;
    for entry in text.lines().filter(|l| !l.trim().is_empty()) {
        let entry: Value = serde_json::from_str(entry).unwrap();
        let line = entry["line"].as_str().unwrap();
        match entry["dir"].as_str().unwrap() {
            "<<" => {
                let out = session.on_line(line);
                for o in out {
                    match o {
                        Output::WriteLine(l) => {
                            let write: Value = serde_json::from_str(&l).unwrap();
                            // The meter's request after each turn came after the probe was recorded.
                            if write["request"]["subtype"] == "get_context_usage" {
                                context_requests += 1;
                            } else {
                                expected_writes.push_back(write);
                            }
                        }
                        Output::McpCall { request_id, .. } => mcp_calls.push(request_id),
                        Output::PermissionRequest(p) => {
                            all_events.push(UiEvent::PermissionRequest(p.clone()));
                            permissions.insert(p.id.clone(), p);
                        }
                        Output::Event(e) => all_events.push(e),
                        Output::RunHooks { event, .. } => panic!("the probe registered no project hooks: {event:?}"),
                    }
                }
            }
            ">>" => {
                let recorded: Value = serde_json::from_str(line).unwrap();
                let ours: Option<Value> = match recorded["type"].as_str().unwrap() {
                    "user" => {
                        let text = recorded["message"]["content"][0]["text"].as_str().unwrap();
                        Some(only_write(&session.send_prompt(text, &[])))
                    }
                    "control_request" => {
                        let request = &recorded["request"];
                        let out = match request["subtype"].as_str().unwrap() {
                            "initialize" => session.start(probe_manifest()),
                            "set_permission_mode" => {
                                session.set_mode(PermissionMode::parse(request["mode"].as_str().unwrap()).unwrap())
                            }
                            "set_model" => session.set_model(request["model"].as_str()),
                            "mcp_status" => session.mcp_status(),
                            "interrupt" => session.interrupt(),
                            _ => Vec::new(), // a request a Session never makes (the probe's unknown one)
                        };
                        (!out.is_empty()).then(|| only_write(&out))
                    }
                    "control_response" => {
                        let id = recorded["response"]["request_id"].as_str().unwrap().to_string();
                        let answer = &recorded["response"]["response"];
                        if let Some(i) = mcp_calls.iter().position(|c| *c == id) {
                            mcp_calls.remove(i);
                            Some(only_write(
                                &session.mcp_reply(&id, Some(answer["mcp_response"].clone())),
                            ))
                        } else if permissions.remove(&id).is_some() {
                            let decision = if answer["behavior"] == "allow" {
                                PermissionAnswer::Allow {
                                    updated_input: None,
                                    updated_permissions: None,
                                }
                            } else {
                                PermissionAnswer::Deny {
                                    message: answer["message"].as_str().unwrap().into(),
                                    interrupt: false,
                                }
                            };
                            Some(only_write(&session.answer_permission(&id, decision)))
                        } else {
                            Some(expected_writes.pop_front().expect("the session wrote this answer"))
                        }
                    }
                    other => panic!("unexpected recorded line type {other}"),
                };
                if let Some(ours) = ours {
                    assert_eq!(ours, recorded, "line {compared}");
                    compared += 1;
                }
            }
            _ => {}
        }
    }
    assert!(expected_writes.is_empty(), "unsent answers: {expected_writes:?}");
    assert!(compared >= 20, "only {compared} lines compared");
    let results = all_events.iter().filter(|e| matches!(e, UiEvent::Done { .. })).count();
    assert_eq!(context_requests, results, "one get_context_usage after each turn");

    let has = |pred: &dyn Fn(&UiEvent) -> bool| all_events.iter().any(pred);
    assert!(has(
        &|e| matches!(e, UiEvent::SessionReady { agent_version: Some(v), .. } if v == "2.1.330")
    ));
    assert!(has(
        &|e| matches!(e, UiEvent::SessionInit { tools, .. } if tools.contains(&"mcp__tether__Read".to_string()))
    ));
    assert!(has(
        &|e| matches!(e, UiEvent::ToolCallStart { name, kind: ToolKind::Read, .. } if name == "Read")
    ));
    assert!(has(&|e| matches!(e, UiEvent::ToolInputDelta { .. })));
    assert!(has(
        &|e| matches!(e, UiEvent::ToolCallUpdate { title, .. } if title == "Read hello.txt")
    ));
    assert!(has(&|e| matches!(
        e,
        UiEvent::ToolCallResult { structured: Some(s), is_error: false, .. } if s["file"]["filePath"] == "/remote/project/hello.txt"
    )));
    let streamed_text: String = all_events
        .iter()
        .filter_map(|e| match e {
            UiEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(streamed_text.contains("The file says hello."), "{streamed_text}");
    // Streamed text is not repeated when the final assistant message arrives.
    assert_eq!(streamed_text.matches("The file says hello.").count(), 1);
    assert!(has(
        &|e| matches!(e, UiEvent::PermissionRequest(p) if p.tool_name == "Read" && p.agent_id.is_some())
    ));
    assert!(has(
        &|e| matches!(e, UiEvent::ModeChanged { mode } if mode == "acceptEdits")
    ));
    assert!(has(&|e| matches!(
        e,
        UiEvent::Error { kind: ErrorKind::ControlRequestFailed, message, .. } if message.contains("restricted mode")
    )));
    assert!(has(
        &|e| matches!(e, UiEvent::ModelChanged { model: Some(m) } if m == "claude-sonnet-5-5")
    ));
    assert!(has(
        &|e| matches!(e, UiEvent::McpStatus { servers } if servers[0].name == "tether")
    ));
    assert!(has(&|e| matches!(
        e,
        UiEvent::ApiRetry {
            error_status: Some(529),
            ..
        }
    )));
    assert!(has(&|e| matches!(
        e,
        UiEvent::ToolCallResult { is_error: true, content, .. } if content.starts_with("PreToolUse:Agent hook error: Tether policy")
    )));
    assert!(has(&|e| matches!(
        e,
        UiEvent::ToolCallResult { is_error: true, content, .. } if content.contains("No such tool available: Bash")
    )));
    assert!(has(
        &|e| matches!(e, UiEvent::TaskUpdate { status, .. } if status == "completed")
    ));
    assert!(has(&|e| matches!(e, UiEvent::PermissionCancelled { .. })));
    assert!(has(&|e| matches!(
        e,
        UiEvent::Error {
            kind: ErrorKind::Interrupted,
            severity: Severity::Notice,
            ..
        }
    )));
    assert!(has(&|e| matches!(
        e,
        UiEvent::Status {
            state: SessionState::Idle
        }
    )));
    let done = all_events.iter().filter(|e| matches!(e, UiEvent::Done { .. })).count();
    assert_eq!(done, 8, "one Done per prompt");
}

// ---------------------------------------------------------------------------------------------
// tolerance

#[test]
fn garbage_and_unknown_lines_are_tolerated() {
    let mut session = started_session();
    for garbage in [
        "",
        "   ",
        "not json",
        "[1,2,3]",
        "42",
        "{}",
        "{\"type\":\"mystery_message\",\"x\":1}",
        "{\"type\":\"assistant\",\"message\":\"oops\"}",
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\"},{\"type\":\"new_block\"}]}}",
        "{\"type\":\"user\",\"message\":{\"content\":42}}",
        "{\"type\":\"stream_event\",\"event\":{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\"}}}",
        "{\"type\":\"system\",\"subtype\":\"brand_new\"}",
        "{\"type\":\"system\",\"subtype\":\"init\",\"tools\":\"not a list\"}",
        "{\"type\":\"result\",\"subtype\":7}",
        "{\"type\":\"control_request\"}",
        "{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\"}}",
        "{\"type\":\"control_cancel_request\",\"request_id\":\"nobody\"}",
        "{\"type\":\"keep_alive\"}",
        "{\"type\":\"rate_limit_event\",\"rate_limit_info\":\"?\"}",
        "{\"type\":\"tool_progress\"}",
        "\u{feff}{\"type\":\"keep_alive\"}",
    ] {
        let out = session.on_line(garbage);
        assert!(write_lines(&out).is_empty(), "{garbage:?} → {out:?}");
    }
}

#[test]
fn garbage_control_request_with_an_id_still_gets_an_answer() {
    let mut session = started_session();
    let written = only_write(&session.on_line(
        r#"{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":42}}"#,
    ));
    assert_eq!(written["response"]["subtype"], "error");
    assert_eq!(written["response"]["request_id"], "r1");
}

#[test]
fn parse_sorts_lines_into_kinds() {
    assert!(matches!(
        CliMessage::parse("{\"type\":\"keep_alive\"}"),
        Ok(CliMessage::KeepAlive)
    ));
    assert!(matches!(
        CliMessage::parse("{\"type\":\"new\"}"),
        Ok(CliMessage::Unknown(_))
    ));
    assert!(CliMessage::parse("nope").is_err());
}

#[test]
fn known_message_with_a_field_of_the_wrong_type_stays_raw() {
    let line = r#"{"type":"result","subtype":"success","num_turns":"three","session_id":"s"}"#;
    assert!(matches!(CliMessage::parse(line), Ok(CliMessage::Unknown(_))));
    let line = r#"{"type":"tool_progress","tool_use_id":"t","tool_name":"Bash","elapsed_time_seconds":-1}"#;
    assert!(matches!(CliMessage::parse(line), Ok(CliMessage::Unknown(_))));
}

#[test]
fn missing_and_null_fields_take_their_defaults() {
    let line = r#"{"type":"result","subtype":"success","is_error":null,"usage":null,"errors":null}"#;
    let Ok(CliMessage::Result(result)) = CliMessage::parse(line) else {
        panic!("a result");
    };
    assert_eq!(result.subtype, "success");
    assert!(!result.is_error && result.usage.is_none() && result.errors.is_empty());
    assert_eq!((result.num_turns, result.session_id.as_str()), (0, ""));
}

// ---------------------------------------------------------------------------------------------
// MCP over mcp_message

#[test]
fn mcp_request_becomes_a_call_and_the_reply_the_exact_control_response() {
    let mut session = started_session();
    let message = json!({"method":"tools/call","params":{"name":"Read","arguments":{"file_path":"/remote/project/a"},"_meta":{"claudecode/toolUseId":"toolu_1","progressToken":2}},"jsonrpc":"2.0","id":2});
    let out = session.on_line(&line(json!({
        "type":"control_request","request_id":"m1",
        "request":{"subtype":"mcp_message","server_name":"tether","message": message}
    })));
    assert_eq!(
        out,
        vec![Output::McpCall {
            request_id: "m1".into(),
            message
        }]
    );
    let reply = json!({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}});
    let written = session.mcp_reply("m1", Some(reply.clone()));
    assert_eq!(
        written,
        vec![Output::WriteLine(line(json!({
            "type":"control_response",
            "response":{"subtype":"success","request_id":"m1","response":{"mcp_response": reply}}
        })))]
    );
    assert!(session.mcp_reply("m1", None).is_empty(), "answered once only");
}

#[test]
fn mcp_notification_gets_the_dummy_reply_at_once() {
    let mut session = started_session();
    let out = session.on_line(r#"{"type":"control_request","request_id":"n1","request":{"subtype":"mcp_message","server_name":"tether","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}}"#);
    assert_eq!(
        only_write(&out),
        json!({"type":"control_response","response":{"subtype":"success","request_id":"n1","response":{"mcp_response":{"jsonrpc":"2.0","result":{},"id":0}}}})
    );
}

#[test]
fn mcp_reply_without_a_response_still_answers() {
    let mut session = started_session();
    session.on_line(r#"{"type":"control_request","request_id":"m2","request":{"subtype":"mcp_message","server_name":"tether","message":{"jsonrpc":"2.0","method":"ping","id":9}}}"#);
    let written = only_write(&session.mcp_reply("m2", None));
    assert_eq!(
        written["response"]["response"]["mcp_response"],
        json!({"jsonrpc":"2.0","result":{},"id":0})
    );
}

#[test]
fn mcp_message_for_another_server_is_refused() {
    let mut session = started_session();
    let out = session.on_line(r#"{"type":"control_request","request_id":"m3","request":{"subtype":"mcp_message","server_name":"other","message":{"jsonrpc":"2.0","method":"tools/list","id":1}}}"#);
    let written = only_write(&out);
    assert_eq!(written["response"]["subtype"], "error");
    assert_eq!(written["response"]["error"], "Unknown MCP server: other");
}

#[test]
fn mcp_reply_after_the_cli_withdrew_the_call_is_dropped() {
    let mut session = started_session();
    session.on_line(r#"{"type":"control_request","request_id":"m4","request":{"subtype":"mcp_message","server_name":"tether","message":{"jsonrpc":"2.0","method":"tools/call","id":4,"params":{"name":"Bash"}}}}"#);
    assert!(session
        .on_line(r#"{"type":"control_cancel_request","request_id":"m4"}"#)
        .is_empty());
    assert!(session
        .mcp_reply("m4", Some(json!({"jsonrpc":"2.0","id":4,"result":{}})))
        .is_empty());
}

// ---------------------------------------------------------------------------------------------
// permissions

#[test]
fn can_use_tool_becomes_a_permission_request_with_the_builtin_name() {
    let mut session = started_session();
    let out = session.on_line(&can_use_tool(
        "p1",
        "mcp__tether__Write",
        json!({"agent_id": "a1", "blocked_path": "/remote/project/a.txt", "decision_reason": "outside", "title": "Write a.txt?", "description": "a.txt"}),
    ));
    let requests = permission_requests(&out);
    assert_eq!(out.len(), 1);
    let p = &requests[0];
    assert_eq!(p.id, "p1");
    assert_eq!(p.tool_name, "Write");
    assert_eq!(p.raw_tool_name, "mcp__tether__Write");
    assert_eq!(p.kind, ToolKind::Edit);
    assert_eq!(p.agent_id.as_deref(), Some("a1"));
    assert_eq!(p.blocked_path.as_deref(), Some("/remote/project/a.txt"));
    assert_eq!(p.decision_reason.as_deref(), Some("outside"));
    assert_eq!(p.title.as_deref(), Some("Write a.txt?"));
    assert_eq!(p.suggestions[0]["destination"], "localSettings");
    assert_eq!(p.input["content"], "hi\n");
}

#[test]
fn allow_answer_echoes_the_input_and_tool_use_id() {
    let mut session = started_session();
    session.on_line(&can_use_tool("p1", "mcp__tether__Write", json!({})));
    let out = session.answer_permission(
        "p1",
        PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: None,
        },
    );
    assert_eq!(
        only_write(&out),
        json!({"type":"control_response","response":{"subtype":"success","request_id":"p1","response":{
            "behavior":"allow","updatedInput":{"file_path":"/remote/project/a.txt","content":"hi\n"},"toolUseID":"toolu_1"}}})
    );
}

#[test]
fn allow_with_edited_input_sends_the_edited_input() {
    let mut session = started_session();
    session.on_line(&can_use_tool("p1", "mcp__tether__Write", json!({})));
    let edited = json!({"file_path":"/remote/project/a.txt","content":"edited by the user\n"});
    let out = session.answer_permission(
        "p1",
        PermissionAnswer::Allow {
            updated_input: Some(edited.clone()),
            updated_permissions: None,
        },
    );
    assert_eq!(only_write(&out)["response"]["response"]["updatedInput"], edited);
}

#[test]
fn always_allow_keeps_local_settings_rules_for_the_session_only() {
    let mut session = started_session();
    let out = session.on_line(&can_use_tool("p1", "mcp__tether__Write", json!({})));
    let suggestions = permission_requests(&out)[0].suggestions.clone();
    let out = session.answer_permission(
        "p1",
        PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: Some(suggestions),
        },
    );
    let response = &only_write(&out)["response"]["response"];
    assert_eq!(
        response["updatedPermissions"],
        json!([{"type":"addRules","rules":[{"toolName":"mcp__tether__Write"}],"behavior":"allow","destination":"session"}])
    );
    assert_eq!(response["decisionClassification"], "user_permanent");
}

#[test]
fn always_allow_goes_through_the_installed_route() {
    let mut session = started_session();
    // A permission engine that stores rules itself and lets only mode changes through.
    session.set_permission_update_route(Box::new(|u: Value| (u["type"] == "setMode").then_some(u)));
    session.on_line(&can_use_tool("p1", "mcp__tether__Write", json!({})));
    let updates = vec![
        json!({"type":"addRules","rules":[{"toolName":"mcp__tether__Write"}],"behavior":"allow","destination":"localSettings"}),
        json!({"type":"setMode","mode":"acceptEdits","destination":"session"}),
    ];
    let out = session.answer_permission(
        "p1",
        PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: Some(updates),
        },
    );
    assert_eq!(
        only_write(&out)["response"]["response"]["updatedPermissions"],
        json!([{"type":"setMode","mode":"acceptEdits","destination":"session"}])
    );
}

#[test]
fn deny_answer_carries_message_and_interrupt() {
    let mut session = started_session();
    session.on_line(&can_use_tool("p1", "mcp__tether__Bash", json!({})));
    let out = session.answer_permission(
        "p1",
        PermissionAnswer::Deny {
            message: "No.".into(),
            interrupt: true,
        },
    );
    assert_eq!(
        only_write(&out),
        json!({"type":"control_response","response":{"subtype":"success","request_id":"p1","response":{
            "behavior":"deny","message":"No.","interrupt":true,"toolUseID":"toolu_1"}}})
    );
    session.on_line(&can_use_tool("p2", "mcp__tether__Bash", json!({})));
    let out = session.answer_permission(
        "p2",
        PermissionAnswer::Deny {
            message: "No.".into(),
            interrupt: false,
        },
    );
    assert!(only_write(&out)["response"]["response"].get("interrupt").is_none());
}

#[test]
fn answering_an_unknown_or_answered_request_writes_nothing() {
    let mut session = started_session();
    let allow = || PermissionAnswer::Allow {
        updated_input: None,
        updated_permissions: None,
    };
    assert!(session.answer_permission("nope", allow()).is_empty());
    session.on_line(&can_use_tool("p1", "mcp__tether__Write", json!({})));
    assert_eq!(session.answer_permission("p1", allow()).len(), 1);
    assert!(session.answer_permission("p1", allow()).is_empty());
}

#[test]
fn cancel_request_closes_the_open_permission_prompt() {
    let mut session = started_session();
    session.on_line(&can_use_tool("p1", "mcp__tether__Write", json!({})));
    let out = session.on_line(r#"{"type":"control_cancel_request","request_id":"p1"}"#);
    assert_eq!(events(&out), vec![UiEvent::PermissionCancelled { id: "p1".into() }]);
    let allow = PermissionAnswer::Allow {
        updated_input: None,
        updated_permissions: None,
    };
    assert!(
        session.answer_permission("p1", allow).is_empty(),
        "a withdrawn prompt is not answered"
    );
}

// ---------------------------------------------------------------------------------------------
// the guard hook

#[test]
fn guard_lets_tether_tools_through() {
    let mut session = started_session();
    let response = guard_response(
        &mut session,
        json!({"hook_event_name":"PreToolUse","tool_name":"mcp__tether__Write","tool_input":{}}),
    );
    assert_eq!(response, json!({"continue": true}));
}

#[test]
fn guard_lets_the_ide_tools_through_in_read_only_agents_too() {
    let mut session = started_session();
    for tool in ["mcp__ide__getDiagnostics", "mcp__vscode__getDefinition"] {
        for agent in [None, Some("Explore")] {
            let mut input = json!({"hook_event_name":"PreToolUse","tool_name":tool,"tool_input":{}});
            if let Some(agent) = agent {
                input["agent_type"] = json!(agent);
            }
            assert_eq!(guard_response(&mut session, input), json!({"continue": true}));
        }
    }
}

#[test]
fn guard_denies_tools_that_would_run_locally() {
    let mut session = started_session();
    for tool in [
        "Bash",
        "Grep",
        "Glob",
        "Read",
        "EnterWorktree",
        "Monitor",
        "mcp__other__x",
    ] {
        let response = guard_response(
            &mut session,
            json!({"hook_event_name":"PreToolUse","tool_name":tool,"tool_input":{}}),
        );
        let reason = denied_reason(&response).unwrap_or_else(|| panic!("{tool} was let through"));
        assert!(reason.contains("would run on this machine"), "{reason}");
        assert_eq!(response["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    }
}

#[test]
fn guard_lets_allowlisted_builtins_through() {
    let mut session = started_session();
    for tool in ["WebFetch", "Agent", "Task", "ExitPlanMode", "AskUserQuestion"] {
        let response = guard_response(
            &mut session,
            json!({"hook_event_name":"PreToolUse","tool_name":tool,"tool_input":{"prompt":"x"}}),
        );
        assert_eq!(response, json!({"continue": true}), "{tool}");
    }
}

#[test]
fn guard_denies_agent_isolation() {
    let mut session = started_session();
    let response = guard_response(
        &mut session,
        json!({"hook_event_name":"PreToolUse","tool_name":"Agent","tool_input":{"prompt":"x","isolation":"worktree"}}),
    );
    assert!(denied_reason(&response).unwrap().contains("isolation is not available"));
}

#[test]
fn guard_keeps_explore_and_plan_read_only() {
    let mut session = started_session();
    for (agent, tool) in [
        ("Explore", "Write"),
        ("Plan", "Bash"),
        ("Explore", "Edit"),
        ("Plan", "KillShell"),
    ] {
        let response = guard_response(
            &mut session,
            json!({"hook_event_name":"PreToolUse","tool_name":format!("mcp__tether__{tool}"),"agent_type":agent,"agent_id":"a1","tool_input":{}}),
        );
        assert!(denied_reason(&response)
            .unwrap()
            .contains(&format!("the {agent} agent is read-only")));
    }
    for tool in ["Read", "Glob", "Grep", "LS"] {
        let response = guard_response(
            &mut session,
            json!({"hook_event_name":"PreToolUse","tool_name":format!("mcp__tether__{tool}"),"agent_type":"Explore","tool_input":{}}),
        );
        assert_eq!(response, json!({"continue": true}), "{tool}");
    }
    let general = guard_response(
        &mut session,
        json!({"hook_event_name":"PreToolUse","tool_name":"mcp__tether__Write","agent_type":"general-purpose","tool_input":{}}),
    );
    assert_eq!(general, json!({"continue": true}));
}

#[test]
fn guard_has_no_opinion_on_other_hook_events() {
    let mut session = started_session();
    let response = guard_response(
        &mut session,
        json!({"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{}}),
    );
    assert_eq!(response, json!({"continue": true}));
}

#[test]
fn unknown_hook_callback_is_refused() {
    let mut session = started_session();
    let out = session.on_line(r#"{"type":"control_request","request_id":"h9","request":{"subtype":"hook_callback","callback_id":"someone-else","input":{}}}"#);
    let written = only_write(&out);
    assert_eq!(written["response"]["subtype"], "error");
    assert_eq!(written["response"]["error"], "Unknown hook callback: someone-else");
}

// ---------------------------------------------------------------------------------------------
// other requests from the CLI

#[test]
fn unknown_incoming_request_gets_an_error_response() {
    let mut session = started_session();
    let out = session.on_line(
        r#"{"type":"control_request","request_id":"u1","request":{"subtype":"request_user_dialog","kind":"x"}}"#,
    );
    assert_eq!(
        only_write(&out),
        json!({"type":"control_response","response":{"subtype":"error","request_id":"u1","error":"Unsupported control request subtype: request_user_dialog"}})
    );
}

#[test]
fn elicitation_is_declined() {
    let mut session = started_session();
    let out = session.on_line(r#"{"type":"control_request","request_id":"e1","request":{"subtype":"elicitation","mcp_server_name":"x","message":"?"}}"#);
    assert_eq!(only_write(&out)["response"]["response"], json!({"action":"decline"}));
}

// ---------------------------------------------------------------------------------------------
// our own requests

#[test]
fn initialize_declares_server_manifest_guard_agents_and_prompt() {
    let mut session = Session::new(probe_config());
    let request = only_write(&session.start(probe_manifest()));
    assert_eq!(request["type"], "control_request");
    assert_eq!(request["request_id"], "tether-1");
    let body = &request["request"];
    assert_eq!(body["subtype"], "initialize");
    assert_eq!(body["sdkMcpServers"], json!(["tether"]));
    assert_eq!(
        body["sdkMcpServerManifests"]["tether"]["initializeResult"]["protocolVersion"],
        "2025-11-25"
    );
    assert_eq!(
        body["sdkMcpServerManifests"]["tether"]["toolsListResult"]["tools"][0]["name"],
        "Read"
    );
    assert_eq!(
        body["hooks"],
        json!({"PreToolUse":[{"matcher":".*","hookCallbackIds":["tether-guard"]}]})
    );
    assert_eq!(body["toolAliases"]["Read"], "mcp__tether__Read");
    assert_eq!(body["toolAliases"]["Bash"], "mcp__tether__Bash");
    assert_eq!(body["toolAliases"].as_object().unwrap().len(), 11);
    for agent in ["Explore", "Plan"] {
        assert_eq!(
            body["agents"][agent]["tools"],
            json!([
                "mcp__tether__Read",
                "mcp__tether__Glob",
                "mcp__tether__Grep",
                "mcp__tether__LS"
            ])
        );
        assert!(body["agents"][agent]["prompt"]
            .as_str()
            .unwrap()
            .contains("/remote/project"));
    }
    let prompt = body["appendSystemPrompt"].as_str().unwrap();
    for needle in [
        "Working directory: /remote/project",
        "Platform: Linux",
        "Shell: bash",
        "Git branch: main",
        "mcp__tether__Edit",
    ] {
        assert!(prompt.contains(needle), "{needle}");
    }
    assert!(
        body.get("systemPrompt").is_none(),
        "the Claude Code preset prompt must stay"
    );
}

#[test]
fn control_requests_have_the_cli_shapes_and_their_responses_are_matched() {
    let mut session = started_session(); // tether-1 = initialize
    assert_eq!(
        only_write(&session.set_mode(PermissionMode::AcceptEdits)),
        json!({"type":"control_request","request_id":"tether-2","request":{"subtype":"set_permission_mode","mode":"acceptEdits"}})
    );
    assert_eq!(
        only_write(&session.set_model(Some("opus"))),
        json!({"type":"control_request","request_id":"tether-3","request":{"subtype":"set_model","model":"opus"}})
    );
    assert_eq!(
        only_write(&session.mcp_status()),
        json!({"type":"control_request","request_id":"tether-4","request":{"subtype":"mcp_status"}})
    );
    assert_eq!(
        only_write(&session.interrupt()),
        json!({"type":"control_request","request_id":"tether-5","request":{"subtype":"interrupt"}})
    );
    let respond = |id: &str, response: Value| {
        line(json!({"type":"control_response","response":{"subtype":"success","request_id":id,"response":response}}))
    };
    assert_eq!(
        events(&session.on_line(&respond("tether-2", json!({"mode":"acceptEdits"})))),
        vec![UiEvent::ModeChanged {
            mode: "acceptEdits".into()
        }]
    );
    assert_eq!(
        events(&session.on_line(&respond("tether-3", json!({"model":"claude-opus-5-5"})))),
        vec![UiEvent::ModelChanged {
            model: Some("claude-opus-5-5".into())
        }]
    );
    let status = events(&session.on_line(&respond(
        "tether-4",
        json!({"mcpServers":[{"name":"tether","status":"connected","transport":"sdk"}]}),
    )));
    assert!(matches!(&status[..], [UiEvent::McpStatus { servers }] if servers[0].status == "connected"));
    assert!(session
        .on_line(&respond("tether-5", json!({"still_queued":[]})))
        .is_empty());
    // Each response is matched once; a repeat, or one for an id we never sent, is ignored.
    assert!(session.on_line(&respond("tether-2", json!({"mode":"plan"}))).is_empty());
    assert!(session.on_line(&respond("tether-99", json!({}))).is_empty());
}

#[test]
fn mode_change_reported_by_status_is_announced_once() {
    let mut session = started_session();
    let status = r#"{"type":"system","subtype":"status","status":null,"permissionMode":"plan"}"#;
    let first = events(&session.on_line(status));
    assert_eq!(first[0], UiEvent::ModeChanged { mode: "plan".into() });
    let again = events(&session.on_line(status));
    assert!(!again.iter().any(|e| matches!(e, UiEvent::ModeChanged { .. })));
}

#[test]
fn refused_control_request_becomes_an_error_event() {
    let mut session = started_session();
    session.set_mode(PermissionMode::BypassPermissions);
    let out = session.on_line(r#"{"type":"control_response","response":{"subtype":"error","request_id":"tether-2","error":"bypassPermissions not supported in restricted mode","error_code":"bypass_restricted"}}"#);
    assert_eq!(
        events(&out),
        vec![UiEvent::error(
            ErrorKind::ControlRequestFailed,
            Severity::Error,
            "set_permission_mode failed: bypassPermissions not supported in restricted mode".into(),
            None,
        )]
    );
}

#[test]
fn tools_changed_notification_goes_to_the_cli() {
    let mut session = started_session();
    assert_eq!(
        only_write(&session.notify_tools_changed()),
        json!({"type":"control_request","request_id":"tether-2","request":{"subtype":"mcp_message","server_name":"tether","message":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}})
    );
}

#[test]
fn prompt_with_images_puts_images_before_text() {
    let mut session = started_session();
    let image = ImageInput {
        media_type: "image/png".into(),
        data_base64: "iVBORw0KGgo=".into(),
    };
    assert_eq!(
        only_write(&session.send_prompt("What is this?", &[image])),
        json!({"type":"user","session_id":"","message":{"role":"user","content":[
            {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
            {"type":"text","text":"What is this?"}
        ]},"parent_tool_use_id":null})
    );
}

// ---------------------------------------------------------------------------------------------
// stdout → events

fn result_line(extra: Value) -> String {
    let mut result = json!({"type":"result","subtype":"success","is_error":false,"duration_ms":5,"num_turns":1,
        "session_id":"s1","total_cost_usd":0.001,"usage":{"input_tokens":3,"output_tokens":4}});
    if let (Some(result), Value::Object(extra)) = (result.as_object_mut(), extra) {
        result.extend(extra);
    }
    line(result)
}

fn error_event(events: &[UiEvent]) -> Option<(ErrorKind, Severity, String, Option<String>)> {
    events.iter().find_map(|e| match e {
        UiEvent::Error {
            kind,
            severity,
            message,
            hint,
            ..
        } => Some((*kind, *severity, message.clone(), hint.clone())),
        _ => None,
    })
}

#[test]
fn not_logged_in_result_gives_a_login_hint() {
    let mut session = started_session();
    let evs = events(&session.on_line(&result_line(
        json!({"is_error":true,"result":"Not logged in · Please run /login"}),
    )));
    let (kind, severity, _, hint) = error_event(&evs).unwrap();
    assert_eq!((kind, severity), (ErrorKind::NotLoggedIn, Severity::Error));
    assert!(hint.unwrap().contains("/login"));
    assert!(matches!(evs.last(), Some(UiEvent::Done { is_error: true, .. })));
}

#[test]
fn max_turns_result_is_a_notice() {
    let mut session = started_session();
    let evs = events(&session.on_line(&result_line(
        json!({"subtype":"error_max_turns","is_error":true,"num_turns":9}),
    )));
    let (kind, severity, message, _) = error_event(&evs).unwrap();
    assert_eq!((kind, severity), (ErrorKind::MaxTurns, Severity::Notice));
    assert!(message.contains('9'));
}

#[test]
fn execution_error_is_an_error_unless_the_user_stopped_the_turn() {
    let mut session = started_session();
    let failed =
        json!({"subtype":"error_during_execution","is_error":true,"errors":["boom"],"terminal_reason":"model_error"});
    let evs = events(&session.on_line(&result_line(failed.clone())));
    assert_eq!(error_event(&evs).unwrap().0, ErrorKind::ExecutionError);
    assert_eq!(error_event(&evs).unwrap().2, "boom");
    session.interrupt();
    let evs = events(&session.on_line(&result_line(failed)));
    assert_eq!(error_event(&evs).unwrap().0, ErrorKind::Interrupted);
}

#[test]
fn successful_result_reports_usage_and_done() {
    let mut session = started_session();
    let evs = events(&session.on_line(&result_line(json!({"result":"ok","stop_reason":"end_turn"}))));
    assert_eq!(
        evs,
        vec![
            UiEvent::Usage {
                input_tokens: 3,
                output_tokens: 4,
                cache_read_tokens: 0,
                cache_creation_tokens: 0,
                cost_usd: Some(0.001)
            },
            UiEvent::Done {
                subtype: "success".into(),
                is_error: false,
                duration_ms: 5,
                num_turns: 1,
                session_id: "s1".into(),
                result: Some("ok".into()),
                stop_reason: Some("end_turn".into()),
            },
        ]
    );
}

fn stream(event: Value) -> String {
    line(
        json!({"type":"stream_event","event":event,"session_id":"s1","parent_tool_use_id":null,"api_message_id":"msg_1"}),
    )
}

#[test]
fn streamed_tool_call_starts_then_streams_input_then_updates() {
    let mut session = started_session();
    let mut evs = Vec::new();
    for l in [
        stream(json!({"type":"message_start","message":{"id":"msg_1"}})),
        stream(json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})),
        stream(json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me look."}})),
        stream(json!({"type":"content_block_stop","index":0})),
        stream(
            json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_9","name":"mcp__tether__Edit","input":{}}}),
        ),
        stream(
            json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"file_path\":"}}),
        ),
        stream(json!({"type":"content_block_stop","index":1})),
        line(
            json!({"type":"assistant","message":{"id":"msg_1","content":[{"type":"text","text":"Let me look."}]},"parent_tool_use_id":null,"session_id":"s1"}),
        ),
        line(
            json!({"type":"assistant","message":{"id":"msg_1","content":[{"type":"tool_use","id":"toolu_9","name":"mcp__tether__Edit","input":{"file_path":"/remote/project/src/a.rs","old_string":"a","new_string":"b"}}]},"parent_tool_use_id":null,"session_id":"s1"}),
        ),
        stream(json!({"type":"message_delta","delta":{"stop_reason":"tool_use"}})),
        stream(json!({"type":"message_stop"})),
    ] {
        evs.extend(events(&session.on_line(&l)));
    }
    let expected = vec![
        UiEvent::MessageStart {
            message_id: "msg_1".into(),
            parent_tool_use_id: None,
        },
        UiEvent::TextDelta {
            message_id: Some("msg_1".into()),
            text: "Let me look.".into(),
            parent_tool_use_id: None,
        },
        UiEvent::ToolCallStart {
            id: "toolu_9".into(),
            name: "Edit".into(),
            input: json!({}),
            kind: ToolKind::Edit,
            title: "Edit".into(),
            locations: vec![],
            parent_tool_use_id: None,
        },
        UiEvent::ToolInputDelta {
            id: "toolu_9".into(),
            partial_json: "{\"file_path\":".into(),
        },
        UiEvent::ToolCallUpdate {
            id: "toolu_9".into(),
            input: json!({"file_path":"/remote/project/src/a.rs","old_string":"a","new_string":"b"}),
            title: "Edit src/a.rs".into(),
            locations: vec![tether_core::events::Location {
                path: "/remote/project/src/a.rs".into(),
                line: None,
            }],
        },
        UiEvent::MessageStop {
            message_id: "msg_1".into(),
            stop_reason: Some("tool_use".into()),
        },
    ];
    assert_eq!(evs, expected);
}

#[test]
fn unstreamed_assistant_message_gives_text_and_tool_call() {
    let mut session = started_session();
    let evs = events(&session.on_line(&line(json!({"type":"assistant","message":{"id":"msg_2","content":[
        {"type":"thinking","thinking":"hmm"},
        {"type":"text","text":"Reading."},
        {"type":"tool_use","id":"toolu_2","name":"mcp__tether__Read","input":{"file_path":"/elsewhere/x","offset":10,"limit":5}}
    ]},"parent_tool_use_id":"toolu_parent","session_id":"s1"}))));
    assert!(matches!(&evs[0], UiEvent::MessageStart { parent_tool_use_id: Some(p), .. } if p == "toolu_parent"));
    assert!(matches!(&evs[1], UiEvent::ThinkingDelta { text, .. } if text == "hmm"));
    assert!(matches!(&evs[2], UiEvent::TextDelta { text, .. } if text == "Reading."));
    assert!(matches!(
        &evs[3],
        UiEvent::ToolCallStart { name, kind: ToolKind::Read, title, locations, parent_tool_use_id: Some(_), .. }
            if name == "Read" && title == "Read /elsewhere/x (lines 10-14)" && locations[0].line == Some(10)
    ));
}

#[test]
fn todo_write_gives_a_todo_update() {
    let mut session = started_session();
    let evs = events(
        &session.on_line(&line(json!({"type":"assistant","message":{"id":"m","content":[
            {"type":"tool_use","id":"t1","name":"TodoWrite","input":{"todos":[
                {"content":"Write tests","status":"in_progress","activeForm":"Writing tests"},
                {"content":"Ship","status":"pending","activeForm":"Shipping"}
            ]}}
        ]}}))),
    );
    let todos = evs.iter().find_map(|e| match e {
        UiEvent::TodoUpdate { todos } => Some(todos.clone()),
        _ => None,
    });
    let todos = todos.expect("a todo update");
    assert_eq!(todos.len(), 2);
    assert_eq!(todos[0].status, "in_progress");
    assert_eq!(todos[0].active_form.as_deref(), Some("Writing tests"));
}

#[test]
fn exit_plan_mode_result_gives_the_plan() {
    let mut session = started_session();
    session.on_line(&line(json!({"type":"assistant","message":{"id":"m","content":[
        {"type":"tool_use","id":"t1","name":"ExitPlanMode","input":{}}]}})));
    let evs = events(
        &session.on_line(&line(json!({"type":"user","message":{"role":"user","content":[
        {"type":"tool_result","tool_use_id":"t1","content":"User has approved your plan."}]},
        "tool_use_result":{"plan":"1. Do it","isAgent":false,"filePath":"/home/u/.claude/plans/p.md"}}))),
    );
    assert!(matches!(&evs[0], UiEvent::ToolCallResult { id, is_error: false, .. } if id == "t1"));
    assert_eq!(
        evs[1],
        UiEvent::Plan {
            tool_call_id: "t1".into(),
            plan: Some("1. Do it".into()),
            file_path: Some("/home/u/.claude/plans/p.md".into()),
        }
    );
}

#[test]
fn tether_tool_result_exposes_the_structured_result_from_meta() {
    let mut session = started_session();
    let evs = events(&session.on_line(&line(json!({"type":"user","message":{"role":"user","content":[
        {"tool_use_id":"t1","type":"tool_result","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]},
        "tool_use_result":{"content":[{"type":"text","text":"a"}],"_meta":{"tether/toolResult":{"type":"update","filePath":"/r/x"}}}}))));
    assert_eq!(
        evs,
        vec![UiEvent::ToolCallResult {
            id: "t1".into(),
            is_error: false,
            content: "a\nb".into(),
            structured: Some(json!({"type":"update","filePath":"/r/x"})),
            parent_tool_use_id: None,
        }]
    );
}

#[test]
fn replayed_user_messages_give_no_events() {
    let mut session = started_session();
    let out = session.on_line(r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]},"isReplay":true}"#);
    assert!(out.is_empty());
}

#[test]
fn system_messages_map_to_events() {
    let mut session = started_session();
    let cases = [
        (
            r#"{"type":"system","subtype":"session_state_changed","state":"requires_action"}"#,
            UiEvent::Status {
                state: SessionState::RequiresAction,
            },
        ),
        (
            // As CLI 2.1.330 sends it after a `rename_session` control request.
            r#"{"type":"system","subtype":"session_title_changed","title":"My renamed","uuid":"u","session_id":"s"}"#,
            UiEvent::SessionInfo {
                title: Some("My renamed".into()),
                updated_at: None,
            },
        ),
        (
            r#"{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"auto","pre_tokens":1000}}"#,
            UiEvent::Compacted {
                trigger: Some("auto".into()),
                pre_tokens: Some(1000),
            },
        ),
        (
            r#"{"type":"system","subtype":"permission_denied","tool_name":"mcp__tether__Bash","tool_use_id":"t","agent_id":"a","decision_reason_type":"rule","message":"no"}"#,
            UiEvent::PermissionDenied {
                tool_use_id: "t".into(),
                tool_name: "Bash".into(),
                message: Some("no".into()),
                reason: Some("rule".into()),
                agent_id: Some("a".into()),
            },
        ),
        (
            r#"{"type":"system","subtype":"task_started","task_id":"k","tool_use_id":"t","description":"Find"}"#,
            UiEvent::TaskUpdate {
                task_id: "k".into(),
                tool_use_id: Some("t".into()),
                status: "started".into(),
                description: Some("Find".into()),
                summary: None,
                output: None,
                exit_code: None,
            },
        ),
        (
            r#"{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1700000000,"rateLimitType":"five_hour"}}"#,
            UiEvent::RateLimit {
                status: "allowed_warning".into(),
                resets_at: Some(1700000000),
                limit_type: Some("five_hour".into()),
            },
        ),
        (
            r#"{"type":"tool_progress","tool_use_id":"t","tool_name":"mcp__tether__Bash","parent_tool_use_id":null,"elapsed_time_seconds":12}"#,
            UiEvent::ToolProgress {
                id: "t".into(),
                name: "Bash".into(),
                elapsed_seconds: 12,
            },
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(events(&session.on_line(input)), vec![expected], "{input}");
    }
}

#[test]
fn events_serialize_camel_case_with_a_type_tag() {
    let event = UiEvent::ToolCallStart {
        id: "t".into(),
        name: "Read".into(),
        input: json!({}),
        kind: ToolKind::SwitchMode,
        title: "x".into(),
        locations: vec![],
        parent_tool_use_id: None,
    };
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({"type":"toolCallStart","id":"t","name":"Read","input":{},"kind":"switch_mode","title":"x","locations":[],"parentToolUseId":null})
    );
    let status = serde_json::to_value(UiEvent::Status {
        state: SessionState::RequiresAction,
    })
    .unwrap();
    assert_eq!(status, json!({"type":"status","state":"requiresAction"}));
    let mut session = started_session();
    let out = session.on_line(&can_use_tool("p1", "mcp__tether__Write", json!({})));
    let prompt = serde_json::to_value(UiEvent::PermissionRequest(permission_requests(&out)[0].clone())).unwrap();
    assert_eq!(prompt["type"], "permissionRequest");
    assert_eq!(prompt["toolName"], "Write");
    assert_eq!(prompt["toolUseId"], "toolu_1");
    assert_eq!(prompt["requiresUserInteraction"], false);
}

// ---------------------------------------------------------------------------------------------
// launch

#[test]
fn launch_arguments_select_the_protocol_and_lock_down_local_tools() {
    let args = LaunchConfig {
        model: Some("opus".into()),
        resume: Some("0b5a7f4e-0000-4000-8000-000000000000".into()),
        permission_mode: PermissionMode::Plan,
        allowed_tools: vec!["mcp__tether__Read".into()],
        disallowed_tools: vec!["WebSearch".into()],
        ..LaunchConfig::default()
    }
    .args();
    for expected in [
        "--output-format=stream-json",
        "--verbose",
        "--input-format=stream-json",
        "--permission-prompt-tool=stdio",
        "--permission-mode=plan",
        "--model=opus",
        "--resume=0b5a7f4e-0000-4000-8000-000000000000",
        "--include-partial-messages",
        "--setting-sources=",
        "--strict-mcp-config",
        "--restricted",
        "--allowedTools=mcp__tether__Read",
    ] {
        assert!(args.iter().any(|a| a == expected), "{expected} missing from {args:?}");
    }
    let tools = args.iter().find_map(|a| a.strip_prefix("--tools=")).unwrap();
    assert!(tools.split(',').any(|t| t == "Agent"));
    assert!(!tools
        .split(',')
        .any(|t| ["Read", "Write", "Edit", "Bash", "Glob", "Grep"].contains(&t)));
    let disallowed: Vec<&str> = args
        .iter()
        .find_map(|a| a.strip_prefix("--disallowedTools="))
        .unwrap()
        .split(',')
        .collect();
    for tool in [
        "Read",
        "Write",
        "Edit",
        "MultiEdit",
        "NotebookEdit",
        "Glob",
        "Grep",
        "Bash",
        "Monitor",
        "EnterWorktree",
        "WebSearch",
    ] {
        assert!(disallowed.contains(&tool), "{tool}");
    }
}

#[test]
fn launch_with_chosen_setting_sources_and_without_restricted() {
    use tether_core::claude::launch::SettingSource;
    let args = LaunchConfig {
        setting_sources: vec![SettingSource::Project, SettingSource::Local],
        restricted: false,
        include_partial_messages: false,
        ..LaunchConfig::default()
    }
    .args();
    assert!(args.contains(&"--setting-sources=project,local".to_string()));
    assert!(!args.contains(&"--restricted".to_string()));
    assert!(!args.contains(&"--include-partial-messages".to_string()));
}

#[test]
fn launch_env_drops_inherited_trouble_and_sets_the_sdk_entrypoint() {
    let parent = [
        ("PATH", "/usr/bin"),
        ("CLAUDECODE", "1"),
        ("NODE_OPTIONS", "--require evil.js"),
        ("debug", "*"),
        ("CLAUDE_CODE_ENTRYPOINT", "cli"),
        ("HOME", "/home/u"),
    ]
    .map(|(k, v)| (k.to_string(), v.to_string()));
    let config = LaunchConfig {
        env: vec![
            ("ANTHROPIC_API_KEY".into(), "sk-test".into()),
            ("HOME".into(), "/tmp/h".into()),
        ],
        ..LaunchConfig::default()
    };
    let env = config.build(parent).env;
    assert!(!env.contains_key("CLAUDECODE"));
    assert!(!env.contains_key("NODE_OPTIONS"));
    assert!(!env.contains_key("debug"));
    assert_eq!(env["PATH"], "/usr/bin");
    assert_eq!(env["CLAUDE_CODE_ENTRYPOINT"], "sdk-ts");
    assert_eq!(env["CLAUDE_CODE_DISABLE_AUTO_MEMORY"], "1");
    assert_eq!(env["CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS"], "1");
    assert_eq!(env["ANTHROPIC_API_KEY"], "sk-test");
    assert_eq!(env["HOME"], "/tmp/h", "the user's variables win");
}

#[test]
fn tool_titles_show_workspace_paths_relative_to_the_root() {
    use tether_core::events::describe_tool;
    let cwd = Some("/remote/project");
    let title = |name: &str, input: Value| describe_tool(name, &input, cwd).title;
    assert_eq!(
        title("Write", json!({"file_path":"/remote/project/src/main.rs"})),
        "Write src/main.rs"
    );
    assert_eq!(title("LS", json!({"path":"/remote/project"})), "List .");
    assert_eq!(
        title("Read", json!({"file_path":"/remote/projectX/a"})),
        "Read /remote/projectX/a"
    );
    assert_eq!(
        title("Grep", json!({"pattern":"fn main","path":"/remote/project/src"})),
        "Search fn main in src"
    );
    assert_eq!(title("Bash", json!({"command":"cargo test\necho done"})), "cargo test…");
    assert_eq!(title("Bash", json!({"command":"é".repeat(200)})).chars().count(), 121);
    assert_eq!(describe_tool("Bash", &json!({}), cwd).kind, ToolKind::Execute);
    assert_eq!(describe_tool("Mystery", &json!(null), cwd).kind, ToolKind::Other);
}

/// Every field of every real line (to depth 3), replaced in turn by a value of another type:
/// the session must neither panic nor leave a CLI request without an answer.
#[test]
fn type_confused_fields_never_panic() {
    fn paths(value: &Value, prefix: String, depth: usize, out: &mut Vec<String>) {
        if depth == 0 {
            return;
        }
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    let p = format!("{prefix}/{}", k.replace('~', "~0").replace('/', "~1"));
                    out.push(p.clone());
                    paths(v, p, depth - 1, out);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate().take(3) {
                    let p = format!("{prefix}/{i}");
                    out.push(p.clone());
                    paths(v, p, depth - 1, out);
                }
            }
            _ => {}
        }
    }
    let replacements = [json!(null), json!(42), json!("x"), json!([]), json!({})];
    let mut session = started_session();
    for example in examples() {
        let original: Value = serde_json::from_str(&example.line.replace("bridge", "tether")).unwrap();
        let mut fields = Vec::new();
        paths(&original, String::new(), 3, &mut fields);
        for path in fields {
            for replacement in &replacements {
                let mut mutated = original.clone();
                if let Some(slot) = mutated.pointer_mut(&path) {
                    *slot = replacement.clone();
                }
                let out = session.on_line(&mutated.to_string());
                let is_cli_request = mutated["type"] == "control_request"
                    && mutated["request_id"].is_string()
                    && example.kind.starts_with("<<");
                if is_cli_request {
                    let answered = out.iter().any(|o| !matches!(o, Output::Event(_)));
                    assert!(answered, "{} with {path} = {replacement} got no answer", example.kind);
                }
            }
        }
    }
}
