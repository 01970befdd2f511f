//! The panels of the background shells Bash starts, for every backend: the agent knows nothing
//! of them as tasks, so Tether tells the UI itself. A shell's panel is announced when Bash
//! returns; while any shell runs, the session asks the driver to call
//! [`watch_shells`](Agent::watch_shells) again after [`WATCH_INTERVAL_MS`] (an
//! [`AgentOutput::WatchShells`]), which reads the new output from the host and sends the panels
//! what changed: at most that often, and only each shell's last lines. `stopTask` with a shell's
//! id kills it at the next watch, at once, instead of going to the agent.

use super::{Agent, AgentOutput};
use crate::backend::Backend;
use crate::events::UiEvent;
use crate::host::Host;

/// How often the panels of running shells hear of new output, at most.
pub const WATCH_INTERVAL_MS: u64 = 500;

fn events(updates: Vec<UiEvent>) -> impl Iterator<Item = AgentOutput> {
    updates.into_iter().map(|event| AgentOutput::Event { event })
}

impl<H: Host, B: Backend + ?Sized> Agent<H, B> {
    /// Read the running shells' new output, kill the ones the user stopped, and tell their panels
    /// what changed; asks to be called again while a shell runs.
    pub async fn watch_shells(&self) -> Vec<AgentOutput> {
        let tools = self.toolset();
        let (updates, running) = tools.shells.watch(&tools.host, || tools.host.now_ms()).await;
        let mut out: Vec<AgentOutput> = events(updates).collect();
        if running {
            out.push(AgentOutput::WatchShells {
                after_ms: WATCH_INTERVAL_MS,
            });
        }
        out
    }

    /// The session ends: every background shell still running is killed, and its panel says so.
    pub async fn end_shells(&self) -> Vec<AgentOutput> {
        let tools = self.toolset();
        events(tools.shells.end_all(&tools.host, || tools.host.now_ms()).await).collect()
    }

    /// `stopTask` for a background shell: None when `id` is no shell's (a task of the agent's).
    pub(super) fn stop_shell(&self, id: &str) -> Option<Vec<AgentOutput>> {
        self.toolset().shells.request_stop(id)?;
        Some(vec![AgentOutput::WatchShells { after_ms: 0 }])
    }

    /// Panels for the shells started since the last call, and the watch that keeps them current.
    pub(super) fn shells_started(&self) -> Vec<AgentOutput> {
        let started = self.toolset().shells.announce();
        if started.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<AgentOutput> = events(started).collect();
        out.push(AgentOutput::WatchShells {
            after_ms: WATCH_INTERVAL_MS,
        });
        out
    }
}
