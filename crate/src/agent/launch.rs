//! How the agent's program is started: its command line and environment, the files written before
//! it, and what its working folder must not hold. The backend knows; the agent passes it on.

use super::Agent;
use crate::backend::{Backend, Launch};
use crate::host::Host;

impl<H: Host, B: Backend + ?Sized> Agent<H, B> {
    /// How to start the agent's program; `parent_env` is the driver's own environment.
    pub fn launch(&self, parent_env: impl IntoIterator<Item = (String, String)>) -> Launch {
        self.backend.borrow().launch(parent_env.into_iter().collect())
    }

    /// Files to write before the program starts (absolute path → content).
    pub fn launch_files(&self) -> Vec<(String, String)> {
        self.backend.borrow().launch_files()
    }

    /// Paths in the agent's working folder that keep it from starting (see
    /// [`Backend::refused_in_cwd`]).
    pub fn refused_in_cwd(&self) -> &'static [&'static str] {
        self.backend.borrow().refused_in_cwd()
    }
}
