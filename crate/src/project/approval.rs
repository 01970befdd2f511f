//! Which of the project's MCP servers may start, as Claude Code decides it: a server listed in
//! `disabledMcpjsonServers` never starts; `enableAllProjectMcpServers` or a listing in
//! `enabledMcpjsonServers` lets it start; any other is asked about before its first start, and the
//! answer is kept where Claude Code keeps it (the workspace's `.claude/settings.local.json`), so
//! the official extension and Tether agree.

use super::mcp_json;
use crate::config::McpServerEntry;
use crate::json::read_unit_enum;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

const ENABLE_ALL: &str = "enableAllProjectMcpServers";
const ENABLED: &str = "enabledMcpjsonServers";
const DISABLED: &str = "disabledMcpjsonServers";

/// Whether a server may start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "decision", rename_all = "camelCase")]
pub enum McpDecision {
    /// It starts; `reason` names the setting that says so.
    Approved { reason: String },
    /// It does not; `reason` names the setting that says so.
    Denied { reason: String },
    /// Nothing says: the user is asked before its first start.
    Ask,
}

/// One server of `.mcp.json` and what the settings say about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PlannedServer {
    pub server: McpServerEntry,
    pub decision: McpDecision,
}

/// The project's MCP servers for a session: each with its decision, and the problems of the
/// servers that cannot be used.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ProjectMcpPlan {
    pub servers: Vec<PlannedServer>,
    pub problems: Vec<String>,
}

/// The user's answer to "use this server?", in Claude Code's three choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum McpChoice {
    /// Use this server (`enabledMcpjsonServers`).
    Approve,
    /// Use this and all future servers of the project (`enableAllProjectMcpServers`).
    ApproveAll,
    /// Continue without it (`disabledMcpjsonServers`).
    Deny,
}

read_unit_enum!(McpChoice {
    Approve = "approve",
    ApproveAll = "approveAll",
    Deny = "deny",
});

/// The approval settings of the settings files, lowest precedence first (user, project, local):
/// the lists add up, the last `enableAllProjectMcpServers` wins. A file that is not JSON counts
/// for nothing (the permission settings report it).
#[derive(Debug, Default)]
struct Approvals {
    enable_all: Option<(bool, String)>,
    enabled: Vec<(String, String)>,
    disabled: Vec<(String, String)>,
}

impl Approvals {
    fn read(settings: &[(String, String)]) -> Approvals {
        let mut approvals = Approvals::default();
        for (label, text) in settings {
            let Ok(Value::Object(root)) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            if let Some(Value::Bool(all)) = root.get(ENABLE_ALL) {
                approvals.enable_all = Some((*all, label.clone()));
            }
            for (key, list) in [(ENABLED, &mut approvals.enabled), (DISABLED, &mut approvals.disabled)] {
                let names = root.get(key).and_then(Value::as_array).into_iter().flatten();
                list.extend(names.filter_map(Value::as_str).map(|n| (n.to_string(), label.clone())));
            }
        }
        approvals
    }

    fn decide(&self, name: &str) -> McpDecision {
        let listed = |list: &[(String, String)]| list.iter().find(|(n, _)| n == name).map(|(_, l)| l.clone());
        if let Some(file) = listed(&self.disabled) {
            return McpDecision::Denied {
                reason: format!("{DISABLED} in {file}"),
            };
        }
        if let Some((true, file)) = &self.enable_all {
            return McpDecision::Approved {
                reason: format!("{ENABLE_ALL} in {file}"),
            };
        }
        match listed(&self.enabled) {
            Some(file) => McpDecision::Approved {
                reason: format!("{ENABLED} in {file}"),
            },
            None => McpDecision::Ask,
        }
    }
}

/// The plan for `.mcp.json`'s text (None: no file) under the settings files, each as (its label
/// for people, its text), lowest precedence first.
pub fn plan(mcp_json: Option<&str>, settings: &[(String, String)]) -> ProjectMcpPlan {
    let Some(text) = mcp_json else {
        return ProjectMcpPlan::default();
    };
    let (servers, problems) = mcp_json::parse(text);
    let approvals = Approvals::read(settings);
    ProjectMcpPlan {
        servers: servers
            .into_iter()
            .map(|server| PlannedServer {
                decision: approvals.decide(server.name()),
                server,
            })
            .collect(),
        problems,
    }
}

/// `.claude/settings.local.json`'s new text with the user's `choice` for server `name` kept in it
/// (`existing`: its text, None when there is no file). Every other key keeps its place.
pub fn record(existing: Option<&str>, name: &str, choice: McpChoice) -> Result<String, String> {
    let mut root = match existing.map(str::trim).filter(|t| !t.is_empty()) {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(root)) => root,
            Ok(_) => return Err("its top level is not an object".into()),
            Err(e) => return Err(format!("it is not valid JSON ({e})")),
        },
    };
    let (add_to, remove_from) = match choice {
        McpChoice::Deny => (DISABLED, ENABLED),
        McpChoice::Approve | McpChoice::ApproveAll => (ENABLED, DISABLED),
    };
    if choice == McpChoice::ApproveAll {
        root.insert(ENABLE_ALL.into(), Value::Bool(true));
    }
    for (key, add) in [(add_to, true), (remove_from, false)] {
        let list = root.entry(key).or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else {
            return Err(format!("its \"{key}\" is not a list"));
        };
        list.retain(|n| n.as_str() != Some(name));
        if add {
            list.push(Value::String(name.to_string()));
        }
    }
    if root
        .get(remove_from)
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        root.remove(remove_from);
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(root)).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MCP: &str = r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}, "c": {"command": "z"}}}"#;

    fn settings(files: &[(&str, &str)]) -> Vec<(String, String)> {
        files.iter().map(|(l, t)| (l.to_string(), t.to_string())).collect()
    }

    fn decisions(plan: &ProjectMcpPlan) -> Vec<McpDecision> {
        plan.servers.iter().map(|s| s.decision.clone()).collect()
    }

    #[test]
    fn without_settings_every_server_is_asked_about() {
        assert_eq!(decisions(&plan(Some(MCP), &[])), vec![McpDecision::Ask; 3]);
        assert_eq!(plan(None, &[]), ProjectMcpPlan::default());
    }

    #[test]
    fn enabled_and_disabled_lists_decide_and_disabled_wins() {
        let files = settings(&[
            (".claude/settings.json", r#"{"enabledMcpjsonServers": ["a", "b"]}"#),
            (".claude/settings.local.json", r#"{"disabledMcpjsonServers": ["b"]}"#),
        ]);
        assert_eq!(
            decisions(&plan(Some(MCP), &files)),
            vec![
                McpDecision::Approved {
                    reason: "enabledMcpjsonServers in .claude/settings.json".into()
                },
                McpDecision::Denied {
                    reason: "disabledMcpjsonServers in .claude/settings.local.json".into()
                },
                McpDecision::Ask,
            ]
        );
    }

    #[test]
    fn enable_all_approves_all_but_the_disabled_and_the_last_file_wins() {
        let files = settings(&[
            ("~/.claude/settings.json", r#"{"enableAllProjectMcpServers": false}"#),
            (
                ".claude/settings.local.json",
                r#"{"enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["c"]}"#,
            ),
        ]);
        let got = decisions(&plan(Some(MCP), &files));
        assert!(
            matches!(&got[0], McpDecision::Approved { reason } if reason.starts_with("enableAllProjectMcpServers"))
        );
        assert!(matches!(&got[2], McpDecision::Denied { .. }));
        let off = settings(&[(
            ".claude/settings.local.json",
            r#"{"enableAllProjectMcpServers": false}"#,
        )]);
        assert_eq!(decisions(&plan(Some(MCP), &off)), vec![McpDecision::Ask; 3]);
    }

    #[test]
    fn a_choice_is_recorded_as_claude_code_records_it() {
        let text = record(
            Some(r#"{"permissions": {"allow": ["Bash(ls)"]}}"#),
            "a",
            McpChoice::Approve,
        )
        .unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["enabledMcpjsonServers"], serde_json::json!(["a"]));
        assert_eq!(value["permissions"]["allow"][0], "Bash(ls)");
        let denied = record(Some(&text), "a", McpChoice::Deny).unwrap();
        let value: Value = serde_json::from_str(&denied).unwrap();
        assert_eq!(value["disabledMcpjsonServers"], serde_json::json!(["a"]));
        assert!(value.get("enabledMcpjsonServers").is_none());
        let all: Value = serde_json::from_str(&record(None, "b", McpChoice::ApproveAll).unwrap()).unwrap();
        assert_eq!(all["enableAllProjectMcpServers"], true);
        let files = settings(&[(".claude/settings.local.json", &denied)]);
        assert!(matches!(
            decisions(&plan(Some(MCP), &files))[0],
            McpDecision::Denied { .. }
        ));
    }

    #[test]
    fn a_settings_file_that_cannot_be_kept_is_refused_not_overwritten() {
        assert!(record(Some("[1]"), "a", McpChoice::Approve)
            .unwrap_err()
            .contains("not an object"));
        assert!(record(Some("{"), "a", McpChoice::Approve)
            .unwrap_err()
            .contains("not valid JSON"));
        assert!(record(Some(r#"{"enabledMcpjsonServers": 3}"#), "a", McpChoice::Approve).is_err());
    }
}
