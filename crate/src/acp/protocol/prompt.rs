//! A turn: `session/prompt` sends the user's message and is answered when the turn ends, with
//! the updates in between; `session/cancel` asks the agent to stop it (the client then answers
//! every pending permission request `cancelled`, and the turn ends with `cancelled`).

use super::content::ContentBlock;
use super::lenient::{open_enum, Meta};
use super::session::SessionId;
use super::{Notification, Request};
use crate::json::read_struct;
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptRequest {
    pub session_id: SessionId,
    pub prompt: Vec<ContentBlock>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(PromptRequest {
    session_id: required "sessionId",
    prompt: required "prompt",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptResponse {
    pub stop_reason: StopReason,
    /// Unstable in v1 (claude-agent-acp and codex-acp send it): the turn's token counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<TurnUsage>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(PromptResponse {
    stop_reason: required "stopReason",
    usage: or_default "usage",
    meta: or_default "_meta",
});

impl Request for PromptRequest {
    const METHOD: &'static str = "session/prompt";
    type Response = PromptResponse;
}

open_enum! {
    pub enum StopReason {
        EndTurn = "end_turn",
        MaxTokens = "max_tokens",
        MaxTurnRequests = "max_turn_requests",
        Refusal = "refusal",
        Cancelled = "cancelled",
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnUsage {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_read_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_write_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
}

read_struct!(TurnUsage {
    input_tokens: or_default "inputTokens",
    output_tokens: or_default "outputTokens",
    cached_read_tokens: or_default "cachedReadTokens",
    cached_write_tokens: or_default "cachedWriteTokens",
    total_tokens: or_default "totalTokens",
});

/// `session/cancel` (a notification).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelNotification {
    pub session_id: SessionId,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(CancelNotification {
    session_id: required "sessionId",
    meta: or_default "_meta",
});

impl Notification for CancelNotification {
    const METHOD: &'static str = "session/cancel";
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_prompt_is_written_exactly() {
        let request = PromptRequest {
            session_id: "s1".into(),
            prompt: vec![ContentBlock::text("Flip the debug flag")],
            meta: None,
        };
        assert_eq!(
            serde_json::to_value(request).unwrap(),
            json!({"sessionId": "s1", "prompt": [{"type": "text", "text": "Flip the debug flag"}]})
        );
    }

    #[test]
    fn reads_the_stop_reasons_and_usage_agents_send() {
        let claude: PromptResponse = crate::json::from_value(json!({
            "stopReason": "end_turn",
            "usage": {"inputTokens": 42, "outputTokens": 7, "cachedReadTokens": 0, "cachedWriteTokens": 0, "totalTokens": 49},
            "_meta": {"quota": {}}
        }))
        .unwrap();
        assert_eq!(claude.stop_reason, StopReason::EndTurn);
        assert_eq!(claude.usage.unwrap().total_tokens, Some(49));
        let gemini: PromptResponse =
            crate::json::from_value(json!({"stopReason": "cancelled", "_meta": {"quota": {"token_count": 3}}}))
                .unwrap();
        assert_eq!(gemini.stop_reason, StopReason::Cancelled);
        let future: PromptResponse = crate::json::from_value(json!({"stopReason": "paused", "usage": "n/a"})).unwrap();
        assert_eq!(future.stop_reason, StopReason::Unknown("paused".into()));
        assert_eq!(future.usage, None);
    }

    #[test]
    fn cancel_is_a_notification_with_the_session_id() {
        let cancel = CancelNotification {
            session_id: "s1".into(),
            meta: None,
        };
        assert_eq!(serde_json::to_value(cancel).unwrap(), json!({"sessionId": "s1"}));
        assert_eq!(CancelNotification::METHOD, "session/cancel");
    }
}
