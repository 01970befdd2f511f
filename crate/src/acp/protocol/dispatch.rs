//! Reading what the agent sends the client, by method: its requests (answered by the client) and
//! its notifications. Unknown requests are kept so the caller can answer `METHOD_NOT_FOUND`;
//! unknown notifications are kept so the caller can ignore them (and log their name).

use super::elicitation::{CompleteElicitationNotification, CreateElicitationRequest};
use super::fs::{ReadTextFileRequest, WriteTextFileRequest};
use super::mcp_over_acp::{ConnectMcpRequest, DisconnectMcpRequest, McpMessage};
use super::permission::RequestPermissionRequest;
use super::rpc::CancelRequestNotification;
use super::terminal::{
    CreateTerminalRequest, KillTerminalRequest, ReleaseTerminalRequest, TerminalOutputRequest,
    WaitForTerminalExitRequest,
};
use super::update::SessionNotification;
use super::{Notification, Request};
use crate::rpc::INVALID_PARAMS;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt;

/// A request from the agent.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentRequest {
    RequestPermission(RequestPermissionRequest),
    ReadTextFile(ReadTextFileRequest),
    WriteTextFile(WriteTextFileRequest),
    CreateTerminal(CreateTerminalRequest),
    TerminalOutput(TerminalOutputRequest),
    WaitForTerminalExit(WaitForTerminalExitRequest),
    KillTerminal(KillTerminalRequest),
    ReleaseTerminal(ReleaseTerminalRequest),
    CreateElicitation(CreateElicitationRequest),
    /// Unstable MCP over ACP.
    McpConnect(ConnectMcpRequest),
    McpMessage(McpMessage),
    McpDisconnect(DisconnectMcpRequest),
    /// A method this client does not serve (extension methods `_…` included): answer
    /// [`crate::rpc::METHOD_NOT_FOUND`].
    Unknown {
        method: String,
        params: Value,
    },
}

/// A known method whose params could not be read: answer with [`InvalidParams::CODE`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidParams {
    pub method: String,
    pub reason: String,
}

impl InvalidParams {
    pub const CODE: i64 = INVALID_PARAMS;
}

impl fmt::Display for InvalidParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Invalid params for {}: {}", self.method, self.reason)
    }
}

impl std::error::Error for InvalidParams {}

fn read<T: DeserializeOwned>(method: &str, params: Value) -> Result<T, InvalidParams> {
    crate::json::from_value(params).map_err(|e| InvalidParams {
        method: method.to_string(),
        reason: e.to_string(),
    })
}

impl AgentRequest {
    /// Read a request from its method and params (`Value::Null` when it had none).
    pub fn parse(method: &str, params: Value) -> Result<Self, InvalidParams> {
        Ok(match method {
            RequestPermissionRequest::METHOD => AgentRequest::RequestPermission(read(method, params)?),
            ReadTextFileRequest::METHOD => AgentRequest::ReadTextFile(read(method, params)?),
            WriteTextFileRequest::METHOD => AgentRequest::WriteTextFile(read(method, params)?),
            CreateTerminalRequest::METHOD => AgentRequest::CreateTerminal(read(method, params)?),
            TerminalOutputRequest::METHOD => AgentRequest::TerminalOutput(read(method, params)?),
            WaitForTerminalExitRequest::METHOD => AgentRequest::WaitForTerminalExit(read(method, params)?),
            KillTerminalRequest::METHOD => AgentRequest::KillTerminal(read(method, params)?),
            ReleaseTerminalRequest::METHOD => AgentRequest::ReleaseTerminal(read(method, params)?),
            CreateElicitationRequest::METHOD => AgentRequest::CreateElicitation(read(method, params)?),
            ConnectMcpRequest::METHOD => AgentRequest::McpConnect(read(method, params)?),
            McpMessage::METHOD => AgentRequest::McpMessage(read(method, params)?),
            DisconnectMcpRequest::METHOD => AgentRequest::McpDisconnect(read(method, params)?),
            _ => AgentRequest::Unknown {
                method: method.to_string(),
                params,
            },
        })
    }

    /// The session the request belongs to (`None` for MCP-over-ACP connections, unknown requests and
    /// request-scoped elicitations).
    pub fn session_id(&self) -> Option<&str> {
        match self {
            AgentRequest::RequestPermission(r) => Some(&r.session_id),
            AgentRequest::ReadTextFile(r) => Some(&r.session_id),
            AgentRequest::WriteTextFile(r) => Some(&r.session_id),
            AgentRequest::CreateTerminal(r) => Some(&r.session_id),
            AgentRequest::TerminalOutput(r) => Some(&r.0.session_id),
            AgentRequest::WaitForTerminalExit(r) => Some(&r.0.session_id),
            AgentRequest::KillTerminal(r) => Some(&r.0.session_id),
            AgentRequest::ReleaseTerminal(r) => Some(&r.0.session_id),
            AgentRequest::CreateElicitation(r) => r.session_id.as_deref(),
            AgentRequest::McpConnect(_)
            | AgentRequest::McpMessage(_)
            | AgentRequest::McpDisconnect(_)
            | AgentRequest::Unknown { .. } => None,
        }
    }
}

/// A notification from the agent.
// Read, matched on and dropped: boxing the update would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum AgentNotification {
    SessionUpdate(SessionNotification),
    CompleteElicitation(CompleteElicitationNotification),
    CancelRequest(CancelRequestNotification),
    /// Unstable MCP over ACP: an MCP notification on a connection.
    McpMessage(McpMessage),
    /// Anything else (`_auth/status_update` and other extensions): to be ignored.
    Unknown {
        method: String,
        params: Value,
    },
}

impl AgentNotification {
    /// Read a notification; an error is for logging only (notifications get no answer).
    pub fn parse(method: &str, params: Value) -> Result<Self, InvalidParams> {
        Ok(match method {
            SessionNotification::METHOD => AgentNotification::SessionUpdate(read(method, params)?),
            CompleteElicitationNotification::METHOD => AgentNotification::CompleteElicitation(read(method, params)?),
            CancelRequestNotification::METHOD => AgentNotification::CancelRequest(read(method, params)?),
            McpMessage::METHOD => AgentNotification::McpMessage(read(method, params)?),
            _ => AgentNotification::Unknown {
                method: method.to_string(),
                params,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::protocol::update::SessionUpdate;
    use serde_json::json;

    #[test]
    fn requests_are_read_by_method() {
        let read = AgentRequest::parse(
            "fs/read_text_file",
            json!({"sessionId": "s1", "path": "/p/hello.txt", "line": 2, "limit": 1}),
        )
        .unwrap();
        assert!(matches!(&read, AgentRequest::ReadTextFile(r) if r.line == Some(2)));
        assert_eq!(read.session_id(), Some("s1"));
        let kill = AgentRequest::parse("terminal/kill", json!({"sessionId": "s1", "terminalId": "t1"})).unwrap();
        assert!(matches!(kill, AgentRequest::KillTerminal(ref k) if k.0.terminal_id == "t1"));
        let connect = AgentRequest::parse("mcp/connect", json!({"serverId": "tether-1"})).unwrap();
        assert!(matches!(connect, AgentRequest::McpConnect(ref c) if c.server_id == "tether-1"));
        let message = AgentNotification::parse(
            "mcp/message",
            json!({"connectionId": "c1", "method": "notifications/initialized"}),
        );
        assert!(matches!(message, Ok(AgentNotification::McpMessage(_))));
    }

    #[test]
    fn an_unknown_or_extension_method_is_kept_for_a_method_not_found_answer() {
        let ext = AgentRequest::parse("_zed/open_file", json!({"path": "/p"})).unwrap();
        assert_eq!(
            ext,
            AgentRequest::Unknown {
                method: "_zed/open_file".into(),
                params: json!({"path": "/p"})
            }
        );
    }

    #[test]
    fn a_known_method_with_bad_params_says_what_is_wrong() {
        let err = AgentRequest::parse("fs/write_text_file", json!({"sessionId": "s1", "path": "/p/a"})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid params for fs/write_text_file: missing field `content`"
        );
        assert_eq!(InvalidParams::CODE, -32602);
        assert!(AgentRequest::parse("session/request_permission", Value::Null).is_err());
    }

    #[test]
    fn notifications_are_read_by_method_and_unknown_ones_kept() {
        let update = AgentNotification::parse(
            "session/update",
            json!({"sessionId": "s1", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hi"}}}),
        )
        .unwrap();
        let AgentNotification::SessionUpdate(n) = update else {
            panic!()
        };
        assert!(matches!(n.update, SessionUpdate::AgentMessageChunk(_)));
        let status =
            AgentNotification::parse("_auth/status_update", json!({"authStatus": {"kind": "api_key"}})).unwrap();
        assert!(matches!(status, AgentNotification::Unknown { ref method, .. } if method == "_auth/status_update"));
        let cancel = AgentNotification::parse("$/cancel_request", json!({"requestId": 0})).unwrap();
        assert!(matches!(cancel, AgentNotification::CancelRequest(_)));
    }
}
