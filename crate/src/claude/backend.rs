//! Claude Code behind the backend seam: the CLI's launch, its stream-json session ([`Session`]),
//! and the glue between them and Tether's agent — Tether's tools reached over `mcp_message`, the
//! CLI's permission questions handed to the gate with the options Claude Code offers, and the
//! permission mode.
//!
//! The CLI only learns about plan mode (it changes the model's prompt); it runs in `default` for
//! every other mode and Tether's engine implements acceptEdits, dontAsk and bypassPermissions
//! (the CLI refuses bypassPermissions under `--restricted`). The CLI's own "always allow"
//! suggestions are never passed back: a whole-tool rule like `mcp__tether__Edit` kept by the CLI
//! would stop it from asking, and so from reaching the engine.

use super::agents::parse_agent_file;
use super::config::ClaudeConfig;
use super::init::RemoteEnvironment;
use super::launch::{disallowed_builtin_tools, LaunchConfig};
use super::protocol::{message_uuid, McpManifest};
use super::questions;
use super::session::{self, PermissionAnswer, Session, SessionConfig};
use crate::backend::{
    Action, AskPolicy, Backend, HookCall, ImageInput, Launch, Output, PermissionAsk, SessionContext, SessionOp,
    SessionOpKind, Supported, ToolRun, Verdict,
};
use crate::config::mcp::claude_mcp_config;
use crate::events::{PermissionOptionKind, PermissionRequest, UiEvent};
use crate::gate::{form_options, standard_options};
use crate::hooks::{HookEvent, HookOutcome};
use crate::id_table::IdTable;
use crate::mcp::{self, tool_use_id_of, Dispatch, Manifest, Step};
use crate::permissions::{AlwaysAllow, PermissionMode, ToolRequest};
use crate::rpc::Id;
use crate::tools::ToolOutput;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// How the CLI is started for the session's folder: a remote one (the CLI in a mirror) reads
/// nothing of the project itself; a local one reads its settings, hooks and MCP servers as Claude
/// Code does.
pub fn launch_for(context: &SessionContext) -> LaunchConfig {
    if context.config.mirror.is_some() {
        LaunchConfig::remote()
    } else {
        LaunchConfig::local()
    }
}

/// The CLI's own text for a refused tool call, so the model reacts as it is used to.
const USER_REJECTED: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file).";

/// One Claude Code session, sans I/O.
pub struct ClaudeBackend {
    session: Session,
    launch: LaunchConfig,
    /// Tether's permission mode, as the agent last told it (the CLI's is plan or default).
    mode: PermissionMode,
    /// Tether's MCP server as the CLI reaches it; set by `start`, which brings the manifest.
    tools: Option<Dispatch>,
    /// Tool calls running, by the control request that carried them: the MCP request's id.
    calls: IdTable<Id>,
    /// Permission questions open: the tool each one is about.
    asks: IdTable<OpenAsk>,
    /// The plans of the model's ExitPlanMode calls, by tool use, until the CLI asks about them.
    plans: HashMap<String, String>,
    /// Tool uses the gate allowed through `can_use_tool`: their `tools/call` runs as asked. A
    /// call the CLI did not ask about first (the real CLI always asks for MCP tools) goes through
    /// the gate on its own, so nothing runs without it.
    allowed_uses: HashSet<String>,
    /// Project subagent files that were skipped, and why.
    notices: Vec<String>,
}

impl ClaudeBackend {
    pub fn new(context: &SessionContext, config: ClaudeConfig) -> ClaudeBackend {
        let remote = context.config.remote.clone().unwrap_or_default();
        let environment = RemoteEnvironment {
            cwd: context.root.to_string(),
            os: remote
                .os
                .unwrap_or_else(|| if context.windows { "Windows" } else { "Unix-like" }.to_string()),
            shell: remote.shell.unwrap_or_else(|| {
                if context.windows {
                    "the workspace's default shell"
                } else {
                    "bash"
                }
                .to_string()
            }),
            git_branch: remote.git_branch,
        };
        let extra_tools = extra_tools(&config);
        let mut session_config = SessionConfig::new(environment);
        session_config.allowed_builtins.extend(extra_tools.iter().cloned());
        session_config.extra_system_prompt = config.extra_system_prompt.clone();
        session_config.project_mcp_servers = (context.config.mcp_servers.iter().flatten())
            .map(|server| server.name().to_string())
            .collect();
        // On a local folder the CLI reads the settings files and runs their hooks itself; Tether
        // registers them only where it keeps the CLI from reading them (a remote workspace).
        let hooks = context.config.hooks.clone().unwrap_or_default();
        session_config.project_hooks = (hooks.project || hooks.user) && !launch_for(context).reads_project_settings();
        session_config.project_hook_events = hooks
            .events
            .map(|names| names.iter().filter_map(|name| HookEvent::parse(name)).collect());
        let mut notices = Vec::new();
        for file in config.agent_files.iter().flatten() {
            match parse_agent_file(&file.name, &file.text) {
                Ok((name, agent)) => {
                    session_config.project_agents.insert(name, agent);
                }
                Err(message) => notices.push(message),
            }
        }
        let launch = LaunchConfig {
            permission_mode: cli_mode(context.mode),
            model: context.config.model.clone(),
            resume: context.config.resume.clone(),
            fork_session: config.fork_session.unwrap_or(false),
            resume_session_at: config.resume_session_at.clone(),
            include_partial_messages: true,
            extra_tools,
            allowed_tools: Vec::new(),
            disallowed_tools: config.disallowed_tools.clone().unwrap_or_default(),
            env: context.config.env.clone().unwrap_or_default().into_iter().collect(),
            mcp_config: claude_mcp_config(context.config.mcp_servers.as_deref().unwrap_or_default()),
            add_dirs: context
                .config
                .additional_folders
                .iter()
                .flatten()
                .map(|folder| folder.agent_path().to_string())
                .collect(),
            plugin_dirs: config.plugin_dirs.clone().unwrap_or_default(),
            output_style: config.output_style.clone(),
            ..launch_for(context)
        };
        ClaudeBackend {
            session: Session::new(session_config),
            launch,
            mode: context.mode,
            tools: None,
            calls: IdTable::new(),
            asks: IdTable::new(),
            plans: HashMap::new(),
            allowed_uses: HashSet::new(),
            notices,
        }
    }

    /// The session's lines and events (the only outputs outside `on_message`).
    fn outputs(&mut self, outputs: Vec<session::Output>) -> Vec<Output> {
        let mut out = Vec::with_capacity(outputs.len());
        for output in outputs {
            match output {
                session::Output::WriteLine(line) => out.push(Output::Send(line)),
                session::Output::Event(event) => out.extend(self.follow(event).map(Output::Event)),
                // Only the CLI's own messages give tool calls, permission questions and hook
                // events, and `on_message` handles them.
                session::Output::McpCall { .. }
                | session::Output::PermissionRequest(_)
                | session::Output::RunHooks { .. } => {}
            }
        }
        out
    }

    /// Keeps Tether's mode in step with the CLI's plan mode, and shows Tether's mode rather than
    /// the CLI's (which is `default` whenever Tether's is not plan).
    fn follow(&mut self, mut event: UiEvent) -> Option<UiEvent> {
        match &mut event {
            UiEvent::PermissionCancelled { id } => {
                self.asks.remove(id.as_str());
            }
            // 2.1.330 asks about ExitPlanMode with an empty input: the plan is in the model's call.
            UiEvent::ToolCallStart { id, name, input, .. } if name == "ExitPlanMode" => {
                self.plans.insert(id.clone(), plan_text(input));
            }
            UiEvent::ToolCallUpdate { id, input, .. } if self.plans.contains_key(id.as_str()) => {
                self.plans.insert(id.clone(), plan_text(input));
            }
            UiEvent::ModeChanged { mode } => {
                let before = self.mode;
                self.follow_cli_mode(mode);
                if self.mode == before {
                    return None;
                }
                *mode = self.mode.as_str().to_string();
            }
            UiEvent::SessionInit { permission_mode, .. } | UiEvent::SessionReady { permission_mode, .. } => {
                if let Some(mode) = permission_mode {
                    self.follow_cli_mode(mode);
                    *mode = self.mode.as_str().to_string();
                }
            }
            _ => {}
        }
        Some(event)
    }

    /// The CLI entered plan mode (EnterPlanMode) or left it (an approved plan).
    fn follow_cli_mode(&mut self, cli_mode: &str) {
        match PermissionMode::parse(cli_mode) {
            Some(PermissionMode::Plan) => self.mode = PermissionMode::Plan,
            Some(_) if self.mode == PermissionMode::Plan => self.mode = PermissionMode::Default,
            _ => {}
        }
    }

    /// An MCP message from the CLI for Tether's server: answered here, or a tool to run.
    fn mcp_call(&mut self, request_id: String, message: Value) -> Vec<Action> {
        if message.get("method").and_then(Value::as_str) == Some("tools/call") {
            let asked = tool_use_id_of(&message).is_some_and(|id| self.allowed_uses.remove(id));
            if !asked {
                return vec![Action::ServeMcp {
                    call: request_id,
                    message,
                }];
            }
        }
        let step = match &self.tools {
            Some(tools) => tools.receive(message),
            // The CLI learns of the server from `initialize`, which `start` sends.
            None => Step::Reply(None),
        };
        match step {
            Step::Reply(reply) => {
                let replies = self.session.mcp_reply(&request_id, reply);
                self.outputs(replies).into_iter().map(Action::Output).collect()
            }
            Step::Call(call) => {
                let tool_use_id = call.tool_use_id().map(str::to_string);
                self.calls.insert(request_id.clone(), call.id);
                vec![Action::RunTool(ToolRun {
                    call: request_id,
                    tool: call.name,
                    input: call.arguments,
                    tool_use_id,
                })]
            }
        }
    }

    /// A `can_use_tool` question, for the gate.
    fn ask(&mut self, mut request: PermissionRequest) -> PermissionAsk {
        let policy = if request.tool_name == "ExitPlanMode" {
            AskPolicy::User {
                reason: "the plan needs your approval".into(),
                always: Some(AlwaysAllow::Mode(PermissionMode::AcceptEdits)),
            }
        } else if request.requires_user_interaction {
            AskPolicy::User {
                reason: format!("{} asks you", request.tool_name),
                always: None,
            }
        } else {
            AskPolicy::Engine
        };
        let access = ToolRequest::for_tool(&request.raw_tool_name, &request.input);
        request.options = standard_options(!request.suppress_always_allow);
        let planned = request.tool_use_id.as_ref().and_then(|id| self.plans.remove(id));
        if let (Some(plan), Value::Object(input)) = (planned.filter(|p| !p.is_empty()), &mut request.input) {
            input.entry("plan").or_insert(Value::String(plan));
        }
        if request.tool_name == "AskUserQuestion" {
            request.form = questions::form_of(&request.input);
        }
        if request.form.is_some() {
            request.options = form_options();
        }
        self.asks.insert(
            request.id.clone(),
            OpenAsk {
                tool: request.tool_name.clone(),
                tool_use_id: request.tool_use_id.clone(),
                question: request.form.as_ref().map(|_| request.input.clone()),
            },
        );
        PermissionAsk {
            request,
            access,
            policy,
        }
    }

    fn answer(&mut self, id: &str, answer: PermissionAnswer) -> Vec<Output> {
        let outputs = self.session.answer_permission(id, answer);
        self.outputs(outputs)
    }
}

impl Backend for ClaudeBackend {
    fn name(&self) -> &'static str {
        "Claude Code"
    }

    fn launch(&self, parent_env: Vec<(String, String)>) -> Launch {
        self.launch.build(parent_env)
    }

    fn start(&mut self, tools: &Manifest) -> Vec<Output> {
        self.tools = Some(Dispatch::new(tools.clone()));
        let manifest = McpManifest {
            initialize_result: tools.initialize_result.clone(),
            tools_list_result: tools.tools_list_result.clone(),
        };
        let outputs = self.session.start(manifest);
        self.outputs(outputs)
    }

    fn notices(&self) -> Vec<String> {
        self.notices.clone()
    }

    fn begin_message(&mut self, message_id: &str) {
        self.session.set_message_uuid(message_uuid(message_id));
    }

    fn prompt(&mut self, text: &str, images: &[ImageInput]) -> Vec<Output> {
        let outputs = self.session.send_prompt(text, images);
        self.outputs(outputs)
    }

    fn on_message(&mut self, message: &str) -> Vec<Action> {
        let outputs = self.session.on_line(message);
        let mut actions = Vec::new();
        for output in outputs {
            match output {
                session::Output::McpCall { request_id, message } => actions.extend(self.mcp_call(request_id, message)),
                session::Output::PermissionRequest(request) => actions.push(Action::AskPermission(self.ask(request))),
                session::Output::RunHooks {
                    request_id,
                    event,
                    input,
                } => actions.push(Action::RunHooks(HookCall {
                    call: request_id,
                    event,
                    input,
                })),
                other => actions.extend(self.outputs(vec![other]).into_iter().map(Action::Output)),
            }
        }
        actions
    }

    fn tool_result(&mut self, call: &str, output: ToolOutput) -> Vec<Output> {
        let Some(id) = self.calls.remove(call) else {
            return Vec::new();
        };
        let replies = self.session.mcp_reply(call, Some(mcp::tool_call_response(&id, output)));
        self.outputs(replies)
    }

    fn fires_hooks(&self) -> bool {
        self.session.project_hooks()
    }

    fn runs_settings_hooks_itself(&self) -> bool {
        self.launch.reads_project_settings()
    }

    fn hook_result(&mut self, call: &str, event: HookEvent, outcome: &HookOutcome) -> Vec<Output> {
        let answer = self.session.answer_hook(call, outcome.to_claude(event));
        self.outputs(answer)
    }

    fn mcp_reply(&mut self, call: &str, reply: Option<Value>) -> Vec<Output> {
        let replies = self.session.mcp_reply(call, reply);
        self.outputs(replies)
    }

    fn answer_permission(&mut self, id: &str, verdict: Verdict) -> Vec<Output> {
        let ask = self.asks.remove(id);
        let tool = ask.as_ref().map(|ask| ask.tool.as_str());
        let allows = match &verdict {
            Verdict::Allowed => true,
            Verdict::Chosen { option, .. } => option.kind.allows(),
            Verdict::Denied { .. } => false,
        };
        if let Some(tool_use_id) = ask.as_ref().and_then(|ask| ask.tool_use_id.clone()).filter(|_| allows) {
            self.allowed_uses.insert(tool_use_id);
        }
        match verdict {
            Verdict::Allowed => self.answer(id, allow()),
            Verdict::Denied { message } => self.answer(
                id,
                PermissionAnswer::Deny {
                    message,
                    interrupt: false,
                },
            ),
            Verdict::Chosen {
                option,
                answers: Some(answers),
                ..
            } if option.kind.allows() && ask.as_ref().is_some_and(|ask| ask.question.is_some()) => {
                let input = ask.and_then(|ask| ask.question).unwrap_or_default();
                let answer = PermissionAnswer::Allow {
                    updated_input: Some(questions::answered_input(&input, &answers)),
                    updated_permissions: None,
                };
                self.answer(id, answer)
            }
            Verdict::Chosen { option, .. } if option.kind.allows() => {
                let mut out = self.answer(id, allow());
                // An approved plan ends plan mode (the CLI leaves it by itself); "always" brings
                // its own mode through the gate.
                let approves_plan = tool == Some("ExitPlanMode") && option.kind == PermissionOptionKind::AllowOnce;
                if approves_plan && self.mode == PermissionMode::Plan {
                    out.extend(self.set_mode(PermissionMode::Default));
                    out.push(Output::Event(UiEvent::ModeChanged {
                        mode: PermissionMode::Default.as_str().to_string(),
                    }));
                }
                out
            }
            Verdict::Chosen { reason, .. } => {
                let message = match reason.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
                    Some(reason) => format!("{USER_REJECTED} To tell you how to proceed, the user said:\n{reason}"),
                    None => format!(
                        "{USER_REJECTED} STOP what you are doing and wait for the user to tell you how to proceed."
                    ),
                };
                self.answer(
                    id,
                    PermissionAnswer::Deny {
                        message,
                        interrupt: false,
                    },
                )
            }
        }
    }

    /// The model, stopping or steering the turn, stopping a task (a session is the CLI's,
    /// picked when it starts).
    fn offers(&self) -> Vec<SessionOpKind> {
        vec![
            SessionOpKind::SetConfigOption,
            SessionOpKind::Interrupt,
            SessionOpKind::Steer,
            SessionOpKind::StopTask,
        ]
    }

    fn operate(&mut self, op: SessionOp) -> Supported<Vec<Output>> {
        let outputs = match op {
            SessionOp::SetMode { mode } => return Ok(self.set_mode(mode)),
            SessionOp::SetConfigOption { option, value } if option == "model" => {
                self.session.set_model(value.as_deref())
            }
            SessionOp::Interrupt => self.session.interrupt(),
            SessionOp::Steer { text } => self.session.steer(&text),
            SessionOp::StopTask { id } => self.session.stop_task(&id),
            op => return Err(self.refuse(&op)),
        };
        Ok(self.outputs(outputs))
    }
}

impl ClaudeBackend {
    /// The CLI hears only about entering or leaving plan mode.
    fn set_mode(&mut self, mode: PermissionMode) -> Vec<Output> {
        let before = std::mem::replace(&mut self.mode, mode);
        if cli_mode(mode) == cli_mode(before) {
            return Vec::new();
        }
        let outputs = self.session.set_mode(cli_mode(mode));
        self.outputs(outputs)
    }
}

/// The `plan` of an ExitPlanMode input, or "" while the model has not written it.
fn plan_text(input: &Value) -> String {
    input
        .get("plan")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn allow() -> PermissionAnswer {
    PermissionAnswer::Allow {
        updated_input: None,
        updated_permissions: None,
    }
}

/// A `can_use_tool` question waiting for the gate.
struct OpenAsk {
    tool: String,
    tool_use_id: Option<String>,
    /// AskUserQuestion's input, which the answers are added to.
    question: Option<Value>,
}

/// The mode the CLI runs in for Tether's `mode`.
fn cli_mode(mode: PermissionMode) -> PermissionMode {
    match mode {
        PermissionMode::Plan => PermissionMode::Plan,
        _ => PermissionMode::Default,
    }
}

/// The configured extra built-ins, without those that act on this machine (they stay disabled).
fn extra_tools(config: &ClaudeConfig) -> Vec<String> {
    config
        .allowed_tools
        .iter()
        .flatten()
        .filter(|t| !disallowed_builtin_tools().any(|d| d == t.as_str()))
        .cloned()
        .collect()
}
