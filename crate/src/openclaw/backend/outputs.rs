//! The clients' outputs as the seam's, and the events the backend makes itself.

use super::super::client::ClientOutput;
use super::super::config::DeviceConfig;
use super::super::connection::{ConnectionState, SocketOp};
use super::super::protocol::frame::DEFAULT_MAX_PAYLOAD;
use super::super::protocol::handshake::DeviceIdentity;
use crate::backend::{Output, TransportRequest};
use crate::events::{ConnectionStatus, ErrorKind, SessionSummary, Severity, UiEvent};
use crate::tools::bash::iso_timestamp;
use serde_json::Value;

/// A client output that only the driver's connection needs, as the seam's.
pub fn transport(channel: &str, url: &str, output: ClientOutput) -> Option<Output> {
    let channel = channel.to_string();
    let request = match output {
        ClientOutput::Socket(SocketOp::Open) => TransportRequest::Open {
            channel,
            url: url.to_string(),
            max_payload: DEFAULT_MAX_PAYLOAD as u64,
        },
        ClientOutput::Socket(SocketOp::Send(text)) => TransportRequest::Send { channel, text },
        ClientOutput::Socket(SocketOp::Close { code, reason }) => TransportRequest::Close { channel, code, reason },
        ClientOutput::Socket(SocketOp::Sign { payload }) => TransportRequest::Sign { channel, payload },
        ClientOutput::DeviceToken(value) => TransportRequest::StoreSecret {
            name: format!("deviceToken.{channel}"),
            value,
        },
        ClientOutput::Log(message) => TransportRequest::Log {
            message: format!("{channel}: {message}"),
        },
        ClientOutput::State { state, message } => {
            return Some(Output::Event(UiEvent::ConnectionState {
                channel,
                state: status(state),
                message,
            }))
        }
        ClientOutput::Ui(event) => return Some(Output::Event(event)),
        _ => return None,
    };
    Some(Output::Transport(request))
}

pub fn status(state: ConnectionState) -> ConnectionStatus {
    match state {
        ConnectionState::Disconnected => ConnectionStatus::Disconnected,
        ConnectionState::Connecting => ConnectionStatus::Connecting,
        ConnectionState::Connected => ConnectionStatus::Connected,
        ConnectionState::Error => ConnectionStatus::Error,
    }
}

pub fn identity(device: &DeviceConfig) -> DeviceIdentity {
    DeviceIdentity {
        id: device.id.clone(),
        public_key: device.public_key.clone(),
    }
}

/// `sessions.list`'s rows as the session picker shows them.
pub fn session_list(payload: &Value) -> Vec<SessionSummary> {
    let rows = payload
        .get("sessions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    rows.iter()
        .filter_map(|row| {
            let id = field(row, "key")?.to_string();
            let title = ["label", "displayName", "autoLabel", "lastMessagePreview"]
                .iter()
                .find_map(|k| field(row, k).filter(|t| !t.trim().is_empty()))
                .map(str::to_string);
            Some(SessionSummary {
                id,
                title,
                updated_at: row.get("updatedAt").and_then(Value::as_f64).map(iso_timestamp),
                cwd: None,
                running: row.get("hasActiveRun").and_then(Value::as_bool).unwrap_or(false),
            })
        })
        .collect()
}

pub fn field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

pub fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

pub fn log(message: String) -> Output {
    Output::Transport(TransportRequest::Log { message })
}

pub fn notice(message: String) -> Output {
    Output::Event(UiEvent::error(ErrorKind::Other, Severity::Notice, message, None))
}

pub fn error_event(message: String) -> Output {
    Output::Event(UiEvent::error(ErrorKind::Other, Severity::Error, message, None))
}
