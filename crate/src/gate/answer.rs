//! The user's answer to a permission request, and which of the request's options it picks.

use crate::config::json::JsonObject;
use crate::events::{answers_from_json, FormAnswers, PermissionOption, PermissionOptionKind};
use serde_json::Value;

/// The answers people give without naming an option: each stands for a kind of option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "lowercase"))]
pub enum UserDecision {
    Allow,
    /// Allow, and apply what "Always allow" offers (rules persisted to the workspace's
    /// `.claude/settings.local.json`, or a mode for the session).
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
}

impl UserAnswer {
    pub fn new(decision: UserDecision) -> UserAnswer {
        UserAnswer {
            decision: Some(decision),
            option_id: None,
            reason: None,
            user_content: None,
            answers: None,
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
        }
    }

    /// `{decision?: "allow" | "always" | "deny", optionId?, reason?, userContent?, answers?}`,
    /// with a decision or an option.
    pub fn from_json(value: &Value) -> Result<UserAnswer, String> {
        let answer = JsonObject::new(
            value,
            "the answer",
            &["decision", "optionId", "reason", "userContent", "answers"],
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
        Ok(UserAnswer {
            decision,
            option_id,
            reason: answer.opt_string("reason")?,
            user_content: answer.opt_string("userContent")?,
            answers: value.get("answers").map(answers_from_json).transpose()?,
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
