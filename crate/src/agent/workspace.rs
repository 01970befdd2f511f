//! The work on the workspace an agent asks for itself (ACP's `fs/*` and `terminal/*`), through the
//! same host, cache and read records as Tether's tools: a read sees the editor's unsaved text and
//! counts as read for a following write; commands run where Tether's Bash runs them (the remote
//! executor on a remote workspace).

use super::{Agent, AgentOutput};
use crate::backend::{Backend, WorkspaceAnswer, WorkspaceOp, WorkspaceRequest};
use crate::host::{ExecRequest, Host, HostError};
use crate::tools::{content_hash, text};

/// How long a command the agent starts may run (the agent kills or releases it sooner).
const COMMAND_LIFETIME_MS: u64 = 4 * 60 * 60 * 1000;
/// The most output the host keeps of each stream between two reads.
const MAX_OUTPUT_BYTES: usize = 16 * 1024 * 1024;

impl<H: Host, B: Backend + ?Sized> Agent<H, B> {
    pub(super) async fn workspace(&self, request: WorkspaceRequest) -> Vec<AgentOutput> {
        let answer = match self.perform(request.op).await {
            Ok(answer) => answer,
            Err(e) => WorkspaceAnswer::Failed {
                kind: e.kind,
                message: e.message,
            },
        };
        let outputs = self.backend.borrow_mut().workspace_result(&request.call, answer);
        self.emit(outputs)
    }

    async fn perform(&self, op: WorkspaceOp) -> Result<WorkspaceAnswer, HostError> {
        let tools = self.toolset();
        let host = &tools.host;
        Ok(match op {
            WorkspaceOp::ReadText { path } => {
                if let Some(text) = host.unsaved_text(&path).await? {
                    return Ok(WorkspaceAnswer::Text(text));
                }
                let read = tools.cache.read(host, &path).await?;
                let Some(decoded) = text::decode(&read.bytes) else {
                    return Err(HostError::other(format!("{path} is a binary file, not text")));
                };
                // A write that follows is one the agent made knowing the file.
                tools.record_read(&path, &read.meta, content_hash(&read.bytes));
                WorkspaceAnswer::Text(decoded.text)
            }
            WorkspaceOp::Spawn { command, cwd, env } => {
                // An agent's terminal (ACP `terminal/create`): what it changes is not rewound.
                tools.checkpoints.shell_ran();
                let request = ExecRequest {
                    command,
                    cwd,
                    env,
                    timeout_ms: COMMAND_LIFETIME_MS,
                    max_output_bytes: MAX_OUTPUT_BYTES,
                };
                WorkspaceAnswer::Spawned(host.spawn_background(&request).await?)
            }
            WorkspaceOp::ReadOutput { id, wait_ms: 0 } => WorkspaceAnswer::Output(host.read_background(&id).await?),
            WorkspaceOp::ReadOutput { id, wait_ms } => {
                WorkspaceAnswer::Output(host.wait_background(&id, wait_ms).await?)
            }
            WorkspaceOp::Kill { id } => {
                host.kill_background(&id).await?;
                WorkspaceAnswer::Killed
            }
        })
    }
}
