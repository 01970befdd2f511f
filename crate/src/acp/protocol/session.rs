//! Session lifecycle, client to agent: `session/new`, `load` (replays the conversation as updates
//! before it answers), `resume` (does not), `list`, `close`, `delete`, and the legacy
//! `session/set_model` some agents still answer.

use super::config::SessionConfigOption;
use super::lenient::Meta;
use super::mcp_server::McpServer;
use super::modes::SessionModeState;
use super::Request;
use crate::json::read_struct;
use serde::{Deserialize, Serialize};

pub type SessionId = String;

/// `session/new`. `_meta` carries agent-specific options (claude-agent-acp reads
/// `_meta.claudeCode.options`, e.g. `tools: []` to turn its built-in tools off).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSessionRequest {
    /// Absolute.
    pub cwd: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub additional_directories: Vec<String>,
    pub mcp_servers: Vec<McpServer>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(NewSessionRequest {
    cwd: required "cwd",
    additional_directories: list "additionalDirectories",
    mcp_servers: list "mcpServers",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSessionResponse {
    pub session_id: SessionId,
    #[serde(flatten)]
    pub state: SessionState,
}

read_struct!(NewSessionResponse {
    session_id: required "sessionId",
    state: flatten,
});

impl Request for NewSessionRequest {
    const METHOD: &'static str = "session/new";
    type Response = NewSessionResponse;
}

/// What `session/new`, `load` and `resume` return besides the id: the pickers' contents.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionState {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modes: Option<SessionModeState>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_options: Option<Vec<SessionConfigOption>>,
    /// Unstable in v1, sent by gemini-cli and codex-acp: the models `session/set_model` picks from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub models: Option<SessionModelState>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SessionState {
    modes: or_default "modes",
    config_options: opt_list "configOptions",
    models: or_default "models",
    meta: or_default "_meta",
});

/// `session/load`: the agent replays the conversation as `session/update`s, then answers.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadSessionRequest {
    pub session_id: SessionId,
    pub cwd: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub additional_directories: Vec<String>,
    pub mcp_servers: Vec<McpServer>,
    /// Not remembered from `session/new` by the agents: send the same options again.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(LoadSessionRequest {
    session_id: required "sessionId",
    cwd: required "cwd",
    additional_directories: list "additionalDirectories",
    mcp_servers: list "mcpServers",
    meta: or_default "_meta",
});

impl Request for LoadSessionRequest {
    const METHOD: &'static str = "session/load";
    type Response = SessionState;
}

/// `session/resume` (needs `sessionCapabilities.resume`): no replay.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumeSessionRequest {
    pub session_id: SessionId,
    pub cwd: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub additional_directories: Vec<String>,
    pub mcp_servers: Vec<McpServer>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ResumeSessionRequest {
    session_id: required "sessionId",
    cwd: required "cwd",
    additional_directories: list "additionalDirectories",
    mcp_servers: list "mcpServers",
    meta: or_default "_meta",
});

impl Request for ResumeSessionRequest {
    const METHOD: &'static str = "session/resume";
    type Response = SessionState;
}

/// `session/fork` (unstable; needs `sessionCapabilities.fork`): a new session starting from this
/// one's conversation.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkSessionRequest {
    pub session_id: SessionId,
    pub cwd: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub additional_directories: Vec<String>,
    pub mcp_servers: Vec<McpServer>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ForkSessionRequest {
    session_id: required "sessionId",
    cwd: required "cwd",
    additional_directories: list "additionalDirectories",
    mcp_servers: list "mcpServers",
    meta: or_default "_meta",
});

impl Request for ForkSessionRequest {
    const METHOD: &'static str = "session/fork";
    /// The new session's id and pickers.
    type Response = NewSessionResponse;
}

/// `session/list` (needs `sessionCapabilities.list`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ListSessionsRequest {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ListSessionsRequest {
    cwd: or_default "cwd",
    cursor: or_default "cursor",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSessionsResponse {
    pub sessions: Vec<SessionInfo>,
    /// More to fetch with this cursor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ListSessionsResponse {
    sessions: list "sessions",
    next_cursor: or_default "nextCursor",
    meta: or_default "_meta",
});

impl Request for ListSessionsRequest {
    const METHOD: &'static str = "session/list";
    type Response = ListSessionsResponse;
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub session_id: SessionId,
    pub cwd: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub additional_directories: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// ISO 8601.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SessionInfo {
    session_id: required "sessionId",
    cwd: or_default "cwd",
    additional_directories: list "additionalDirectories",
    title: or_default "title",
    updated_at: or_default "updatedAt",
    meta: or_default "_meta",
});

/// `session/close` (needs `sessionCapabilities.close`) and `session/delete` (`…delete`) take the id only.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionIdParams {
    pub session_id: SessionId,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SessionIdParams {
    session_id: required "sessionId",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CloseSessionRequest(pub SessionIdParams);

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeleteSessionRequest(pub SessionIdParams);

/// The empty answer of `session/close` and `session/delete`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EmptyResponse {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(EmptyResponse {
    meta: or_default "_meta",
});

impl Request for CloseSessionRequest {
    const METHOD: &'static str = "session/close";
    type Response = EmptyResponse;
}

impl Request for DeleteSessionRequest {
    const METHOD: &'static str = "session/delete";
    type Response = EmptyResponse;
}

/// The unstable model list (gemini-cli, codex-acp).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionModelState {
    pub current_model_id: String,
    pub available_models: Vec<ModelInfo>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SessionModelState {
    current_model_id: required "currentModelId",
    available_models: list "availableModels",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    pub model_id: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ModelInfo {
    model_id: required "modelId",
    name: required "name",
    description: or_default "description",
    meta: or_default "_meta",
});

/// `session/set_model`: removed from the protocol (the model is a config option now), still
/// answered by gemini-cli, which has no config options.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetSessionModelRequest {
    pub session_id: SessionId,
    pub model_id: String,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SetSessionModelRequest {
    session_id: required "sessionId",
    model_id: required "modelId",
    meta: or_default "_meta",
});

impl Request for SetSessionModelRequest {
    const METHOD: &'static str = "session/set_model";
    type Response = EmptyResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::protocol::mcp_server::{EnvVariable, McpServerStdio};
    use serde_json::json;

    #[test]
    fn new_session_with_force_local_meta_is_written_exactly() {
        let mut meta = Meta::new();
        meta.insert("claudeCode".into(), json!({"options": {"tools": []}}));
        let request = NewSessionRequest {
            cwd: "/home/u/project".into(),
            mcp_servers: vec![McpServer::Stdio(McpServerStdio {
                name: "tether".into(),
                command: "node".into(),
                args: vec!["tether-mcp-bridge.js".into()],
                env: vec![EnvVariable::new("TETHER_BRIDGE_ENDPOINT", "/tmp/tether-x/s")],
                meta: None,
            })],
            meta: Some(meta),
            ..NewSessionRequest::default()
        };
        assert_eq!(
            serde_json::to_value(request).unwrap(),
            json!({
                "cwd": "/home/u/project",
                "mcpServers": [{"name": "tether", "command": "node", "args": ["tether-mcp-bridge.js"],
                                "env": [{"name": "TETHER_BRIDGE_ENDPOINT", "value": "/tmp/tether-x/s"}]}],
                "_meta": {"claudeCode": {"options": {"tools": []}}}
            })
        );
    }

    /// gemini-cli 0.61.0's `session/new` result: modes and the unstable models, no config options.
    #[test]
    fn reads_a_new_session_with_modes_and_models() {
        let reply: NewSessionResponse = crate::json::from_value(json!({
            "sessionId": "3f1c",
            "modes": {"currentModeId": "default", "availableModes": [
                {"id": "default", "name": "Default"}, {"id": "autoEdit", "name": "Auto Edit"},
                {"id": "yolo", "name": "YOLO"}, {"id": "plan", "name": "Plan"}]},
            "models": {"currentModelId": "auto", "availableModels": [{"modelId": "gemini-2.5-flash", "name": "gemini-2.5-flash"}]}
        }))
        .unwrap();
        assert_eq!(reply.session_id, "3f1c");
        assert_eq!(reply.state.modes.unwrap().available_modes.len(), 4);
        assert_eq!(
            reply.state.models.unwrap().available_models[0].model_id,
            "gemini-2.5-flash"
        );
        assert!(reply.state.config_options.is_none());
    }

    #[test]
    fn reads_a_session_list_and_skips_entries_without_an_id() {
        let list: ListSessionsResponse = crate::json::from_value(json!({
            "sessions": [
                {"sessionId": "a", "cwd": "/p", "title": "Fix the build", "updatedAt": "2026-11-02T10:00:00Z"},
                {"cwd": "/p"},
            ],
            "nextCursor": null
        }))
        .unwrap();
        assert_eq!(list.sessions.len(), 1);
        assert_eq!(list.sessions[0].title.as_deref(), Some("Fix the build"));
        assert_eq!(list.next_cursor, None);
    }

    #[test]
    fn close_and_delete_carry_the_session_id_only() {
        let close = CloseSessionRequest(SessionIdParams {
            session_id: "s1".into(),
            meta: None,
        });
        assert_eq!(serde_json::to_value(close).unwrap(), json!({"sessionId": "s1"}));
        assert_eq!(<DeleteSessionRequest as Request>::METHOD, "session/delete");
    }
}
