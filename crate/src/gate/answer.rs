//! The user's answer to a permission request, and which of the request's options it picks.

use crate::config::json::JsonObject;
use crate::events::{answers_from_json, FormAnswers, PermissionOption, PermissionOptionKind};
use crate::permissions::RuleScope;
use serde_json::Value;

/// The answers people give without naming an option: each stands for a kind of option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "lowercase"))]
pub enum UserDecision {
    Allow,
    /// Allow, and apply what "Always allow" offers (rules saved where the answer's `destination`
    /// says, by default the workspace's `.claude/settings.local.json`; or a mode for the session).
    Always,
    Deny,
}

/// The user's answer to a `permissionRequest` event (JS: `PermissionAnswer`): one of its options
/// by id, or a decision.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    test,
    derive(ts_rs::TS),
    ts(rename = "PermissionAnswer", rename_all = "camelCase", optional_fields)
)]
pub struct UserAnswer {
    pub decision: Option<UserDecision>,
    /// One of the request's `options`; wins over `decision`.
    pub option_id: Option<String>,
    /// Why the user refused; the model reads it.
    pub reason: Option<String>,
    /// Edits only: the file content the user left in the review editor; that is what is written.
    pub user_content: Option<String>,
    /// A request with a form: the user's answers, by field id.
    pub answers: Option<FormAnswers>,
    /// "Always allow": where its rules are saved (default: the project's local settings).
    pub destination: Option<RuleScope>,
    /// Edits only: the review's hunks (indices into its `hunks`) the user accepted; the others
    /// are left out of what is written. None: all of them.
    pub accepted_hunks: Option<Vec<u32>>,
}

impl UserAnswer {
    pub fn new(decision: UserDecision) -> UserAnswer {
        UserAnswer {
            decision: Some(decision),
            option_id: None,
            reason: None,
            user_content: None,
            answers: None,
            destination: None,
            accepted_hunks: None,
        }
    }

    /// The answer that picks `option_id`.
    pub fn option(option_id: &str) -> UserAnswer {
        UserAnswer {
            decision: None,
            option_id: Some(option_id.to_string()),
            reason: None,
            user_content: None,
            answers: None,
            destination: None,
            accepted_hunks: None,
        }
    }

    /// `{decision?: "allow" | "always" | "deny", optionId?, reason?, userContent?, answers?,
    /// destination?, acceptedHunks?}`,
    /// with a decision or an option.
    pub fn from_json(value: &Value) -> Result<UserAnswer, String> {
        let answer = JsonObject::new(
            value,
            "the answer",
            &[
                "decision",
                "optionId",
                "reason",
                "userContent",
                "answers",
                "destination",
                "acceptedHunks",
            ],
        )?;
        let decision = match answer.opt_string("decision")?.as_deref() {
            None => None,
            Some("allow") => Some(UserDecision::Allow),
            Some("always") => Some(UserDecision::Always),
            Some("deny") => Some(UserDecision::Deny),
            Some(other) => return Err(format!("decision {other:?} is not one of allow, always, deny")),
        };
        let option_id = answer.opt_string("optionId")?;
        if decision.is_none() && option_id.is_none() {
            return Err("the answer needs a decision (allow, always or deny) or an optionId".into());
        }
        let destination = match answer.opt_string("destination")? {
            None => None,
            Some(text) => Some(RuleScope::parse(&text).ok_or_else(|| {
                format!("destination {text:?} is not one of session, projectSettings, localSettings, userSettings")
            })?),
        };
        let accepted_hunks = match value.get("acceptedHunks") {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|i| i.as_u64().and_then(|i| u32::try_from(i).ok()))
                    .collect::<Option<Vec<u32>>>()
                    .ok_or("acceptedHunks must be a list of hunk numbers (0, 1, …)")?,
            ),
            Some(_) => return Err("acceptedHunks must be a list of hunk numbers (0, 1, …)".into()),
        };
        Ok(UserAnswer {
            decision,
            option_id,
            reason: answer.opt_string("reason")?,
            user_content: answer.opt_string("userContent")?,
            answers: value.get("answers").map(answers_from_json).transpose()?,
            destination,
            accepted_hunks,
        })
    }

    /// The option this answer picks among `options`.
    pub fn pick(&self, options: &[PermissionOption]) -> Result<PermissionOption, String> {
        let of_kind = |kinds: &[PermissionOptionKind]| {
            kinds
                .iter()
                .find_map(|kind| options.iter().find(|o| o.kind == *kind))
                .cloned()
        };
        let picked = match (&self.option_id, self.decision) {
            (Some(id), _) => options.iter().find(|o| &o.option_id == id).cloned(),
            (None, Some(UserDecision::Allow)) => of_kind(&[PermissionOptionKind::AllowOnce]),
            // Without an "always" on offer, "always" allows this once.
            (None, Some(UserDecision::Always)) => {
                of_kind(&[PermissionOptionKind::AllowAlways, PermissionOptionKind::AllowOnce])
            }
            (None, Some(UserDecision::Deny)) => {
                of_kind(&[PermissionOptionKind::RejectOnce, PermissionOptionKind::RejectAlways])
            }
            (None, None) => None,
        };
        picked.ok_or_else(|| {
            let offered: Vec<&str> = options.iter().map(|o| o.option_id.as_str()).collect();
            format!("the answer picks none of the options offered ({})", offered.join(", "))
        })
    }
}
