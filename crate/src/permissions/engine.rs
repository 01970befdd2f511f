//! The permission engine's state: the mode, the rules loaded from settings files and added for
//! the session, the extra working directories, and how a rule is found for a tool, a path or a
//! command. What it decides for one call is in [`super::decide`].

use super::bash::BashPattern;
use super::path_rules::{self, PathPattern, RootContext};
use super::rules::{self, Behavior, Rule};
use super::settings;
use super::shell::SimpleCommand;
use super::{AlwaysAllow, Diagnostic, ModeError, PermissionMode, SettingsKind, SettingsSource};
use crate::paths::{normalize, PathMapper, PathStyle};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Origin {
    Settings(SettingsKind),
    Session,
}

impl Origin {
    pub(super) fn label(self) -> &'static str {
        match self {
            Origin::Settings(kind) => kind.file_label(),
            Origin::Session => "this session",
        }
    }
}

#[derive(Clone, Debug)]
pub(super) enum Matcher {
    WholeTool,
    Path(PathPattern),
    Command(BashPattern),
    /// Content the engine cannot apply to any of its tools.
    Never,
}

#[derive(Clone, Debug)]
pub(super) struct StoredRule {
    pub(super) rule: Rule,
    pub(super) behavior: Behavior,
    pub(super) origin: Origin,
    pub(super) matcher: Matcher,
}

impl StoredRule {
    pub(super) fn describe(&self) -> String {
        format!("{} in {}", self.rule, self.origin.label())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum PathKind {
    Read,
    Edit,
}

impl PathKind {
    pub(super) fn rule_tool(self) -> &'static str {
        match self {
            PathKind::Read => "Read",
            PathKind::Edit => "Edit",
        }
    }
}

/// Claude Code's permission rules and modes for one session.
#[derive(Clone, Debug)]
pub struct PermissionEngine {
    pub(super) paths: PathMapper,
    pub(super) home: Option<String>,
    pub(super) mode: PermissionMode,
    pub(super) rules: Vec<StoredRule>,
    pub(super) session_rules: Vec<StoredRule>,
    pub(super) settings_directories: Vec<String>,
    pub(super) settings_default_mode: Option<PermissionMode>,
    pub(super) bypass_disabled: bool,
    pub(super) shell_cwd: Option<String>,
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

    pub(super) fn compile(
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

    pub(super) fn resolve_directory(&self, dir: &str, base_dir: &str) -> Option<String> {
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

    pub(super) fn all_rules(&self) -> impl Iterator<Item = &StoredRule> {
        self.rules.iter().chain(self.session_rules.iter())
    }

    /// The workspace root followed by the workspace's other folders and the extra working
    /// directories.
    pub(super) fn working_dirs(&self) -> Vec<String> {
        let mut dirs = vec![self.paths.root().to_string()];
        dirs.extend(self.paths.folder_roots().map(str::to_string));
        dirs.extend(self.settings_directories.iter().cloned());
        dirs
    }

    pub(super) fn is_inside(&self, path: &str) -> bool {
        self.working_dirs().iter().any(|dir| self.paths.is_within(path, dir))
    }

    pub(super) fn tool_rule(&self, behavior: Behavior, tool: &str) -> Option<&StoredRule> {
        self.all_rules().find(|r| {
            r.behavior == behavior
                && matches!(r.matcher, Matcher::WholeTool)
                && rules::tool_rule_covers(&r.rule.tool_name, tool)
        })
    }

    pub(super) fn path_rule(&self, behavior: Behavior, kind: PathKind, path: &str) -> Option<&StoredRule> {
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

    pub(super) fn command_rule(&self, behavior: Behavior, command: &SimpleCommand) -> Option<&StoredRule> {
        self.all_rules().find(|r| {
            r.behavior == behavior
                && matches!(&r.matcher, Matcher::Command(p) if p.matches_command(command, behavior != Behavior::Allow))
        })
    }

    pub(super) fn line_rule(&self, behavior: Behavior, line: &str) -> Option<&StoredRule> {
        self.all_rules()
            .find(|r| r.behavior == behavior && matches!(&r.matcher, Matcher::Command(p) if p.matches_line(line)))
    }

    /// The workspace path a tool input names, relative to the workspace when inside it.
    pub(super) fn display(&self, path: &str) -> String {
        match self.paths.relative(path) {
            Some(rel) if !rel.is_empty() => rel,
            _ => path.to_string(),
        }
    }
}
