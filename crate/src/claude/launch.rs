//! The CLI's command line and environment. The extension spawns the binary with exactly these
//! arguments and this environment (the full map, not merged with its own).
//!
//! Why these flags (measured, see `shared/reference/claude-cli-subagents.md` §9):
//! - `--tools` is an allowlist of built-ins that have no local side effects; everything that
//!   touches files or runs commands is Tether's MCP tools instead. `--disallowedTools` repeats the
//!   file/shell built-ins as a second layer; it also holds in every subagent and gives the model a
//!   clear "disabled" error.
//! - `--restricted` keeps settings-file command hooks, plugins' language servers and
//!   bypassPermissions from running anything on this machine; `--strict-mcp-config` keeps MCP
//!   servers from `.mcp.json`/settings (local processes) out.
//! - `--setting-sources` is explicit: by default no settings files at all (`""`). The CLI runs in a
//!   local mirror folder, so settings found there would be the laptop's, and their hooks, MCP
//!   servers and plugins would run locally. Tether's own permission engine reads the remote
//!   workspace's `.claude/settings*.json` rules and applies them to the proxied tools. A user who
//!   wants the CLI to read some sources anyway can list them (it only takes effect without
//!   `--restricted`, which ignores user, project and local settings whatever the sources say).
//! - A **local folder** (the CLI's cwd is the workspace itself, no mirror) is run as Claude Code
//!   runs it on its own: [`LaunchConfig::local`] reads user, project and local settings, their
//!   hooks and the project's `.mcp.json` (no `--restricted`, no `--setting-sources=`, no
//!   `--strict-mcp-config`); the built-ins stay disallowed, Tether's tools take their place.
//! - Skills and output styles on a remote (measured with 2.1.330, `docs/ARCHITECTURE.md`): the CLI
//!   loads `.claude/skills` and `.claude/output-styles` only with the `project` source and without
//!   `--restricted`, and `--add-dir` folders' skills likewise. A `--plugin-dir` is read under
//!   `--restricted` and empty sources, so the mirror's `.claude` folder is given as a plugin whose
//!   manifest keeps only skills and output styles (`"agents":[],"commands":[]`); its skills answer
//!   to their own names, its output styles as `project:<name>` (`outputStyle` in `--settings`).
//!   A skill's frontmatter `hooks` still run under `--restricted` (measured: a mirrored skill's
//!   PostToolUse hook ran in the mirror), so a remote folder's CLI also gets `disableAllHooks`
//!   in `--settings`: no hook of a settings file, plugin or frontmatter runs on the laptop, while
//!   the SDK callbacks Tether registers in `initialize` (the project's hooks, run on the
//!   workspace) are not hooks in that sense and still come.
//! - Measured with 2.1.330 (tests/probe): neither `--setting-sources=` nor `--restricted` loads any
//!   CLAUDE.md (`--setting-sources=project` without `--restricted` does). Project memory therefore
//!   goes to the model through `SessionConfig::extra_system_prompt`, read from the remote side.
//!   Unknown names in `--tools`/`--disallowedTools` are accepted silently; `TodoWrite` is accepted
//!   but not offered in print mode, and `TaskStop` disappears with `Bash` disallowed.

pub use crate::backend::Launch;
use crate::tools::TOOL_NAMES;
use std::collections::BTreeMap;

/// Settings passed on the command line (see [`LaunchConfig::args`]).
pub const PLAN_SETTINGS: &str = r#"{"useAutoModeDuringPlan":false}"#;

/// Built-ins without local side effects that stay available (main agent and subagents).
pub const ALLOWED_BUILTIN_TOOLS: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "ListAgents",
    "SendMessage",
    "Skill",
    "TaskStop",
    "ToolSearch",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
];

/// Built-ins besides Tether's own tools ([`TOOL_NAMES`]) that would run on this machine.
const LOCAL_ONLY_BUILTINS: &[&str] = &["Monitor", "PowerShell", "EnterWorktree", "ExitWorktree"];

/// Built-ins that would read, write or run on this machine: the file and shell ones Tether serves
/// as `mcp__tether__<Name>`, then the others.
pub fn disallowed_builtin_tools() -> impl Iterator<Item = &'static str> {
    TOOL_NAMES.iter().chain(LOCAL_ONLY_BUILTINS).copied()
}

/// Inherited variables the child must not see: `CLAUDECODE` makes the CLI believe it runs nested
/// inside another Claude Code, `NODE_OPTIONS` can inject code or flags into it, and `DEBUG`
/// floods its output.
pub const REMOVED_ENV: &[&str] = &["CLAUDECODE", "NODE_OPTIONS", "DEBUG"];

/// Set on every launch. `sdk-ts` makes the CLI accept `ANTHROPIC_API_KEY` as is (with
/// `claude-vscode` it ignores it and starts in auto mode); auto-memory would tell the model to
/// write memory files to a local path through the (remote) Write tool; session state events give
/// the UI an authoritative idle/running/requires_action signal.
pub const FIXED_ENV: &[(&str, &str)] = &[
    ("CLAUDE_CODE_ENTRYPOINT", "sdk-ts"),
    ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1"),
    ("CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS", "1"),
];

/// One type for the CLI's modes and the permission engine's.
pub use crate::permissions::PermissionMode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingSource {
    User,
    Project,
    Local,
}

impl SettingSource {
    pub fn as_str(self) -> &'static str {
        match self {
            SettingSource::User => "user",
            SettingSource::Project => "project",
            SettingSource::Local => "local",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LaunchConfig {
    pub permission_mode: PermissionMode,
    pub model: Option<String>,
    /// Session id to resume (the CLI must run in the same cwd and HOME as before).
    pub resume: Option<String>,
    /// With `resume`: a new session from it (`--fork-session`).
    pub fork_session: bool,
    /// With `resume`: only up to this transcript message (`--resume-session-at`).
    pub resume_session_at: Option<String>,
    /// Stream text, thinking and tool input as it is generated.
    pub include_partial_messages: bool,
    /// Settings files the CLI reads itself; empty = none (see the module docs).
    pub setting_sources: Vec<SettingSource>,
    pub restricted: bool,
    /// More built-ins for `--tools` beyond [`ALLOWED_BUILTIN_TOOLS`] (those that are also in
    /// [`disallowed_builtin_tools`] stay disabled: `--disallowedTools` wins).
    pub extra_tools: Vec<String>,
    /// Extra permission allow rules (`--allowedTools`), e.g. from the user's settings.
    pub allowed_tools: Vec<String>,
    /// Extra deny rules, added to [`disallowed_builtin_tools`].
    pub disallowed_tools: Vec<String>,
    /// User-provided variables; they win over inherited and fixed ones.
    pub env: Vec<(String, String)>,
    /// The project's MCP servers as the CLI reaches them (`--mcp-config`; Tether's own server is
    /// declared in `initialize`).
    pub mcp_config: Option<String>,
    /// `--strict-mcp-config`: MCP servers only from the flags and `initialize`, never from
    /// `.mcp.json` or settings files (see [`LaunchConfig::reads_project_mcp`]).
    pub strict_mcp_config: bool,
    /// More working directories (`--add-dir`): the workspace's other folders, as the CLI sees
    /// them (their mirrors on a remote).
    pub add_dirs: Vec<String>,
    /// Plugin folders (`--plugin-dir`): a remote project's skills and output styles.
    pub plugin_dirs: Vec<String>,
    /// The output style, by the name the CLI knows it (`outputStyle` in `--settings`).
    pub output_style: Option<String>,
}

impl Default for LaunchConfig {
    fn default() -> Self {
        LaunchConfig {
            permission_mode: PermissionMode::Default,
            model: None,
            resume: None,
            fork_session: false,
            resume_session_at: None,
            include_partial_messages: true,
            setting_sources: Vec::new(),
            restricted: true,
            extra_tools: Vec::new(),
            allowed_tools: Vec::new(),
            disallowed_tools: Vec::new(),
            env: Vec::new(),
            mcp_config: None,
            strict_mcp_config: true,
            add_dirs: Vec::new(),
            plugin_dirs: Vec::new(),
            output_style: None,
        }
    }
}

impl LaunchConfig {
    /// A remote folder (the CLI runs in a mirror on this machine): no settings file, hook, plugin
    /// from settings or MCP server of the project is read here. The default.
    pub fn remote() -> LaunchConfig {
        LaunchConfig::default()
    }

    /// A local folder (the CLI runs in the workspace itself): the CLI reads user, project and
    /// local settings, hooks and MCP servers as Claude Code does on its own.
    pub fn local() -> LaunchConfig {
        LaunchConfig {
            setting_sources: vec![SettingSource::User, SettingSource::Project, SettingSource::Local],
            restricted: false,
            strict_mcp_config: false,
            ..LaunchConfig::default()
        }
    }

    /// Whether the CLI starts the project's `.mcp.json` servers (and settings' servers) itself.
    pub fn reads_project_mcp(&self) -> bool {
        !self.strict_mcp_config
    }

    /// Whether the CLI reads the project's settings files itself (and so runs their hooks).
    pub fn reads_project_settings(&self) -> bool {
        !self.restricted
            && self
                .setting_sources
                .iter()
                .any(|s| matches!(s, SettingSource::Project | SettingSource::Local))
    }

    /// The arguments, each value in one `--flag=value` token (as the Agent SDK does) so a value
    /// starting with `-` or an empty one cannot be misread as another flag.
    pub fn args(&self) -> Vec<String> {
        let mut args: Vec<String> = [
            "--output-format=stream-json",
            "--verbose",
            "--input-format=stream-json",
            "--permission-prompt-tool=stdio",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(format!("--permission-mode={}", self.permission_mode.as_str()));
        if let Some(model) = &self.model {
            args.push(format!("--model={model}"));
        }
        if let Some(id) = &self.resume {
            args.push(format!("--resume={id}"));
            if self.fork_session {
                args.push("--fork-session".into());
            }
            if let Some(at) = &self.resume_session_at {
                args.push(format!("--resume-session-at={at}"));
            }
        }
        if self.include_partial_messages {
            args.push("--include-partial-messages".into());
        }
        let sources: Vec<&str> = self.setting_sources.iter().map(|s| s.as_str()).collect();
        args.push(format!("--setting-sources={}", sources.join(",")));
        if self.strict_mcp_config {
            args.push("--strict-mcp-config".into());
        }
        if let Some(config) = &self.mcp_config {
            args.push(format!("--mcp-config={config}"));
        }
        if self.restricted {
            args.push("--restricted".into());
        }
        args.extend(self.add_dirs.iter().map(|dir| format!("--add-dir={dir}")));
        args.extend(self.plugin_dirs.iter().map(|dir| format!("--plugin-dir={dir}")));
        // In plan mode 2.1.330 applies auto-mode rules by default (useAutoModeDuringPlan); their
        // safety check does not run in an SDK session, so it would deny every Tether tool itself
        // without asking. A flag setting, so --restricted and empty sources do not block it.
        args.push(format!("--settings={}", self.flag_settings()));
        let mut tools: Vec<&str> = ALLOWED_BUILTIN_TOOLS.to_vec();
        tools.extend(self.extra_tools.iter().map(String::as_str));
        args.push(format!("--tools={}", tools.join(",")));
        let mut disallowed: Vec<&str> = disallowed_builtin_tools().collect();
        disallowed.extend(self.disallowed_tools.iter().map(String::as_str));
        args.push(format!("--disallowedTools={}", disallowed.join(",")));
        if !self.allowed_tools.is_empty() {
            args.push(format!("--allowedTools={}", self.allowed_tools.join(",")));
        }
        args
    }

    /// The settings given on the command line: [`PLAN_SETTINGS`], no hooks of the CLI's own on a
    /// remote folder (the module docs), and the output style.
    fn flag_settings(&self) -> String {
        let mut settings = match serde_json::from_str(PLAN_SETTINGS) {
            Ok(serde_json::Value::Object(settings)) => settings,
            _ => serde_json::Map::new(),
        };
        if self.restricted {
            settings.insert("disableAllHooks".into(), true.into());
        }
        if let Some(style) = &self.output_style {
            settings.insert("outputStyle".into(), style.clone().into());
        }
        serde_json::Value::Object(settings).to_string()
    }

    /// The child's environment: `parent_env` without [`REMOVED_ENV`] (compared without case, as
    /// Windows does), plus [`FIXED_ENV`], plus the user's variables.
    pub fn env(&self, parent_env: impl IntoIterator<Item = (String, String)>) -> BTreeMap<String, String> {
        let mut env = crate::sort::map_of(
            parent_env
                .into_iter()
                .filter(|(name, _)| !REMOVED_ENV.iter().any(|r| r.eq_ignore_ascii_case(name))),
        );
        for (name, value) in FIXED_ENV {
            env.insert(name.to_string(), value.to_string());
        }
        for (name, value) in &self.env {
            env.insert(name.clone(), value.clone());
        }
        env
    }

    pub fn build(&self, parent_env: impl IntoIterator<Item = (String, String)>) -> Launch {
        Launch {
            args: self.args(),
            env: self.env(parent_env),
        }
    }
}
