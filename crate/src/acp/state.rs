//! The ACP backend's state: what it sent and waits for, the session's phase, the agent's
//! questions and the work started for it. Its behaviour is in `backend` (the session),
//! `requests` (the agent's requests) and `updates` (the agent's updates).

use super::calls::ToolCalls;
use super::config::AcpConfig;
use super::profile::Profile;
use super::protocol::capabilities::AgentCapabilities;
use super::protocol::elicitation::ElicitationSchema;
use super::protocol::permission::PermissionOption as AcpOption;
use super::session_state::SessionOptions;
use super::terminals::Terminals;
use crate::backend::Action;
use crate::config::McpServerEntry;
use crate::events::AuthMethodInfo;
use crate::id_table::IdTable;
use crate::paths::PathMapper;
use crate::permissions::PermissionMode;
use crate::rpc::{Id, Peer};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, VecDeque};

/// What a request Tether sent is for, kept until its response.
#[derive(Debug)]
pub enum Pending {
    Initialize,
    Authenticate,
    Open {
        how: Open,
    },
    SetMode {
        mode: String,
    },
    SetConfigOption,
    SetModel {
        model: String,
    },
    Prompt,
    /// `_session/steering` with the text, sent as a prompt of its own if the agent did not take it.
    Steer {
        text: String,
    },
    ListSessions,
    CloseSession,
    DeleteSession {
        id: String,
    },
}

/// How a session is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Open {
    New,
    /// `session/load`; `replay`: show the conversation the agent replays.
    Load {
        replay: bool,
    },
    Resume,
    Fork,
}

impl Open {
    pub fn method(self) -> &'static str {
        match self {
            Open::New => "session/new",
            Open::Load { .. } => "session/load",
            Open::Resume => "session/resume",
            Open::Fork => "session/fork",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    /// `initialize` sent.
    Starting,
    /// The agent wants `authenticate` before a session; the session to open then.
    NeedsAuth {
        open: Open,
        id: Option<String>,
    },
    Opening,
    Ready,
    /// Nothing more can work: why.
    Failed(String),
}

/// One ACP agent session, sans I/O.
pub struct AcpBackend {
    pub name: &'static str,
    /// The agent's name for messages.
    pub agent_name: String,
    pub config: AcpConfig,
    pub profile: Option<Profile>,
    /// The agent's working directory (the mirror for a remote workspace), as it spells paths.
    pub cwd: String,
    /// The workspace's other folders as the agent spells them (`additionalDirectories`).
    pub additional_directories: Vec<String>,
    pub paths: PathMapper,
    /// Its working directory stands for a workspace elsewhere: its own tools are switched off.
    pub remote: bool,
    pub windows: bool,
    /// What the model is told about the remote workspace.
    pub brief: Option<String>,
    pub env: BTreeMap<String, String>,
    /// The project's MCP servers the agent is given next to Tether's.
    pub project_servers: Vec<McpServerEntry>,
    pub resume: Option<String>,
    pub peer: Peer<Pending>,
    pub phase: Phase,
    pub caps: AgentCapabilities,
    /// The agent takes messages into a running turn (`_meta.steering.supported` in `initialize`).
    pub steering: bool,
    pub agent_version: Option<String>,
    pub auth_methods: Vec<AuthMethodInfo>,
    pub session: Option<String>,
    pub options: SessionOptions,
    /// Prompts waiting for the session or for the turn before them.
    pub queued: VecDeque<Vec<Value>>,
    /// A turn is running (its `session/prompt` is unanswered).
    pub in_turn: bool,
    /// The brief still has to go with the next prompt (agents without a system prompt option).
    pub brief_in_next_prompt: bool,
    /// A load whose replay is not shown (a restart: the chat has the conversation already).
    pub silent_replay: bool,
    /// The agent's questions shown to the user or the gate, by the UI's request id.
    pub asks: IdTable<AgentAsk>,
    /// Work started for the agent, by its handle.
    pub ops: IdTable<PendingOp>,
    pub next_op: u64,
    pub calls: ToolCalls,
    pub terminals: Terminals,
    /// Work to run once the agent has answered (see [`Backend::follow_ups`]).
    pub follow: Vec<Action>,
    /// The message being streamed, to close when something else starts.
    pub open_message: Option<String>,
    pub next_message: u64,
    /// Changes the user allowed in the agent's own permission questions: a following
    /// `fs/write_text_file` of exactly that text needs no second question.
    pub approved_writes: HashMap<String, String>,
    pub notices: Vec<String>,
    /// Options set before the session was open, set once it is.
    pub pending_options: Vec<(String, String)>,
    /// Tether's permission mode, as last set or followed from the agent's plan mode.
    pub mode: PermissionMode,
}

/// A question of the agent's, waiting for the gate or the user.
#[derive(Debug)]
pub enum AgentAsk {
    /// `session/request_permission`: answered with one of `options`.
    Permission {
        id: Id,
        options: Vec<AcpOption>,
        /// The file changes it shows (path → new text), allowed together with it.
        writes: Vec<(String, String)>,
    },
    /// A file or terminal request: the work to do once allowed.
    Work { id: Id, work: Work },
    /// `elicitation/create`: a form, answered with its content.
    Elicitation { id: Id, schema: ElicitationSchema },
}

#[derive(Debug)]
pub enum Work {
    Read {
        path: String,
        line: Option<u32>,
        limit: Option<u32>,
    },
    Write {
        path: String,
        content: String,
    },
    Spawn {
        command: String,
        cwd: String,
        env: Vec<(String, String)>,
        limit: Option<u64>,
    },
}

/// Work started for the agent, by its handle, waiting for the host.
#[derive(Debug)]
pub enum PendingOp {
    Read {
        id: Id,
        line: Option<u32>,
        limit: Option<u32>,
    },
    Write {
        id: Id,
    },
    Spawn {
        id: Id,
        terminal: String,
    },
    Kill {
        id: Id,
    },
    /// The terminal's output pump.
    Poll {
        terminal: String,
    },
    Mcp {
        id: Id,
    },
}
