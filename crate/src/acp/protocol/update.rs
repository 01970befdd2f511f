//! `session/update`, the agent's stream of what happens in a session: message and thought chunks,
//! tool calls and their updates, the plan, slash commands, mode and config changes, the title,
//! and context usage. An update of a kind this version does not know is kept as
//! [`SessionUpdate::Unknown`], to be ignored.

use super::config::ConfigOptionUpdate;
use super::content::ContentBlock;
use super::lenient::{tagged_union, Meta};
use super::modes::CurrentModeUpdate;
use super::plan::Plan;
use super::session::SessionId;
use super::tool_call::{ToolCall, ToolCallUpdate};
use super::Notification;
use crate::json::read_struct;
use serde::Serialize;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionNotification {
    pub session_id: SessionId,
    pub update: SessionUpdate,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SessionNotification {
    session_id: required "sessionId",
    update: required "update",
    meta: or_default "_meta",
});

impl Notification for SessionNotification {
    const METHOD: &'static str = "session/update";
}

// Updates are read, matched on and dropped; boxing the tool call would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "sessionUpdate", rename_all = "snake_case")]
pub enum SessionUpdate {
    /// Part of the user's message (sent while `session/load` replays a conversation).
    UserMessageChunk(ContentChunk),
    AgentMessageChunk(ContentChunk),
    AgentThoughtChunk(ContentChunk),
    ToolCall(ToolCall),
    ToolCallUpdate(ToolCallUpdate),
    Plan(Plan),
    AvailableCommandsUpdate(AvailableCommandsUpdate),
    CurrentModeUpdate(CurrentModeUpdate),
    ConfigOptionUpdate(ConfigOptionUpdate),
    SessionInfoUpdate(SessionInfoUpdate),
    UsageUpdate(UsageUpdate),
    /// An update of a kind this version does not know, as sent (its `sessionUpdate` included).
    #[serde(untagged)]
    Unknown(Value),
}

tagged_union!(SessionUpdate, "sessionUpdate", {
    "user_message_chunk" => UserMessageChunk,
    "agent_message_chunk" => AgentMessageChunk,
    "agent_thought_chunk" => AgentThoughtChunk,
    "tool_call" => ToolCall,
    "tool_call_update" => ToolCallUpdate,
    "plan" => Plan,
    "available_commands_update" => AvailableCommandsUpdate,
    "current_mode_update" => CurrentModeUpdate,
    "config_option_update" => ConfigOptionUpdate,
    "session_info_update" => SessionInfoUpdate,
    "usage_update" => UsageUpdate,
});

impl SessionUpdate {
    /// The wire name of the update's kind.
    pub fn kind(&self) -> &str {
        match self {
            SessionUpdate::UserMessageChunk(_) => "user_message_chunk",
            SessionUpdate::AgentMessageChunk(_) => "agent_message_chunk",
            SessionUpdate::AgentThoughtChunk(_) => "agent_thought_chunk",
            SessionUpdate::ToolCall(_) => "tool_call",
            SessionUpdate::ToolCallUpdate(_) => "tool_call_update",
            SessionUpdate::Plan(_) => "plan",
            SessionUpdate::AvailableCommandsUpdate(_) => "available_commands_update",
            SessionUpdate::CurrentModeUpdate(_) => "current_mode_update",
            SessionUpdate::ConfigOptionUpdate(_) => "config_option_update",
            SessionUpdate::SessionInfoUpdate(_) => "session_info_update",
            SessionUpdate::UsageUpdate(_) => "usage_update",
            SessionUpdate::Unknown(raw) => raw.get("sessionUpdate").and_then(Value::as_str).unwrap_or(""),
        }
    }
}

/// A piece of a message or of the agent's thinking.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentChunk {
    pub content: ContentBlock,
    /// Chunks of one message share it (when the agent sends one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ContentChunk {
    content: required "content",
    message_id: or_default "messageId",
    meta: or_default "_meta",
});

/// The agent's slash commands, the whole list each time.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AvailableCommandsUpdate {
    pub available_commands: Vec<AvailableCommand>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(AvailableCommandsUpdate {
    available_commands: list "availableCommands",
    meta: or_default "_meta",
});

/// A slash command, run by sending `/name args` as a prompt.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AvailableCommand {
    pub name: String,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<CommandInput>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(AvailableCommand {
    name: required "name",
    description: or_default "description",
    input: or_default "input",
    meta: or_default "_meta",
});

/// The command takes free text after its name; `hint` says what.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CommandInput {
    pub hint: String,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(CommandInput {
    hint: required "hint",
    meta: or_default "_meta",
});

/// The session's title or time changed.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfoUpdate {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SessionInfoUpdate {
    title: or_default "title",
    updated_at: or_default "updatedAt",
    meta: or_default "_meta",
});

/// Context window use: `used` of `size` tokens, and what the session cost so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UsageUpdate {
    pub used: u64,
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(UsageUpdate {
    used: or_default "used",
    size: or_default "size",
    cost: or_default "cost",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Cost {
    pub amount: f64,
    /// ISO 4217 (`USD`).
    pub currency: String,
}

read_struct!(Cost {
    amount: required "amount",
    currency: required "currency",
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn update(raw: Value) -> SessionUpdate {
        crate::json::from_value(raw).unwrap()
    }

    #[test]
    fn an_unknown_update_is_kept_whole_and_written_back() {
        let raw = json!({"sessionUpdate": "hologram_update", "depth": 3});
        let read = update(raw.clone());
        assert_eq!(read.kind(), "hologram_update");
        assert!(matches!(read, SessionUpdate::Unknown(_)));
        assert_eq!(serde_json::to_value(&read).unwrap(), raw);
    }

    #[test]
    fn a_malformed_known_update_is_an_error_naming_its_kind() {
        let err =
            crate::json::from_value::<SessionUpdate>(json!({"sessionUpdate": "tool_call", "title": "x"})).unwrap_err();
        assert!(
            err.to_string().starts_with("tool_call: missing field `toolCallId`"),
            "{err}"
        );
        assert!(crate::json::from_value::<SessionUpdate>(json!({"content": {}})).is_err());
    }

    #[test]
    fn every_kind_is_written_with_its_tag_first_read_and_back() {
        let kinds = [
            json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "hi"}}),
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "yo"}, "messageId": "m1"}),
            json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}}),
            json!({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "t", "kind": "read", "status": "pending"}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "completed"}),
            json!({"sessionUpdate": "plan", "entries": [{"content": "a", "priority": "low", "status": "pending"}]}),
            json!({"sessionUpdate": "available_commands_update", "availableCommands": [{"name": "init", "description": "d", "input": {"hint": "h"}}]}),
            json!({"sessionUpdate": "current_mode_update", "currentModeId": "plan"}),
            json!({"sessionUpdate": "config_option_update", "configOptions": []}),
            json!({"sessionUpdate": "session_info_update", "title": "T", "updatedAt": "2026-11-02T10:00:00Z"}),
            json!({"sessionUpdate": "usage_update", "used": 1200, "size": 200000, "cost": {"amount": 0.5, "currency": "USD"}}),
        ];
        for raw in kinds {
            let read = update(raw.clone());
            assert!(!matches!(read, SessionUpdate::Unknown(_)), "{raw}");
            assert_eq!(read.kind(), raw["sessionUpdate"]);
            let written = serde_json::to_value(&read).unwrap();
            assert_eq!(written, raw);
            assert_eq!(serde_json::to_string(&read).unwrap().find("\"sessionUpdate\""), Some(1));
        }
    }
}
