//! The lines Tether writes for a user turn, and the reply an MCP notification gets.

pub use crate::backend::ImageInput;
use serde_json::{json, Value};

/// The stdin line for a user prompt: images first (the model reads them before the question),
/// then the text.
pub fn user_message_line(text: &str, images: &[ImageInput]) -> String {
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
    .to_string()
}

/// What an MCP notification sent over `mcp_message` gets back: the SDK's dummy reply.
pub fn mcp_notification_ack() -> Value {
    json!({"jsonrpc": "2.0", "result": {}, "id": 0})
}
