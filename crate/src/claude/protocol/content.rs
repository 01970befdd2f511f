//! The content of assistant and user messages (text, thinking, tool use, tool results) and the
//! Messages API streaming events that bring it piece by piece.

use super::{str_field, Fields};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub enum ContentBlock {
    Text {
        text: String,
    },
    Thinking {
        thinking: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        /// A string or a list of content blocks.
        content: Value,
        is_error: bool,
    },
    Other(Value),
}

impl ContentBlock {
    pub fn from_value(value: Value) -> ContentBlock {
        let text = |key: &str| str_field(&value, key).map(str::to_string);
        let parsed = match str_field(&value, "type") {
            Some("text") => text("text").map(|text| ContentBlock::Text { text }),
            Some("thinking") => Some(ContentBlock::Thinking {
                thinking: text("thinking").unwrap_or_default(),
            }),
            Some("tool_use") => match (text("id"), text("name")) {
                (Some(id), Some(name)) => Some(ContentBlock::ToolUse {
                    id,
                    name,
                    input: value.get("input").cloned().unwrap_or(Value::Null),
                }),
                _ => None,
            },
            Some("tool_result") => text("tool_use_id").map(|tool_use_id| ContentBlock::ToolResult {
                tool_use_id,
                content: value.get("content").cloned().unwrap_or(Value::Null),
                is_error: value.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            }),
            _ => None,
        };
        parsed.unwrap_or(ContentBlock::Other(value))
    }
}

/// The text of a tool_result `content` (a string, or text blocks joined by newlines).
pub fn tool_result_text(content: &Value) -> String {
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter(|b| str_field(b, "type") == Some("text"))
            .filter_map(|b| str_field(b, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    // The tags the CLI (and Tether's tools, like it) put around an input error are for the model.
    match text
        .strip_prefix("<tool_use_error>")
        .and_then(|t| t.strip_suffix("</tool_use_error>"))
    {
        Some(inner) => inner.to_string(),
        None => text,
    }
}

/// A raw Messages API streaming event, wrapped (`--include-partial-messages`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StreamEventMessage {
    pub event: StreamEvent,
    pub parent_tool_use_id: Option<String>,
    pub session_id: String,
    /// The API message these events build (absent in older builds; then message_start tells).
    pub api_message_id: Option<String>,
}

impl StreamEventMessage {
    pub(super) fn parse(value: &Value) -> Option<StreamEventMessage> {
        let f = Fields::of(value)?;
        Some(StreamEventMessage {
            event: f.get("event").cloned().map(StreamEvent::from_value).unwrap_or_default(),
            parent_tool_use_id: f.opt_string("parent_tool_use_id")?,
            session_id: f.string("session_id")?,
            api_message_id: f.opt_string("api_message_id")?,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub enum StreamEvent {
    MessageStart {
        id: String,
    },
    ContentBlockStart {
        index: u64,
        block: ContentBlock,
    },
    ContentBlockDelta {
        index: u64,
        delta: Delta,
    },
    ContentBlockStop {
        index: u64,
    },
    MessageDelta {
        stop_reason: Option<String>,
    },
    MessageStop,
    #[default]
    Ping,
    Other(Value),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Delta {
    Text(String),
    Thinking(String),
    InputJson(String),
    Signature,
    Other(Value),
}

impl StreamEvent {
    pub fn from_value(value: Value) -> StreamEvent {
        let index = value.get("index").and_then(Value::as_u64);
        let parsed = match (str_field(&value, "type"), index) {
            (Some("message_start"), _) => value
                .pointer("/message/id")
                .and_then(Value::as_str)
                .map(|id| StreamEvent::MessageStart { id: id.into() }),
            (Some("content_block_start"), Some(index)) => {
                value.get("content_block").map(|b| StreamEvent::ContentBlockStart {
                    index,
                    block: ContentBlock::from_value(b.clone()),
                })
            }
            (Some("content_block_delta"), Some(index)) => value.get("delta").map(|d| StreamEvent::ContentBlockDelta {
                index,
                delta: Delta::from_value(d),
            }),
            (Some("content_block_stop"), Some(index)) => Some(StreamEvent::ContentBlockStop { index }),
            (Some("message_delta"), _) => Some(StreamEvent::MessageDelta {
                stop_reason: value
                    .pointer("/delta/stop_reason")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            }),
            (Some("message_stop"), _) => Some(StreamEvent::MessageStop),
            (Some("ping"), _) => Some(StreamEvent::Ping),
            _ => None,
        };
        parsed.unwrap_or(StreamEvent::Other(value))
    }
}

impl Delta {
    pub(super) fn from_value(value: &Value) -> Delta {
        let text = |key: &str| str_field(value, key).map(str::to_string);
        let parsed = match str_field(value, "type") {
            Some("text_delta") => text("text").map(Delta::Text),
            Some("thinking_delta") => text("thinking").map(Delta::Thinking),
            Some("input_json_delta") => text("partial_json").map(Delta::InputJson),
            Some("signature_delta") => Some(Delta::Signature),
            _ => None,
        };
        parsed.unwrap_or_else(|| Delta::Other(value.clone()))
    }
}
