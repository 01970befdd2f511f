//! One agent session: a backend (the agent's protocol, behind [`Backend`]), Tether's tools and the
//! permission [`Gate`], composed into one object the driver feeds with the agent's messages and
//! the user's commands and answers. It runs the tools the agent calls, has the gate answer the
//! permission questions it can and shows the user the others, serves Tether's MCP server to an
//! agent that reaches it on its own connection ([`mcp`]), does the workspace work the agent asks
//! for itself ([`workspace`]), and keeps the permission mode the same on both sides. I/O-free:
//! messages come in, and messages to send and UI events go out; files and commands go through `H`.

mod audit;
mod checkpoints;
mod hooks;
mod launch;
mod mcp;
mod rules;
mod shells;
mod turn_hooks;
mod workspace;

pub use audit::{AuditRecord, Decider};
pub use shells::WATCH_INTERVAL_MS;

use audit::Asked;

use crate::backend::{
    Action, Backend, FileBytes, FileRead, ImageInput, Output, PermissionAsk, SessionContext, SessionOp, SessionOpKind,
    Supported, ToolRun, TransportEvent, TransportRequest,
};
use crate::config::CommonConfig;
use crate::events::{ErrorKind, Severity, UiEvent};
use crate::gate::{Gate, Judgement, Saved, SettingsWritten, UserAnswer};
use crate::host::Host;
use crate::mcp::McpServer;
use crate::paths::PathStyle;
use crate::permissions::{AlwaysAllow, PermissionEngine, PermissionMode};
use crate::tools::checkpoints::CheckpointStore;
use crate::tools::{ToolOutput, Toolset, ToolsetConfig};
use mcp::{McpRoute, PendingMcpCall};
use serde::Serialize;
use std::cell::{Cell, RefCell, RefMut};
use std::collections::VecDeque;

/// One thing for the driver to do (JS: `{type: "send", message}` / `{type: "event", event}`).
// Outputs only travel from the session to the driver; boxing the event would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum AgentOutput {
    /// Send `message` to the agent (for a stdio agent: write it and a newline to its stdin).
    Send {
        message: String,
    },
    Event {
        event: UiEvent,
    },
    /// Send `message` back on the MCP connection `connection` (the bridge an agent's MCP client
    /// came in on).
    McpReply {
        connection: u32,
        message: String,
    },
    /// For a backend that steers its own connections (a gateway's sockets, timers, signatures).
    Transport {
        request: TransportRequest,
    },
    /// Append `record` to the session's audit log.
    Audit {
        record: AuditRecord,
    },
    /// Save these "always allow" rules (as written in settings) in the user's settings, which
    /// live where the driver runs; then hand the file's new text to `setUserSettings`.
    SaveUserRules {
        rules: Vec<String>,
    },
    /// The gate wrote the project's settings file `path` (an "always allow" saved, a rule taken
    /// out) and holds what it wrote: a watcher that sees this text there needs no restart for it.
    ProjectSettingsWritten {
        path: String,
        text: String,
    },
    /// Call `watchShells` after `after_ms` (a background shell runs: its panel shows its output).
    /// An earlier call already due stands.
    WatchShells {
        after_ms: u64,
    },
}

/// Methods take `&self` so calls may overlap (a long Bash must not block other messages); no
/// borrow is held across an await.
pub struct Agent<H: Host, B: Backend + ?Sized> {
    server: McpServer<H>,
    gate: Gate,
    backend: RefCell<Box<B>>,
    config: CommonConfig,
    /// The mode given in the config; None lets the settings' `defaultMode` apply.
    configured_mode: Option<PermissionMode>,
    /// The backend's first messages went out (they go once).
    started: Cell<bool>,
    /// Tool calls over MCP waiting for the user's answer, by permission request id.
    mcp_calls: RefCell<crate::id_table::IdTable<PendingMcpCall>>,
    /// Numbers MCP tool calls that bring no tool use id of their own.
    next_mcp_call: Cell<u64>,
    /// The project's hooks.
    hooks: hooks::SessionHooks,
    /// Audit records not handed out yet (tool calls; the writes are the toolset's).
    audit: RefCell<Vec<AuditRecord>>,
    /// The questions put to the user, by request id, for the audit record of the answer.
    asked: RefCell<crate::id_table::IdTable<Asked>>,
    /// A checkpoint failure was told: once a session, since what fails one turn (an untrusted
    /// workspace, a read-only folder) fails every turn alike.
    checkpoint_failure_told: Cell<bool>,
}

impl<H: Host, B: Backend + ?Sized> Agent<H, B> {
    /// Refuses a relative root or mirror, and an unknown mode. `backend` makes the backend for
    /// the session.
    pub fn new(
        host: H,
        config: CommonConfig,
        backend: impl FnOnce(&SessionContext) -> Result<Box<B>, String>,
    ) -> Result<Agent<H, B>, String> {
        let configured_mode = config.permission_mode()?;
        let toolset_config = ToolsetConfig {
            root: config.root.clone(),
            mirror: config.mirror.clone(),
            folders: config
                .additional_folders
                .iter()
                .flatten()
                .map(|f| (f.root.clone(), f.mirror.clone()))
                .collect(),
            // The permission engine asks before anything outside the workspace is touched.
            allow_outside_root: true,
            env: Vec::new(),
            checkpoints: config.checkpoints.as_ref().map(|c| CheckpointStore {
                dir: c.dir.clone(),
                keep_messages: c.keep_messages as usize,
            }),
        };
        let toolset = Toolset::new(host, toolset_config).map_err(|e| e.to_string())?;
        let mut engine = PermissionEngine::new(toolset.paths.clone(), Some(&config.home_dir));
        if let Some(mode) = configured_mode {
            engine.set_mode(mode).map_err(|e| e.to_string())?;
        }
        let backend = backend(&SessionContext {
            config: &config,
            root: toolset.paths.root(),
            windows: toolset.paths.style() == PathStyle::Windows,
            mode: engine.mode(),
        })?;
        Ok(Agent {
            server: McpServer::new(toolset),
            gate: Gate::new(engine),
            backend: RefCell::new(backend),
            config,
            configured_mode,
            started: Cell::new(false),
            mcp_calls: RefCell::default(),
            next_mcp_call: Cell::new(0),
            hooks: hooks::SessionHooks::default(),
            audit: RefCell::new(Vec::new()),
            asked: RefCell::default(),
            checkpoint_failure_told: Cell::new(false),
        })
    }

    pub fn toolset(&self) -> &Toolset<H> {
        &self.server.tools
    }

    /// The permission mode in force.
    pub fn mode(&self) -> PermissionMode {
        self.gate.mode()
    }

    /// The backend's first messages, at once: they need no settings, so the driver sends them
    /// right after the spawn and the agent works on them while [`start`](Self::start) reads the
    /// settings. Empty once sent.
    pub fn initialize(&self) -> Vec<AgentOutput> {
        if self.started.replace(true) {
            return Vec::new();
        }
        // Made here rather than in `new`, which runs before the spawn: the tool list is the
        // costliest part of the agent to make.
        let manifest = self.server.manifest();
        let outputs = self.backend().start(manifest);
        self.emit(outputs)
    }

    /// Load the permission settings (the project's files through the host, the user's from the
    /// config), then the first messages unless [`initialize`](Self::initialize) sent them. The
    /// first prompt must wait for this: the settings may switch the mode.
    pub async fn start(&self) -> Vec<AgentOutput> {
        let before = self.mode();
        let (mut notices, settings) = self
            .gate
            .load_settings(
                self.toolset(),
                self.config.user_settings.as_deref(),
                &self.config.home_dir,
                self.configured_mode,
            )
            .await;
        notices.extend(self.load_hooks(&settings));
        notices.extend(self.backend.borrow().notices());
        let mut out = self.initialize();
        out.extend(self.mode_switched(before));
        out.extend(notices.into_iter().map(notice));
        out.extend(self.session_start().await);
        out
    }

    /// A user turn.
    pub fn prompt(&self, text: &str, images: &[ImageInput]) -> Vec<AgentOutput> {
        let outputs = self.backend().prompt(text, images);
        self.emit(outputs)
    }

    /// One message from the agent.
    pub async fn on_message(&self, message: &str) -> Vec<AgentOutput> {
        let actions = self.backend().on_message(message);
        self.drive(actions).await
    }

    /// A connection the backend steers opened, brought a frame, closed, or was signed for.
    pub async fn on_transport(&self, event: TransportEvent) -> Vec<AgentOutput> {
        let actions = self.backend().on_transport(event);
        self.drive(actions).await
    }

    /// The time the backend asked to be woken at came.
    pub async fn wake(&self) -> Vec<AgentOutput> {
        let actions = self.backend().wake();
        self.drive(actions).await
    }

    /// Run `actions` and whatever the backend queues while they run, in order.
    async fn drive(&self, actions: Vec<Action>) -> Vec<AgentOutput> {
        let mut queue = VecDeque::from(actions);
        queue.extend(self.backend().follow_ups());
        let mut out = Vec::new();
        while let Some(action) = queue.pop_front() {
            match action {
                Action::Output(output) => out.extend(self.emit(vec![output])),
                Action::RunTool(run) => out.extend(self.run_tool(run).await),
                Action::AskPermission(ask) => out.extend(self.ask(ask).await),
                Action::ReadFile(read) => out.extend(self.read_file(read).await),
                Action::Workspace(request) => out.extend(self.workspace(request).await),
                Action::ServeMcp { call, message } => {
                    out.extend(self.serve_mcp(McpRoute::Backend(call), message).await)
                }
                Action::RunHooks(call) => out.extend(self.run_hook_call(call).await),
            }
            queue.extend(self.backend().follow_ups());
        }
        if out.iter().any(|o| {
            matches!(
                o,
                AgentOutput::Event {
                    event: UiEvent::Done { .. }
                }
            )
        }) {
            out.extend(self.flush_checkpoints().await);
            self.turn_ended(&mut out).await;
        }
        out.extend(self.news());
        out
    }

    /// What the tools did since the last call: the audit records (tool calls, then the files
    /// written), then the panels of the background shells started.
    fn news(&self) -> Vec<AgentOutput> {
        let calls: Vec<AuditRecord> = self.audit.borrow_mut().drain(..).collect();
        let writes = self.toolset().written.take().into_iter().map(AuditRecord::write);
        let mut out: Vec<AgentOutput> = calls
            .into_iter()
            .chain(writes)
            .map(|record| AgentOutput::Audit { record })
            .collect();
        out.extend(self.shells_started());
        out
    }

    /// The user's answer to a `permissionRequest` event; unknown or already answered ids are
    /// ignored. An answer that picks none of the request's options is refused.
    pub async fn answer_permission(&self, id: &str, answer: UserAnswer) -> Result<Vec<AgentOutput>, String> {
        let option_id = answer.option_id.clone();
        let accepted_hunks = answer.accepted_hunks.clone();
        let Some(answered) = self.gate.answer(id, answer)? else {
            return Ok(Vec::new());
        };
        let picked = match &answered.verdict {
            crate::backend::Verdict::Chosen { option, .. } => Some(option.clone()),
            _ => None,
        };
        let pending_mcp = self.mcp_calls.borrow_mut().remove(id);
        let mut out = match pending_mcp {
            Some(call) => self.finish_mcp_call(call, answered.verdict).await,
            None => {
                let outputs = self.backend().answer_permission(id, answered.verdict);
                self.emit(outputs)
            }
        };
        let allowed = picked.as_ref().is_some_and(|o| o.kind.allows());
        let asked = self.asked.borrow_mut().remove(id);
        let mut record = AuditRecord::Permission {
            tool: asked.as_ref().map(|a| a.tool.clone()).unwrap_or_default(),
            tool_use_id: asked.and_then(|a| a.tool_use_id),
            request_id: id.to_string(),
            decision: if allowed { "allow" } else { "deny" }.into(),
            by: Decider::User,
            rule: None,
            reason: None,
            option: picked.map(|o| o.option_id).or(option_id),
            saved_rules: None,
            scope: None,
            accepted_hunks: accepted_hunks.filter(|_| allowed),
        };
        match answered.always {
            Some(AlwaysAllow::Mode(mode)) => out.extend(self.set_mode(mode)),
            Some(AlwaysAllow::Rules(rules)) => {
                if let AuditRecord::Permission { saved_rules, scope, .. } = &mut record {
                    *saved_rules = Some(rules.iter().map(ToString::to_string).collect());
                    *scope = Some(answered.scope);
                }
                match self.gate.allow_always(self.toolset(), &rules, answered.scope).await {
                    Saved::Done => {}
                    Saved::Written(SettingsWritten { path, text }) => {
                        out.push(AgentOutput::ProjectSettingsWritten { path, text })
                    }
                    Saved::SessionOnly(message) => out.push(notice(message)),
                    Saved::ToUserSettings(rules) => out.push(AgentOutput::SaveUserRules {
                        rules: rules.iter().map(ToString::to_string).collect(),
                    }),
                }
            }
            None => {}
        }
        out.insert(0, AgentOutput::Audit { record });
        out.extend(self.drive(Vec::new()).await);
        Ok(out)
    }

    /// The session operations the agent offers now: its backend's, and Tether's permission mode.
    pub fn offers(&self) -> Vec<SessionOpKind> {
        let mut offered = self.backend.borrow().offers();
        if !offered.contains(&SessionOpKind::SetMode) {
            offered.insert(0, SessionOpKind::SetMode);
        }
        offered
    }

    /// One operation on the session. Tether's permission mode is the gate's (the backend hears
    /// of a change), and so are the background shells Bash started (`stopTask` with a shell's
    /// id); the others go to the backend if it offers them. Stopping the turn also withdraws
    /// Tether's tool calls still waiting for the user (answered as not run).
    pub fn operate(&self, op: SessionOp) -> Supported<Vec<AgentOutput>> {
        let kind = op.kind();
        match &op {
            SessionOp::SetMode { mode } => return Ok(self.set_mode(*mode)),
            SessionOp::StopTask { id } => {
                if let Some(out) = self.stop_shell(id) {
                    return Ok(out);
                }
            }
            _ => {}
        }
        let outputs = {
            let mut backend = self.backend();
            if !backend.offers().contains(&kind) {
                return Err(backend.refuse(&op));
            }
            backend.operate(op)?
        };
        let mut out = self.emit(outputs);
        if kind == SessionOpKind::Interrupt {
            out.extend(self.withdraw_mcp_calls());
        }
        Ok(out)
    }

    /// Switch the permission mode (the backend hears about it).
    fn set_mode(&self, mode: PermissionMode) -> Vec<AgentOutput> {
        let before = self.mode();
        if let Err(e) = self.gate.set_mode(mode) {
            return vec![notice(e.to_string())];
        }
        self.mode_switched(before)
    }

    /// One MCP message from an agent's MCP client on the connection `connection` (the MCP
    /// bridge): Tether's tools behind the gate, replies as [`AgentOutput::McpReply`].
    pub async fn on_mcp_message(&self, connection: u32, message: &str) -> Vec<AgentOutput> {
        match serde_json::from_str(message) {
            Ok(message) => self.serve_mcp(McpRoute::Bridge(connection), message).await,
            Err(e) => mcp::parse_error(connection, &e.to_string()),
        }
    }

    /// A file watcher saw a workspace path change.
    pub async fn file_changed(&self, path: &str) {
        let tools = self.toolset();
        tools.cache.on_changed(&tools.host, path).await;
    }

    // -- internals ------------------------------------------------------------------------------

    /// The backend, told the time first (a backend with timeouts of its own needs it).
    fn backend(&self) -> RefMut<'_, B> {
        let now = self.toolset().host.now_ms();
        let mut backend = RefMut::map(self.backend.borrow_mut(), |backend| &mut **backend);
        backend.set_clock(if now.is_finite() && now > 0.0 { now as u64 } else { 0 });
        backend
    }

    async fn read_file(&self, read: FileRead) -> Vec<AgentOutput> {
        let tools = self.toolset();
        let result = async {
            let path = tools.resolve_path(&read.path).await.map_err(|e| e.0)?;
            let meta = tools.host.lstat(&path).await.map_err(|e| e.message)?;
            let real = tools.host.real_path(&path).await.map_err(|e| e.message)?;
            let bytes = match read.contents {
                true => Some(
                    tools
                        .host
                        .read_file(&real, read.max_bytes)
                        .await
                        .map_err(|e| e.message)?,
                ),
                false => None,
            };
            Ok(FileBytes {
                path: real,
                kind: meta.kind,
                size: bytes.as_ref().map_or(meta.size, |b| b.len() as u64),
                mtime_ms: meta.mtime_ms,
                bytes,
            })
        }
        .await;
        let outputs = self.backend().file_read(&read.call, result);
        self.emit(outputs)
    }

    /// The backend's outputs for the driver.
    fn emit(&self, outputs: Vec<Output>) -> Vec<AgentOutput> {
        outputs
            .into_iter()
            .map(|output| match output {
                Output::Send(message) => AgentOutput::Send { message },
                Output::Event(event) => {
                    self.on_backend_event(&event);
                    if let UiEvent::PermissionDenied {
                        tool_use_id,
                        tool_name,
                        reason,
                        message,
                        ..
                    } = &event
                    {
                        // The agent refused on its own (its hook, its rules): audited as it says.
                        let why = reason
                            .as_deref()
                            .or(message.as_deref())
                            .unwrap_or("refused by the agent");
                        let record = AuditRecord::decided(tool_name, Some(tool_use_id), "", "deny", why);
                        self.audit.borrow_mut().push(record);
                    }
                    AgentOutput::Event { event }
                }
                Output::Transport(request) => AgentOutput::Transport { request },
            })
            .collect()
    }

    /// The gate follows what the backend reports: the agent's own mode changes (it left plan
    /// mode) and the questions it withdraws.
    fn on_backend_event(&self, event: &UiEvent) {
        if let UiEvent::SessionInit { session_id, .. } = event {
            self.hooks.set_session_id(session_id);
        }
        let mode = match event {
            UiEvent::PermissionCancelled { id } => {
                self.gate.forget(id);
                self.asked.borrow_mut().remove(id);
                return;
            }
            UiEvent::ModeChanged { mode } => Some(mode),
            UiEvent::SessionInit { permission_mode, .. } | UiEvent::SessionReady { permission_mode, .. } => {
                permission_mode.as_ref()
            }
            _ => None,
        };
        if let Some(mode) = mode.and_then(|m| PermissionMode::parse(m)) {
            // Only bypassPermissions can be refused, and no agent switches to it by itself.
            let _ = self.gate.set_mode(mode);
        }
    }

    /// After the mode changed from `before`: the backend's messages, and the event.
    fn mode_switched(&self, before: PermissionMode) -> Vec<AgentOutput> {
        let now = self.mode();
        if now == before {
            return Vec::new();
        }
        // A backend whose agent has no modes to follow has nothing to say.
        let outputs = self
            .backend()
            .operate(SessionOp::SetMode { mode: now })
            .unwrap_or_default();
        let mut out = self.emit(outputs);
        out.push(AgentOutput::Event {
            event: UiEvent::ModeChanged {
                mode: now.as_str().to_string(),
            },
        });
        out
    }

    async fn run_tool(&self, run: ToolRun) -> Vec<AgentOutput> {
        let output = self.call_tool(&run.tool, run.input, run.tool_use_id.as_deref()).await;
        if let Some(id) = &run.tool_use_id {
            self.hooks.remember(id, &output);
        }
        let outputs = self.backend().tool_result(&run.call, output);
        let mut out = self.emit(outputs);
        out.extend(self.news());
        out
    }

    /// Run one of Tether's tools as asked, or the change the user reviewed for `tool_use_id`.
    async fn call_tool(&self, tool: &str, input: serde_json::Value, tool_use_id: Option<&str>) -> ToolOutput {
        let tools = self.toolset();
        let audited = AuditRecord::tool_call(tool, tool_use_id, &input, &ToolOutput::text(""));
        let prepared = match tool_use_id {
            Some(id) => self.gate.run_prepared(tools, id).await,
            None => None,
        };
        let output = match prepared {
            Some(output) => output,
            None => {
                let output = tools.call(tool, input).await;
                if tool == "Bash" {
                    self.gate.set_shell_cwd(&tools.cwd());
                    let shell = output.structured.as_ref().and_then(|s| s["backgroundTaskId"].as_str());
                    if let (Some(shell), Some(tool_use_id)) = (shell, tool_use_id) {
                        tools.shells.set_tool_use_id(shell, tool_use_id);
                    }
                }
                output
            }
        };
        let mut audited = audited;
        if let AuditRecord::ToolCall { ok, output_bytes, .. } = &mut audited {
            *ok = !output.is_error;
            *output_bytes = output.text_content().len() as u64;
        }
        self.audit.borrow_mut().push(audited);
        output
    }

    async fn ask(&self, ask: PermissionAsk) -> Vec<AgentOutput> {
        let id = ask.request.id.clone();
        let asked = Asked::of(&ask.request);
        let judgement = self.gate.judge(self.toolset(), ask).await;
        let mut out = vec![asked.record(&judgement)];
        match judgement {
            Judgement::Answered { verdict, event, .. } => {
                let outputs = self.backend().answer_permission(&id, verdict);
                out.extend(self.emit(outputs));
                out.extend(event.map(|event| AgentOutput::Event { event }));
            }
            Judgement::Ask(request) => {
                let tool = request.tool_name.clone();
                self.asked.borrow_mut().insert(id, asked);
                out.push(AgentOutput::Event {
                    event: UiEvent::PermissionRequest(request),
                });
                out.extend(self.notify_permission(&tool).await);
            }
        }
        out
    }
}

fn notice(message: String) -> AgentOutput {
    AgentOutput::Event {
        event: UiEvent::error(ErrorKind::Other, Severity::Notice, message, None),
    }
}
