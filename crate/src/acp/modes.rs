//! Plan mode kept in step between Tether and the agent. Tether's gate is what refuses changes in
//! plan mode; the agent's own plan mode (claude-agent-acp's `plan`) is what tells its model to
//! plan and gives it ExitPlanMode. Choosing plan mode in Tether sets the agent's, leaving it
//! returns the agent to `default`; the agent entering or leaving plan by itself (its mode picker,
//! an approved ExitPlanMode: claude-agent-acp 0.101.0 then sends `current_mode_update` `default`,
//! or `auto` for "Yes, and use auto mode") moves Tether's mode with it.

use super::session_state::MODE_OPTION;
use super::state::AcpBackend;
use crate::backend::Output;
use crate::events::UiEvent;
use crate::permissions::PermissionMode;

/// The id agents give their plan mode.
const PLAN: &str = "plan";
/// The agent's mode once Tether leaves plan mode.
const DEFAULT: &str = "default";

impl AcpBackend {
    /// Ask the agent into its plan mode when Tether is in plan mode, and out of it when Tether
    /// is not; nothing when it is already there or has no such mode. Called again when the
    /// session opens.
    pub(super) fn sync_agent_mode(&mut self) -> Vec<Output> {
        if self.session.is_none() {
            return Vec::new();
        }
        let current = self.options.mode();
        let target = match (self.mode == PermissionMode::Plan, current.as_deref() == Some(PLAN)) {
            (true, false) => PLAN,
            (false, true) => DEFAULT,
            _ => return Vec::new(),
        };
        if !self.options.offers_mode(target) {
            return Vec::new();
        }
        match self.set_config_option(MODE_OPTION, Some(target)) {
            Ok(outputs) => outputs,
            Err(error) => vec![self.notice(error.to_string())],
        }
    }

    /// The agent reported its options: shown again, and Tether's mode follows the agent into its
    /// plan mode and out of it (to acceptEdits when the agent left for that, else default).
    pub(super) fn options_changed(&mut self) -> Vec<Output> {
        let mut out = vec![self.options_event()];
        let agent_mode = self.options.mode();
        let followed = match (agent_mode.as_deref() == Some(PLAN), self.mode == PermissionMode::Plan) {
            (true, false) => PermissionMode::Plan,
            (false, true) => match agent_mode.as_deref().and_then(PermissionMode::parse) {
                Some(PermissionMode::AcceptEdits) => PermissionMode::AcceptEdits,
                _ => PermissionMode::Default,
            },
            _ => return out,
        };
        self.mode = followed;
        out.push(Output::Event(UiEvent::ModeChanged {
            mode: followed.as_str().to_string(),
        }));
        out
    }
}
