//! The ACP backend driven through `Agent<NativeHost, AcpBackend>` with the frames real agents
//! send (tests/acp/frames, reference/acp-*.md), against a real temporary workspace: the session's
//! opening (force-local switches, Tether's MCP server, the model told the remote cwd), updates as
//! UI events, the agent's permission questions with its own options, `fs/*` and `terminal/*` on
//! the workspace behind the gate, Tether's tools over the MCP bridge behind the gate,
//! cancellation, and hostile frames.

mod acp_support;

use acp_support::*;
use futures::executor::block_on;
use serde_json::{json, Value};
use tether_core::acp::AcpConfig;
use tether_core::backend::SessionOp;

// -- opening ---------------------------------------------------------------------------------------

#[test]
fn a_remote_claude_agent_session_is_closed_gets_tethers_server_and_is_told_the_remote_cwd() {
    let s = session(Some("claude-agent-acp"), true);
    let (messages, outputs) = open(&s, claude_caps());
    let init = request(&messages, "initialize");
    assert_eq!(
        init["params"]["clientCapabilities"]["fs"],
        json!({"readTextFile": true, "writeTextFile": true})
    );
    assert_eq!(init["params"]["clientCapabilities"]["_meta"]["terminal_output"], true);
    let new = request(&messages, "session/new");
    assert_eq!(new["params"]["cwd"], s.mirror.as_deref().unwrap());
    assert_eq!(
        new["params"]["mcpServers"],
        json!([{"name": "tether", "command": "/usr/bin/node", "args": ["/x/dist/tether-mcp-bridge.js"],
                "env": [{"name": "TETHER_BRIDGE_TOKEN", "value": "t0k3n"}]}])
    );
    let options = &new["params"]["_meta"]["claudeCode"]["options"];
    assert!(options["tools"].as_array().unwrap().contains(&json!("Agent")));
    assert!(options["disallowedTools"].as_array().unwrap().contains(&json!("Write")));
    let brief = new["params"]["systemPrompt"]["content"][0]["text"].as_str().unwrap();
    assert!(
        brief.contains(&format!("Working directory: {}", s.ws.root())),
        "{brief}"
    );
    assert_eq!(new["params"]["systemPrompt"]["mode"], "append");
    let shown = events(&outputs);
    assert_eq!(of_type(&shown, "sessionInit")[0]["sessionId"], "s1");
    let options = &of_type(&shown, "agentOptions")[0]["options"];
    assert_eq!(options[0]["id"], "mode");
    assert_eq!(options[0]["choices"][1]["value"], "plan");
}

#[test]
fn a_local_session_keeps_the_agents_tools_and_tells_nothing_about_a_remote() {
    let s = session(Some("claude-agent-acp"), false);
    let (messages, _) = open(&s, claude_caps());
    let new = request(&messages, "session/new");
    assert_eq!(new["params"]["cwd"], s.ws.root());
    assert!(new["params"]["_meta"]["claudeCode"]["options"].get("tools").is_none());
    assert!(new["params"].get("systemPrompt").is_none());
}

#[test]
fn gemini_is_started_with_its_switches_and_hears_the_brief_with_the_first_prompt() {
    let s = session(Some("gemini"), true);
    let launch = s.agent.launch(vec![
        ("PATH".to_string(), "/bin".to_string()),
        ("NODE_OPTIONS".into(), "--x".into()),
    ]);
    assert!(launch.args.contains(&"--skip-trust".to_string()));
    let policy = launch.args.iter().position(|a| a == "--admin-policy").unwrap();
    assert_eq!(launch.args[policy + 1], "/state/gemini-policy");
    assert_eq!(
        launch.env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"],
        "/state/gemini-system-settings.json"
    );
    assert!(!launch.env.contains_key("NODE_OPTIONS"));
    let files = s.agent.launch_files();
    assert!(files[0].1.contains("mcp_tether_Bash"));
    assert_eq!(files[1].0, "/state/gemini-policy/tether.toml");
    let (_, outputs) = open(&s, gemini_caps());
    assert_eq!(
        of_type(&events(&outputs), "authMethods")[0]["methods"][0]["id"],
        "oauth-personal"
    );
    let prompt = sent(&s.agent.prompt("Hi", &[]));
    let blocks = &request(&prompt, "session/prompt")["params"]["prompt"];
    assert!(blocks[0]["text"]
        .as_str()
        .unwrap()
        .contains("Remote workspace (Tether)"));
    assert_eq!(blocks[1]["text"], "Hi");
    // Only the first prompt carries it.
    let done = from_agent(
        &s,
        answer(
            &request(&prompt, "session/prompt")["id"],
            json!({"stopReason": "end_turn"}),
        ),
    );
    let next = sent(&done)
        .into_iter()
        .chain(sent(&s.agent.prompt("Again", &[])))
        .collect::<Vec<_>>();
    assert_eq!(
        request(&next, "session/prompt")["params"]["prompt"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn codex_is_refused_on_a_remote_workspace_with_the_reason_unless_overridden() {
    let refused = session_with(config(Some("codex")), true, None).err().expect("refused");
    assert!(
        refused.contains("apply_patch") && refused.contains("allowLocalTools"),
        "{refused}"
    );
    assert!(
        session_with(config(Some("codex")), false, None).is_ok(),
        "local folders are fine"
    );
    let overridden = AcpConfig {
        allow_local_tools: true,
        ..config(Some("codex"))
    };
    let s = session_with(overridden, true, None).unwrap();
    let launch = s.agent.launch(Vec::new());
    assert!(launch.env["CODEX_CONFIG"].contains("\"shell_tool\":false"));
    assert_eq!(launch.env["INITIAL_AGENT_MODE"], "read-only");
    // Its own apply_patch is refused without asking anyone.
    open(
        &s,
        json!({"protocolVersion": 1, "agentCapabilities": {"loadSession": true}}),
    );
    let out = from_agent(
        &s,
        agent_request(
            0,
            "session/request_permission",
            json!({"sessionId": "s1",
            "toolCall": {"toolCallId": "call_1", "title": "Edit files", "kind": "edit"},
            "options": [{"optionId": "allow_once", "name": "Allow", "kind": "allow_once"}, {"optionId": "cancel", "name": "Cancel", "kind": "reject_once"}]}),
        ),
    );
    assert_eq!(response_to(&out, 0)["result"]["outcome"]["optionId"], "cancel");
    assert!(of_type(&events(&out), "permissionRequest").is_empty());
}

#[test]
fn a_prompt_sent_before_the_session_is_open_waits_for_it() {
    let s = session(None, false);
    let started = block_on(s.agent.start());
    let early = s.agent.prompt("first", &[]);
    assert!(sent(&early).is_empty(), "nothing sent before the session is open");
    let init = request(&sent(&started), "initialize").clone();
    let new = request(
        &sent(&from_agent(&s, answer(&init["id"], claude_caps()))),
        "session/new",
    )
    .clone();
    let opened = from_agent(&s, answer(&new["id"], json!({"sessionId": "s1"})));
    assert_eq!(
        request(&sent(&opened), "session/prompt")["params"]["prompt"][0]["text"],
        "first"
    );
}

#[test]
fn resuming_sends_the_switches_again_and_a_silent_load_shows_no_replay() {
    let s = session_with(config(Some("claude-agent-acp")), true, None).unwrap();
    let started = block_on(s.agent.start());
    let init = request(&sent(&started), "initialize").clone();
    let out = from_agent(&s, answer(&init["id"], claude_caps()));
    // A plain start opens a new session; resuming an id is the backend's load/resume.
    let new = request(&sent(&out), "session/new").clone();
    from_agent(&s, answer(&new["id"], json!({"sessionId": "s1"})));
    let resumed = sent(&s.agent.operate(SessionOp::Resume { id: "s0".into() }).unwrap());
    let resume = request(&resumed, "session/resume");
    assert_eq!(resume["params"]["sessionId"], "s0");
    let options = &resume["params"]["_meta"]["claudeCode"]["options"];
    assert!(options["tools"].as_array().unwrap().contains(&json!("Agent")));
    assert!(options["disallowedTools"].as_array().unwrap().contains(&json!("Bash")));
}

// -- updates ---------------------------------------------------------------------------------------

#[test]
fn every_update_kind_becomes_its_event() {
    let s = session(None, false);
    open(&s, claude_caps());
    let turn = sent(&s.agent.prompt("go", &[]));
    let prompt_id = request(&turn, "session/prompt")["id"].clone();
    let updates = [
        json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}}),
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hello"}}),
        json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "go"}}),
        json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Edit notes.txt", "kind": "edit", "status": "pending",
               "locations": [{"path": format!("{}/notes.txt", s.ws.root()), "line": 1}],
               "content": [{"type": "diff", "path": format!("{}/notes.txt", s.ws.root()), "oldText": "a", "newText": "b"}]}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed",
               "content": [{"type": "content", "content": {"type": "text", "text": "done"}}]}),
        json!({"sessionUpdate": "plan", "entries": [{"content": "Read", "priority": "high", "status": "completed"}]}),
        json!({"sessionUpdate": "available_commands_update", "availableCommands": [{"name": "init", "description": "Set up", "input": {"hint": "what"}}]}),
        json!({"sessionUpdate": "current_mode_update", "currentModeId": "plan"}),
        json!({"sessionUpdate": "config_option_update", "configOptions": [{"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": "opus", "options": [{"value": "opus", "name": "Opus"}]}]}),
        json!({"sessionUpdate": "session_info_update", "title": "Fix the notes", "updatedAt": "2026-11-02T10:00:00Z"}),
        json!({"sessionUpdate": "usage_update", "used": 1200, "size": 200000, "cost": {"amount": 0.5, "currency": "USD"}}),
        json!({"sessionUpdate": "hologram_update", "depth": 3}),
    ];
    let mut shown = Vec::new();
    for u in updates {
        shown.extend(events(&from_agent(&s, update(u))));
    }
    let done = events(&from_agent(
        &s,
        answer(
            &prompt_id,
            json!({"stopReason": "end_turn", "usage": {"inputTokens": 10, "outputTokens": 2}}),
        ),
    ));
    shown.extend(done);
    let kinds: Vec<&str> = shown.iter().map(|e| e["type"].as_str().unwrap()).collect();
    for kind in [
        "messageStart",
        "thinkingDelta",
        "textDelta",
        "messageStop",
        "toolCallStart",
        "toolContent",
        "toolCallResult",
        "todoUpdate",
        "commands",
        "agentOptions",
        "sessionInfo",
        "contextUsage",
        "usage",
        "done",
    ] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    assert!(
        !kinds.contains(&"userMessageChunk"),
        "the user's own text echoed in a turn is not shown twice"
    );
    let start = of_type(&shown, "toolCallStart")[0];
    assert_eq!(
        (start["kind"].as_str(), start["locations"][0]["line"].as_u64()),
        (Some("edit"), Some(1))
    );
    assert_eq!(of_type(&shown, "toolContent")[0]["content"][0]["type"], "diff");
    assert_eq!(of_type(&shown, "toolCallResult")[0]["content"], "done");
    assert_eq!(of_type(&shown, "todoUpdate")[0]["todos"][0]["status"], "completed");
    assert_eq!(of_type(&shown, "commands")[0]["commands"][0]["argumentHint"], "what");
    assert_eq!(of_type(&shown, "agentOptions")[0]["options"][0]["value"], "plan");
    assert_eq!(of_type(&shown, "contextUsage")[0]["cost"], 0.5);
    assert_eq!(of_type(&shown, "done")[0]["subtype"], "success");
}

#[test]
fn tethers_own_tools_show_by_their_names_for_each_agent() {
    let s = session(None, true);
    open(&s, claude_caps());
    let mirror = s.mirror.clone().unwrap();
    let calls = [
        // claude-agent-acp
        json!({"sessionUpdate": "tool_call", "toolCallId": "toolu_1", "title": "mcp__tether__Read", "kind": "other", "status": "pending",
               "rawInput": {"file_path": format!("{mirror}/notes.txt")}, "_meta": {"claudeCode": {"toolName": "mcp__tether__Read"}}}),
        // codex-acp
        json!({"sessionUpdate": "tool_call", "toolCallId": "call_2", "title": "mcp.tether.Edit", "kind": "execute", "status": "in_progress",
               "rawInput": {"server": "tether", "tool": "Edit", "arguments": {"file_path": format!("{mirror}/notes.txt"), "old_string": "a", "new_string": "b"}}}),
        // gemini-cli
        json!({"sessionUpdate": "tool_call", "toolCallId": "mcp_tether_Bash__mcp_tether_Bash_17_0", "title": "Bash (tether MCP Server)", "kind": "other",
               "status": "in_progress", "content": [{"type": "content", "content": {"type": "text", "text": "{\"command\":\"ls\"}"}}]}),
    ];
    let shown: Vec<Value> = calls
        .into_iter()
        .flat_map(|c| events(&from_agent(&s, update(c))))
        .collect();
    let starts = of_type(&shown, "toolCallStart");
    let names: Vec<&str> = starts.iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Read", "Edit", "Bash"]);
    assert_eq!(starts[0]["title"], "Read notes.txt");
    assert_eq!(starts[1]["kind"], "edit");
    assert_eq!(starts[2]["input"]["command"], "ls");
}

#[test]
fn terminals_tether_never_created_do_not_break_an_update() {
    let s = session(None, false);
    open(&s, claude_caps());
    let out = from_agent(
        &s,
        update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "call_1", "title": "ls", "kind": "execute", "status": "in_progress",
            "content": [{"type": "terminal", "terminalId": "call_1"}], "rawInput": {"command": "ls"},
            "_meta": {"terminal_info": {"terminal_id": "call_1", "cwd": "/p"}}}),
        ),
    );
    let shown = events(&out);
    assert_eq!(of_type(&shown, "toolContent")[0]["content"][0]["terminalId"], "call_1");
    let out = from_agent(
        &s,
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "call_1", "status": "completed",
            "_meta": {"terminal_output": {"terminal_id": "call_1", "data": "a.txt\n"}, "terminal_exit": {"terminal_id": "call_1", "exit_code": 0, "signal": null}}}),
        ),
    );
    let terminal = of_type(&events(&out), "terminalOutput")
        .into_iter()
        .cloned()
        .collect::<Vec<_>>();
    assert_eq!(terminal[0]["output"], "a.txt\n");
    assert_eq!(
        (terminal[1]["exited"].as_bool(), terminal[1]["exitCode"].as_i64()),
        (Some(true), Some(0))
    );
    // A terminal/output for an id Tether never created is refused, clearly.
    let out = from_agent(
        &s,
        agent_request(5, "terminal/output", json!({"sessionId": "s1", "terminalId": "call_1"})),
    );
    assert!(response_to(&out, 5)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("No terminal call_1"));
}
