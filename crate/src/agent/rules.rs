//! The rules view's side of a session: the rules in effect, each with where it lives, and taking
//! one out (from the session, or from its project settings file on the workspace); the user's
//! settings, which the driver reads and writes where they live, handed back after a change.

use super::{notice, Agent, AgentOutput, AuditRecord};
use crate::backend::Backend;
use crate::gate::SettingsWritten;
use crate::host::Host;
use crate::permissions::{RuleEntry, RuleScope};

impl<H: Host, B: Backend + ?Sized> Agent<H, B> {
    /// Every rule in effect: the settings files' and the session's.
    pub fn rules(&self) -> Vec<RuleEntry> {
        self.gate.rules()
    }

    /// Take `entry` out. The user's settings are the driver's to change: it writes the file and
    /// calls [`set_user_settings`](Self::set_user_settings), then this records the removal.
    pub async fn remove_rule(&self, entry: RuleEntry) -> Result<Vec<AgentOutput>, String> {
        let written = match entry.scope {
            RuleScope::UserSettings => None,
            _ => self.gate.remove_rule(self.toolset(), &entry).await?,
        };
        self.audit.borrow_mut().push(AuditRecord::RuleRemoved {
            rule: entry.rule,
            behavior: entry.behavior,
            scope: entry.scope,
        });
        let mut out = self.news();
        if let Some(SettingsWritten { path, text }) = written {
            out.push(AgentOutput::ProjectSettingsWritten { path, text });
        }
        Ok(out)
    }

    /// The user's settings file's text changed (None: it is gone): its rules apply from now on.
    pub async fn set_user_settings(&self, text: Option<&str>) -> Vec<AgentOutput> {
        let notices = self.gate.set_user_settings(self.toolset(), text).await;
        notices.into_iter().map(notice).collect()
    }
}
