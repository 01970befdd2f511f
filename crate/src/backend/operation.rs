//! The operations on an agent's session the user asks for (open, fork, close, list, set an
//! option, log in, stop the turn, a backend's own command…), as one type that crosses every layer:
//! the driver passes it through the wasm adapter, [`crate::agent::Agent`] keeps Tether's
//! permission mode and refuses what the backend does not offer, and the backend handles the rest
//! in one place ([`super::Backend::operate`]).

use crate::config::common::parse_mode;
use crate::config::json::JsonObject;
use crate::permissions::PermissionMode;
use serde::Serialize;
use serde_json::Value;
use std::fmt;

/// One operation on the session (JS: `{op: "load", id}`, `{op: "setConfigOption", option,
/// value}`, …). Read by [`SessionOp::from_json`] rather than a serde derive: an internally
/// tagged enum's deserializer costs the wasm some 20 KB.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    test,
    derive(ts_rs::TS),
    ts(tag = "op", rename_all = "camelCase", rename_all_fields = "camelCase")
)]
pub enum SessionOp {
    /// A new session in the running agent.
    New,
    /// Open the session `id` and show its conversation (replayed as events, or a `transcript`
    /// event).
    Load { id: String },
    /// Continue the session `id` without showing it again.
    Resume { id: String },
    /// Continue from the session `id` as a new session.
    Fork { id: String },
    /// End the current session (the program may keep running).
    Close,
    /// Ask for the agent's sessions (a `sessionList` event).
    List,
    /// Delete the past session `id` from the agent's store (a `sessionDeleted` event answers).
    Delete { id: String },
    /// Switch Tether's permission mode (the backend follows it where its agent has modes).
    SetMode { mode: PermissionMode },
    /// One of the agent's options (`model`, …); null returns it to the agent's default.
    SetConfigOption { option: String, value: Option<String> },
    /// Log in with one of the agent's methods (an `authMethods` event lists them).
    Authenticate { method: String },
    /// Stop the current turn.
    Interrupt,
    /// A message from the user for the running turn: the agent takes it in now instead of after
    /// the turn (Claude Code: a user message with priority `now`; ACP: `_session/steering`).
    Steer { text: String },
    /// Stop one subagent or background task, by the id its `taskUpdate` event gave.
    StopTask { id: String },
    /// One of the backend's own commands (a gateway's older history, a canvas action,
    /// connecting and disconnecting), with its arguments.
    Command { name: String, args: Value },
}

/// Which operation, without its arguments: what an agent offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum SessionOpKind {
    New,
    Load,
    Resume,
    Fork,
    Close,
    List,
    Delete,
    SetMode,
    SetConfigOption,
    Authenticate,
    Interrupt,
    Steer,
    StopTask,
    Command,
}

impl SessionOp {
    /// Read strictly: an unknown operation or key, or a missing argument, is refused by name.
    pub fn from_json(value: &Value) -> Result<SessionOp, String> {
        let name = match value.get("op") {
            Some(Value::String(name)) => name.as_str(),
            _ => return Err("an operation needs `op`, a string".into()),
        };
        let keys: &[&str] = match name {
            "load" | "resume" | "fork" | "delete" => &["op", "id"],
            "setMode" => &["op", "mode"],
            "setConfigOption" => &["op", "option", "value"],
            "authenticate" => &["op", "method"],
            "command" => &["op", "name", "args"],
            "steer" => &["op", "text"],
            "stopTask" => &["op", "id"],
            _ => &["op"],
        };
        let op = JsonObject::new(value, "the operation", keys)?;
        Ok(match name {
            "new" => SessionOp::New,
            "load" => SessionOp::Load { id: op.string("id")? },
            "resume" => SessionOp::Resume { id: op.string("id")? },
            "fork" => SessionOp::Fork { id: op.string("id")? },
            "close" => SessionOp::Close,
            "list" => SessionOp::List,
            "delete" => SessionOp::Delete { id: op.string("id")? },
            "setMode" => SessionOp::SetMode {
                mode: parse_mode(&op.string("mode")?)?,
            },
            "setConfigOption" => SessionOp::SetConfigOption {
                option: op.string("option")?,
                value: op.opt_string("value")?,
            },
            "authenticate" => SessionOp::Authenticate {
                method: op.string("method")?,
            },
            "interrupt" => SessionOp::Interrupt,
            "steer" => SessionOp::Steer {
                text: op.string("text")?,
            },
            "stopTask" => SessionOp::StopTask { id: op.string("id")? },
            "command" => SessionOp::Command {
                name: op.string("name")?,
                args: op.get("args").cloned().unwrap_or(Value::Null),
            },
            other => return Err(format!("unknown operation {other:?}")),
        })
    }

    pub fn kind(&self) -> SessionOpKind {
        match self {
            SessionOp::New => SessionOpKind::New,
            SessionOp::Load { .. } => SessionOpKind::Load,
            SessionOp::Resume { .. } => SessionOpKind::Resume,
            SessionOp::Fork { .. } => SessionOpKind::Fork,
            SessionOp::Close => SessionOpKind::Close,
            SessionOp::List => SessionOpKind::List,
            SessionOp::Delete { .. } => SessionOpKind::Delete,
            SessionOp::SetMode { .. } => SessionOpKind::SetMode,
            SessionOp::SetConfigOption { .. } => SessionOpKind::SetConfigOption,
            SessionOp::Authenticate { .. } => SessionOpKind::Authenticate,
            SessionOp::Interrupt => SessionOpKind::Interrupt,
            SessionOp::Steer { .. } => SessionOpKind::Steer,
            SessionOp::StopTask { .. } => SessionOpKind::StopTask,
            SessionOp::Command { .. } => SessionOpKind::Command,
        }
    }
}

/// What the operation does, for a message that refuses it ("Loading session s1").
impl fmt::Display for SessionOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionOp::New => write!(f, "Starting a new session"),
            SessionOp::Load { id } => write!(f, "Loading session {id}"),
            SessionOp::Resume { id } => write!(f, "Resuming session {id}"),
            SessionOp::Fork { id } => write!(f, "Forking session {id}"),
            SessionOp::Close => write!(f, "Closing the session"),
            SessionOp::List => write!(f, "Listing sessions"),
            SessionOp::Delete { id } => write!(f, "Deleting session {id}"),
            SessionOp::SetMode { mode } => write!(f, "The permission mode {}", mode.as_str()),
            SessionOp::SetConfigOption { option, .. } => write!(f, "The option {option}"),
            SessionOp::Authenticate { method } => write!(f, "Logging in ({method})"),
            SessionOp::Interrupt => write!(f, "Stopping the turn"),
            SessionOp::Steer { .. } => write!(f, "Sending a message into the running turn"),
            SessionOp::StopTask { id } => write!(f, "Stopping the task {id}"),
            SessionOp::Command { name, .. } => write!(f, "The command {name}"),
        }
    }
}

/// An operation this agent cannot do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    pub agent: &'static str,
    pub operation: String,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is not supported by this agent ({})", self.operation, self.agent)
    }
}

impl std::error::Error for Unsupported {}

pub type Supported<T> = Result<T, Unsupported>;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn operations_are_read_with_their_arguments() {
        let read = |value: Value| SessionOp::from_json(&value);
        assert_eq!(
            read(json!({"op": "fork", "id": "s1"})),
            Ok(SessionOp::Fork { id: "s1".into() })
        );
        assert_eq!(
            read(json!({"op": "setMode", "mode": "plan"})),
            Ok(SessionOp::SetMode {
                mode: PermissionMode::Plan
            })
        );
        assert_eq!(
            read(json!({"op": "setConfigOption", "option": "model", "value": null})),
            Ok(SessionOp::SetConfigOption {
                option: "model".into(),
                value: None
            })
        );
        assert_eq!(
            read(json!({"op": "steer", "text": "use tabs"})),
            Ok(SessionOp::Steer {
                text: "use tabs".into()
            })
        );
        assert_eq!(
            read(json!({"op": "delete", "id": "s1"})),
            Ok(SessionOp::Delete { id: "s1".into() })
        );
        assert_eq!(
            read(json!({"op": "stopTask", "id": "a1b2"})),
            Ok(SessionOp::StopTask { id: "a1b2".into() })
        );
        assert_eq!(
            read(json!({"op": "command", "name": "connect"})),
            Ok(SessionOp::Command {
                name: "connect".into(),
                args: Value::Null
            })
        );
    }

    #[test]
    fn a_malformed_operation_is_refused_by_name() {
        let error = |value: Value| SessionOp::from_json(&value).unwrap_err();
        assert!(error(json!({"op": "teleport"})).contains("teleport"));
        assert!(error(json!({"op": "load"})).contains("id"));
        assert!(error(json!({"op": "close", "id": "s1"})).contains("id"));
        assert!(error(json!({"op": "stopTask"})).contains("id"));
        assert!(error(json!({"op": "delete"})).contains("id"));
        assert!(error(json!({"op": "setMode", "mode": "yolo"})).contains("yolo"));
        assert!(error(json!({"id": "s1"})).contains("op"));
    }
}
