//! The project's MCP servers given to the agent next to Tether's own (the `mcpServers` key of
//! the common config): Claude Code gets them in `--mcp-config` and its guard lets their tools run;
//! an ACP agent gets them in `session/new`'s `mcpServers`, those it cannot reach left out with a
//! notice.

mod acp_support;

use acp_support::*;
use futures::executor::block_on;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use tether_core::acp::AcpBackend;
use tether_core::agent::Agent;
use tether_core::claude::{ClaudeBackend, ClaudeConfig};
use tether_core::config::{CommonConfig, McpServerEntry};
use tether_core::native::NativeHost;

fn servers() -> Vec<McpServerEntry> {
    vec![
        McpServerEntry::Stdio {
            name: "notes".into(),
            command: "/usr/bin/node".into(),
            args: vec!["/x/dist/tether-mcp-bridge.js".into()],
            env: BTreeMap::from([("TETHER_BRIDGE_TOKEN".to_string(), "n0t3s".to_string())]),
        },
        McpServerEntry::Sse {
            name: "feed".into(),
            url: "https://feed.example/sse".into(),
            headers: BTreeMap::new(),
        },
    ]
}

fn common(ws: &TempWorkspace) -> CommonConfig {
    CommonConfig {
        root: ws.root().to_string(),
        home_dir: "/home/tester".into(),
        mcp_servers: Some(servers()),
        ..CommonConfig::default()
    }
}

#[test]
fn claude_code_on_a_remote_is_given_the_project_servers_in_its_mcp_config_and_no_others() {
    let ws = TempWorkspace::new();
    // A remote workspace (a mirror): the CLI reads no .mcp.json of its own there.
    let remote = CommonConfig {
        mirror: Some(
            std::env::temp_dir()
                .join("tether-mirror")
                .to_string_lossy()
                .into_owned(),
        ),
        ..common(&ws)
    };
    let agent = Agent::new(NativeHost::new(), remote, |context| {
        Ok(Box::new(ClaudeBackend::new(context, ClaudeConfig::default())))
    })
    .unwrap();
    let args = agent.launch(Vec::new()).args;
    assert!(args.contains(&"--strict-mcp-config".to_string()));
    let config = args
        .iter()
        .find_map(|a| a.strip_prefix("--mcp-config="))
        .expect("--mcp-config");
    let config: Value = serde_json::from_str(config).unwrap();
    assert_eq!(
        config["mcpServers"]["notes"],
        json!({"type": "stdio", "command": "/usr/bin/node", "args": ["/x/dist/tether-mcp-bridge.js"], "env": {"TETHER_BRIDGE_TOKEN": "n0t3s"}})
    );
    assert_eq!(config["mcpServers"]["feed"]["url"], "https://feed.example/sse");
}

#[test]
fn without_project_servers_there_is_no_mcp_config() {
    let ws = TempWorkspace::new();
    let common = CommonConfig {
        mcp_servers: None,
        ..common(&ws)
    };
    let agent = Agent::new(NativeHost::new(), common, |context| {
        Ok(Box::new(ClaudeBackend::new(context, ClaudeConfig::default())))
    })
    .unwrap();
    assert!(!agent
        .launch(Vec::new())
        .args
        .iter()
        .any(|a| a.starts_with("--mcp-config")));
}

fn guard(agent: &Agent<NativeHost, ClaudeBackend>, tool: &str) -> Value {
    let hook = json!({"type": "control_request", "request_id": "hook-1", "request": {"subtype": "hook_callback",
        "callback_id": "tether-guard", "tool_use_id": "toolu_1",
        "input": {"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": {}}}});
    let outputs = block_on(agent.on_message(&hook.to_string()));
    let reply = sent(&outputs).into_iter().next().expect("a reply");
    reply["response"]["response"].clone()
}

#[test]
fn the_guard_lets_the_project_servers_tools_run_and_no_other_servers() {
    let ws = TempWorkspace::new();
    let agent = Agent::new(NativeHost::new(), common(&ws), |context| {
        Ok(Box::new(ClaudeBackend::new(context, ClaudeConfig::default())))
    })
    .unwrap();
    block_on(agent.start());
    assert_eq!(guard(&agent, "mcp__notes__add_note"), json!({"continue": true}));
    for tool in ["mcp__other__x", "mcp__notesx__y", "mcp__note__s"] {
        let denied = guard(&agent, tool);
        assert_eq!(denied["hookSpecificOutput"]["permissionDecision"], "deny", "{tool}");
    }
}

#[test]
fn an_acp_agent_gets_the_servers_it_can_reach_in_session_new() {
    let ws = TempWorkspace::new();
    let agent = Agent::new(NativeHost::new(), common(&ws), |context| {
        AcpBackend::new(context, config(Some("claude-agent-acp"))).map(Box::new)
    })
    .unwrap();
    let s = Session {
        ws,
        agent,
        mirror: None,
    };
    // gemini's capabilities without SSE: the SSE server is left out, with a notice.
    let caps = json!({"protocolVersion": 1, "agentCapabilities": {"mcpCapabilities": {"http": true}}});
    let (messages, outputs) = open(&s, caps);
    let new = request(&messages, "session/new");
    let names: Vec<&str> = new["params"]["mcpServers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["tether", "notes"]);
    assert_eq!(
        new["params"]["mcpServers"][1]["env"],
        json!([{"name": "TETHER_BRIDGE_TOKEN", "value": "n0t3s"}])
    );
    let notices = of_type(&events(&outputs), "error")
        .into_iter()
        .cloned()
        .collect::<Vec<_>>();
    assert!(
        notices.iter().any(|n| n["message"].as_str().unwrap().contains("feed")),
        "{notices:?}"
    );
}
