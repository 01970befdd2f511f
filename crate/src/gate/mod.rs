//! The permission gate between an agent and Tether's tools, the same for every backend: it has
//! the permission engine judge each question, answers what it can, and keeps what it asks the
//! user about — with the proposed file of an edit to review — until the answer. A change the user
//! accepted (perhaps after editing it) is kept by the tool use's id, so the tool call that follows
//! writes exactly what was reviewed. The settings it reads and writes are in [`settings`].

mod answer;
mod settings;

pub use answer::{UserAnswer, UserDecision};
pub use settings::{Saved, SettingsWritten};

use crate::backend::{AskPolicy, PermissionAsk, Verdict};
use crate::diff::{apply_hunks, hunk_label};
use crate::events::{EditReview, PermissionOption, PermissionOptionKind, PermissionRequest, UiEvent};
use crate::host::Host;
use crate::id_table::IdTable;
use crate::permissions::{AlwaysAllow, Decision, ModeError, PermissionEngine, PermissionMode, RuleScope};
use crate::tools::pipeline;
use crate::tools::proposal::ProposedWrite;
use crate::tools::{Content, ToolError, ToolOutput, Toolset};
use std::cell::RefCell;

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
    /// Answered without the user; `event` tells the UI about a refusal; `reason` is the
    /// engine's (for the audit log).
    Answered {
        verdict: Verdict,
        event: Option<UiEvent>,
        reason: String,
    },
    /// The user must choose: show them this request.
    Ask(PermissionRequest),
}

/// The user's answer, resolved.
#[derive(Debug)]
pub struct Answered {
    pub verdict: Verdict,
    /// What the "always" option the user chose applies.
    pub always: Option<AlwaysAllow>,
    /// Where its rules go.
    pub scope: RuleScope,
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
    /// Write the reviewed proposal with the user's content; `left_out` names the hunks the user
    /// did not accept, for the model.
    Commit {
        proposal: Box<ProposedWrite>,
        content: String,
        left_out: Vec<String>,
    },
    /// The change could not even be computed when it was asked for; report that error rather
    /// than run a write nobody reviewed.
    Fail(ToolError),
}

/// Methods take `&self` so calls may overlap; no borrow is held across an await.
pub struct Gate {
    engine: RefCell<PermissionEngine>,
    pending: RefCell<IdTable<PendingAsk>>,
    /// Keyed by tool use id.
    prepared: RefCell<IdTable<PreparedCall>>,
    /// The user's settings text last given (the driver reads the file) and the home directory.
    user_settings: RefCell<(Option<String>, String)>,
}

impl Gate {
    pub fn new(engine: PermissionEngine) -> Gate {
        Gate {
            engine: RefCell::new(engine),
            pending: RefCell::new(IdTable::new()),
            prepared: RefCell::new(IdTable::new()),
            user_settings: RefCell::new((None, String::new())),
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
            Decision::Allow { reason } => {
                return Judgement::Answered {
                    verdict: Verdict::Allowed,
                    event: None,
                    reason,
                }
            }
            Decision::Deny { message, reason } => {
                let event = request.tool_use_id.map(|tool_use_id| UiEvent::PermissionDenied {
                    tool_use_id,
                    tool_name: request.tool_name,
                    message: None,
                    reason: Some(reason.clone()),
                    agent_id: request.agent_id,
                });
                return Judgement::Answered {
                    verdict: Verdict::Denied { message },
                    event,
                    reason,
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
        request.always_rules = match &always {
            Some(AlwaysAllow::Rules(rules)) => rules.iter().map(ToString::to_string).collect(),
            _ => Vec::new(),
        };
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
        Judgement::Answered {
            verdict,
            event: None,
            reason: "the change could not be computed; the tool call reports why".into(),
        }
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
        let allows = matches!(
            option.kind,
            PermissionOptionKind::AllowOnce | PermissionOptionKind::AllowAlways
        );
        // Worked out before anything is decided: hunks that do not fit keep the question open.
        let commit = match (allows, &pending.proposal) {
            (true, Some(proposal)) => match reviewed_content(proposal, answer.user_content, answer.accepted_hunks) {
                Ok(commit) => commit,
                Err(message) => {
                    self.pending.borrow_mut().insert(id.to_string(), pending);
                    return Err(message);
                }
            },
            _ => None,
        };
        let scope = answer.destination.unwrap_or(RuleScope::LocalSettings);
        let verdict = Verdict::Chosen {
            option: option.clone(),
            reason: answer.reason,
            answers: answer.answers,
        };
        let always = match option.kind {
            PermissionOptionKind::RejectOnce | PermissionOptionKind::RejectAlways => {
                return Ok(Some(Answered {
                    verdict,
                    always: None,
                    scope,
                }))
            }
            PermissionOptionKind::AllowAlways => pending.always,
            PermissionOptionKind::AllowOnce => None,
        };
        if let (Some((content, left_out)), Some(proposal), Some(tool_use_id)) =
            (commit, pending.proposal, pending.tool_use_id)
        {
            self.prepared.borrow_mut().insert(
                tool_use_id,
                PreparedCall::Commit {
                    proposal: Box::new(proposal),
                    content,
                    left_out,
                },
            );
        }
        Ok(Some(Answered { verdict, always, scope }))
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
            PreparedCall::Commit {
                proposal,
                content,
                left_out,
            } => match pipeline::commit(tools, *proposal, Some(content)).await {
                Ok(output) if left_out.is_empty() => output,
                Ok(output) => with_note(output, &left_out_note(&left_out)),
                Err(e) => ToolOutput::error(e.0),
            },
            PreparedCall::Fail(error) => ToolOutput::error(error.0),
        })
    }
}

/// What to write for an allowed edit: the user's text from the review editor, else the proposal
/// with only the accepted hunks (and the labels of those left out); None for the proposal as it is.
fn reviewed_content(
    proposal: &ProposedWrite,
    user_content: Option<String>,
    accepted_hunks: Option<Vec<u32>>,
) -> Result<Option<(String, Vec<String>)>, String> {
    if let Some(content) = user_content {
        return Ok(Some((content, Vec::new())));
    }
    let Some(accepted) = accepted_hunks else {
        return Ok(None);
    };
    let diff = pipeline::diff_of(proposal);
    let hunks = diff.hunks();
    if hunks.is_empty() {
        return Err("this change is too large to review by hunks; accept or reject it whole".into());
    }
    let accepted: Vec<usize> = accepted.into_iter().map(|i| i as usize).collect();
    let original = proposal.original.as_deref().unwrap_or("");
    let content = apply_hunks(original, &proposal.proposed, hunks, &accepted)?;
    let left_out = (0..hunks.len())
        .filter(|i| !accepted.contains(i))
        .map(|i| hunk_label(i, &hunks[i]))
        .collect();
    Ok(Some((content, left_out)))
}

/// Tells the model which hunks of its change were not written.
fn left_out_note(left_out: &[String]) -> String {
    let (verb, those) = if left_out.len() == 1 {
        ("was", "its lines are")
    } else {
        ("were", "their lines are")
    };
    format!(
        "The user reviewed your change hunk by hunk: {} {verb} left out ({those} as they were before your edit, line numbers of the original file); the rest was written as you proposed. The file's current content is the result: you do not need to read it again before the next edit.",
        left_out.join(", ")
    )
}

/// `output` with `note` after its text.
fn with_note(mut output: ToolOutput, note: &str) -> ToolOutput {
    match output.content.iter_mut().find_map(|c| match c {
        Content::Text(text) => Some(text),
        Content::Image { .. } => None,
    }) {
        Some(text) => {
            text.push('\n');
            text.push_str(note);
        }
        None => output.content.push(Content::Text(note.to_string())),
    }
    output
}
