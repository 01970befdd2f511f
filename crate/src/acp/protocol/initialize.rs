//! `initialize`: the first request, which settles the protocol version and both sides'
//! capabilities, and lists the agent's authentication methods.

use super::auth::AuthMethod;
use super::capabilities::{AgentCapabilities, ClientCapabilities};
use super::lenient::Meta;
use super::{ProtocolVersion, Request};
use crate::json::read_struct;
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequest {
    /// The newest version the client speaks; the agent answers with the one it picked.
    pub protocol_version: ProtocolVersion,
    pub client_capabilities: ClientCapabilities,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(InitializeRequest {
    protocol_version: required "protocolVersion",
    client_capabilities: or_default "clientCapabilities",
    client_info: or_default "clientInfo",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResponse {
    pub protocol_version: ProtocolVersion,
    pub agent_capabilities: AgentCapabilities,
    pub auth_methods: Vec<AuthMethod>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_info: Option<Implementation>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(InitializeResponse {
    protocol_version: required "protocolVersion",
    agent_capabilities: or_default "agentCapabilities",
    auth_methods: list "authMethods",
    agent_info: or_default "agentInfo",
    meta: or_default "_meta",
});

impl Request for InitializeRequest {
    const METHOD: &'static str = "initialize";
    type Response = InitializeResponse;
}

/// A program's name and version (`clientInfo`, `agentInfo`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Implementation {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Required by the schema; an agent that leaves it out is still usable.
    pub version: String,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(Implementation {
    name: required "name",
    title: or_default "title",
    version: or_default "version",
    meta: or_default "_meta",
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::protocol::auth::AuthMethod;
    use crate::acp::protocol::PROTOCOL_VERSION;
    use serde_json::json;

    /// claude-agent-acp 0.101.0's reply (reference/acp-claude-agent-offline.md §6).
    #[test]
    fn reads_claude_agent_acps_reply() {
        let reply: InitializeResponse = crate::json::from_value(json!({
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": true,
                "promptCapabilities": {"image": true, "embeddedContext": true},
                "mcpCapabilities": {"http": true, "sse": true},
                "auth": {"logout": {}},
                "providers": {},
                "sessionCapabilities": {"additionalDirectories": {}, "close": {}, "delete": {}, "fork": {}, "list": {},
                                        "resume": {}, "systemPrompt": {"mode": {"override": {}}}},
                "_meta": {"claudeCode": {"promptQueueing": true}, "authStatus": {}}
            },
            "authMethods": [],
            "agentInfo": {"name": "@agentclientprotocol/claude-agent-acp", "title": "Claude Agent", "version": "0.101.0"},
            "_meta": {"steering": {"supported": true}}
        }))
        .unwrap();
        let caps = &reply.agent_capabilities;
        assert!(caps.load_session && caps.prompt_capabilities.embedded_context && !caps.prompt_capabilities.audio);
        assert!(caps.session_capabilities.list.is_some() && caps.session_capabilities.resume.is_some());
        assert_eq!(caps.meta.as_ref().unwrap()["claudeCode"]["promptQueueing"], true);
        assert_eq!(reply.agent_info.unwrap().version, "0.101.0");
        assert!(reply.auth_methods.is_empty());
    }

    /// codex-acp 2.6.0 and gemini-cli 0.61.0 (reference/acp-gemini-codex-offline.md §7).
    #[test]
    fn reads_codex_and_gemini_replies() {
        let codex: InitializeResponse = crate::json::from_value(json!({
            "protocolVersion": 1,
            "agentCapabilities": {"loadSession": true, "promptCapabilities": {"image": true, "audio": false, "embeddedContext": true},
                "mcpCapabilities": {"http": true, "sse": false},
                "sessionCapabilities": {"resume": {}, "list": {}, "close": {}, "delete": {}, "fork": {}, "title": {},
                                        "additionalDirectories": {}, "subagents": {}, "systemPrompt": {}},
                "auth": {"logout": {}}},
            "authMethods": [{"id": "api-key", "name": "Use OpenAI API key", "description": null},
                            {"id": "gateway", "name": "Gateway", "description": "Custom gateway", "_meta": {"gateway": {}}}],
            "agentInfo": {"name": "codex-acp", "title": "Codex", "version": "2.6.0"}
        }))
        .unwrap();
        assert!(!codex.agent_capabilities.mcp_capabilities.sse);
        assert_eq!(
            codex.auth_methods.iter().filter_map(AuthMethod::id).collect::<Vec<_>>(),
            ["api-key", "gateway"]
        );

        let gemini: InitializeResponse = crate::json::from_value(json!({
            "protocolVersion": 1,
            "authMethods": [{"id": "oauth-personal", "name": "Log in with Google"}, {"id": "gemini-api-key", "name": "Use Gemini API key"},
                            {"id": "vertex-ai", "name": "Vertex AI"}, {"id": "gateway", "name": "Gateway"}],
            "agentCapabilities": {"loadSession": true, "promptCapabilities": {"image": true, "audio": true, "embeddedContext": true},
                                  "mcpCapabilities": {"http": true, "sse": true}}
        }))
        .unwrap();
        assert!(gemini.agent_capabilities.session_capabilities.list.is_none());
        assert_eq!(gemini.auth_methods.len(), 4);
    }

    #[test]
    fn the_request_is_written_exactly() {
        let request = InitializeRequest {
            protocol_version: PROTOCOL_VERSION,
            client_info: Some(Implementation {
                name: "tether".into(),
                title: Some("Tether".into()),
                version: "0.1.0".into(),
                meta: None,
            }),
            ..InitializeRequest::default()
        };
        assert_eq!(
            serde_json::to_value(request).unwrap(),
            json!({
                "protocolVersion": 1,
                "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false, "auth": {"terminal": false}},
                "clientInfo": {"name": "tether", "title": "Tether", "version": "0.1.0"}
            })
        );
    }
}
