//! The permission engine: Claude Code's permission modes and settings rules applied to Tether's
//! tools (asked under their built-in names, `Edit`, or as `mcp__tether__Edit`). Pure logic: the
//! session layer reads the settings files through the host and hands their text in.
//!
//! Order of evaluation, as in the CLI (2.1.330): a tool-wide deny rule denies and a tool-wide
//! ask rule asks; then the tool's own check (path rules for Read/Edit, command rules for Bash,
//! modes, the working directories) may deny, or ask in a way nothing overrides (an ask rule, a
//! sensitive file, a dangerous removal); after that bypassPermissions allows, a tool-wide allow
//! rule allows, and otherwise the tool's own verdict stands. In dontAsk mode every ask becomes a
//! denial. Deny beats ask beats allow across all sources.

mod bash;
mod path_rules;
mod read_only;
mod rules;
mod settings;
mod shell;
mod suggestions;

pub use rules::{canonical_tool_name, Rule, TETHER_PREFIX};
pub use settings::{persist_rules, PersistError};
pub use suggestions::{describe_suggestions, mirror_settings_rules, rewrite_suggestions, AlwaysAllow};

use crate::paths::{normalize, PathMapper, PathStyle};
use bash::BashPattern;
use path_rules::{PathPattern, RootContext};
use rules::Behavior;
use serde_json::Value;
use shell::{split_commands, SimpleCommand};
use std::fmt;

/// Claude Code's permission modes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase"))]
pub enum PermissionMode {
    #[default]
    Default,
    AcceptEdits,
    Plan,
    DontAsk,
    BypassPermissions,
}

impl PermissionMode {
    pub const ALL: [PermissionMode; 5] = [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::Plan,
        PermissionMode::DontAsk,
        PermissionMode::BypassPermissions,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::BypassPermissions => "bypassPermissions",
        }
    }

    /// The CLI's spelling; `manual` is its other name for `default`.
    pub fn parse(text: &str) -> Option<PermissionMode> {
        Some(match text {
            "default" | "manual" => PermissionMode::Default,
            "acceptEdits" => PermissionMode::AcceptEdits,
            "plan" => PermissionMode::Plan,
            "dontAsk" => PermissionMode::DontAsk,
            "bypassPermissions" => PermissionMode::BypassPermissions,
            _ => return None,
        })
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which settings file a source is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SettingsKind {
    /// `~/.claude/settings.json`
    User,
    /// `<project>/.claude/settings.json`
    Project,
    /// `<project>/.claude/settings.local.json`
    Local,
}

impl SettingsKind {
    pub fn file_label(self) -> &'static str {
        match self {
            SettingsKind::User => "~/.claude/settings.json",
            SettingsKind::Project => ".claude/settings.json",
            SettingsKind::Local => ".claude/settings.local.json",
        }
    }
}

/// One settings file's text. `base_dir` is the directory its `/path` rules and relative
/// `additionalDirectories` are relative to: the project root for project and local settings,
/// the directory holding the file (`~/.claude`) for user settings.
#[derive(Clone, Debug)]
pub struct SettingsSource {
    pub kind: SettingsKind,
    pub text: String,
    pub base_dir: String,
}

/// A problem in a settings file; the rest of it, and the other files, still apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub source: SettingsKind,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.source.file_label(), self.message)
    }
}

/// The engine's answer for one tool call. Every variant carries a short reason for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Allow {
        reason: String,
    },
    /// `message` is what the model reads as the tool result.
    Deny {
        message: String,
        reason: String,
    },
    /// Ask the user; `always_allow` is what "Always allow" on the card would do (None when the
    /// answer can only be given once).
    Ask {
        reason: String,
        always_allow: Option<AlwaysAllow>,
    },
}

impl Decision {
    pub fn reason(&self) -> &str {
        match self {
            Decision::Allow { reason } | Decision::Deny { reason, .. } | Decision::Ask { reason, .. } => reason,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModeError {
    /// `permissions.disableBypassPermissionsMode: "disable"` is set.
    BypassDisabled,
}

impl fmt::Display for ModeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModeError::BypassDisabled => {
                f.write_str("bypassPermissions mode is disabled by settings (permissions.disableBypassPermissionsMode)")
            }
        }
    }
}

impl std::error::Error for ModeError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Settings(SettingsKind),
    Session,
}

impl Origin {
    fn label(self) -> &'static str {
        match self {
            Origin::Settings(kind) => kind.file_label(),
            Origin::Session => "this session",
        }
    }
}

#[derive(Clone, Debug)]
enum Matcher {
    WholeTool,
    Path(PathPattern),
    Command(BashPattern),
    /// Content the engine cannot apply to any of its tools.
    Never,
}

#[derive(Clone, Debug)]
struct StoredRule {
    rule: Rule,
    behavior: Behavior,
    origin: Origin,
    matcher: Matcher,
}

impl StoredRule {
    fn describe(&self) -> String {
        format!("{} in {}", self.rule, self.origin.label())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum PathKind {
    Read,
    Edit,
}

impl PathKind {
    fn rule_tool(self) -> &'static str {
        match self {
            PathKind::Read => "Read",
            PathKind::Edit => "Edit",
        }
    }
}

/// A tool's own verdict before modes and tool-wide rules are applied.
enum Check {
    Allow(String),
    Deny {
        message: String,
        reason: String,
    },
    /// `firm` asks (ask rules, sensitive files, dangerous removals) hold even in
    /// bypassPermissions mode and against tool-wide allow rules.
    Ask {
        reason: String,
        always: Option<AlwaysAllow>,
        firm: bool,
    },
}

impl Check {
    fn ask(reason: String, always: Option<AlwaysAllow>) -> Check {
        Check::Ask {
            reason,
            always,
            firm: false,
        }
    }

    fn firm_ask(reason: String) -> Check {
        Check::Ask {
            reason,
            always: None,
            firm: true,
        }
    }
}

/// Directory names whose contents configure tools that run code; edits there always ask.
const SENSITIVE_DIRS: &[&str] = &[
    ".git",
    ".vscode",
    ".idea",
    ".claude",
    ".husky",
    ".cargo",
    ".devcontainer",
    ".yarn",
    ".mvn",
];

/// File names that configure shells, git, package managers and hooks; edits always ask.
const SENSITIVE_FILES: &[&str] = &[
    ".gitconfig",
    ".gitmodules",
    ".bashrc",
    ".bash_profile",
    ".zshrc",
    ".zprofile",
    ".profile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".bash_login",
    ".bash_aliases",
    ".bash_logout",
    ".envrc",
    ".ripgreprc",
    ".mcp.json",
    ".claude.json",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnp.cjs",
    ".pnp.loader.mjs",
    ".pnp.js",
    ".pnp.data.json",
    ".pnpmfile.cjs",
    "bunfig.toml",
    ".bunfig.toml",
    ".bazelrc",
    ".bazelversion",
    ".bazeliskrc",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    ".lefthook.yml",
    "lefthook.yaml",
    ".lefthook.yaml",
    "gradle-wrapper.properties",
    "maven-wrapper.properties",
    ".devcontainer.json",
    "pyrightconfig.json",
];

/// The CLI's advice after a denial, so the model does not hunt for a way around it.
const DENIAL_ADVICE: &str = "IMPORTANT: You *may* attempt to accomplish this action using other tools that might naturally be used to accomplish this goal, e.g. using head instead of cat. But you *should not* attempt to work around this denial in malicious ways, e.g. do not use your ability to run tests to execute non-test actions. You should only try to work around this restriction in reasonable ways that do not attempt to bypass the intent behind this denial. If you believe this capability is essential to complete the user's request, STOP and explain to the user what you were trying to do and why you need this permission. Let the user decide how to proceed.";

/// Command substitutions and inline scripts nested deeper than this are not searched for denied
/// commands.
const MAX_NESTING_DEPTH: usize = 8;

/// Claude Code's permission rules and modes for one session.
#[derive(Clone, Debug)]
pub struct PermissionEngine {
    paths: PathMapper,
    home: Option<String>,
    mode: PermissionMode,
    rules: Vec<StoredRule>,
    session_rules: Vec<StoredRule>,
    settings_directories: Vec<String>,
    settings_default_mode: Option<PermissionMode>,
    bypass_disabled: bool,
    shell_cwd: Option<String>,
}

impl PermissionEngine {
    /// An engine for the workspace `paths` describes (tool inputs may use mirror paths), in
    /// default mode with no rules. `home_dir` is the workspace side's home, for `~` in rules and
    /// commands.
    pub fn new(paths: PathMapper, home_dir: Option<&str>) -> PermissionEngine {
        let style = paths.style();
        let home = home_dir
            .filter(|h| PathStyle::of_absolute(h) == Some(style))
            .map(|h| normalize(h, style));
        PermissionEngine {
            shell_cwd: Some(paths.root().to_string()),
            paths,
            home,
            mode: PermissionMode::Default,
            rules: Vec::new(),
            session_rules: Vec::new(),
            settings_directories: Vec::new(),
            settings_default_mode: None,
            bypass_disabled: false,
        }
    }

    pub fn mode(&self) -> PermissionMode {
        self.mode
    }

    /// Switch modes at runtime (e.g. `set_permission_mode`, ExitPlanMode).
    pub fn set_mode(&mut self, mode: PermissionMode) -> Result<(), ModeError> {
        if mode == PermissionMode::BypassPermissions && self.bypass_disabled {
            return Err(ModeError::BypassDisabled);
        }
        self.mode = mode;
        Ok(())
    }

    /// The `permissions.defaultMode` of the loaded settings (local over project over user).
    pub fn default_mode_from_settings(&self) -> Option<PermissionMode> {
        self.settings_default_mode
    }

    /// The shell's current directory, for commands with relative paths (the Bash tool keeps it
    /// between calls). None when it is unknown: relative paths then count as outside.
    pub fn set_shell_cwd(&mut self, cwd: Option<&str>) {
        self.shell_cwd = cwd.and_then(|c| self.paths.resolve(c).ok());
    }

    /// Replace the rules, extra directories and default mode read from settings files. Session
    /// rules and the current mode stay (the mode drops to default if the new settings disable
    /// bypassPermissions while it is on). Returns the problems found; nothing panics and a bad
    /// file does not keep the others from applying.
    pub fn load(&mut self, sources: &[SettingsSource]) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        self.rules.clear();
        self.settings_directories.clear();
        self.settings_default_mode = None;
        self.bypass_disabled = false;
        let mut default_modes: Vec<(SettingsKind, PermissionMode)> = Vec::new();
        for source in sources {
            let parsed = settings::parse(source, &mut diagnostics);
            let origin = Origin::Settings(source.kind);
            for (behavior, list) in [
                (Behavior::Allow, parsed.allow),
                (Behavior::Deny, parsed.deny),
                (Behavior::Ask, parsed.ask),
            ] {
                for rule in list {
                    let (stored, warning) = self.compile(rule, behavior, origin, &source.base_dir);
                    if let Some(message) = warning {
                        diagnostics.push(Diagnostic {
                            source: source.kind,
                            message,
                        });
                    }
                    self.rules.extend(stored);
                }
            }
            for dir in parsed.additional_directories {
                match self.resolve_directory(&dir, &source.base_dir) {
                    Some(dir) => self.settings_directories.push(dir),
                    None => diagnostics.push(Diagnostic {
                        source: source.kind,
                        message: format!(
                            "additionalDirectories: {dir:?} cannot name a workspace directory; it is ignored"
                        ),
                    }),
                }
            }
            if let Some(mode) = parsed.default_mode {
                default_modes.push((source.kind, mode));
            }
            self.bypass_disabled |= parsed.disable_bypass;
        }
        for kind in [SettingsKind::Local, SettingsKind::Project, SettingsKind::User] {
            if let Some((_, mode)) = default_modes.iter().find(|(k, _)| *k == kind) {
                self.settings_default_mode = Some(*mode);
                break;
            }
        }
        if self.bypass_disabled {
            if self.settings_default_mode == Some(PermissionMode::BypassPermissions) {
                self.settings_default_mode = None;
            }
            if self.mode == PermissionMode::BypassPermissions {
                self.mode = PermissionMode::Default;
            }
        }
        diagnostics
    }

    /// Allow `rule` for the rest of the session.
    pub fn add_session_rule(&mut self, rule: Rule) {
        let root = self.paths.root().to_string();
        let (stored, _) = self.compile(rule, Behavior::Allow, Origin::Session, &root);
        self.session_rules.extend(stored);
    }

    /// Apply an "Always allow" for the session: add its rules, or switch to its mode.
    pub fn apply_always(&mut self, always: &AlwaysAllow) -> Result<(), ModeError> {
        match always {
            AlwaysAllow::Rules(rules) => {
                for rule in rules {
                    self.add_session_rule(rule.clone());
                }
                Ok(())
            }
            AlwaysAllow::Mode(mode) => self.set_mode(*mode),
        }
    }

    fn compile(
        &self,
        rule: Rule,
        behavior: Behavior,
        origin: Origin,
        base_dir: &str,
    ) -> (Option<StoredRule>, Option<String>) {
        let stored = |matcher| StoredRule {
            rule: rule.clone(),
            behavior,
            origin,
            matcher,
        };
        let Some(content) = rule.content.as_deref() else {
            return (Some(stored(Matcher::WholeTool)), None);
        };
        match rule.tool_name.as_str() {
            "Read" | "Edit" => {
                let ctx = RootContext {
                    style: self.paths.style(),
                    home: self.home.as_deref(),
                    base_dir,
                };
                let (pattern, warning) = path_rules::compile(content, behavior != Behavior::Allow, &ctx);
                let warning = warning.map(|w| format!("{rule}: {w}"));
                (pattern.map(|p| stored(Matcher::Path(p))), warning)
            }
            "Bash" => match BashPattern::compile(content) {
                Ok(pattern) => (Some(stored(Matcher::Command(pattern))), None),
                Err(e) => (
                    None,
                    Some(format!("{rule}: the pattern is not valid ({e}); the rule is ignored")),
                ),
            },
            tool @ ("Write" | "MultiEdit" | "NotebookEdit") => (
                Some(stored(Matcher::Never)),
                Some(format!(
                    "{rule} never matches: {tool} paths are matched by Edit(…) rules"
                )),
            ),
            tool @ ("Glob" | "Grep" | "LS") => (
                Some(stored(Matcher::Never)),
                Some(format!(
                    "{rule} never matches: {tool} paths are matched by Read(…) rules"
                )),
            ),
            _ => (Some(stored(Matcher::Never)), None),
        }
    }

    fn resolve_directory(&self, dir: &str, base_dir: &str) -> Option<String> {
        let style = self.paths.style();
        if dir == "~" || dir.starts_with("~/") {
            let home = self.home.as_deref()?;
            return Some(
                self.paths
                    .join(home, dir.trim_start_matches('~').trim_start_matches('/')),
            );
        }
        if PathStyle::of_absolute(dir).is_some() {
            return self.paths.resolve(dir).ok();
        }
        (PathStyle::of_absolute(base_dir) == Some(style)).then(|| self.paths.join(&normalize(base_dir, style), dir))
    }

    fn all_rules(&self) -> impl Iterator<Item = &StoredRule> {
        self.rules.iter().chain(self.session_rules.iter())
    }

    /// The workspace root followed by the extra working directories.
    fn working_dirs(&self) -> Vec<String> {
        let mut dirs = vec![self.paths.root().to_string()];
        dirs.extend(self.settings_directories.iter().cloned());
        dirs
    }

    fn is_inside(&self, path: &str) -> bool {
        self.working_dirs().iter().any(|dir| self.paths.is_within(path, dir))
    }

    fn tool_rule(&self, behavior: Behavior, tool: &str) -> Option<&StoredRule> {
        self.all_rules().find(|r| {
            r.behavior == behavior
                && matches!(r.matcher, Matcher::WholeTool)
                && rules::tool_rule_covers(&r.rule.tool_name, tool)
        })
    }

    fn path_rule(&self, behavior: Behavior, kind: PathKind, path: &str) -> Option<&StoredRule> {
        // Relative allow rules are read against the workspace root only; relative deny and ask
        // rules against every working directory (the CLI widens what it refuses).
        let dirs = match behavior {
            Behavior::Allow => vec![self.paths.root().to_string()],
            _ => self.working_dirs(),
        };
        self.all_rules().find(|r| {
            r.behavior == behavior
                && r.rule.tool_name == kind.rule_tool()
                && matches!(&r.matcher, Matcher::Path(p) if p.matches(path, &dirs))
        })
    }

    fn command_rule(&self, behavior: Behavior, command: &SimpleCommand) -> Option<&StoredRule> {
        self.all_rules().find(|r| {
            r.behavior == behavior
                && matches!(&r.matcher, Matcher::Command(p) if p.matches_command(command, behavior != Behavior::Allow))
        })
    }

    fn line_rule(&self, behavior: Behavior, line: &str) -> Option<&StoredRule> {
        self.all_rules()
            .find(|r| r.behavior == behavior && matches!(&r.matcher, Matcher::Command(p) if p.matches_line(line)))
    }

    /// Decide whether `tool_name` may run with `input`.
    pub fn decide(&self, tool_name: &str, input: &Value) -> Decision {
        let tool = canonical_tool_name(tool_name);
        if let Some(rule) = self.tool_rule(Behavior::Deny, &tool) {
            return Decision::Deny {
                message: format!("Permission to use {tool} has been denied. {DENIAL_ADVICE}"),
                reason: format!("denied by rule {}", rule.describe()),
            };
        }
        if let Some(rule) = self.tool_rule(Behavior::Ask, &tool) {
            return self.finish_ask(&tool, format!("ask rule {}", rule.describe()), None);
        }
        let check = match tool.as_str() {
            "Read" | "Glob" | "Grep" | "LS" => self.check_read(&tool, input),
            "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => self.check_edit(&tool, input),
            "Bash" => self.check_bash(input),
            "BashOutput" | "KillShell" => Check::Allow(format!("{tool} needs no permission")),
            _ => Check::ask(
                format!("{tool} needs approval"),
                Some(AlwaysAllow::Rules(vec![Rule::tool(&tool)])),
            ),
        };
        let (reason, always) = match check {
            Check::Deny { message, reason } => return Decision::Deny { message, reason },
            Check::Ask {
                reason,
                always,
                firm: true,
            } => return self.finish_ask(&tool, reason, always),
            Check::Ask { reason, always, .. } => (reason, always),
            Check::Allow(reason) => {
                return Decision::Allow { reason };
            }
        };
        if self.mode == PermissionMode::BypassPermissions {
            return Decision::Allow {
                reason: "bypassPermissions mode".into(),
            };
        }
        if let Some(rule) = self.tool_rule(Behavior::Allow, &tool) {
            return Decision::Allow {
                reason: format!("allowed by rule {}", rule.describe()),
            };
        }
        self.finish_ask(&tool, reason, always)
    }

    fn finish_ask(&self, tool: &str, reason: String, always: Option<AlwaysAllow>) -> Decision {
        if self.mode == PermissionMode::DontAsk {
            return Decision::Deny {
                message: format!(
                    "Permission to use {tool} has been denied because Claude Code is running in don't ask mode. {DENIAL_ADVICE}"
                ),
                reason: format!("don't-ask mode: {reason}"),
            };
        }
        Decision::Ask {
            reason,
            always_allow: always,
        }
    }

    /// The workspace path a tool input names, relative to the workspace when inside it.
    fn display(&self, path: &str) -> String {
        match self.paths.relative(path) {
            Some(rel) if !rel.is_empty() => rel,
            _ => path.to_string(),
        }
    }

    /// The workspace path a file tool's input names (Glob and Grep default to the workspace
    /// root); Err with the verdict when it is missing or cannot name a workspace path.
    fn input_path(&self, tool: &str, input: &Value) -> Result<String, Check> {
        let field = match tool {
            "Read" | "Write" | "Edit" | "MultiEdit" => "file_path",
            "NotebookEdit" => "notebook_path",
            _ => "path",
        };
        let given = input
            .get(field)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|p| !p.is_empty());
        match given {
            None if matches!(tool, "Glob" | "Grep") => Ok(self.paths.root().to_string()),
            None => Err(Check::ask(format!("{tool} was called without {field}"), None)),
            Some(given) => self
                .paths
                .resolve(given)
                .map_err(|_| Check::ask(format!("{given} is outside the workspace"), None)),
        }
    }

    /// `Read(//dir/**)` / `Edit(//dir/**)` for a directory outside the workspace (the CLI's
    /// suggestion); None for a filesystem root.
    fn directory_rule(&self, kind: PathKind, dir: &str) -> Option<AlwaysAllow> {
        let escape = |text: &str| {
            let mut out = String::with_capacity(text.len());
            for c in text.chars() {
                if "*?[]{}\\".contains(c) {
                    out.push('\\');
                }
                out.push(c);
            }
            out
        };
        let absolute = match self.paths.style() {
            PathStyle::Posix if dir == "/" => return None,
            PathStyle::Posix => format!("/{}", escape(dir)),
            PathStyle::Windows => {
                let b = dir.as_bytes();
                if b.len() <= 3 || b[1] != b':' {
                    return None;
                }
                let drive = (b[0] as char).to_ascii_lowercase();
                format!("//{drive}/{}", escape(&dir[3..].replace('\\', "/")))
            }
        };
        Some(AlwaysAllow::Rules(vec![Rule::with_content(
            kind.rule_tool(),
            &format!("{absolute}/**"),
        )]))
    }

    fn check_read(&self, tool: &str, input: &Value) -> Check {
        let path = match self.input_path(tool, input) {
            Ok(path) => path,
            Err(check) => return check,
        };
        let verdict = self.check_read_path(tool, path);
        // Glob searches below the fixed start of an absolute pattern, whatever `path` says.
        match self.glob_pattern_base(tool, input) {
            Some(base) => more_restrictive(verdict, self.check_read_path(tool, base)),
            None => verdict,
        }
    }

    /// The directory an absolute Glob pattern starts from (`/etc/**/*.conf` → `/etc`).
    fn glob_pattern_base(&self, tool: &str, input: &Value) -> Option<String> {
        if tool != "Glob" {
            return None;
        }
        let pattern = input.get("pattern").and_then(Value::as_str)?.trim();
        PathStyle::of_absolute(pattern)?;
        let literal = &pattern[..pattern.find(['*', '?', '[', '{']).unwrap_or(pattern.len())];
        let base = match literal.rfind(['/', '\\']) {
            Some(0) => &literal[..1],
            Some(end) => &literal[..end],
            None => literal,
        };
        Some(self.paths.resolve(base).unwrap_or_else(|_| base.to_string()))
    }

    fn check_read_path(&self, tool: &str, path: String) -> Check {
        let shown = self.display(&path);
        if let Some(rule) = self.path_rule(Behavior::Deny, PathKind::Read, &path) {
            return Check::Deny {
                message: format!("Permission to read {path} has been denied. {DENIAL_ADVICE}"),
                reason: format!("denied by rule {}", rule.describe()),
            };
        }
        if let Some(rule) = self.path_rule(Behavior::Ask, PathKind::Read, &path) {
            return Check::firm_ask(format!("ask rule {} covers {shown}", rule.describe()));
        }
        if self.is_inside(&path) {
            return Check::Allow(format!("reading {shown} inside the workspace"));
        }
        // A file one may edit, one may read.
        if self.path_rule(Behavior::Ask, PathKind::Edit, &path).is_none() && !self.is_sensitive(&path) {
            if let Some(rule) = self.path_rule(Behavior::Allow, PathKind::Edit, &path) {
                return Check::Allow(format!("allowed by rule {}", rule.describe()));
            }
        }
        if let Some(rule) = self.path_rule(Behavior::Allow, PathKind::Read, &path) {
            return Check::Allow(format!("allowed by rule {}", rule.describe()));
        }
        let dir = if tool == "Read" {
            self.paths.parent(&path).unwrap_or_else(|| path.clone())
        } else {
            path.clone()
        };
        Check::ask(
            format!("{path} is outside the workspace"),
            self.directory_rule(PathKind::Read, &dir),
        )
    }

    fn is_sensitive(&self, path: &str) -> bool {
        let relative = self.paths.relative(path);
        let components: Vec<String> = relative
            .as_deref()
            .unwrap_or(path)
            .split(['/', '\\'])
            .filter(|c| !c.is_empty())
            .map(str::to_lowercase)
            .collect();
        let in_sensitive_dir = components.iter().any(|c| SENSITIVE_DIRS.contains(&c.as_str()))
            || components.windows(2).any(|w| w[0] == ".config" && w[1] == "git");
        let sensitive_name = components
            .last()
            .is_some_and(|name| SENSITIVE_FILES.contains(&name.as_str()));
        in_sensitive_dir || sensitive_name
    }

    fn check_edit(&self, tool: &str, input: &Value) -> Check {
        let path = match self.input_path(tool, input) {
            Ok(path) => path,
            Err(check) => return check,
        };
        let shown = self.display(&path);
        if let Some(rule) = self.path_rule(Behavior::Deny, PathKind::Edit, &path) {
            return Check::Deny {
                message: format!("Permission to edit {path} has been denied. {DENIAL_ADVICE}"),
                reason: format!("denied by rule {}", rule.describe()),
            };
        }
        if let Some(rule) = self.path_rule(Behavior::Ask, PathKind::Edit, &path) {
            return Check::firm_ask(format!("ask rule {} covers {shown}", rule.describe()));
        }
        if self.is_sensitive(&path) {
            return Check::firm_ask(format!("{shown} is a sensitive file"));
        }
        if self.mode == PermissionMode::Plan {
            return Check::ask(format!("plan mode: cannot write to {shown} while in plan mode"), None);
        }
        let inside = self.is_inside(&path);
        if inside && self.mode == PermissionMode::AcceptEdits {
            return Check::Allow(format!("acceptEdits mode: {shown} is inside the workspace"));
        }
        if let Some(rule) = self.path_rule(Behavior::Allow, PathKind::Edit, &path) {
            return Check::Allow(format!("allowed by rule {}", rule.describe()));
        }
        if inside {
            return Check::ask(
                format!("{tool} of {shown} needs approval"),
                Some(AlwaysAllow::Mode(PermissionMode::AcceptEdits)),
            );
        }
        let dir = self.paths.parent(&path).unwrap_or_else(|| path.clone());
        Check::ask(
            format!("{path} is outside the workspace"),
            self.directory_rule(PathKind::Edit, &dir),
        )
    }

    fn check_bash(&self, input: &Value) -> Check {
        let line = input
            .get("command")
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or("");
        if line.is_empty() {
            return Check::ask("Bash was called without a command".into(), None);
        }
        let denied = |rule: &StoredRule| Check::Deny {
            message: format!("Permission to use Bash with command {line} has been denied. {DENIAL_ADVICE}"),
            reason: format!("denied by rule {}", rule.describe()),
        };
        if let Some(rule) = self.line_rule(Behavior::Deny, line) {
            return denied(rule);
        }
        if let Some(rule) = self.line_rule(Behavior::Ask, line) {
            return Check::firm_ask(format!("ask rule {}", rule.describe()));
        }
        let commands = split_commands(line);
        if commands.is_empty() {
            return Check::ask("the command runs nothing this check can see".into(), None);
        }
        let mut everything = Vec::new();
        collect_nested(&commands, 0, &mut everything);
        if let Some(rule) = everything.iter().find_map(|c| self.command_rule(Behavior::Deny, c)) {
            return denied(rule);
        }
        if let Some((command, rule)) = everything
            .iter()
            .find_map(|c| self.command_rule(Behavior::Ask, c).map(|r| (c, r)))
        {
            return Check::firm_ask(format!("ask rule {} covers `{}`", rule.describe(), command.text));
        }
        let mut cwd = self.shell_cwd.clone();
        for command in &commands {
            if let Some(why) = self.dangerous_removal(command, cwd.as_deref()) {
                return Check::firm_ask(why);
            }
            cwd = self.cwd_after(command, cwd);
        }
        if let Some(rule) = self.line_rule(Behavior::Allow, line) {
            return Check::Allow(format!("allowed by rule {}", rule.describe()));
        }
        let mut cwd = self.shell_cwd.clone();
        let mut allowed = Vec::new();
        let mut pending: Vec<&SimpleCommand> = Vec::new();
        for command in &commands {
            match self.command_status(command, cwd.as_deref()) {
                Some(why) => allowed.push(format!("`{}` {why}", command.text)),
                None => pending.push(command),
            }
            cwd = self.cwd_after(command, cwd);
        }
        if pending.is_empty() {
            let reason = if commands.len() == 1 {
                allowed.remove(0)
            } else {
                format!("allowed: {}", allowed.join("; "))
            };
            return Check::Allow(reason);
        }
        let listed = pending.iter().map(|c| format!("`{}`", c.text)).collect::<Vec<_>>();
        let reason = format!(
            "{} {} approval",
            listed.join(", "),
            if listed.len() == 1 { "needs" } else { "need" }
        );
        let always = if pending.iter().any(|c| c.opaque || !c.substitutions.is_empty()) {
            // Only an exact rule for the whole line can allow what the splitter cannot see into.
            vec![Rule::with_content("Bash", line)]
        } else {
            let mut rules: Vec<Rule> = Vec::new();
            for rule in pending.iter().map(|c| bash::suggested_rule(c)) {
                if !rules.contains(&rule) {
                    rules.push(rule);
                }
            }
            rules
        };
        Check::ask(reason, Some(AlwaysAllow::Rules(always)))
    }

    /// Resolve a path argument of a shell command: `~` from the home directory, absolute paths
    /// (mirror paths included) as they are, relative ones against `cwd`.
    fn resolve_argument(&self, arg: &str, cwd: Option<&str>) -> Option<String> {
        if arg == "~" || arg.starts_with("~/") {
            let home = self.home.as_deref()?;
            return Some(
                self.paths
                    .join(home, arg.trim_start_matches('~').trim_start_matches('/')),
            );
        }
        if arg.starts_with('~') {
            return None;
        }
        if PathStyle::of_absolute(arg).is_some() {
            return self.paths.resolve(arg).ok();
        }
        Some(self.paths.join(cwd?, arg))
    }

    fn argument_inside(&self, arg: &str, cwd: Option<&str>) -> bool {
        self.resolve_argument(arg, cwd).is_some_and(|p| self.is_inside(&p))
    }

    fn cwd_after(&self, command: &SimpleCommand, cwd: Option<String>) -> Option<String> {
        let words = bash::strip_prefixes(&command.words, false);
        if words.first().map(|w| w.value.as_str()) != Some("cd") {
            return cwd;
        }
        if command.has_expansion || command.opaque || !command.substitutions.is_empty() {
            return None;
        }
        let target = words[1..]
            .iter()
            .map(|w| w.value.as_str())
            .find(|v| !v.starts_with('-') || *v == "-");
        match target {
            None => self.home.clone(),
            Some("-") => None,
            Some(dir) => self.resolve_argument(dir, cwd.as_deref()),
        }
    }

    /// `rm`/`rmdir` of the filesystem root, the home directory, or a working directory or one
    /// of its parents: never allowed without an explicit answer.
    fn dangerous_removal(&self, command: &SimpleCommand, cwd: Option<&str>) -> Option<String> {
        let words = bash::strip_prefixes(&command.words, false);
        let program = words.first()?.value.as_str();
        if program != "rm" && program != "rmdir" {
            return None;
        }
        let dirs = self.working_dirs();
        for target in bash::path_arguments(words) {
            let directory = match target {
                "*" | ".*" => ".",
                t => t.strip_suffix("/*").unwrap_or(t),
            };
            let resolved = self.resolve_argument(directory, cwd);
            let dangerous = match &resolved {
                None => true,
                Some(path) => {
                    self.paths.parent(path).is_none()
                        || self.home.as_deref() == Some(path.as_str())
                        || dirs.iter().any(|dir| self.paths.is_within(dir, path))
                }
            };
            if dangerous {
                return Some(format!(
                    "`{}` could remove the workspace, a working directory or a parent of one; it needs explicit approval",
                    command.text
                ));
            }
        }
        None
    }

    /// Why one simple command may run without asking; None when it needs approval.
    fn command_status(&self, command: &SimpleCommand, cwd: Option<&str>) -> Option<String> {
        if command.opaque || !command.substitutions.is_empty() {
            return None;
        }
        let writes_inside = command
            .redirects
            .iter()
            .filter(|r| r.writes_file())
            .all(|r| self.argument_inside(&r.target, cwd));
        if let Some(rule) = self.command_rule(Behavior::Allow, command) {
            return writes_inside.then(|| format!("allowed by rule {}", rule.describe()));
        }
        let words = bash::strip_prefixes(&command.words, false);
        let arguments_inside = bash::path_arguments(words)
            .into_iter()
            .all(|arg| self.argument_inside(arg, cwd));
        let only_harmless_redirects = command
            .redirects
            .iter()
            .all(|r| !r.writes_file() && !r.op.contains('<'));
        if !command.has_expansion && only_harmless_redirects && arguments_inside && read_only::is_read_only(words) {
            return Some("is read-only".into());
        }
        if self.mode == PermissionMode::AcceptEdits
            && !command.has_expansion
            && arguments_inside
            && writes_inside
            && bash::is_accept_edits_command(command)
        {
            return Some("is allowed in acceptEdits mode".into());
        }
        None
    }
}

fn severity(check: &Check) -> u8 {
    match check {
        Check::Allow(_) => 0,
        Check::Ask { firm: false, .. } => 1,
        Check::Ask { firm: true, .. } => 2,
        Check::Deny { .. } => 3,
    }
}

/// Of two verdicts on the same call, the one that lets less through.
fn more_restrictive(a: Check, b: Check) -> Check {
    if severity(&b) > severity(&a) {
        b
    } else {
        a
    }
}

/// The commands of a line together with those inside its command substitutions and inline
/// scripts (`bash -c '…'`, `eval …`), for deny and ask rules.
fn collect_nested(commands: &[SimpleCommand], depth: usize, out: &mut Vec<SimpleCommand>) {
    for command in commands {
        out.push(command.clone());
        if depth < MAX_NESTING_DEPTH {
            for inner in command
                .substitutions
                .iter()
                .cloned()
                .chain(bash::inline_scripts(command))
            {
                collect_nested(&split_commands(&inner), depth + 1, out);
            }
        }
    }
}
