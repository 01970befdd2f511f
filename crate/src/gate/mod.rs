//! The permission gate between an agent and Tether's tools, the same for every backend: it has
//! the permission engine judge each question, answers what it can, and keeps what it asks the
//! user about — with the proposed file of an edit to review — until the answer. A change the user
//! accepted (perhaps after editing it) is kept by the tool use's id, so the tool call that follows
//! writes exactly what was reviewed. The settings it reads and writes are in [`settings`].

mod answer;
mod settings;

pub use answer::{UserAnswer, UserDecision};

use crate::backend::{AskPolicy, PermissionAsk, Verdict};
use crate::events::{EditReview, PermissionOption, PermissionOptionKind, PermissionRequest, UiEvent};
use crate::host::Host;
use crate::permissions::{AlwaysAllow, Decision, ModeError, PermissionEngine, PermissionMode};
use crate::tools::pipeline;
use crate::tools::proposal::ProposedWrite;
use crate::tools::{ToolError, ToolOutput, Toolset};
use std::cell::RefCell;
use std::collections::HashMap;

/// The answers Tether offers for its own questions (its tools called over MCP, the agent's file
/// and terminal requests) and Claude Code's: allow, always allow (unless the asker rules it out),
/// reject; named as the chat shows them.
pub fn standard_options(with_always: bool) -> Vec<PermissionOption> {
    let option = |id: &str, name: &str, kind| PermissionOption {
        option_id: id.to_string(),
        name: name.to_string(),
        kind,
    };
    let mut options = vec![option("allow", "Allow", PermissionOptionKind::AllowOnce)];
    if with_always {
        options.push(option("always", "Always allow", PermissionOptionKind::AllowAlways));
    }
    options.push(option("deny", "Reject", PermissionOptionKind::RejectOnce));
    options
}

/// The answers to a form (AskUserQuestion, an ACP form elicitation): send it, or skip it.
pub fn form_options() -> Vec<PermissionOption> {
    vec![
        PermissionOption {
            option_id: "submit".into(),
            name: "Submit".into(),
            kind: PermissionOptionKind::AllowOnce,
        },
        PermissionOption {
            option_id: "skip".into(),
            name: "Skip".into(),
            kind: PermissionOptionKind::RejectOnce,
        },
    ]
}

/// What the gate made of a permission question.
#[derive(Debug)]
pub enum Judgement {
    /// Answered without the user; `event` tells the UI about a refusal.
    Answered { verdict: Verdict, event: Option<UiEvent> },
    /// The user must choose: show them this request.
    Ask(PermissionRequest),
}

/// The user's answer, resolved.
#[derive(Debug)]
pub struct Answered {
    pub verdict: Verdict,
    /// What the "always" option the user chose applies.
    pub always: Option<AlwaysAllow>,
}

/// A question shown to the user and not answered yet.
struct PendingAsk {
    tool_use_id: Option<String>,
    options: Vec<PermissionOption>,
    /// For edit tools: the change the user reviews.
    proposal: Option<ProposedWrite>,
    always: Option<AlwaysAllow>,
}

/// What the tool call of an allowed tool use runs instead of the tool as the model asked.
enum PreparedCall {
    /// Write the reviewed proposal with the user's content.
    Commit {
        proposal: Box<ProposedWrite>,
        content: String,
    },
    /// The change could not even be computed when it was asked for; report that error rather
    /// than run a write nobody reviewed.
    Fail(ToolError),
}

/// Methods take `&self` so calls may overlap; no borrow is held across an await.
pub struct Gate {
    engine: RefCell<PermissionEngine>,
    pending: RefCell<HashMap<String, PendingAsk>>,
    /// Keyed by tool use id.
    prepared: RefCell<HashMap<String, PreparedCall>>,
}

impl Gate {
    pub fn new(engine: PermissionEngine) -> Gate {
        Gate {
            engine: RefCell::new(engine),
            pending: RefCell::new(HashMap::new()),
            prepared: RefCell::new(HashMap::new()),
        }
    }

    pub fn mode(&self) -> PermissionMode {
        self.engine.borrow().mode()
    }

    pub fn set_mode(&self, mode: PermissionMode) -> Result<(), ModeError> {
        self.engine.borrow_mut().set_mode(mode)
    }

    /// Where the shell is now: relative paths in the next command are judged from there.
    pub fn set_shell_cwd(&self, cwd: &str) {
        self.engine.borrow_mut().set_shell_cwd(Some(cwd));
    }

    /// Judge a question from the agent: answer it, or make the request to show the user.
    pub async fn judge<H: Host>(&self, tools: &Toolset<H>, ask: PermissionAsk) -> Judgement {
        let PermissionAsk {
            mut request,
            access,
            policy,
        } = ask;
        let decision = match policy {
            AskPolicy::User { reason, always } => Decision::Ask {
                reason,
                always_allow: always,
            },
            AskPolicy::Engine => self.engine.borrow().decide(&access),
        };
        let (reason, always) = match decision {
            Decision::Allow { .. } => {
                return Judgement::Answered {
                    verdict: Verdict::Allowed,
                    event: None,
                }
            }
            Decision::Deny { message, reason } => {
                let event = request.tool_use_id.map(|tool_use_id| UiEvent::PermissionDenied {
                    tool_use_id,
                    tool_name: request.tool_name,
                    message: None,
                    reason: Some(reason),
                    agent_id: request.agent_id,
                });
                return Judgement::Answered {
                    verdict: Verdict::Denied { message },
                    event,
                };
            }
            Decision::Ask { reason, always_allow } => (reason, always_allow),
        };
        // "Always" applies only when the agent offers it.
        let offers_always = request
            .options
            .iter()
            .any(|o| o.kind == PermissionOptionKind::AllowAlways);
        let always = always.filter(|_| offers_always);
        let proposal = if pipeline::is_write_tool(&access.tool) {
            match pipeline::propose(tools, &access.tool, request.input.clone()).await {
                Ok(proposal) => Some(proposal),
                // The tools are the authority on errors: the call reports this one itself.
                Err(error) => return self.allow_failing(request.tool_use_id, error),
            }
        } else {
            None
        };
        request.review = proposal.as_ref().map(|p| {
            Box::new(EditReview {
                path: p.path.clone(),
                original: p.original.clone(),
                proposed: p.proposed.clone(),
                hunks: pipeline::diff_of(p).hunks().to_vec(),
            })
        });
        request.always_label = always.as_ref().map(AlwaysAllow::label);
        request.reason = Some(reason);
        self.pending.borrow_mut().insert(
            request.id.clone(),
            PendingAsk {
                tool_use_id: request.tool_use_id.clone(),
                options: request.options.clone(),
                proposal,
                always,
            },
        );
        Judgement::Ask(request)
    }

    /// Allow a call whose change could not be computed, and make its tool call report `error`
    /// (nothing unreviewed is written if the file changes in between).
    fn allow_failing(&self, tool_use_id: Option<String>, error: ToolError) -> Judgement {
        let verdict = match tool_use_id {
            Some(tool_use_id) => {
                self.prepared
                    .borrow_mut()
                    .insert(tool_use_id, PreparedCall::Fail(error));
                Verdict::Allowed
            }
            None => Verdict::Denied { message: error.0 },
        };
        Judgement::Answered { verdict, event: None }
    }

    /// The user's answer to the request `id`: None when it is unknown or already answered; an
    /// error (and the question stays open) when the answer picks none of its options.
    pub fn answer(&self, id: &str, answer: UserAnswer) -> Result<Option<Answered>, String> {
        let Some(pending) = self.pending.borrow_mut().remove(id) else {
            return Ok(None);
        };
        let option = match answer.pick(&pending.options) {
            Ok(option) => option,
            Err(message) => {
                self.pending.borrow_mut().insert(id.to_string(), pending);
                return Err(message);
            }
        };
        let verdict = Verdict::Chosen {
            option: option.clone(),
            reason: answer.reason,
            answers: answer.answers,
        };
        let always = match option.kind {
            PermissionOptionKind::RejectOnce | PermissionOptionKind::RejectAlways => {
                return Ok(Some(Answered { verdict, always: None }))
            }
            PermissionOptionKind::AllowAlways => pending.always,
            PermissionOptionKind::AllowOnce => None,
        };
        if let (Some(content), Some(proposal), Some(tool_use_id)) =
            (answer.user_content, pending.proposal, pending.tool_use_id)
        {
            self.prepared.borrow_mut().insert(
                tool_use_id,
                PreparedCall::Commit {
                    proposal: Box::new(proposal),
                    content,
                },
            );
        }
        Ok(Some(Answered { verdict, always }))
    }

    /// The agent withdrew the request `id`.
    pub fn forget(&self, id: &str) {
        self.pending.borrow_mut().remove(id);
    }

    /// What an allowed tool use runs instead of the tool, when the gate prepared something for it:
    /// the reviewed change, or the error its proposal met.
    pub async fn run_prepared<H: Host>(&self, tools: &Toolset<H>, tool_use_id: &str) -> Option<ToolOutput> {
        let prepared = self.prepared.borrow_mut().remove(tool_use_id)?;
        Some(match prepared {
            PreparedCall::Commit { proposal, content } => pipeline::commit(tools, *proposal, Some(content))
                .await
                .unwrap_or_else(|e| ToolOutput::error(e.0)),
            PreparedCall::Fail(error) => ToolOutput::error(error.0),
        })
    }
}
