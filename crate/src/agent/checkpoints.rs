//! The session's checkpoints as the agent drives them: a user message starts one, a turn's end
//! writes its before-images, and a rewind puts the files back ([`crate::tools::checkpoints`]). A
//! failure is told once a session: what fails one turn (an untrusted workspace, a read-only
//! folder) fails every turn alike.

use super::{notice, Agent, AgentOutput};
use crate::backend::Backend;
use crate::host::Host;
use crate::tools::checkpoints::rewind::{self, RewindOutcome, RewindPreview};

impl<H: Host, B: Backend + ?Sized> Agent<H, B> {
    /// The user message `message_id` starts a turn: the files Tether changes from now on are
    /// checkpointed under it (when the session keeps checkpoints).
    pub async fn begin_message(&self, message_id: &str) -> Vec<AgentOutput> {
        self.backend().begin_message(message_id);
        let tools = self.toolset();
        match tools.checkpoints.begin(&tools.host, message_id).await {
            Ok(()) => Vec::new(),
            Err(e) => self.checkpoint_failure(&e.message),
        }
    }

    /// What rewinding the files to before `message_id` would do.
    pub async fn rewind_preview(&self, message_id: &str) -> Result<RewindPreview, String> {
        rewind::preview(self.toolset(), message_id).await
    }

    /// Rewind the files to before `message_id` (refused, nothing written, if any changed since).
    pub async fn rewind(&self, message_id: &str) -> Result<RewindOutcome, String> {
        rewind::rewind(self.toolset(), message_id).await
    }

    /// The turn ended: its before-images go to the checkpoint folder.
    pub(super) async fn flush_checkpoints(&self) -> Vec<AgentOutput> {
        let tools = self.toolset();
        match tools.checkpoints.flush(&tools.host).await {
            Ok(()) => Vec::new(),
            Err(e) => self.checkpoint_failure(&e.message),
        }
    }

    /// The notice that checkpoints failed, the first time only.
    fn checkpoint_failure(&self, message: &str) -> Vec<AgentOutput> {
        if self.checkpoint_failure_told.replace(true) {
            return Vec::new();
        }
        vec![notice(format!(
            "Checkpoints could not be saved: {message} (Said once: later turns are not checkpointed either while this lasts.)"
        ))]
    }
}
