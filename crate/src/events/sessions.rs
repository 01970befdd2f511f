//! What an agent tells about itself and its sessions: its models, options, commands and log-in
//! methods, its sessions and their transcripts, and the state of a connection it keeps.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum ConnectionStatus {
    Disconnected,
    Connecting,
    Connected,
    /// Refused for good, or given up after the last try.
    Error,
}

/// One message of a [`UiEvent::Transcript`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TranscriptMessage {
    /// `user` or `assistant`.
    pub role: String,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelOption {
    pub value: String,
    pub display_name: Option<String>,
    pub description: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CommandInfo {
    pub name: String,
    pub description: Option<String>,
    pub argument_hint: Option<String>,
}

/// One of the agent's own options, as a picker shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AgentOption {
    /// What to set (`setConfigOption(id, value)`).
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    /// `model`, `mode`, `thought_level`, … when the agent says.
    pub category: Option<String>,
    /// `select` (one of `choices`) or `boolean` (`"true"` / `"false"`).
    pub kind: String,
    pub value: String,
    pub choices: Vec<ModelOption>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AuthMethodInfo {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    /// What to load it by (a gateway's canonical session key).
    pub id: String,
    pub title: Option<String>,
    /// ISO 8601, when the agent says.
    pub updated_at: Option<String>,
    pub cwd: Option<String>,
    /// The agent is working in it now (a gateway says; an ACP agent does not).
    #[serde(default)]
    pub running: bool,
}

/// One part of the context window's used tokens (Claude Code's `/context` categories).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ContextCategory {
    pub name: String,
    pub tokens: u64,
}
