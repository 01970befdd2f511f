//! ACP types against frames real agents sent: the ones quoted in `shared/reference/acp-*.md`
//! (claude-agent-acp 0.101.0, gemini-cli 0.61.0, codex-acp 2.6.0), and whole transcripts recorded
//! from the three agents by `tests/acp/agents.test.mjs` (`tests/acp/frames/*.ndjson`).

use serde_json::{json, Value};
use tether_core::acp::protocol::dispatch::{AgentNotification, AgentRequest};
use tether_core::acp::protocol::permission::{PermissionOptionKind, RequestPermissionResponse};
use tether_core::acp::protocol::terminal::TerminalDisplay;
use tether_core::acp::protocol::tool_call::{ToolCall, ToolCallContent, ToolCallStatus, ToolKind};
use tether_core::acp::protocol::update::SessionUpdate;

/// The update of a `session/update` frame.
fn update(frame: Value) -> SessionUpdate {
    assert_eq!(frame["method"], "session/update");
    match AgentNotification::parse("session/update", frame["params"].clone()).unwrap() {
        AgentNotification::SessionUpdate(n) => n.update,
        other => panic!("not an update: {other:?}"),
    }
}

fn tool_call(frame: Value) -> ToolCall {
    match update(frame) {
        SessionUpdate::ToolCall(call) => call,
        other => panic!("not a tool_call: {other:?}"),
    }
}

/// acp-client-facts.md: the spec's edit and its permission request, both answers.
#[test]
fn the_specs_edit_and_permission_request() {
    let call = tool_call(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{
     "sessionUpdate":"tool_call","toolCallId":"call_7","title":"Edit config.json","kind":"edit",
     "status":"pending","locations":[{"path":"/p/src/config.json","line":1}],"rawInput":{},
     "content":[{"type":"diff","path":"/p/src/config.json","oldText":"{\n  \"debug\": false\n}","newText":"{\n  \"debug\": true\n}"}]}}}),
    );
    assert_eq!((call.kind, call.status), (ToolKind::Edit, ToolCallStatus::Pending));
    assert_eq!(call.locations[0].line, Some(1));
    let ToolCallContent::Diff(diff) = &call.content[0] else {
        panic!()
    };
    assert_eq!(diff.old_text.as_deref(), Some("{\n  \"debug\": false\n}"));

    let frame = json!({"jsonrpc":"2.0","id":5,"method":"session/request_permission","params":{"sessionId":"s1",
     "toolCall":{"toolCallId":"call_7"},
     "options":[{"optionId":"allow-once","name":"Allow once","kind":"allow_once"},
                {"optionId":"always","name":"Always allow","kind":"allow_always"},
                {"optionId":"reject","name":"Reject","kind":"reject_once"}]}});
    let AgentRequest::RequestPermission(ask) =
        AgentRequest::parse("session/request_permission", frame["params"].clone()).unwrap()
    else {
        panic!()
    };
    assert_eq!(ask.tool_call.tool_call_id, "call_7");
    assert_eq!(
        ask.options.iter().map(|o| o.kind.clone()).collect::<Vec<_>>(),
        [
            PermissionOptionKind::AllowOnce,
            PermissionOptionKind::AllowAlways,
            PermissionOptionKind::RejectOnce
        ]
    );
    assert_eq!(
        serde_json::to_value(RequestPermissionResponse::selected("allow-once")).unwrap(),
        json!({"outcome":{"outcome":"selected","optionId":"allow-once"}})
    );
    assert_eq!(
        serde_json::to_value(RequestPermissionResponse::cancelled()).unwrap(),
        json!({"outcome":{"outcome":"cancelled"}})
    );
}

/// acp-claude-agent-offline.md §5: a Write's placeholder call, its diff for a new file, a Bash
/// terminal the client never created, a refusal.
#[test]
fn claude_agent_acp_tool_calls() {
    let write = tool_call(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{
        "sessionUpdate":"tool_call","toolCallId":"toolu_1","name":"Write","title":"Preparing file…","kind":"edit",
        "status":"pending","rawInput":{},"content":[],"locations":[],"_meta":{"claudeCode":{"toolName":"Write"}}}}}),
    );
    assert_eq!(write.title, "Preparing file…");
    assert_eq!(write.meta.unwrap()["claudeCode"]["toolName"], "Write");

    let SessionUpdate::ToolCallUpdate(diff) = update(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{
        "sessionUpdate":"tool_call_update","toolCallId":"toolu_1","title":"Write notes.txt",
        "content":[{"type":"diff","path":"/p/builtin.txt","oldText":null,"newText":"hello\n"}],
        "_meta":{"claudeCode":{"toolName":"Write"}}}}}),
    ) else {
        panic!()
    };
    let Some([ToolCallContent::Diff(d)]) = diff.content.as_deref() else {
        panic!()
    };
    assert_eq!((d.old_text.as_deref(), d.new_text.as_str()), (None, "hello\n"));

    let bash = tool_call(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{
        "sessionUpdate":"tool_call","toolCallId":"toolu_2","title":"Terminal","kind":"execute","status":"pending",
        "content":[{"type":"terminal","terminalId":"toolu_2"}],
        "_meta":{"claudeCode":{"toolName":"Bash"},"terminal_info":{"terminal_id":"toolu_2"}}}}}),
    );
    assert!(matches!(&bash.content[0], ToolCallContent::Terminal(t) if t.terminal_id == "toolu_2"));
    let display = TerminalDisplay::from_meta(bash.meta.as_ref().unwrap()).unwrap();
    assert_eq!(display.info.unwrap().terminal_id, "toolu_2");

    let SessionUpdate::ToolCallUpdate(done) = update(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{
        "sessionUpdate":"tool_call_update","toolCallId":"toolu_2","status":"completed",
        "_meta":{"claudeCode":{"toolName":"Bash"},"terminal_output":{"terminal_id":"toolu_2","data":"hi\n"},
                 "terminal_exit":{"terminal_id":"toolu_2","exit_code":0,"signal":null}}}}}),
    ) else {
        panic!()
    };
    let display = TerminalDisplay::from_meta(done.meta.as_ref().unwrap()).unwrap();
    assert_eq!(
        (display.output.unwrap().data.as_str(), display.exit.unwrap().exit_code),
        ("hi\n", Some(0))
    );

    let SessionUpdate::ToolCallUpdate(refused) = update(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{
        "sessionUpdate":"tool_call_update","toolCallId":"toolu_3","status":"failed","rawOutput":"User refused permission to run tool",
        "_meta":{"claudeCode":{"toolName":"mcp__tether__Write","nonExecutionKind":"permission-rule"}}}}}),
    ) else {
        panic!()
    };
    assert_eq!(refused.status, Some(ToolCallStatus::Failed));
    assert_eq!(refused.raw_output, Some(json!("User refused permission to run tool")));
}

/// acp-claude-agent-offline.md §5–6: the session-level updates and the messages around them.
#[test]
fn claude_agent_acp_session_updates() {
    let SessionUpdate::UsageUpdate(usage) = update(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{
        "sessionUpdate":"usage_update","used":5120,"size":1000000,"cost":{"amount":0.02,"currency":"USD"},
        "_meta":{"_claude/model":"claude-opus-5-5"}}}}),
    ) else {
        panic!()
    };
    assert_eq!((usage.used, usage.size), (5120, 1_000_000));
    assert_eq!(usage.cost.unwrap().currency, "USD");

    let SessionUpdate::AvailableCommandsUpdate(commands) = update(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{
        "sessionUpdate":"available_commands_update","availableCommands":[
            {"name":"compact","description":"Clear conversation history but keep a summary","input":{"hint":"<optional custom summarization instructions>"}},
            {"name":"review","description":"Review a pull request","input":null}]}}}),
    ) else {
        panic!()
    };
    assert_eq!(
        commands.available_commands[0].input.as_ref().unwrap().hint,
        "<optional custom summarization instructions>"
    );
    assert!(commands.available_commands[1].input.is_none());

    let SessionUpdate::SessionInfoUpdate(info) = update(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{
        "sessionUpdate":"session_info_update","title":"Flip the debug flag","updatedAt":"2026-11-02T10:00:00.000Z"}}}),
    ) else {
        panic!()
    };
    assert_eq!(info.title.as_deref(), Some("Flip the debug flag"));

    let SessionUpdate::AgentMessageChunk(chunk) = update(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{
        "sessionUpdate":"agent_message_chunk","messageId":"msg_fake_1","content":{"type":"text","text":"Done."},
        "_meta":{"claudeCode":{"kind":"informational"}}}}}),
    ) else {
        panic!()
    };
    assert_eq!(
        (chunk.content.as_text(), chunk.message_id.as_deref()),
        (Some("Done."), Some("msg_fake_1"))
    );

    let status = AgentNotification::parse(
        "_auth/status_update",
        json!({"authStatus":{"kind":"api_key","label":"API key","detail":"ANTHROPIC_API_KEY"}}),
    )
    .unwrap();
    assert!(matches!(status, AgentNotification::Unknown { .. }));
    let cancel = AgentNotification::parse("$/cancel_request", json!({"requestId":0})).unwrap();
    assert!(matches!(cancel, AgentNotification::CancelRequest(_)));
}

/// acp-gemini-codex-offline.md §6: gemini-cli's auto-approved read, an edit's diff with its
/// `_meta.kind`, and a permission request that is the first sight of its call.
#[test]
fn gemini_cli_frames() {
    let read = tool_call(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"g","update":{
        "sessionUpdate":"tool_call","toolCallId":"read_file__read_file_1762077000000_0","status":"in_progress",
        "title":"hello.txt","kind":"read","locations":[{"path":"/p/hello.txt"}],"content":[]}}}),
    );
    assert_eq!(read.status, ToolCallStatus::InProgress);
    assert_eq!(read.locations[0].line, None);

    let params = json!({"sessionId":"g","toolCall":{"toolCallId":"replace_1","status":"pending","title":"hello.txt: hello => HELLO",
        "kind":"edit","locations":[{"path":"/p/hello.txt"}],
        "content":[{"type":"diff","path":"/p/hello.txt","oldText":"hello\n","newText":"HELLO\n","_meta":{"kind":"modify"}}]},
        "options":[{"optionId":"proceed_always","name":"Allow All Edits","kind":"allow_always"},
                   {"optionId":"proceed_once","name":"Allow","kind":"allow_once"},
                   {"optionId":"cancel","name":"Reject","kind":"reject_once"}]});
    let AgentRequest::RequestPermission(ask) = AgentRequest::parse("session/request_permission", params).unwrap()
    else {
        panic!()
    };
    let call = ToolCall::from(ask.tool_call);
    assert_eq!((call.kind, call.status), (ToolKind::Edit, ToolCallStatus::Pending));
    let ToolCallContent::Diff(diff) = &call.content[0] else {
        panic!()
    };
    assert_eq!(diff.meta.as_ref().unwrap()["kind"], "modify");
    assert_eq!(ask.options[0].kind, PermissionOptionKind::AllowAlways);
}

/// acp-gemini-codex-offline.md §6: codex-acp's shell call with its display terminal, an
/// apply_patch diff, and an MCP call.
#[test]
fn codex_acp_frames() {
    let shell = tool_call(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"c","update":{
        "sessionUpdate":"tool_call","toolCallId":"call_1","name":"exec_command","kind":"execute","title":"echo hi",
        "status":"in_progress","content":[{"type":"terminal","terminalId":"call_1"}],
        "rawInput":{"command":["bash","-lc","echo hi"],"cwd":"/p"},
        "_meta":{"terminal_info":{"terminal_id":"call_1","cwd":"/p"}}}}}),
    );
    assert_eq!(
        TerminalDisplay::from_meta(shell.meta.as_ref().unwrap())
            .unwrap()
            .info
            .unwrap()
            .cwd
            .as_deref(),
        Some("/p")
    );

    let patch = tool_call(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"c","update":{
        "sessionUpdate":"tool_call","toolCallId":"call_2","kind":"edit","title":"Editing files","status":"pending",
        "content":[{"type":"diff","path":"/p/a.txt","oldText":"x\n","newText":"y\n","_meta":{"kind":"update"}}]}}}),
    );
    assert!(matches!(&patch.content[0], ToolCallContent::Diff(d) if d.new_text == "y\n"));

    let mcp = tool_call(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"c","update":{
        "sessionUpdate":"tool_call","toolCallId":"call_3","kind":"execute","title":"mcp.tether.write_file","status":"in_progress",
        "rawInput":{"server":"tether","tool":"write_file","arguments":{"path":"a.txt","content":"x"}},
        "_meta":{"is_mcp_tool_call":true}}}}),
    );
    assert_eq!(mcp.raw_input.unwrap()["tool"], "write_file");

    let SessionUpdate::SessionInfoUpdate(info) = update(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"c","update":{
        "sessionUpdate":"session_info_update","title":"Write a file","_meta":{"codex":{"threadStatus":"idle"}}}}}),
    ) else {
        panic!()
    };
    assert_eq!(info.meta.unwrap()["codex"]["threadStatus"], "idle");
}

/// One recorded line: which agent process of the run, which way, the JSON-RPC message.
struct Frame {
    process: u64,
    outgoing: bool,
    message: Value,
}

fn transcript(name: &str) -> Vec<Frame> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/acp/frames")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            Frame {
                process: v["process"].as_u64().unwrap(),
                outgoing: v["dir"] == "out",
                message: v["message"].clone(),
            }
        })
        .collect()
}

/// Read `value` as `T` and write it back: it must come out as it went in.
fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(value: &Value, what: &str) {
    let typed: T = serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{what}: {e}\n{value}"));
    assert_eq!(
        &serde_json::to_value(typed).unwrap(),
        value,
        "{what} is not written back as it was read"
    );
}

fn read_as<T: serde::de::DeserializeOwned>(value: &Value, what: &str) -> T {
    serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{what}: {e}\n{value}"))
}

/// Every frame of a real agent's transcript reads as its type: the agent's requests and
/// notifications by method (no update of an unknown kind), its results by the method they
/// answer; Tether's own requests and answers are written back exactly as the agents took them.
fn check_transcript(name: &str) -> std::collections::BTreeMap<String, usize> {
    use std::collections::{BTreeMap, HashMap};
    use tether_core::acp::protocol::{config, initialize, modes, permission, prompt, session};
    let frames = transcript(name);
    let mut sent: HashMap<(u64, i64), String> = HashMap::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for frame in &frames {
        let m = &frame.message;
        let method = m["method"].as_str();
        let id = &m["id"];
        let what = format!("{name}: {m}");
        if frame.outgoing {
            if let (Some(method), Some(id)) = (method, id.as_i64()) {
                sent.insert((frame.process, id), method.to_string());
                let params = &m["params"];
                match method {
                    "initialize" => round_trip::<initialize::InitializeRequest>(params, &what),
                    "session/new" => round_trip::<session::NewSessionRequest>(params, &what),
                    "session/load" => round_trip::<session::LoadSessionRequest>(params, &what),
                    "session/resume" => round_trip::<session::ResumeSessionRequest>(params, &what),
                    "session/prompt" => round_trip::<prompt::PromptRequest>(params, &what),
                    "session/set_mode" => round_trip::<modes::SetSessionModeRequest>(params, &what),
                    other => panic!("{name}: a request the types do not cover: {other}"),
                }
            } else if m.get("result").is_some() {
                round_trip::<permission::RequestPermissionResponse>(&m["result"], &what);
            }
            continue;
        }
        match (method, id.is_null()) {
            (Some(method), false) => {
                let request =
                    AgentRequest::parse(method, m["params"].clone()).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(!matches!(request, AgentRequest::Unknown { .. }), "{what}");
                *seen.entry(method.to_string()).or_default() += 1;
            }
            (Some(method), true) => {
                let notification =
                    AgentNotification::parse(method, m["params"].clone()).unwrap_or_else(|e| panic!("{what}: {e}"));
                match notification {
                    AgentNotification::SessionUpdate(n) => {
                        assert!(!matches!(n.update, SessionUpdate::Unknown(_)), "{what}");
                        *seen.entry(n.update.kind().to_string()).or_default() += 1;
                    }
                    AgentNotification::Unknown { method, .. } => assert!(method.starts_with('_'), "{what}"),
                    _ => *seen.entry(method.to_string()).or_default() += 1,
                }
            }
            (None, _) => {
                assert!(m.get("error").is_none(), "{what}");
                let answered = sent
                    .get(&(frame.process, id.as_i64().unwrap()))
                    .unwrap_or_else(|| panic!("{what}: answers nothing sent"));
                let result = &m["result"];
                match answered.as_str() {
                    "initialize" => drop(read_as::<initialize::InitializeResponse>(result, &what)),
                    "session/new" => drop(read_as::<session::NewSessionResponse>(result, &what)),
                    "session/load" | "session/resume" => drop(read_as::<session::SessionState>(result, &what)),
                    "session/prompt" => drop(read_as::<prompt::PromptResponse>(result, &what)),
                    "session/set_mode" => drop(read_as::<modes::SetSessionModeResponse>(result, &what)),
                    "session/set_config_option" => {
                        drop(read_as::<config::SetSessionConfigOptionResponse>(result, &what))
                    }
                    other => panic!("{what}: answers {other}"),
                }
            }
        }
    }
    seen
}

#[test]
fn claude_agent_acp_transcripts_read_as_the_types() {
    let seen = check_transcript("claude-agent-acp.ndjson");
    for kind in [
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
        "usage_update",
        "available_commands_update",
    ] {
        assert!(seen.contains_key(kind), "no {kind} in {seen:?}");
    }
    assert!(seen["session/request_permission"] >= 4, "{seen:?}");
    let replayed = check_transcript("claude-agent-acp-load-resume.ndjson");
    assert!(
        replayed.contains_key("user_message_chunk"),
        "session/load replays the conversation: {replayed:?}"
    );
}

#[test]
fn gemini_cli_transcript_reads_as_the_types() {
    let seen = check_transcript("gemini-cli.ndjson");
    for kind in [
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
        "available_commands_update",
        "session/request_permission",
    ] {
        assert!(seen.contains_key(kind), "no {kind} in {seen:?}");
    }
}

#[test]
fn codex_acp_transcripts_read_as_the_types() {
    let seen = check_transcript("codex-acp-tether-fake-model.ndjson");
    for kind in [
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
        "session_info_update",
        "usage_update",
    ] {
        assert!(seen.contains_key(kind), "no {kind} in {seen:?}");
    }
    let patched = check_transcript("codex-acp-gpt-5.5.ndjson");
    assert_eq!(patched["session/request_permission"], 2, "{patched:?}");
}
