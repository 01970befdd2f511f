//! The hooks of the settings files: `{"hooks": {"PreToolUse": [{"matcher": "Edit|Write",
//! "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}}`. Settings that do not
//! parse are the permission settings' notice already; here they add no hooks. What Tether does
//! not run (other hook types, other events) is told once, as a notice.

use super::matcher::matches;
use super::HookEvent;
use serde_json::Value;

/// Which settings file a hook comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HooksSource {
    /// `~/.claude/settings.json` on the laptop (run on the workspace too, when the user allows).
    User,
    /// The workspace's `.claude/settings.json`.
    Project,
    /// The workspace's `.claude/settings.local.json`.
    Local,
}

impl HooksSource {
    pub fn file(self) -> &'static str {
        match self {
            HooksSource::User => "~/.claude/settings.json",
            HooksSource::Project => ".claude/settings.json",
            HooksSource::Local => ".claude/settings.local.json",
        }
    }
}

/// One `{"type": "command"}` hook.
#[derive(Clone, Debug, PartialEq)]
pub struct CommandHook {
    pub command: String,
    /// Seconds; None: Claude Code's default of 60.
    pub timeout_secs: Option<f64>,
    pub source: HooksSource,
}

#[derive(Clone, Debug, PartialEq)]
struct HookGroup {
    event: HookEvent,
    matcher: Option<String>,
    hooks: Vec<CommandHook>,
}

/// Every hook of the session's settings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookSet {
    groups: Vec<HookGroup>,
}

impl HookSet {
    /// The hooks of these settings texts, and notices for what they configure that Tether does
    /// not run. `disableAllHooks: true` in any of them turns every hook off, as in Claude Code.
    pub fn from_settings(sources: &[(HooksSource, &str)]) -> (HookSet, Vec<String>) {
        let parsed: Vec<(HooksSource, Value)> = sources
            .iter()
            .filter_map(|(source, text)| Some((*source, serde_json::from_str::<Value>(text).ok()?)))
            .collect();
        if parsed
            .iter()
            .any(|(_, settings)| settings.get("disableAllHooks") == Some(&Value::Bool(true)))
        {
            return (HookSet::default(), Vec::new());
        }
        let mut set = HookSet::default();
        let mut notices = Vec::new();
        for (source, settings) in &parsed {
            let Some(events) = settings.get("hooks").and_then(Value::as_object) else {
                continue;
            };
            for (name, groups) in events {
                let Some(event) = HookEvent::parse(name) else {
                    notices.push(format!(
                        "Hooks: the {name} hooks in {} are not run by Tether (it runs {}).",
                        source.file(),
                        supported_events()
                    ));
                    continue;
                };
                for group in groups.as_array().into_iter().flatten() {
                    set.add_group(event, *source, group, &mut notices);
                }
            }
        }
        (set, notices)
    }

    fn add_group(&mut self, event: HookEvent, source: HooksSource, group: &Value, notices: &mut Vec<String>) {
        let matcher = group.get("matcher").and_then(Value::as_str).map(str::to_string);
        let mut hooks = Vec::new();
        for hook in group.get("hooks").and_then(Value::as_array).into_iter().flatten() {
            let kind = hook.get("type").and_then(Value::as_str).unwrap_or_default();
            match (kind, hook.get("command").and_then(Value::as_str)) {
                ("command", Some(command)) if !command.trim().is_empty() => hooks.push(CommandHook {
                    command: command.to_string(),
                    timeout_secs: hook.get("timeout").and_then(Value::as_f64).filter(|t| *t > 0.0),
                    source,
                }),
                _ => notices.push(format!(
                    "Hooks: a {} hook of type \"{kind}\" in {} is not run by Tether (it runs command hooks).",
                    event.as_str(),
                    source.file()
                )),
            }
        }
        if !hooks.is_empty() {
            self.groups.push(HookGroup { event, matcher, hooks });
        }
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The events with a hook configured, each once, in [`HookEvent::ALL`]'s order.
    pub fn events(&self) -> Vec<HookEvent> {
        HookEvent::ALL.into_iter().filter(|event| self.has(*event)).collect()
    }

    /// Whether any hook is configured for `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.groups.iter().any(|g| g.event == event)
    }

    /// The hooks `input` selects for `event`, each command once (Claude Code runs identical
    /// commands once), in the settings' order.
    pub fn matching(&self, event: HookEvent, input: &Value) -> Vec<CommandHook> {
        let subject = event.subject(input);
        let mut selected: Vec<CommandHook> = Vec::new();
        for group in self.groups.iter().filter(|g| g.event == event) {
            if !matches(event, group.matcher.as_deref(), subject) {
                continue;
            }
            for hook in &group.hooks {
                if !selected.iter().any(|h| h.command == hook.command) {
                    selected.push(hook.clone());
                }
            }
        }
        selected
    }
}

fn supported_events() -> String {
    HookEvent::ALL.map(HookEvent::as_str).join(", ")
}
