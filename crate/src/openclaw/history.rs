//! `chat.history`'s messages, and what a resync learns from them about runs that were open
//! when frames were lost.

use super::chat::message_text;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryMessage {
    pub role: String,
    pub text: String,
    /// The run that wrote it (`__openclaw.runId`), for assistant messages.
    pub run_id: Option<String>,
    pub stop_reason: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    pub session_key: String,
    pub messages: Vec<HistoryMessage>,
    /// Runs the gateway still runs in this session (`sessionInfo.activeRunIds`).
    pub active_run_ids: Vec<String>,
    pub has_more: bool,
    /// Where the page before this one starts (`chat.history`'s `offset`), when there is one.
    pub next_offset: Option<u64>,
}

impl History {
    pub fn parse(payload: &Value) -> History {
        let text = |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
        let messages = payload
            .get("messages")
            .and_then(Value::as_array)
            .map(|messages| {
                messages
                    .iter()
                    .map(|m| HistoryMessage {
                        role: text(m, "role").unwrap_or_default(),
                        text: message_text(m).unwrap_or_default(),
                        run_id: m
                            .pointer("/__openclaw/runId")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        stop_reason: text(m, "stopReason"),
                    })
                    .collect()
            })
            .unwrap_or_default();
        History {
            session_key: text(payload, "sessionKey").unwrap_or_default(),
            messages,
            active_run_ids: payload
                .pointer("/sessionInfo/activeRunIds")
                .and_then(Value::as_array)
                .map(|ids| ids.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default(),
            has_more: payload.get("hasMore").and_then(Value::as_bool).unwrap_or(false),
            next_offset: payload.get("nextOffset").and_then(Value::as_u64),
        }
    }

    /// What run `run_id` may have shown as its text: its last assistant message (a tool turn's
    /// chat text is what the model wrote after the tool), then all of them joined as the
    /// gateway's cumulative chat message joins them.
    pub fn run_texts(&self, run_id: &str) -> Vec<String> {
        let texts: Vec<&str> = self
            .messages
            .iter()
            .filter(|m| m.role == "assistant" && m.run_id.as_deref() == Some(run_id))
            .map(|m| m.text.as_str())
            .filter(|t| !t.is_empty())
            .collect();
        match texts.as_slice() {
            [] => Vec::new(),
            [only] => vec![only.to_string()],
            [.., last] => vec![last.to_string(), texts.join("\n\n")],
        }
    }

    /// Whether the gateway recorded an ending for the run (a stop reason on its last message).
    pub fn run_finished(&self, run_id: &str) -> bool {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == "assistant" && m.run_id.as_deref() == Some(run_id))
            .is_some_and(|m| m.stop_reason.is_some())
    }
}
