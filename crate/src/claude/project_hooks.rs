//! The project's hooks, registered with the CLI in `initialize.hooks` so that the CLI fires them
//! where it fires its own (before and after each tool, on a prompt, at a turn's or a subagent's
//! end, before compacting) and Tether runs them on the workspace ([`crate::hooks`]).
//!
//! One callback per event, without a matcher: `initialize` goes out before the settings are
//! read, and Tether matches each group itself, with the same code for every backend, against
//! Tether's tools by their built-in names (`Edit`, not `mcp__tether__Edit`). SessionStart and
//! Notification are Tether's for every backend (SessionStart after the settings are read; a
//! question for the user is Tether's to show), so they are not registered here.

use super::protocol::HookMatcher;
use crate::hooks::HookEvent;
use std::collections::BTreeSet;

/// The callback ids are this and the event's name.
const CALLBACK_PREFIX: &str = "tether-hooks:";

/// The events the CLI fires for Tether.
const CLI_EVENTS: [HookEvent; 6] = [
    HookEvent::PreToolUse,
    HookEvent::PostToolUse,
    HookEvent::UserPromptSubmit,
    HookEvent::Stop,
    HookEvent::SubagentStop,
    HookEvent::PreCompact,
];

/// How long the CLI waits for Tether's answer, in seconds: longer than any hook's own timeout
/// that Tether enforces (the CLI's default for a callback would cut a hook allowed more than
/// 60 s).
const CALLBACK_TIMEOUT_SECS: u64 = 24 * 60 * 60;

/// The events the project's hooks are registered for: none when they are off, else the events
/// the settings configure when those are known before the start, else every event.
pub fn registered_events(enabled: bool, configured: Option<&BTreeSet<HookEvent>>) -> BTreeSet<HookEvent> {
    match (enabled, configured) {
        (false, _) => BTreeSet::new(),
        (true, Some(events)) => events.clone(),
        (true, None) => HookEvent::ALL.into_iter().collect(),
    }
}

/// The registrations for `initialize.hooks`, event name → matcher, for those of `events` the CLI
/// fires (the events the settings have hooks for: a callback for any other would be a round trip
/// per tool call or prompt with nothing to run).
pub fn registrations(events: &BTreeSet<HookEvent>) -> impl Iterator<Item = (String, HookMatcher)> + '_ {
    CLI_EVENTS
        .into_iter()
        .filter(|event| events.contains(event))
        .map(|event| {
            (
                event.as_str().to_string(),
                HookMatcher {
                    matcher: None,
                    hook_callback_ids: vec![format!("{CALLBACK_PREFIX}{}", event.as_str())],
                    timeout: Some(CALLBACK_TIMEOUT_SECS),
                },
            )
        })
}

/// The event a callback id registered here stands for.
pub fn event_of(callback_id: &str) -> Option<HookEvent> {
    HookEvent::parse(callback_id.strip_prefix(CALLBACK_PREFIX)?)
}
