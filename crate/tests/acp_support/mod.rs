//! What the ACP backend's tests share: a session of `Agent<NativeHost, AcpBackend>` on a temporary
//! workspace, the frames real agents send, and readers of what the agent puts out.
// Each test crate compiles this module and uses part of it.
#![allow(dead_code)]

use futures::executor::block_on;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use tether_core::acp::{AcpBackend, AcpConfig, BridgeCommand};
use tether_core::agent::{Agent, AgentOutput};
use tether_core::config::CommonConfig;
use tether_core::gate::UserAnswer;
use tether_core::native::NativeHost;

#[path = "../common/mod.rs"]
mod common;

pub use common::{events, sent, TempWorkspace};

pub type AcpAgent = Agent<NativeHost, AcpBackend>;

pub struct Session {
    pub ws: TempWorkspace,
    pub agent: AcpAgent,
    /// The agent's folder for a remote workspace (under the temp dir, never written).
    pub mirror: Option<String>,
}

pub fn bridge() -> BridgeCommand {
    BridgeCommand {
        command: "/usr/bin/node".into(),
        args: vec!["/x/dist/tether-mcp-bridge.js".into()],
        env: BTreeMap::from([("TETHER_BRIDGE_TOKEN".to_string(), "t0k3n".to_string())]),
    }
}

pub fn config(profile: Option<&str>) -> AcpConfig {
    AcpConfig {
        profile: profile.map(str::to_string),
        bridge: Some(bridge()),
        state_dir: Some("/state".into()),
        ..AcpConfig::default()
    }
}

pub fn session_with(acp: AcpConfig, remote: bool, mode: Option<&str>) -> Result<Session, String> {
    let ws = TempWorkspace::new();
    ws.write("notes.txt", "hello world\nsecond line\n");
    let mirror = remote.then(|| format!("{}-mirror", ws.root()));
    let common = CommonConfig {
        root: ws.root().to_string(),
        mirror: mirror.clone(),
        home_dir: "/home/tester".into(),
        mode: mode.map(str::to_string),
        ..CommonConfig::default()
    };
    let agent = Agent::new(NativeHost::new(), common, |context| {
        AcpBackend::new(context, acp).map(Box::new)
    })?;
    Ok(Session { ws, agent, mirror })
}

pub fn session(profile: Option<&str>, remote: bool) -> Session {
    session_with(config(profile), remote, None).unwrap()
}

pub fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

pub fn mcp_replies(outputs: &[AgentOutput]) -> Vec<Value> {
    outputs
        .iter()
        .filter_map(|o| match o {
            AgentOutput::McpReply { message, .. } => Some(serde_json::from_str(message).unwrap()),
            _ => None,
        })
        .collect()
}

pub fn from_agent(s: &Session, message: Value) -> Vec<AgentOutput> {
    block_on(s.agent.on_message(&message.to_string()))
}

pub fn answer(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// The one request among `outputs` with `method`.
pub fn request<'a>(messages: &'a [Value], method: &str) -> &'a Value {
    messages
        .iter()
        .find(|m| m["method"] == method && m.get("id").is_some())
        .unwrap_or_else(|| panic!("no {method} request in {messages:?}"))
}

/// claude-agent-acp 0.101.0's `initialize` answer (trimmed).
pub fn claude_caps() -> Value {
    json!({"protocolVersion": 1, "agentCapabilities": {
        "loadSession": true, "promptCapabilities": {"image": true, "embeddedContext": true},
        "mcpCapabilities": {"http": true, "sse": true},
        "sessionCapabilities": {"list": {}, "resume": {}, "close": {}, "systemPrompt": {"mode": {"override": {}}}}},
        "authMethods": [], "agentInfo": {"name": "@agentclientprotocol/claude-agent-acp", "title": "Claude Agent", "version": "0.101.0"}})
}

/// gemini-cli 0.61.0's: no session capabilities, four ways to log in.
pub fn gemini_caps() -> Value {
    json!({"protocolVersion": 1, "authMethods": [{"id": "oauth-personal", "name": "Log in with Google"}, {"id": "gateway", "name": "Gateway"}],
        "agentCapabilities": {"loadSession": true, "promptCapabilities": {"image": true, "audio": true, "embeddedContext": true},
        "mcpCapabilities": {"http": true, "sse": true}}})
}

/// Start, answer `initialize` with `caps` and `session/new`; returns everything sent and shown.
pub fn open(s: &Session, caps: Value) -> (Vec<Value>, Vec<AgentOutput>) {
    let mut all = block_on(s.agent.start());
    let init = request(&sent(&all), "initialize").clone();
    let opened = from_agent(s, answer(&init["id"], caps));
    all.extend(opened.clone());
    let new = request(&sent(&opened), "session/new").clone();
    all.extend(from_agent(
        s,
        answer(&new["id"], json!({"sessionId": "s1", "modes": {"currentModeId": "default", "availableModes": [{"id": "default", "name": "Default"}, {"id": "plan", "name": "Plan"}]}})),
    ));
    (sent(&all), all)
}

pub fn update(kind_and_fields: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": kind_and_fields}})
}

pub fn agent_request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

pub fn response_to(outputs: &[AgentOutput], id: u64) -> Value {
    sent(outputs)
        .into_iter()
        .find(|m| m["id"] == id && m.get("method").is_none())
        .unwrap_or_else(|| panic!("no answer to {id} in {:?}", sent(outputs)))
}

/// The user picks `option` on the question `ask` (a `permissionRequest` event) shows.
pub fn choose(s: &Session, ask: &Value, option: &str) -> Vec<AgentOutput> {
    let id = ask["id"].as_str().expect("a permissionRequest event with an id");
    block_on(s.agent.answer_permission(id, UserAnswer::option(option))).unwrap()
}
