//! The gateway's wire frames: one JSON object per WebSocket text message, a request (`req`), a
//! response (`res`) or an event (`event`). Parsing is total: any text gives a frame or a
//! [`FrameError`], never a panic, so the frame handling can be fuzzed from here.

use serde_json::{json, Map, Value};
use std::fmt;

/// The gateway's default `policy.maxPayload` (25 MiB), used until `hello-ok` says otherwise.
pub const DEFAULT_MAX_PAYLOAD: usize = 25 * 1024 * 1024;

#[derive(Clone, Debug, PartialEq)]
pub enum Frame {
    /// A request. The gateway sends none to operators; kept so such a frame is recognised.
    Request {
        id: String,
        method: String,
        params: Value,
    },
    Response(Response),
    Event(EventFrame),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub id: String,
    /// `payload` when `ok`, else the error.
    pub result: Result<Value, GatewayError>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EventFrame {
    pub event: String,
    pub payload: Value,
    /// The connection's frame counter: contiguous per connection for broadcast events; absent
    /// on the challenge and on events addressed to one connection.
    pub seq: Option<u64>,
}

/// A refused request. v4 sends `{code, message, details?, retryable?, retryAfterMs?}`; the v3
/// notes show a bare string, kept as `message` with an empty `code`.
#[derive(Clone, Debug, PartialEq)]
pub struct GatewayError {
    pub code: String,
    pub message: String,
    /// Boxed: errors travel in `Result`s and are rare.
    pub details: Box<Value>,
    pub retryable: bool,
    pub retry_after_ms: Option<u64>,
}

impl GatewayError {
    pub fn new(code: &str, message: impl Into<String>) -> GatewayError {
        GatewayError {
            code: code.to_string(),
            message: message.into(),
            details: Box::new(Value::Null),
            retryable: false,
            retry_after_ms: None,
        }
    }

    /// `details.code` (`PROTOCOL_MISMATCH`, `AUTH_TOKEN_MISMATCH`, ...) or, without one, `code`.
    pub fn detail_code(&self) -> &str {
        self.details.get("code").and_then(Value::as_str).unwrap_or(&self.code)
    }

    fn from_value(value: &Value) -> GatewayError {
        match value {
            Value::String(message) => GatewayError::new("", message.clone()),
            Value::Object(fields) => GatewayError {
                code: field_str(fields, "code").unwrap_or_default().to_string(),
                message: field_str(fields, "message").unwrap_or("request failed").to_string(),
                details: Box::new(fields.get("details").cloned().unwrap_or(Value::Null)),
                retryable: fields.get("retryable").and_then(Value::as_bool).unwrap_or(false),
                retry_after_ms: fields.get("retryAfterMs").and_then(Value::as_u64),
            },
            _ => GatewayError::new("", "request failed without an error message"),
        }
    }
}

impl fmt::Display for GatewayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.detail_code() {
            "" => write!(f, "{}", self.message),
            code => write!(f, "{} ({code})", self.message),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    TooLarge {
        bytes: usize,
        limit: usize,
    },
    NotJson(String),
    /// Valid JSON, but not a frame: why.
    Malformed(String),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::TooLarge { bytes, limit } => write!(f, "frame of {bytes} bytes exceeds the {limit}-byte limit"),
            FrameError::NotJson(why) => write!(f, "frame is not JSON: {why}"),
            FrameError::Malformed(why) => write!(f, "malformed frame: {why}"),
        }
    }
}

/// Parse one text message. Unknown fields are ignored; missing required ones are an error.
pub fn parse_frame(text: &str, max_bytes: usize) -> Result<Frame, FrameError> {
    if text.len() > max_bytes {
        return Err(FrameError::TooLarge {
            bytes: text.len(),
            limit: max_bytes,
        });
    }
    let value: Value = serde_json::from_str(text).map_err(|e| FrameError::NotJson(e.to_string()))?;
    let Value::Object(mut fields) = value else {
        return Err(FrameError::Malformed("not an object".into()));
    };
    let kind = field_str(&fields, "type").ok_or_else(|| FrameError::Malformed("no type".into()))?;
    match kind {
        "event" => {
            let event = field_str(&fields, "event")
                .ok_or_else(|| FrameError::Malformed("event without a name".into()))?
                .to_string();
            let seq = match fields.get("seq") {
                None | Some(Value::Null) => None,
                Some(seq) => Some(
                    seq.as_u64()
                        .ok_or_else(|| FrameError::Malformed(format!("seq {seq} is not a counter")))?,
                ),
            };
            Ok(Frame::Event(EventFrame {
                event,
                payload: fields.remove("payload").unwrap_or(Value::Null),
                seq,
            }))
        }
        "res" => {
            let id = frame_id(&fields)?;
            let ok = fields
                .get("ok")
                .and_then(Value::as_bool)
                .ok_or_else(|| FrameError::Malformed("response without ok".into()))?;
            let result = if ok {
                Ok(fields.remove("payload").unwrap_or(Value::Null))
            } else {
                Err(GatewayError::from_value(fields.get("error").unwrap_or(&Value::Null)))
            };
            Ok(Frame::Response(Response { id, result }))
        }
        "req" => {
            let id = frame_id(&fields)?;
            let method = field_str(&fields, "method")
                .ok_or_else(|| FrameError::Malformed("request without a method".into()))?
                .to_string();
            Ok(Frame::Request {
                id,
                method,
                params: fields.remove("params").unwrap_or(Value::Null),
            })
        }
        other => Err(FrameError::Malformed(format!("unknown frame type {other:?}"))),
    }
}

/// The text of a request frame.
pub fn request_text(id: &str, method: &str, params: &Value) -> String {
    json!({"type": "req", "id": id, "method": method, "params": params}).to_string()
}

fn frame_id(fields: &Map<String, Value>) -> Result<String, FrameError> {
    match fields.get("id") {
        Some(Value::String(id)) => Ok(id.clone()),
        Some(Value::Number(id)) => Ok(id.to_string()),
        _ => Err(FrameError::Malformed("no id".into())),
    }
}

pub(crate) fn field_str<'a>(fields: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    fields.get(key).and_then(Value::as_str)
}
