//! Terminals, two ways. `terminal/*` requests (agent to client, when the client advertises
//! `terminal`) run a command on the client's side and read its output; no widely used agent sends
//! them, and the v2 draft drops them. Agents that run their own shell show it instead through a
//! `_meta` extension on their tool calls, read by [`TerminalDisplay`].

use super::lenient::Meta;
use super::mcp_server::EnvVariable;
use super::session::SessionId;
use super::Request;
use crate::json::read_struct;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub type TerminalId = String;

/// `terminal/create`: start a command and return at once.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTerminalRequest {
    pub session_id: SessionId,
    pub command: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvVariable>,
    /// Absolute; the session's cwd when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Keep at most this many bytes of output, dropping from the start (on a character boundary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_byte_limit: Option<u64>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(CreateTerminalRequest {
    session_id: required "sessionId",
    command: required "command",
    args: list "args",
    env: list "env",
    cwd: or_default "cwd",
    output_byte_limit: or_default "outputByteLimit",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTerminalResponse {
    pub terminal_id: TerminalId,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(CreateTerminalResponse {
    terminal_id: required "terminalId",
    meta: or_default "_meta",
});

impl Request for CreateTerminalRequest {
    const METHOD: &'static str = "terminal/create";
    type Response = CreateTerminalResponse;
}

/// The parameters of `terminal/output`, `wait_for_exit`, `kill` and `release`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminalParams {
    pub session_id: SessionId,
    pub terminal_id: TerminalId,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(TerminalParams {
    session_id: required "sessionId",
    terminal_id: required "terminalId",
    meta: or_default "_meta",
});

/// `terminal/output`: the output so far, without waiting.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TerminalOutputRequest(pub TerminalParams);

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminalOutputResponse {
    pub output: String,
    /// Output was dropped to stay within `outputByteLimit`.
    pub truncated: bool,
    /// Present once the command has exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<TerminalExitStatus>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(TerminalOutputResponse {
    output: required "output",
    truncated: required "truncated",
    exit_status: or_default "exitStatus",
    meta: or_default "_meta",
});

impl Request for TerminalOutputRequest {
    const METHOD: &'static str = "terminal/output";
    type Response = TerminalOutputResponse;
}

/// `terminal/wait_for_exit`: answered when the command exits.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WaitForTerminalExitRequest(pub TerminalParams);

impl Request for WaitForTerminalExitRequest {
    const METHOD: &'static str = "terminal/wait_for_exit";
    type Response = TerminalExitStatus;
}

/// How a command ended: an exit code, or the signal that ended it (both written, `null` when not
/// applicable, as the spec's examples do).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminalExitStatus {
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(TerminalExitStatus {
    exit_code: or_default "exitCode",
    signal: or_default "signal",
    meta: or_default "_meta",
});

/// `terminal/kill`: stop the command, keep the terminal (and its output) until released.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KillTerminalRequest(pub TerminalParams);

/// `terminal/release`: kill if running and forget it; the client keeps showing its output.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReleaseTerminalRequest(pub TerminalParams);

/// The empty answer of `terminal/kill` and `terminal/release`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TerminalDone {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(TerminalDone {
    meta: or_default "_meta",
});

impl Request for KillTerminalRequest {
    const METHOD: &'static str = "terminal/kill";
    type Response = TerminalDone;
}

impl Request for ReleaseTerminalRequest {
    const METHOD: &'static str = "terminal/release";
    type Response = TerminalDone;
}

/// The terminal-display extension in a tool call's `_meta` (claude-agent-acp, codex-acp): the
/// agent runs the command itself and shows it as a terminal whose id is usually the tool call's
/// id, one the client never created. Output comes whole (`terminal_output`, when the client sets
/// `clientCapabilities._meta.terminal_output`) or appended (`terminal_output_delta`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TerminalDisplay {
    pub info: Option<TerminalInfo>,
    /// Replaces the output shown so far.
    pub output: Option<TerminalData>,
    /// Appends to the output shown so far.
    pub output_delta: Option<TerminalData>,
    pub exit: Option<TerminalExit>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TerminalInfo {
    pub terminal_id: TerminalId,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

read_struct!(TerminalInfo {
    terminal_id: required "terminal_id",
    cwd: or_default "cwd",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TerminalData {
    pub terminal_id: TerminalId,
    pub data: String,
}

read_struct!(TerminalData {
    terminal_id: required "terminal_id",
    data: or_default "data",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TerminalExit {
    pub terminal_id: TerminalId,
    /// `None` when the agent does not know it.
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
}

read_struct!(TerminalExit {
    terminal_id: required "terminal_id",
    exit_code: or_default "exit_code",
    signal: or_default "signal",
});

impl TerminalDisplay {
    /// What a tool call's `_meta` says about its terminal; `None` when it says nothing (or only
    /// unreadable things).
    pub fn from_meta(meta: &Meta) -> Option<TerminalDisplay> {
        fn read<T: serde::de::DeserializeOwned>(meta: &Meta, key: &str) -> Option<T> {
            meta.get(key)
                .cloned()
                .and_then(|v: Value| crate::json::from_value(v).ok())
        }
        let display = TerminalDisplay {
            info: read(meta, "terminal_info"),
            output: read(meta, "terminal_output"),
            output_delta: read(meta, "terminal_output_delta"),
            exit: read(meta, "terminal_exit"),
        };
        (display != TerminalDisplay::default()).then_some(display)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(value: Value) -> Meta {
        crate::json::from_value(value).unwrap()
    }

    #[test]
    fn reads_each_part_of_the_display_extension() {
        let started =
            TerminalDisplay::from_meta(&meta(json!({"terminal_info": {"terminal_id": "call_1", "cwd": "/p"}})))
                .unwrap();
        assert_eq!(started.info.unwrap().cwd.as_deref(), Some("/p"));
        let finished = TerminalDisplay::from_meta(&meta(json!({
            "terminal_output": {"terminal_id": "call_1", "data": "hi\n"},
            "terminal_exit": {"terminal_id": "call_1", "exit_code": 0, "signal": null}
        })))
        .unwrap();
        assert_eq!(finished.output.unwrap().data, "hi\n");
        assert_eq!(finished.exit.unwrap().exit_code, Some(0));
        let delta = TerminalDisplay::from_meta(&meta(
            json!({"terminal_output_delta": {"terminal_id": "t", "data": "more"}}),
        ))
        .unwrap();
        assert_eq!(delta.output_delta.unwrap().data, "more");
    }

    #[test]
    fn other_meta_says_nothing_about_a_terminal() {
        assert_eq!(
            TerminalDisplay::from_meta(&meta(json!({"claudeCode": {"toolName": "Bash"}}))),
            None
        );
        assert_eq!(
            TerminalDisplay::from_meta(&meta(json!({"terminal_exit": "soon"}))),
            None
        );
    }

    #[test]
    fn exit_status_writes_both_fields() {
        let status = TerminalExitStatus {
            exit_code: Some(3),
            ..TerminalExitStatus::default()
        };
        assert_eq!(
            serde_json::to_value(status).unwrap(),
            json!({"exitCode": 3, "signal": null})
        );
        let output = TerminalOutputResponse {
            output: "x".into(),
            ..TerminalOutputResponse::default()
        };
        assert_eq!(
            serde_json::to_value(output).unwrap(),
            json!({"output": "x", "truncated": false})
        );
    }

    #[test]
    fn create_reads_leniently() {
        let create: CreateTerminalRequest = crate::json::from_value(json!({
            "sessionId": "s", "command": "npm", "args": ["test", 3], "env": [{"name": "CI", "value": "1"}, {"name": "X"}],
            "outputByteLimit": -1
        }))
        .unwrap();
        assert_eq!(create.args, ["test"]);
        assert_eq!(create.env.len(), 1);
        assert_eq!(create.output_byte_limit, None);
    }
}
