//! The seam every agent backend plugs into. A backend speaks one agent's protocol, sans I/O: it
//! turns the user's commands into messages for the agent, and the agent's messages into UI
//! events, tool runs and permission questions. Everything else — Tether's tools, the permission
//! gate, the settings — is [`crate::agent::Agent`]'s, the same for every backend.
//!
//! What a backend puts out is an [`Output`] (a message to send to the agent, or a UI event) or,
//! from the agent's own messages, an [`Action`]: one of those, a tool to run, a permission
//! question for the gate, work on the workspace for the agent's own requests, a workspace file to
//! read whole, or an MCP message for Tether's server. Work a backend can only ask for once the
//! agent answered something (a permission granted, a file read) waits in [`Backend::follow_ups`].
//! The user's operations on the session (open, fork, close, list, set an option…) reach it as one
//! [`SessionOp`] ([`Backend::operate`]); it says which it [offers](Backend::offers), and the others
//! are answered [`Unsupported`], as an ACP agent answers a method it lacks with "method not
//! found".
//!
//! A backend that reaches its agent over connections it steers itself (an OpenClaw gateway's
//! WebSockets, with their reconnects and device signatures) asks the driver for them with
//! [`TransportRequest`]s and hears back through [`Backend::on_transport`] and [`Backend::wake`];
//! a stdio agent needs none of it.

mod operation;

pub use operation::{SessionOp, SessionOpKind, Supported, Unsupported};

use crate::config::common::CommonConfig;
use crate::config::json::JsonObject;
use crate::events::{FormAnswers, PermissionOption, PermissionRequest, UiEvent};
use crate::hooks::{HookEvent, HookOutcome};
use crate::host::{BackgroundStatus, HostErrorKind};
use crate::mcp::Manifest;
use crate::permissions::{AlwaysAllow, PermissionMode, ToolRequest};
use crate::tools::ToolOutput;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// What to do for the backend.
// Outputs only travel from the backend to the driver; boxing the event would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// Send this message to the agent (one line of its stdio stream).
    Send(String),
    Event(UiEvent),
    /// Something for the driver's connections (a backend that steers its own).
    Transport(TransportRequest),
}

/// What a backend that steers its own connections asks of the driver. A connection is named by
/// its `channel` (the gateway's operator connection, the workspace's node connection); what the
/// driver sees happen comes back as a [`TransportEvent`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum TransportRequest {
    /// Open a WebSocket to `url` taking frames up to `max_payload` bytes; then `opened`, or
    /// `closed` when it fails.
    Open {
        channel: String,
        url: String,
        max_payload: u64,
    },
    /// One text frame.
    Send { channel: String, text: String },
    /// Close the socket; `closed` follows.
    Close { channel: String, code: u16, reason: String },
    /// Sign `payload` with the channel's device key (Ed25519); then `signed`.
    Sign { channel: String, payload: String },
    /// Call `wake` at this time of the host's clock (ms since the epoch); None: no timer.
    WakeAt { at_ms: Option<u64> },
    /// Keep `value` under `name` in the host's secret store for this agent (a token the gateway
    /// issued to this device, for the next connect).
    StoreSecret { name: String, value: String },
    /// A line for the log (a dropped frame, a resync).
    Log { message: String },
}

/// What happened to a connection the backend asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    test,
    derive(ts_rs::TS),
    ts(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")
)]
pub enum TransportEvent {
    Opened { channel: String },
    Frame { channel: String, text: String },
    Closed { channel: String, code: u16, reason: String },
    Signed { channel: String, signature: String },
}

impl TransportEvent {
    /// The event as the driver passes it (`{kind: "frame", channel, text}`), read strictly.
    /// Written out: serde's derive reads an enum tagged by a field through its buffered `Content`,
    /// about 10 KB of wasm for each such enum.
    pub fn from_json(value: &Value) -> Result<TransportEvent, String> {
        let what = "the transport event";
        let kind = value.get("kind").and_then(Value::as_str).unwrap_or_default();
        let fields: &[&str] = match kind {
            "opened" => &["kind", "channel"],
            "frame" => &["kind", "channel", "text"],
            "closed" => &["kind", "channel", "code", "reason"],
            "signed" => &["kind", "channel", "signature"],
            _ => return Err(format!("{what} needs a `kind`: opened, frame, closed or signed")),
        };
        let event = JsonObject::new(value, what, fields)?;
        let channel = event.string("channel")?;
        Ok(match kind {
            "opened" => TransportEvent::Opened { channel },
            "frame" => TransportEvent::Frame {
                channel,
                text: event.string("text")?,
            },
            "closed" => TransportEvent::Closed {
                channel,
                code: event.number("code", u16::MAX.into())? as u16,
                reason: event.string("reason")?,
            },
            _ => TransportEvent::Signed {
                channel,
                signature: event.string("signature")?,
            },
        })
    }
}

/// What the agent's own messages ask for.
// Actions only travel from the backend to the agent; boxing the question would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Output(Output),
    /// Run one of Tether's tools, then answer with [`Backend::tool_result`].
    RunTool(ToolRun),
    /// Let the gate decide (or ask the user), then answer with [`Backend::answer_permission`].
    AskPermission(PermissionAsk),
    /// Read a workspace file as it is (its bytes, not a tool's rendering of them), then answer
    /// with [`Backend::file_read`]. For agents that take files whole (a gateway's node); the
    /// backend asks the gate before.
    ReadFile(FileRead),
    /// Work on the workspace the agent asked for itself (ACP's `fs/*` and `terminal/*`), then
    /// answer with [`Backend::workspace_result`].
    Workspace(WorkspaceRequest),
    /// An MCP message for Tether's server that came over the agent's own connection (MCP over
    /// ACP): served behind the gate, its reply (None for a notification) handed back with
    /// [`Backend::mcp_reply`].
    ServeMcp {
        call: String,
        message: Value,
    },
    /// The agent fired a hook event (an agent that [fires hooks](Backend::fires_hooks)): run the
    /// project's hooks for it on the workspace, then answer with [`Backend::hook_result`].
    RunHooks(HookCall),
}

/// A hook event the agent fired.
#[derive(Clone, Debug, PartialEq)]
pub struct HookCall {
    /// The backend's handle for the answer.
    pub call: String,
    pub event: HookEvent,
    /// The agent's input for the event (Claude Code's hook input); tools by the agent's names.
    pub input: Value,
}

/// A file read a backend asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRead {
    /// The backend's handle for the answer.
    pub call: String,
    /// As the agent gave it (resolved like a tool's path: inside the workspace unless allowed).
    pub path: String,
    /// False: only where it is and what it is (no bytes read).
    pub contents: bool,
    /// A file holding more is refused rather than read.
    pub max_bytes: u64,
}

/// A file as [`Action::ReadFile`] found it.
#[derive(Clone, Debug, PartialEq)]
pub struct FileBytes {
    /// With every symlink resolved.
    pub path: String,
    /// What the path itself is (a symlink is not followed here).
    pub kind: crate::host::FileKind,
    pub size: u64,
    pub mtime_ms: f64,
    /// None when `contents` was false.
    pub bytes: Option<Vec<u8>>,
}

/// One piece of work on the workspace, for the agent's own requests. Paths are workspace paths
/// (already mapped and checked by the backend).
#[derive(Clone, Debug, PartialEq)]
pub struct WorkspaceRequest {
    /// The backend's handle for the answer.
    pub call: String,
    pub op: WorkspaceOp,
}

#[derive(Clone, Debug, PartialEq)]
pub enum WorkspaceOp {
    /// A text file's content as the user sees it: an editor's unsaved text first, else the file.
    ReadText {
        path: String,
    },
    /// Start a command in the workspace's shell (`cwd` a workspace path).
    Spawn {
        command: String,
        cwd: String,
        env: Vec<(String, String)>,
    },
    /// The output a command started with [`WorkspaceOp::Spawn`] wrote since the last read; with
    /// `wait_ms`, wait up to that long for some (or for its end) first.
    ReadOutput {
        id: String,
        wait_ms: u64,
    },
    Kill {
        id: String,
    },
}

/// The answer to a [`WorkspaceRequest`].
#[derive(Clone, Debug, PartialEq)]
pub enum WorkspaceAnswer {
    Text(String),
    Spawned(String),
    Output(BackgroundStatus),
    Killed,
    Failed { kind: HostErrorKind, message: String },
}

/// A call of one of Tether's tools the agent makes.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolRun {
    /// The backend's handle for the answer.
    pub call: String,
    /// The tool's built-in name (`Edit`).
    pub tool: String,
    pub input: Value,
    /// The id of the tool use the model made, which permission questions name too: a change the
    /// user reviewed is written as reviewed.
    pub tool_use_id: Option<String>,
}

/// A permission question from the agent.
#[derive(Clone, Debug, PartialEq)]
pub struct PermissionAsk {
    /// What the UI shows, with the options the backend offers; the gate adds why it asks, the
    /// review of an edit and what "always" would do.
    pub request: PermissionRequest,
    /// The call, as the permission engine judges it.
    pub access: ToolRequest,
    pub policy: AskPolicy,
}

/// Who decides a permission question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AskPolicy {
    /// The permission engine (modes, rules); it asks the user when it must.
    Engine,
    /// The user, whatever the rules say: the tool is itself a question (a plan to approve).
    /// `always` is what choosing an "always" option applies.
    User {
        reason: String,
        always: Option<AlwaysAllow>,
    },
}

/// The answer to a permission question, for the backend to tell its agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Allowed by the permission engine without asking.
    Allowed,
    /// The user chose one of the request's options; `reason` is what they said with a refusal.
    Chosen {
        option: PermissionOption,
        reason: Option<String>,
        /// The answers to the request's form, when it had one.
        answers: Option<FormAnswers>,
    },
    /// Refused by Tether (a rule, the mode, a change that cannot be made); the model reads
    /// `message`.
    Denied { message: String },
}

/// An image attached to a prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageInput {
    pub media_type: String,
    /// Base64.
    pub data_base64: String,
}

impl ImageInput {
    /// A prompt's images as the driver passes them: `[{mediaType, data}]` with base64 data.
    pub fn list_from_json(value: &Value) -> Result<Vec<ImageInput>, String> {
        let Some(items) = value.as_array() else {
            return Err("images must be a list".into());
        };
        items
            .iter()
            .map(|item| {
                let image = JsonObject::new(item, "an image", &["mediaType", "data"])?;
                Ok(ImageInput {
                    media_type: image.string("mediaType")?,
                    data_base64: image.string("data")?,
                })
            })
            .collect()
    }
}

/// How to start the agent's program: its arguments (after the binary) and its complete
/// environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
}

/// The program of a stdio agent, as the driver finds it on the laptop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentProgram {
    /// What people call the agent ("Claude Code").
    pub display_name: &'static str,
    /// Its command's name on PATH (`claude`).
    pub command: &'static str,
    /// The environment variable that may name its binary.
    pub path_variable: &'static str,
    /// More places its installers put it (`~` is the home directory).
    pub install_dirs: &'static [&'static str],
    /// How to install it.
    pub install_hint: &'static str,
}

/// What a backend is told about the session when it is made.
pub struct SessionContext<'a> {
    pub config: &'a CommonConfig,
    /// The workspace root as the tools spell it.
    pub root: &'a str,
    pub windows: bool,
    /// The mode the session starts in (the configured one; the settings may change it at start).
    pub mode: PermissionMode,
}

/// One agent protocol. Methods take `&mut self` and never wait: the agent drives them one at a
/// time and runs what they ask for.
pub trait Backend {
    /// The agent's name as people know it ("Claude Code").
    fn name(&self) -> &'static str;

    /// How to start the agent's program; `parent_env` is the driver's own environment.
    fn launch(&self, parent_env: Vec<(String, String)>) -> Launch;

    /// The first messages, sent as soon as the program runs; `tools` describes Tether's tools.
    fn start(&mut self, tools: &Manifest) -> Vec<Output>;

    /// Files to write before the program starts (absolute path → content): settings the agent
    /// reads from a file its launch environment names.
    fn launch_files(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Configuration the agent would read in its own working folder and act on there, on the
    /// laptop (hooks, commands, local servers, environment), as paths relative to that folder:
    /// the connector that spawns it refuses to when its folder holds one of them
    /// (`extension/src/session/agentFolder.ts`; only ACP profiles name any: Claude Code reads
    /// no settings file in a mirror).
    fn refused_in_cwd(&self) -> &'static [&'static str] {
        &[]
    }

    /// Problems in the backend's own configuration, told once the session has started.
    fn notices(&self) -> Vec<String> {
        Vec::new()
    }

    /// Work queued while the backend handled a command or an answer (a permission granted, a
    /// workspace answer), to run now. The agent asks after every call into the backend.
    fn follow_ups(&mut self) -> Vec<Action> {
        Vec::new()
    }

    /// The answer to a [`WorkspaceRequest`].
    fn workspace_result(&mut self, _call: &str, _answer: WorkspaceAnswer) -> Vec<Output> {
        Vec::new()
    }

    /// Whether the agent fires the tool, prompt and stop hook events itself and asks for them
    /// with [`Action::RunHooks`] (Claude Code's `hook_callback`). Otherwise the agent runs
    /// PreToolUse and PostToolUse around Tether's tools, UserPromptSubmit before a prompt and
    /// Stop at a turn's end. SessionStart and Notification are always the agent's.
    fn fires_hooks(&self) -> bool {
        false
    }

    /// Whether the agent's own program reads the settings files and runs their hooks itself
    /// (Claude Code on a local folder): then Tether runs none of them, so none runs twice.
    fn runs_settings_hooks_itself(&self) -> bool {
        false
    }

    /// What the project's hooks decided for an [`Action::RunHooks`].
    fn hook_result(&mut self, _call: &str, _event: HookEvent, _outcome: &HookOutcome) -> Vec<Output> {
        Vec::new()
    }

    /// The reply of Tether's MCP server to an [`Action::ServeMcp`] message.
    fn mcp_reply(&mut self, _call: &str, _reply: Option<Value>) -> Vec<Output> {
        Vec::new()
    }

    /// The next prompt is the chat's user message `message_id` (an agent whose transcript names
    /// its messages can use it, so the chat can point at a message later: fork from it).
    fn begin_message(&mut self, _message_id: &str) {}

    /// A user turn.
    fn prompt(&mut self, text: &str, images: &[ImageInput]) -> Vec<Output>;

    /// One message from the agent.
    fn on_message(&mut self, message: &str) -> Vec<Action>;

    /// The result of a [`ToolRun`].
    fn tool_result(&mut self, call: &str, output: ToolOutput) -> Vec<Output>;

    /// The answer to a [`PermissionAsk`] (by its request's id).
    fn answer_permission(&mut self, id: &str, verdict: Verdict) -> Vec<Output>;

    /// The answer to an [`Action::ReadFile`].
    fn file_read(&mut self, _call: &str, _result: Result<FileBytes, String>) -> Vec<Output> {
        Vec::new()
    }

    /// The time now (ms since the epoch, the host's clock), told before every other call.
    fn set_clock(&mut self, _now_ms: u64) {}

    /// A connection it asked for opened, brought a frame, closed, or was signed for.
    fn on_transport(&mut self, _event: TransportEvent) -> Vec<Action> {
        Vec::new()
    }

    /// The time it asked for with [`TransportRequest::WakeAt`] came.
    fn wake(&mut self) -> Vec<Action> {
        Vec::new()
    }

    /// The session operations it can do now (it may learn more from its agent's handshake).
    /// [`crate::agent::Agent`] refuses the others before they reach [`Backend::operate`].
    fn offers(&self) -> Vec<SessionOpKind>;

    /// One session operation it offers; also told every change of Tether's permission mode
    /// ([`SessionOp::SetMode`], whether offered or not: the agent may have a mode of its own to
    /// follow). What it cannot do after all (an option it lacks) is [`Unsupported`].
    fn operate(&mut self, op: SessionOp) -> Supported<Vec<Output>>;

    /// `op` refused, with the agent's name.
    fn refuse(&self, op: &SessionOp) -> Unsupported {
        self.unsupported(op.to_string())
    }

    fn unsupported(&self, operation: String) -> Unsupported {
        Unsupported {
            agent: self.name(),
            operation,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_transport_event_is_read_by_its_kind() {
        let read = |value: Value| TransportEvent::from_json(&value);
        assert_eq!(
            read(json!({"kind": "frame", "channel": "op", "text": "{}"})),
            Ok(TransportEvent::Frame {
                channel: "op".into(),
                text: "{}".into()
            })
        );
        assert_eq!(
            read(json!({"kind": "closed", "channel": "op", "code": 1006, "reason": ""})),
            Ok(TransportEvent::Closed {
                channel: "op".into(),
                code: 1006,
                reason: String::new()
            })
        );
        assert_eq!(
            read(json!({"kind": "opened", "channel": "node"})),
            Ok(TransportEvent::Opened { channel: "node".into() })
        );
    }

    #[test]
    fn a_transport_event_with_a_wrong_kind_field_or_value_is_refused() {
        let read = |value: Value| TransportEvent::from_json(&value).unwrap_err();
        assert!(read(json!({"kind": "burst", "channel": "op"})).contains("needs a `kind`"));
        assert!(read(json!({"channel": "op"})).contains("needs a `kind`"));
        assert!(read(json!({"kind": "opened", "channel": "op", "text": "x"})).contains("unknown field `text`"));
        assert_eq!(read(json!({"kind": "frame", "channel": "op"})), "`text` is missing");
        assert_eq!(
            read(json!({"kind": "closed", "channel": "op", "code": 70000, "reason": ""})),
            "`code` must be a whole number from 0 to 65535"
        );
        assert_eq!(
            read(json!("frame")),
            "the transport event needs a `kind`: opened, frame, closed or signed"
        );
    }
}
