//! The project's hooks in a session, on a real temporary workspace: for an ACP agent Tether runs
//! them around its own tools over the MCP bridge, before a prompt and when the session starts;
//! for Claude Code it registers them in `initialize` and answers the CLI's `hook_callback` with
//! what they decided. Scripts see Tether's tools by their built-in names.

mod acp_support;

use acp_support::*;
use futures::executor::block_on;
use serde_json::{json, Value};
use tether_core::agent::{Agent, AgentOutput};
use tether_core::claude::{ClaudeBackend, ClaudeConfig};
use tether_core::config::{CommonConfig, HooksConfig};
use tether_core::native::NativeHost;

fn hooks_settings() -> String {
    json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "cat > pre.json; grep -q 'rm -rf' pre.json && { echo 'rm -rf is not allowed' >&2; exit 2; }; exit 0"}]}],
        "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command",
            "command": "cat > post.json; sed -i 's/  *$//' notes.txt; echo '{\"systemMessage\":\"formatted notes.txt\"}'"}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'Sprint 12 is frozen'"}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": "cat > start.json"}]}]
    }})
    .to_string()
}

fn notices(outputs: &[AgentOutput]) -> Vec<String> {
    of_type(&events(outputs), "error")
        .iter()
        .map(|e| e["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn acp_session() -> Session {
    let s = session_with(config(None), true, Some("bypassPermissions")).unwrap();
    s.ws.write(".claude/settings.json", hooks_settings());
    s.ws.write("notes.txt", "hello   \nworld\n");
    open(&s, claude_caps());
    s
}

fn call(s: &Session, id: u64, tool: &str, arguments: Value) -> Vec<AgentOutput> {
    let message =
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
    block_on(s.agent.on_mcp_message(1, &message.to_string()))
}

#[test]
fn acp_a_pre_tool_use_hook_that_exits_2_keeps_bash_from_running_and_the_model_reads_why() {
    let s = acp_session();
    let out = call(&s, 1, "Bash", json!({"command": "rm -rf notes.txt"}));
    let reply = &mcp_replies(&out)[0]["result"];
    assert_eq!(reply["isError"], true);
    assert_eq!(
        reply["content"][0]["text"],
        "PreToolUse:Bash hook error: rm -rf is not allowed"
    );
    assert!(s.ws.dir().join("notes.txt").exists(), "the command did not run");
    assert!(
        notices(&out).is_empty(),
        "the reason is the call's result, shown once: {:?}",
        notices(&out)
    );
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(s.ws.path("pre.json")).unwrap()).unwrap();
    assert_eq!(seen["tool_name"], "Bash");
    assert_eq!(seen["cwd"], s.ws.root());
}

#[test]
fn acp_a_post_tool_use_hook_formats_the_edited_file_and_sees_the_builtin_response() {
    let s = acp_session();
    let mirror = s.mirror.clone().unwrap();
    let file = format!("{mirror}/notes.txt");
    call(&s, 1, "Read", json!({"file_path": file}));
    let out = call(
        &s,
        2,
        "Edit",
        json!({"file_path": file, "old_string": "world", "new_string": "there"}),
    );
    assert_eq!(mcp_replies(&out)[0]["result"]["isError"], false);
    assert_eq!(
        std::fs::read_to_string(s.ws.path("notes.txt")).unwrap(),
        "hello\nthere\n"
    );
    assert_eq!(notices(&out), vec!["formatted notes.txt"]);
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(s.ws.path("post.json")).unwrap()).unwrap();
    assert_eq!(seen["tool_name"], "Edit");
    assert_eq!(seen["tool_input"]["new_string"], "there");
    assert_eq!(
        seen["tool_response"]["filePath"],
        s.ws.path("notes.txt"),
        "the built-in Edit's response"
    );
}

#[test]
fn acp_session_start_runs_once_and_user_prompt_submit_adds_its_context_to_the_prompt() {
    let s = acp_session();
    let started: Value = serde_json::from_str(&std::fs::read_to_string(s.ws.path("start.json")).unwrap()).unwrap();
    assert_eq!(started["hook_event_name"], "SessionStart");
    assert_eq!(started["source"], "startup");
    let out = block_on(s.agent.submit("go on", &[]));
    let messages = sent(&out);
    let prompt = request(&messages, "session/prompt");
    let text = prompt["params"]["prompt"].to_string();
    assert!(text.contains("go on") && text.contains("Sprint 12 is frozen"), "{text}");
}

#[test]
fn claude_code_gets_the_hooks_in_initialize_and_their_decision_as_the_callbacks_answer() {
    let ws = TempWorkspace::new();
    ws.write(".claude/settings.json", hooks_settings());
    let common = CommonConfig {
        root: ws.root().to_string(),
        mirror: Some(format!("{}-mirror", ws.root())),
        home_dir: "/home/tester".into(),
        ..CommonConfig::default()
    };
    let agent: Agent<NativeHost, ClaudeBackend> = Agent::new(NativeHost::new(), common, |context| {
        Ok(Box::new(ClaudeBackend::new(context, ClaudeConfig::default())))
    })
    .unwrap();
    let init = sent(&block_on(agent.start()))[0].clone();
    let hooks = &init["request"]["hooks"];
    assert_eq!(
        hooks["PreToolUse"].as_array().unwrap().len(),
        2,
        "the guard and the project's: {hooks}"
    );
    for event in ["PostToolUse", "UserPromptSubmit", "Stop"] {
        assert_eq!(hooks[event][0]["hookCallbackIds"][0], format!("tether-hooks:{event}"));
    }
    assert!(hooks.get("SessionStart").is_none(), "Tether runs SessionStart itself");
    let callback = json!({"type": "control_request", "request_id": "h1", "request": {"subtype": "hook_callback",
        "callback_id": "tether-hooks:PreToolUse", "tool_use_id": "toolu_1",
        "input": {"session_id": "s", "cwd": "/mirror", "hook_event_name": "PreToolUse",
            "tool_name": "mcp__tether__Bash", "tool_input": {"command": "rm -rf build"}, "tool_use_id": "toolu_1",
            "mcp_server": {"name": "tether", "source": "sdk"}}}});
    let out = block_on(agent.on_message(&callback.to_string()));
    let answer = sent(&out)[0].clone();
    assert_eq!(answer["response"]["request_id"], "h1");
    assert_eq!(
        answer["response"]["response"]["hookSpecificOutput"],
        json!({"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "rm -rf is not allowed"})
    );
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(ws.path("pre.json")).unwrap()).unwrap();
    assert_eq!(seen["tool_name"], "Bash", "the built-in name");
    assert_eq!(seen["cwd"], ws.root(), "the workspace, not the mirror");
    assert!(seen.get("mcp_server").is_none());
}

/// The `initialize` hooks of a Claude Code session on a remote folder, with `events` as the
/// config's `hooks.events`.
fn claude_init_hooks(events: Option<Vec<&str>>) -> Value {
    let ws = TempWorkspace::new();
    let common = CommonConfig {
        root: ws.root().to_string(),
        mirror: Some(format!("{}-mirror", ws.root())),
        home_dir: "/home/tester".into(),
        hooks: Some(HooksConfig {
            events: events.map(|names| names.into_iter().map(str::to_string).collect()),
            ..HooksConfig::default()
        }),
        ..CommonConfig::default()
    };
    let agent: Agent<NativeHost, ClaudeBackend> = Agent::new(NativeHost::new(), common, |context| {
        Ok(Box::new(ClaudeBackend::new(context, ClaudeConfig::default())))
    })
    .unwrap();
    sent(&agent.initialize())[0]["request"]["hooks"].clone()
}

#[test]
fn claude_code_is_asked_only_for_the_events_the_settings_have_hooks_for() {
    let only_post = claude_init_hooks(Some(vec!["PostToolUse", "SessionStart"]));
    let names: Vec<&String> = only_post.as_object().unwrap().keys().collect();
    assert_eq!(names, ["PostToolUse", "PreToolUse"], "{only_post}");
    assert_eq!(only_post["PreToolUse"].as_array().unwrap().len(), 1, "the guard alone");
    let none = claude_init_hooks(Some(vec![]));
    assert_eq!(
        none,
        json!({"PreToolUse": [{"matcher": ".*", "hookCallbackIds": ["tether-guard"]}]})
    );
    let unknown = claude_init_hooks(None);
    assert_eq!(
        unknown.as_object().unwrap().len(),
        6,
        "every event when the settings were not read: {unknown}"
    );
}
