//! The permission settings on the workspace side: the project's `.claude/settings.json` and
//! `.claude/settings.local.json` read through the host (with the user's settings text the driver
//! passes), and "always allow" rules appended to `.claude/settings.local.json`, where Claude Code
//! keeps them.

use super::Gate;
use crate::host::{Host, HostErrorKind};
use crate::paths::PathStyle;
use crate::permissions::{persist_rules, PermissionMode, Rule, SettingsKind, SettingsSource};
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
        let mut notices = Vec::new();
        let mut sources = Vec::new();
        if let Some(text) = user_settings {
            sources.push(SettingsSource {
                kind: SettingsKind::User,
                text: text.to_string(),
                base_dir: user_settings_dir(home_dir),
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
        let mut engine = self.engine.borrow_mut();
        let diagnostics = engine.load(&sources);
        if configured_mode.is_none() {
            if let Some(mode) = engine.default_mode_from_settings() {
                // Only bypassPermissions can be refused, and load() already dropped it then.
                let _ = engine.set_mode(mode);
            }
        }
        notices.extend(diagnostics.iter().map(|d| format!("Permission settings: {d}")));
        (notices, sources)
    }

    /// "Always allow" these rules: for the rest of the session, and in the workspace's
    /// `.claude/settings.local.json`. A notice when they could not be written.
    pub async fn allow_always<H: Host>(&self, tools: &Toolset<H>, rules: &[Rule]) -> Option<String> {
        for rule in rules {
            self.engine.borrow_mut().add_session_rule(rule.clone());
        }
        let existing = match read_settings(tools, SettingsKind::Local).await {
            Ok(existing) => existing,
            Err(message) => return Some(message),
        };
        let text = match persist_rules(existing.as_deref(), rules) {
            Ok(text) => text,
            Err(e) => return Some(format!("The rule applies for this session only: {e}")),
        };
        let path = settings_path(tools, SettingsKind::Local);
        match tools.write_file(&path, text.into_bytes()).await {
            Ok(_) => None,
            Err(e) => Some(format!(
                "The rule applies for this session only: could not write {path}: {e}"
            )),
        }
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
