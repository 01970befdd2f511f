//! The Claude Code session host: the sans-IO [`Session`], the in-process MCP server with Tether's
//! tools and the [`PermissionEngine`], composed into one object the driver feeds with the CLI's
//! stdout lines and the user's answers. It runs tool calls, answers the permission questions the
//! engine can decide, asks the user the others (with the proposed file for edits), and keeps the
//! project's `.claude/settings*.json` on the workspace side.
//!
//! The CLI only learns about plan mode (it changes the model's prompt); it runs in `default` for
//! every other mode and Tether's engine implements acceptEdits, dontAsk and bypassPermissions
//! (the CLI refuses bypassPermissions under `--restricted`). The CLI's own "always allow"
//! suggestions are never passed back: a whole-tool rule like `mcp__tether__Edit` kept by the CLI
//! would stop it from asking, and so from reaching the engine.

use crate::claude::agents::parse_agent_file;
use crate::claude::init::RemoteEnvironment;
use crate::claude::launch::{self, disallowed_builtin_tools, Launch, LaunchConfig};
use crate::claude::protocol::{ImageInput, McpManifest};
use crate::claude::{Output, PermissionAnswer, Session, SessionConfig};
use crate::events::{EditReview, ErrorKind, PermissionRequest, Severity, UiEvent};
use crate::host::{Host, HostErrorKind};
use crate::mcp::{self, McpServer};
use crate::paths::PathStyle;
use crate::permissions::{
    persist_rules, AlwaysAllow, Decision, PermissionEngine, PermissionMode, Rule, SettingsKind, SettingsSource,
};
use crate::tools::edit::{self, ProposedWrite};
use crate::tools::{ToolError, ToolOutput, Toolset, ToolsetConfig};
use serde::Serialize;
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};

/// What the driver passes to [`ClaudeAgent::new`] (JS: `AgentConfig`).
#[derive(Clone, Debug, Default)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase", optional_fields))]
pub struct AgentConfig {
    /// The workspace root (the remote path for a remote workspace).
    pub root: String,
    /// The CLI's local working directory; paths under it map onto `root`.
    pub mirror: Option<String>,
    /// For `~/` in permission rules and commands.
    pub home_dir: String,
    /// The text of the user's `~/.claude/settings.json`, read by the driver.
    pub user_settings: Option<String>,
    /// `default`, `acceptEdits`, `plan`, `dontAsk` or `bypassPermissions`; when absent, the
    /// settings' `defaultMode` applies.
    #[cfg_attr(test, ts(as = "Option<PermissionMode>"))]
    pub mode: Option<String>,
    pub model: Option<String>,
    /// A session id to resume.
    pub resume: Option<String>,
    /// Extra environment for the CLI (not for the commands the tools run).
    pub env: Option<BTreeMap<String, String>>,
    pub remote: Option<RemoteConfig>,
    /// More system prompt, e.g. the remote project's CLAUDE.md.
    pub extra_system_prompt: Option<String>,
    /// The project's `.claude/agents/*.md` files, read by the driver: offered to the model as
    /// subagents.
    pub agent_files: Option<Vec<AgentFile>>,
    /// Extra built-ins for `--tools`.
    pub allowed_tools: Option<Vec<String>>,
    /// Extra entries for `--disallowedTools`.
    pub disallowed_tools: Option<Vec<String>>,
}

/// One of the project's `.claude/agents/*.md` files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AgentFile {
    /// The file name (`reviewer.md`).
    pub name: String,
    pub text: String,
}

/// What the model is told about the machine the workspace is on.
#[derive(Clone, Debug, Default)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase", optional_fields))]
pub struct RemoteConfig {
    pub os: Option<String>,
    pub shell: Option<String>,
    pub git_branch: Option<String>,
}

/// One thing for the driver to do (JS: `{type: "write", line}` / `{type: "event", event}`).
// Outputs only travel from the session to the driver; boxing the event would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum AgentOutput {
    /// Write `line` and a newline to the CLI's stdin.
    Write {
        line: String,
    },
    Event {
        event: UiEvent,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "lowercase"))]
pub enum UserDecision {
    Allow,
    /// Allow, and apply what "Always allow" offers (rules persisted to the workspace's
    /// `.claude/settings.local.json`, or a mode for the session).
    Always,
    Deny,
}

/// The user's answer to a `permissionRequest` event (JS: `PermissionAnswer`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    test,
    derive(ts_rs::TS),
    ts(rename = "PermissionAnswer", rename_all = "camelCase", optional_fields)
)]
pub struct UserAnswer {
    pub decision: UserDecision,
    /// Why the user refused; the model reads it.
    pub reason: Option<String>,
    /// Edits only: the file content the user left in the review editor; that is what is written.
    pub user_content: Option<String>,
}

impl UserAnswer {
    pub fn new(decision: UserDecision) -> UserAnswer {
        UserAnswer {
            decision,
            reason: None,
            user_content: None,
        }
    }
}

impl AgentConfig {
    /// The config the driver passes (JS `AgentConfig`); an unknown key or a value of the wrong type
    /// is refused with a message that names it.
    pub fn from_json(value: &Value) -> Result<AgentConfig, String> {
        let config = JsonObject::new(
            value,
            "the config",
            &[
                "root",
                "mirror",
                "homeDir",
                "userSettings",
                "mode",
                "model",
                "resume",
                "env",
                "remote",
                "extraSystemPrompt",
                "agentFiles",
                "allowedTools",
                "disallowedTools",
            ],
        )?;
        let remote = match config.get("remote") {
            None => None,
            Some(remote) => {
                let remote = JsonObject::new(remote, "remote", &["os", "shell", "gitBranch"])?;
                Some(RemoteConfig {
                    os: remote.opt_string("os")?,
                    shell: remote.opt_string("shell")?,
                    git_branch: remote.opt_string("gitBranch")?,
                })
            }
        };
        Ok(AgentConfig {
            root: config.string("root")?,
            mirror: config.opt_string("mirror")?,
            home_dir: config.string("homeDir")?,
            user_settings: config.opt_string("userSettings")?,
            mode: config.opt_string("mode")?,
            model: config.opt_string("model")?,
            resume: config.opt_string("resume")?,
            env: config.get("env").map(|env| string_map(env, "env")).transpose()?,
            remote,
            extra_system_prompt: config.opt_string("extraSystemPrompt")?,
            agent_files: config.get("agentFiles").map(agent_files).transpose()?,
            allowed_tools: config.opt_strings("allowedTools")?,
            disallowed_tools: config.opt_strings("disallowedTools")?,
        })
    }
}

impl UserAnswer {
    /// `{decision: "allow" | "always" | "deny", reason?, userContent?}`.
    pub fn from_json(value: &Value) -> Result<UserAnswer, String> {
        let answer = JsonObject::new(value, "the answer", &["decision", "reason", "userContent"])?;
        let decision = match answer.string("decision")?.as_str() {
            "allow" => UserDecision::Allow,
            "always" => UserDecision::Always,
            "deny" => UserDecision::Deny,
            other => return Err(format!("decision {other:?} is not one of allow, always, deny")),
        };
        Ok(UserAnswer {
            decision,
            reason: answer.opt_string("reason")?,
            user_content: answer.opt_string("userContent")?,
        })
    }
}

/// A prompt's images, `[{mediaType, data}]` with base64 data.
pub fn images_from_json(value: &Value) -> Result<Vec<ImageInput>, String> {
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

/// An object of strings (an environment).
pub fn string_map(value: &Value, what: &str) -> Result<BTreeMap<String, String>, String> {
    let Some(map) = value.as_object() else {
        return Err(format!("{what} must be an object of strings"));
    };
    map.iter()
        .map(|(key, v)| match v.as_str() {
            Some(text) => Ok((key.clone(), text.to_string())),
            None => Err(format!("{what}.{key} must be a string")),
        })
        .collect()
}

/// `agentFiles`: `[{name, text}]`.
fn agent_files(value: &Value) -> Result<Vec<AgentFile>, String> {
    let Some(items) = value.as_array() else {
        return Err("agentFiles must be a list of {name, text}".to_string());
    };
    items
        .iter()
        .map(|item| {
            let file = JsonObject::new(item, "an agentFiles entry", &["name", "text"])?;
            Ok(AgentFile {
                name: file.string("name")?,
                text: file.string("text")?,
            })
        })
        .collect()
}

/// A JSON object from the driver, read strictly. Written out rather than derived: serde's derive
/// costs several KB of wasm per struct.
struct JsonObject<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> JsonObject<'a> {
    fn new(value: &'a Value, what: &str, known: &[&str]) -> Result<JsonObject<'a>, String> {
        let Some(map) = value.as_object() else {
            return Err(format!("{what} must be an object"));
        };
        if let Some(key) = map.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(format!(
                "unknown field `{key}` in {what}; expected one of {}",
                known.join(", ")
            ));
        }
        Ok(JsonObject { map })
    }

    /// Null counts as missing, as `undefined` does.
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn string(&self, key: &str) -> Result<String, String> {
        self.opt_string(key)?.ok_or_else(|| format!("`{key}` is missing"))
    }

    fn opt_string(&self, key: &str) -> Result<Option<String>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    }

    fn opt_strings(&self, key: &str) -> Result<Option<Vec<String>>, String> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let strings: Option<Vec<String>> = value
            .as_array()
            .and_then(|items| items.iter().map(|i| i.as_str().map(str::to_string)).collect());
        strings
            .map(Some)
            .ok_or_else(|| format!("`{key}` must be a list of strings"))
    }
}

/// The CLI's own text for a refused tool call, so the model reacts as it is used to.
const USER_REJECTED: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file).";

const EDIT_TOOLS: &[&str] = &["Edit", "MultiEdit", "Write", "NotebookEdit"];

/// A question shown to the user and not answered yet.
struct PendingAsk {
    tool: String,
    tool_use_id: Option<String>,
    /// For edit tools: the change the user reviews.
    proposal: Option<ProposedWrite>,
    always: Option<AlwaysAllow>,
}

/// What the `tools/call` of an allowed tool use runs instead of the tool as the model asked.
enum PreparedCall {
    /// Write the reviewed proposal with the user's content.
    Commit {
        proposal: Box<ProposedWrite>,
        content: String,
    },
    /// The change could not even be computed when it was asked for; report that error rather
    /// than run a write nobody reviewed.
    Fail(ToolError),
}

/// One Claude Code session with Tether's tools and permission engine. I/O-free: the CLI's lines
/// come in and the lines to write and UI events go out; files and commands go through `H`.
/// Methods take `&self` so calls may overlap (a long Bash must not block other lines); no borrow
/// is held across an await.
pub struct ClaudeAgent<H: Host> {
    server: McpServer<H>,
    session: RefCell<Session>,
    engine: RefCell<PermissionEngine>,
    config: AgentConfig,
    /// The mode given in the config; None lets the settings' `defaultMode` apply.
    configured_mode: Option<PermissionMode>,
    pending: RefCell<HashMap<String, PendingAsk>>,
    /// Keyed by tool use id.
    prepared: RefCell<HashMap<String, PreparedCall>>,
    /// The `initialize` line went out (it goes once).
    initialized: Cell<bool>,
    /// Project subagent files that were skipped, and why; told at `start`.
    agent_notices: Vec<String>,
}

impl<H: Host> ClaudeAgent<H> {
    /// Refuses a relative root or mirror, and an unknown mode.
    pub fn new(host: H, config: AgentConfig) -> Result<ClaudeAgent<H>, String> {
        let configured_mode = match config.mode.as_deref() {
            None => None,
            Some(text) => Some(PermissionMode::parse(text).ok_or_else(|| {
                format!(
                    "unknown permission mode {text:?}; use default, acceptEdits, plan, dontAsk or bypassPermissions"
                )
            })?),
        };
        let toolset_config = ToolsetConfig {
            root: config.root.clone(),
            mirror: config.mirror.clone(),
            // The permission engine asks before anything outside the workspace is touched.
            allow_outside_root: true,
            env: Vec::new(),
        };
        let toolset = Toolset::new(host, toolset_config).map_err(|e| e.to_string())?;
        let mut engine = PermissionEngine::new(toolset.paths.clone(), Some(&config.home_dir));
        if let Some(mode) = configured_mode {
            engine.set_mode(mode).map_err(|e| e.to_string())?;
        }
        let server = McpServer::new(toolset);
        let remote = config.remote.clone().unwrap_or_default();
        let windows = server.tools.paths.style() == PathStyle::Windows;
        let environment = RemoteEnvironment {
            cwd: server.tools.paths.root().to_string(),
            os: remote
                .os
                .unwrap_or_else(|| if windows { "Windows" } else { "Unix-like" }.to_string()),
            shell: remote.shell.unwrap_or_else(|| {
                if windows {
                    "the workspace's default shell"
                } else {
                    "bash"
                }
                .to_string()
            }),
            git_branch: remote.git_branch,
        };
        let mut session_config = SessionConfig::new(environment);
        session_config.allowed_builtins.extend(extra_tools(&config));
        session_config.extra_system_prompt = config.extra_system_prompt.clone();
        let mut agent_notices = Vec::new();
        for file in config.agent_files.iter().flatten() {
            match parse_agent_file(&file.name, &file.text) {
                Ok((name, agent)) => {
                    session_config.project_agents.insert(name, agent);
                }
                Err(message) => agent_notices.push(message),
            }
        }
        Ok(ClaudeAgent {
            agent_notices,
            server,
            session: RefCell::new(Session::new(session_config)),
            engine: RefCell::new(engine),
            config,
            configured_mode,
            pending: RefCell::new(HashMap::new()),
            prepared: RefCell::new(HashMap::new()),
            initialized: Cell::new(false),
        })
    }

    pub fn toolset(&self) -> &Toolset<H> {
        &self.server.tools
    }

    /// The permission mode in force.
    pub fn mode(&self) -> PermissionMode {
        self.engine.borrow().mode()
    }

    /// The CLI's arguments and complete environment; `parent_env` is the driver's own.
    pub fn launch(&self, parent_env: impl IntoIterator<Item = (String, String)>) -> Launch {
        LaunchConfig {
            permission_mode: cli_mode(self.mode()),
            model: self.config.model.clone(),
            resume: self.config.resume.clone(),
            include_partial_messages: true,
            setting_sources: Vec::new(),
            restricted: true,
            extra_tools: extra_tools(&self.config),
            allowed_tools: Vec::new(),
            disallowed_tools: self.config.disallowed_tools.clone().unwrap_or_default(),
            env: self.config.env.clone().unwrap_or_default().into_iter().collect(),
        }
        .build(parent_env)
    }

    /// The `initialize` line, at once: it needs no settings, so the driver writes it right after
    /// the spawn and the CLI works on it while [`start`](Self::start) reads them. Empty once sent.
    pub fn initialize(&self) -> Vec<AgentOutput> {
        if self.initialized.replace(true) {
            return Vec::new();
        }
        // Built here rather than in `new`, which runs before the spawn: the tool list is the
        // costliest part of the agent to make.
        let manifest = McpManifest {
            initialize_result: self.server.initialize_result(),
            tools_list_result: self.server.tools_list_result(),
        };
        let outputs = self.session.borrow_mut().start(manifest);
        self.emit(outputs)
    }

    /// Load the permission settings (the project's files through the host, the user's from the
    /// config), then the `initialize` line unless [`initialize`](Self::initialize) sent it. A
    /// missing file is fine; a broken one becomes a notice and the others still apply. The first
    /// prompt must wait for this: the settings may switch the mode.
    pub async fn start(&self) -> Vec<AgentOutput> {
        let mut notices = Vec::new();
        let mut sources = Vec::new();
        if let Some(text) = &self.config.user_settings {
            sources.push(SettingsSource {
                kind: SettingsKind::User,
                text: text.clone(),
                base_dir: user_settings_dir(&self.config.home_dir),
            });
        }
        let root = self.toolset().paths.root().to_string();
        // Both at once: on a remote workspace each read is a round trip.
        let (project, local) = futures::join!(
            self.read_settings(SettingsKind::Project),
            self.read_settings(SettingsKind::Local)
        );
        for (kind, read) in [(SettingsKind::Project, project), (SettingsKind::Local, local)] {
            match read {
                Ok(Some(text)) => sources.push(SettingsSource {
                    kind,
                    text,
                    base_dir: root.clone(),
                }),
                Ok(None) => {}
                Err(message) => notices.push(notice(message)),
            }
        }
        let before = self.mode();
        let diagnostics = {
            let mut engine = self.engine.borrow_mut();
            let diagnostics = engine.load(&sources);
            if self.configured_mode.is_none() {
                if let Some(mode) = engine.default_mode_from_settings() {
                    // Only bypassPermissions can be refused, and load() already dropped it then.
                    let _ = engine.set_mode(mode);
                }
            }
            diagnostics
        };
        notices.extend(diagnostics.iter().map(|d| notice(format!("Permission settings: {d}"))));
        notices.extend(self.agent_notices.iter().cloned().map(notice));
        let mut out = self.initialize();
        out.extend(self.mode_switched(before));
        out.extend(notices);
        out
    }

    /// A user turn.
    pub fn prompt(&self, text: &str, images: &[ImageInput]) -> Vec<AgentOutput> {
        let outputs = self.session.borrow_mut().send_prompt(text, images);
        self.emit(outputs)
    }

    /// One stdout line of the CLI.
    pub async fn on_line(&self, line: &str) -> Vec<AgentOutput> {
        let outputs = self.session.borrow_mut().on_line(line);
        let mut out = Vec::new();
        for output in outputs {
            match output {
                Output::McpCall { request_id, message } => {
                    let response = self.run_mcp(message).await;
                    let replies = self.session.borrow_mut().mcp_reply(&request_id, response);
                    out.extend(self.emit(replies));
                }
                Output::PermissionRequest(request) => out.extend(self.on_permission_request(request).await),
                other => out.extend(self.emit(vec![other])),
            }
        }
        out
    }

    /// The user's answer to a `permissionRequest` event; unknown or already answered ids are
    /// ignored.
    pub async fn answer_permission(&self, id: &str, answer: UserAnswer) -> Vec<AgentOutput> {
        let Some(pending) = self.pending.borrow_mut().remove(id) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        match answer.decision {
            UserDecision::Deny => {
                let message = match answer.reason.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
                    Some(reason) => format!("{USER_REJECTED} To tell you how to proceed, the user said:\n{reason}"),
                    None => format!(
                        "{USER_REJECTED} STOP what you are doing and wait for the user to tell you how to proceed."
                    ),
                };
                let interrupt = false;
                return self.answer(id, PermissionAnswer::Deny { message, interrupt });
            }
            UserDecision::Always => {
                if let Some(always) = &pending.always {
                    out.extend(self.apply_always(always).await);
                }
            }
            // An approved plan ends plan mode (the CLI leaves it by itself).
            UserDecision::Allow if pending.tool == "ExitPlanMode" && self.mode() == PermissionMode::Plan => {
                out.extend(self.set_mode(PermissionMode::Default));
            }
            UserDecision::Allow => {}
        }
        if let (Some(content), Some(proposal), Some(tool_use_id)) =
            (answer.user_content, pending.proposal, pending.tool_use_id)
        {
            self.prepared.borrow_mut().insert(
                tool_use_id,
                PreparedCall::Commit {
                    proposal: Box::new(proposal),
                    content,
                },
            );
        }
        let mut answered = self.answer(id, allow());
        answered.extend(out);
        answered
    }

    pub fn interrupt(&self) -> Vec<AgentOutput> {
        let outputs = self.session.borrow_mut().interrupt();
        self.emit(outputs)
    }

    /// Switch the permission mode; the CLI hears only about entering or leaving plan mode.
    pub fn set_mode(&self, mode: PermissionMode) -> Vec<AgentOutput> {
        let before = self.mode();
        if let Err(e) = self.engine.borrow_mut().set_mode(mode) {
            return vec![notice(e.to_string())];
        }
        self.mode_switched(before)
    }

    /// `None` returns to the default model.
    pub fn set_model(&self, model: Option<&str>) -> Vec<AgentOutput> {
        let outputs = self.session.borrow_mut().set_model(model);
        self.emit(outputs)
    }

    /// A file watcher saw a workspace path change.
    pub async fn file_changed(&self, path: &str) {
        let tools = self.toolset();
        tools.cache.on_changed(&tools.host, path).await;
    }

    // -- internals ------------------------------------------------------------------------------

    /// Session outputs that are lines and events (the only kinds outside `on_line`).
    fn emit(&self, outputs: Vec<Output>) -> Vec<AgentOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for output in outputs {
            match output {
                Output::WriteLine(line) => out.push(AgentOutput::Write { line }),
                Output::Event(event) => {
                    if let Some(event) = self.on_session_event(event) {
                        out.push(AgentOutput::Event { event });
                    }
                }
                // Only `on_line` produces tool calls and permission questions, and handles them.
                Output::McpCall { .. } | Output::PermissionRequest(_) => {}
            }
        }
        out
    }

    /// Keeps the engine in step with the CLI's plan mode and shows Tether's mode, not the CLI's
    /// (which is `default` whenever Tether's is not plan).
    fn on_session_event(&self, mut event: UiEvent) -> Option<UiEvent> {
        match &mut event {
            UiEvent::PermissionCancelled { id } => {
                self.pending.borrow_mut().remove(id.as_str());
            }
            UiEvent::ModeChanged { mode } => {
                let before = self.mode();
                self.follow_cli_mode(mode);
                let now = self.mode();
                if now == before {
                    return None;
                }
                *mode = now.as_str().to_string();
            }
            UiEvent::SessionInit { permission_mode, .. } | UiEvent::SessionReady { permission_mode, .. } => {
                if let Some(mode) = permission_mode {
                    self.follow_cli_mode(mode);
                    *mode = self.mode().as_str().to_string();
                }
            }
            _ => {}
        }
        Some(event)
    }

    /// The CLI entered plan mode (EnterPlanMode) or left it (an approved plan).
    fn follow_cli_mode(&self, cli_mode: &str) {
        let mut engine = self.engine.borrow_mut();
        // Neither plan nor default can be refused.
        let _ = match PermissionMode::parse(cli_mode) {
            Some(PermissionMode::Plan) => engine.set_mode(PermissionMode::Plan),
            Some(_) if engine.mode() == PermissionMode::Plan => engine.set_mode(PermissionMode::Default),
            _ => Ok(()),
        };
    }

    /// After the engine's mode changed from `before`: the event, and the CLI's switch in or out
    /// of plan mode.
    fn mode_switched(&self, before: PermissionMode) -> Vec<AgentOutput> {
        let now = self.mode();
        if now == before {
            return Vec::new();
        }
        let mut out = Vec::new();
        if cli_mode(now) != cli_mode(before) {
            let lines = self.session.borrow_mut().set_mode(cli_mode(now));
            out.extend(self.emit(lines));
        }
        out.push(AgentOutput::Event {
            event: UiEvent::ModeChanged {
                mode: now.as_str().to_string(),
            },
        });
        out
    }

    fn answer(&self, id: &str, answer: PermissionAnswer) -> Vec<AgentOutput> {
        let outputs = self.session.borrow_mut().answer_permission(id, answer);
        self.emit(outputs)
    }

    async fn on_permission_request(&self, mut request: PermissionRequest) -> Vec<AgentOutput> {
        let id = request.id.clone();
        let decision = if request.tool_name == "ExitPlanMode" {
            Decision::Ask {
                reason: "the plan needs your approval".into(),
                always_allow: Some(AlwaysAllow::Mode(PermissionMode::AcceptEdits)),
            }
        } else if request.requires_user_interaction {
            Decision::Ask {
                reason: format!("{} asks you", request.tool_name),
                always_allow: None,
            }
        } else {
            self.engine.borrow().decide(&request.raw_tool_name, &request.input)
        };
        let (reason, always) = match decision {
            Decision::Allow { .. } => return self.answer(&id, allow()),
            Decision::Deny { message, reason } => {
                let mut out = self.answer(
                    &id,
                    PermissionAnswer::Deny {
                        message,
                        interrupt: false,
                    },
                );
                if let Some(tool_use_id) = request.tool_use_id {
                    out.push(AgentOutput::Event {
                        event: UiEvent::PermissionDenied {
                            tool_use_id,
                            tool_name: request.tool_name,
                            message: None,
                            reason: Some(reason),
                            agent_id: request.agent_id,
                        },
                    });
                }
                return out;
            }
            Decision::Ask { reason, always_allow } => (reason, always_allow),
        };
        let always = always.filter(|_| !request.suppress_always_allow);
        let proposal = if EDIT_TOOLS.contains(&request.tool_name.as_str()) {
            match edit::propose(self.toolset(), &request.tool_name, request.input.clone()).await {
                Ok(proposal) => Some(proposal),
                // The tools are the authority on errors: the call reports this one itself.
                Err(error) => return self.allow_failing(&id, request.tool_use_id, error),
            }
        } else {
            None
        };
        request.review = proposal.as_ref().map(|p| {
            Box::new(EditReview {
                path: p.path.clone(),
                original: p.original.clone(),
                proposed: p.proposed.clone(),
                hunks: edit::diff_of(p).hunks().to_vec(),
            })
        });
        request.always_label = always.as_ref().map(AlwaysAllow::label);
        request.reason = Some(reason);
        self.pending.borrow_mut().insert(
            id,
            PendingAsk {
                tool: request.tool_name.clone(),
                tool_use_id: request.tool_use_id.clone(),
                proposal,
                always,
            },
        );
        vec![AgentOutput::Event {
            event: UiEvent::PermissionRequest(request),
        }]
    }

    /// Allow a call whose change could not be computed, and make its `tools/call` report `error`
    /// (nothing unreviewed is written if the file changes in between).
    fn allow_failing(&self, id: &str, tool_use_id: Option<String>, error: ToolError) -> Vec<AgentOutput> {
        match tool_use_id {
            Some(tool_use_id) => {
                self.prepared
                    .borrow_mut()
                    .insert(tool_use_id, PreparedCall::Fail(error));
                self.answer(id, allow())
            }
            None => self.answer(
                id,
                PermissionAnswer::Deny {
                    message: error.0,
                    interrupt: false,
                },
            ),
        }
    }

    async fn apply_always(&self, always: &AlwaysAllow) -> Vec<AgentOutput> {
        match always {
            AlwaysAllow::Mode(mode) => self.set_mode(*mode),
            AlwaysAllow::Rules(rules) => {
                // Rules cannot be refused; only a mode can.
                let _ = self.engine.borrow_mut().apply_always(always);
                match self.persist_rules(rules).await {
                    Ok(()) => Vec::new(),
                    Err(message) => vec![notice(message)],
                }
            }
        }
    }

    /// Append `rules` to the workspace's `.claude/settings.local.json`, where Claude Code keeps
    /// "always allow" answers.
    async fn persist_rules(&self, rules: &[Rule]) -> Result<(), String> {
        let existing = self.read_settings(SettingsKind::Local).await?;
        let text = persist_rules(existing.as_deref(), rules)
            .map_err(|e| format!("The rule applies for this session only: {e}"))?;
        let path = self.settings_path(SettingsKind::Local);
        self.toolset()
            .write_file(&path, text.into_bytes())
            .await
            .map(drop)
            .map_err(|e| format!("The rule applies for this session only: could not write {path}: {e}"))
    }

    fn settings_path(&self, kind: SettingsKind) -> String {
        let paths = &self.toolset().paths;
        paths.join(paths.root(), kind.file_label())
    }

    /// A project settings file's text; None when it does not exist.
    async fn read_settings(&self, kind: SettingsKind) -> Result<Option<String>, String> {
        let tools = self.toolset();
        let path = self.settings_path(kind);
        match tools.cache.read(&tools.host, &path).await {
            Ok(read) => Ok(Some(String::from_utf8_lossy(&read.bytes).into_owned())),
            Err(e) if e.kind == HostErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!(
                "Could not read {path} ({}); its permission rules do not apply.",
                e.message
            )),
        }
    }

    async fn run_mcp(&self, message: Value) -> Option<Value> {
        let tool = tool_call(&message);
        let prepared = tool
            .and_then(|(_, tool_use_id)| tool_use_id)
            .and_then(|id| self.prepared.borrow_mut().remove(id));
        if let Some(prepared) = prepared {
            let output = match prepared {
                PreparedCall::Commit { proposal, content } => edit::commit(self.toolset(), *proposal, Some(content))
                    .await
                    .unwrap_or_else(|e| ToolOutput::error(e.0)),
                PreparedCall::Fail(error) => ToolOutput::error(error.0),
            };
            let id = message.get("id").cloned().unwrap_or(Value::Null);
            return Some(mcp::success_response(id, mcp::tool_call_result(output)));
        }
        let is_bash = tool.is_some_and(|(name, _)| name == "Bash");
        let response = self.server.handle_value(message).await;
        if is_bash {
            // Relative paths in the next command are judged from where this one left the shell.
            let cwd = self.toolset().cwd();
            self.engine.borrow_mut().set_shell_cwd(Some(&cwd));
        }
        response
    }
}

/// The tool name and tool use id of a `tools/call` request.
fn tool_call(message: &Value) -> Option<(&str, Option<&str>)> {
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let params = message.get("params")?;
    let name = params.get("name")?.as_str()?;
    let tool_use_id = params
        .get("_meta")
        .and_then(|m| m.get("claudecode/toolUseId"))
        .and_then(Value::as_str);
    Some((name, tool_use_id))
}

fn allow() -> PermissionAnswer {
    PermissionAnswer::Allow {
        updated_input: None,
        updated_permissions: None,
    }
}

/// The mode the CLI runs in for Tether's `mode`.
fn cli_mode(mode: PermissionMode) -> launch::PermissionMode {
    match mode {
        PermissionMode::Plan => launch::PermissionMode::Plan,
        _ => launch::PermissionMode::Default,
    }
}

/// The configured extra built-ins, without those that act on this machine (they stay disabled).
fn extra_tools(config: &AgentConfig) -> Vec<String> {
    config
        .allowed_tools
        .iter()
        .flatten()
        .filter(|t| !disallowed_builtin_tools().any(|d| d == t.as_str()))
        .cloned()
        .collect()
}

/// `~/.claude`, the directory user settings' relative paths are read against.
fn user_settings_dir(home: &str) -> String {
    let separator = match PathStyle::of_absolute(home) {
        Some(PathStyle::Windows) => '\\',
        _ => '/',
    };
    format!("{}{separator}.claude", home.trim_end_matches(['/', '\\']))
}

fn notice(message: String) -> AgentOutput {
    AgentOutput::Event {
        event: UiEvent::error(ErrorKind::Other, Severity::Notice, message, None),
    }
}
