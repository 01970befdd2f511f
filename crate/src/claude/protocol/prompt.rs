//! The lines Tether writes for a user turn, and the reply an MCP notification gets.

pub use crate::backend::ImageInput;
use serde_json::{json, Value};

/// The stdin line for a user prompt: images first (the model reads them before the question),
/// then the text. `uuid`: the message's uuid in the CLI's transcript (2.1.330 keeps the one given).
pub fn user_message_line(text: &str, images: &[ImageInput], uuid: Option<&str>) -> String {
    let mut line = user_message(text, images);
    if let Some(uuid) = uuid {
        line["uuid"] = Value::String(uuid.to_string());
    }
    line.to_string()
}

/// A user message for the running turn: with priority `now` the CLI 2.1.330 ends the turn where
/// it is (`result` with `terminal_reason` `aborted_streaming`, or `aborted_tools` once a running
/// tool has finished) and answers the message in a new turn that keeps everything so far.
pub fn steering_message_line(text: &str) -> String {
    let mut message = user_message(text, &[]);
    message["priority"] = json!("now");
    message.to_string()
}

fn user_message(text: &str, images: &[ImageInput]) -> Value {
    let mut content: Vec<Value> = images
        .iter()
        .map(|image| {
            json!({"type": "image", "source": {"type": "base64", "media_type": image.media_type, "data": image.data_base64}})
        })
        .collect();
    if !text.is_empty() || content.is_empty() {
        content.push(json!({"type": "text", "text": text}));
    }
    json!({
        "type": "user",
        "session_id": "",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": null,
    })
}

/// The transcript uuid of the chat's user message `message_id`: `user-<ms>` maps to a fixed
/// prefix and the milliseconds in hex, so the extension finds the message in the transcript
/// from the chat's id alone (`backends/claude/fork.ts` spells the same rule); other ids to a hash.
pub fn message_uuid(message_id: &str) -> String {
    let n = message_id
        .strip_prefix("user-")
        .and_then(|ms| ms.parse::<u64>().ok())
        .unwrap_or_else(|| crate::tools::content_hash(message_id.as_bytes()));
    format!("7e7e7e7e-0000-4000-8000-{:012x}", n & 0xffff_ffff_ffff)
}

/// What an MCP notification sent over `mcp_message` gets back: the SDK's dummy reply.
pub fn mcp_notification_ack() -> Value {
    json!({"jsonrpc": "2.0", "result": {}, "id": 0})
}
