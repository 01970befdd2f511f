//! What the permission engine decides for one tool call: the tool-wide rules, then the tool's own
//! check (path rules and sensitive files for reads and edits, command rules, read-only commands
//! and dangerous removals for Bash), then the mode.

mod plan;

use super::bash;
use super::command_prefixes;
use super::engine::{PathKind, StoredRule};
use super::read_only;
use super::request::{Access, Target, ToolRequest};
use super::rules::{Behavior, Rule};
use super::shell::{split_commands, SimpleCommand};
use super::{AlwaysAllow, Decision, PermissionEngine, PermissionMode};
use crate::paths::PathStyle;

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

impl PermissionEngine {
    /// Decide whether the call `request` describes may run.
    pub fn decide(&self, request: &ToolRequest) -> Decision {
        let tool = &request.tool;
        if let Some(rule) = self.tool_rule(Behavior::Deny, tool) {
            return Decision::Deny {
                message: format!("Permission to use {tool} has been denied. {DENIAL_ADVICE}"),
                reason: format!("denied by rule {}", rule.describe()),
            };
        }
        if self.mode == PermissionMode::Plan {
            if let Some(refusal) = self.plan_refusal(request) {
                return refusal;
            }
        }
        if let Some(rule) = self.tool_rule(Behavior::Ask, tool) {
            return self.finish_ask(tool, format!("ask rule {}", rule.describe()), None);
        }
        let check = match &request.access {
            Access::Read(targets) => self.check_read(tool, targets),
            Access::Write(target) => self.check_edit(tool, target),
            Access::Execute(line) => self.check_bash(tool, line),
            Access::Harmless => Check::Allow(format!("{tool} needs no permission")),
            Access::Other => Check::ask(
                format!("{tool} needs approval"),
                Some(AlwaysAllow::Rules(vec![Rule::tool(tool)])),
            ),
        };
        let (reason, always) = match check {
            Check::Deny { message, reason } => return Decision::Deny { message, reason },
            Check::Ask {
                reason,
                always,
                firm: true,
            } => return self.finish_ask(tool, reason, always),
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
        if let Some(rule) = self.tool_rule(Behavior::Allow, tool) {
            return Decision::Allow {
                reason: format!("allowed by rule {}", rule.describe()),
            };
        }
        self.finish_ask(tool, reason, always)
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

    /// The workspace path a target names; Err with the verdict when it is missing or cannot name
    /// a workspace path.
    fn input_path(&self, tool: &str, target: &Target) -> Result<String, Check> {
        match target {
            Target::Root => Ok(self.paths.root().to_string()),
            Target::Missing(field) => Err(Check::ask(format!("{tool} was called without {field}"), None)),
            Target::PatternBase(base) => Ok(self.paths.resolve(base).unwrap_or_else(|_| base.clone())),
            Target::Path { path, .. } => self
                .paths
                .resolve(path)
                .map_err(|_| Check::ask(format!("{path} is outside the workspace"), None)),
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

    /// The strictest verdict on the places a call reads (a Glob also searches below the fixed
    /// start of an absolute pattern, whatever its `path` says).
    fn check_read(&self, tool: &str, targets: &[Target]) -> Check {
        let mut verdict: Option<Check> = None;
        for target in targets {
            let path = match self.input_path(tool, target) {
                Ok(path) => path,
                Err(check) => return check,
            };
            let directory = !matches!(target, Target::Path { directory: false, .. });
            let check = self.check_read_path(path, directory);
            verdict = Some(match verdict {
                Some(verdict) => more_restrictive(verdict, check),
                None => check,
            });
        }
        verdict.unwrap_or_else(|| Check::ask(format!("{tool} names nothing to read"), None))
    }

    /// A read of `path`; "always allow" offers the directory it is, or the one it is in.
    fn check_read_path(&self, path: String, directory: bool) -> Check {
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
        let dir = if directory {
            path.clone()
        } else {
            self.paths.parent(&path).unwrap_or_else(|| path.clone())
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

    fn check_edit(&self, tool: &str, target: &Target) -> Check {
        let path = match self.input_path(tool, target) {
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

    /// A command line; it is judged by `Bash(…)` rules whichever tool runs it.
    fn check_bash(&self, tool: &str, line: &str) -> Check {
        let line = line.trim();
        if line.is_empty() {
            return Check::ask(format!("{tool} was called without a command"), None);
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
        let words = command_prefixes::strip_prefixes(&command.words, false);
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
        let words = command_prefixes::strip_prefixes(&command.words, false);
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

    /// A command the read-only table accepts, reading only inside the working directories, with
    /// nothing expanded, substituted or redirected into a file.
    fn is_read_only_command(&self, command: &SimpleCommand, cwd: Option<&str>) -> bool {
        if command.opaque || !command.substitutions.is_empty() || command.has_expansion {
            return false;
        }
        let words = command_prefixes::strip_prefixes(&command.words, false);
        let arguments_inside = bash::path_arguments(words)
            .into_iter()
            .all(|arg| self.argument_inside(arg, cwd));
        let only_harmless_redirects = command
            .redirects
            .iter()
            .all(|r| !r.writes_file() && !r.op.contains('<'));
        only_harmless_redirects && arguments_inside && read_only::is_read_only(words)
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
        if self.is_read_only_command(command, cwd) {
            return Some("is read-only".into());
        }
        let words = command_prefixes::strip_prefixes(&command.words, false);
        let arguments_inside = bash::path_arguments(words)
            .into_iter()
            .all(|arg| self.argument_inside(arg, cwd));
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
                .chain(command_prefixes::inline_scripts(command))
            {
                collect_nested(&split_commands(&inner), depth + 1, out);
            }
        }
    }
}
