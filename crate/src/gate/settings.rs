//! The permission settings: the project's `.claude/settings.json` and
//! `.claude/settings.local.json` read and written on the workspace side through the host, and the
//! user's settings text, which the driver reads and writes where Claude's user settings live. "Always
//! allow" rules go where the user says; the rules view takes any rule out again.

use super::Gate;
use crate::host::{Host, HostErrorKind};
use crate::paths::PathStyle;
use crate::permissions::{
    persist_rules, remove_rule_from_settings, PermissionMode, Rule, RuleEntry, RuleScope, SettingsKind, SettingsSource,
};

/// A project settings file the gate wrote, with the text it wrote.
#[derive(Debug, PartialEq, Eq)]
pub struct SettingsWritten {
    pub path: String,
    pub text: String,
}

/// What became of an "always allow".
#[derive(Debug, PartialEq, Eq)]
pub enum Saved {
    /// In force for the session (it was asked for no file).
    Done,
    /// In force, and saved in the project's settings file: what the file holds now.
    Written(SettingsWritten),
    /// In force for the session; it could not be saved (the notice says why).
    SessionOnly(String),
    /// In force; the driver saves these rules in the user's settings (not on the workspace).
    ToUserSettings(Vec<Rule>),
}
use crate::tools::Toolset;

impl Gate {
    /// Load the settings. A missing file is fine; a broken one becomes a notice and the others
    /// still apply. Without a configured mode, the settings' `defaultMode` applies. Returns the
    /// notices, and the settings read (what else they configure is read from them: hooks).
    pub async fn load_settings<H: Host>(
        &self,
        tools: &Toolset<H>,
        user_settings: Option<&str>,
        home_dir: &str,
        configured_mode: Option<PermissionMode>,
    ) -> (Vec<String>, Vec<SettingsSource>) {
        *self.user_settings.borrow_mut() = (user_settings.map(str::to_string), home_dir.to_string());
        let (mut notices, sources) = self.reload_settings(tools).await;
        let mut engine = self.engine.borrow_mut();
        if configured_mode.is_none() {
            if let Some(mode) = engine.default_mode_from_settings() {
                // Only bypassPermissions can be refused, and load() already dropped it then.
                let _ = engine.set_mode(mode);
            }
        }
        notices.retain(|n| !n.is_empty());
        (notices, sources)
    }

    /// The user's settings changed (the driver wrote them): read every file again.
    pub async fn set_user_settings<H: Host>(&self, tools: &Toolset<H>, text: Option<&str>) -> Vec<String> {
        self.user_settings.borrow_mut().0 = text.map(str::to_string);
        self.reload_settings(tools).await.0
    }

    /// Read the project's files again, with the user's text last given: the notices, and the
    /// files read (their hooks).
    async fn reload_settings<H: Host>(&self, tools: &Toolset<H>) -> (Vec<String>, Vec<SettingsSource>) {
        let (user_settings, home_dir) = self.user_settings.borrow().clone();
        let mut notices = Vec::new();
        let mut sources = Vec::new();
        if let Some(text) = user_settings {
            sources.push(SettingsSource {
                kind: SettingsKind::User,
                text,
                base_dir: user_settings_dir(&home_dir),
            });
        }
        let root = tools.paths.root().to_string();
        // Both at once: on a remote workspace each read is a round trip.
        let (project, local) = futures::join!(
            read_settings(tools, SettingsKind::Project),
            read_settings(tools, SettingsKind::Local)
        );
        for (kind, read) in [(SettingsKind::Project, project), (SettingsKind::Local, local)] {
            match read {
                Ok(Some(text)) => sources.push(SettingsSource {
                    kind,
                    text,
                    base_dir: root.clone(),
                }),
                Ok(None) => {}
                Err(message) => notices.push(message),
            }
        }
        let diagnostics = self.engine.borrow_mut().load(&sources);
        notices.extend(diagnostics.iter().map(|d| format!("Permission settings: {d}")));
        (notices, sources)
    }

    /// "Always allow" these rules: for the rest of the session, and saved in `scope` (the
    /// project's files on the workspace; the user's by the driver).
    pub async fn allow_always<H: Host>(&self, tools: &Toolset<H>, rules: &[Rule], scope: RuleScope) -> Saved {
        for rule in rules {
            self.engine.borrow_mut().add_session_rule(rule.clone());
        }
        let kind = match scope.settings_kind() {
            None => return Saved::Done,
            Some(SettingsKind::User) => return Saved::ToUserSettings(rules.to_vec()),
            Some(kind) => kind,
        };
        let path = settings_path(tools, kind);
        let result = async {
            let existing = read_settings(tools, kind).await?;
            let text = persist_rules(existing.as_deref(), rules).map_err(|e| format!("{path}: {e}"))?;
            tools
                .write_file(&path, text.clone().into_bytes())
                .await
                .map_err(|e| format!("could not write {path}: {e}"))?;
            Ok::<String, String>(text)
        }
        .await;
        match result {
            Ok(text) => {
                // The file's rules now apply from it (listed with their file), not only the session.
                let rules_now = rules.to_vec();
                let _ = self.reload_settings(tools).await;
                let mut engine = self.engine.borrow_mut();
                for rule in &rules_now {
                    engine.remove_session_rule(rule);
                }
                Saved::Written(SettingsWritten { path, text })
            }
            Err(message) => Saved::SessionOnly(format!("The rule applies for this session only: {message}")),
        }
    }

    /// The rules in effect, each with where it lives.
    pub fn rules(&self) -> Vec<RuleEntry> {
        self.engine.borrow().rule_entries()
    }

    /// Take `entry` out: from the session, or from its project settings file on the workspace
    /// (the rest of the file kept as it is). The user's settings are the driver's to write
    /// ([`Gate::set_user_settings`] then). An error when the rule is not there or the file cannot
    /// be written. The file written, if one was.
    pub async fn remove_rule<H: Host>(
        &self,
        tools: &Toolset<H>,
        entry: &RuleEntry,
    ) -> Result<Option<SettingsWritten>, String> {
        let rule = Rule::parse(&entry.rule).ok_or_else(|| format!("{:?} is not a permission rule", entry.rule))?;
        let kind = match entry.scope.settings_kind() {
            None => {
                return match self.engine.borrow_mut().remove_session_rule(&rule) {
                    true => Ok(None),
                    false => Err(format!("{} is not a rule of this session", entry.rule)),
                }
            }
            Some(SettingsKind::User) => {
                return Err("the user's settings are written where they live, not on the workspace".into())
            }
            Some(kind) => kind,
        };
        let path = settings_path(tools, kind);
        let existing = read_settings(tools, kind)
            .await?
            .ok_or_else(|| format!("{path} does not exist"))?;
        let text = remove_rule_from_settings(&existing, entry.behavior, &rule)
            .map_err(|e| format!("{path}: {e}"))?
            .ok_or_else(|| format!("{path} does not hold the rule {}", entry.rule))?;
        tools
            .write_file(&path, text.clone().into_bytes())
            .await
            .map_err(|e| format!("could not write {path}: {e}"))?;
        let _ = self.reload_settings(tools).await;
        Ok(Some(SettingsWritten { path, text }))
    }
}

fn settings_path<H: Host>(tools: &Toolset<H>, kind: SettingsKind) -> String {
    tools.paths.join(tools.paths.root(), kind.file_label())
}

/// A project settings file's text; None when it does not exist.
async fn read_settings<H: Host>(tools: &Toolset<H>, kind: SettingsKind) -> Result<Option<String>, String> {
    let path = settings_path(tools, kind);
    match tools.cache.read(&tools.host, &path).await {
        Ok(read) => Ok(Some(String::from_utf8_lossy(&read.bytes).into_owned())),
        Err(e) if e.kind == HostErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!(
            "Could not read {path} ({}); its permission rules do not apply.",
            e.message
        )),
    }
}

/// `~/.claude`, the directory user settings' relative paths are read against.
fn user_settings_dir(home: &str) -> String {
    let separator = match PathStyle::of_absolute(home) {
        Some(PathStyle::Windows) => '\\',
        _ => '/',
    };
    format!("{}{separator}.claude", home.trim_end_matches(['/', '\\']))
}
