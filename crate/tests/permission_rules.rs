//! "Always allow" saved where the user says, the rules view's list and removals, per-hunk review,
//! and the audit records of it all: the Claude Code backend driven with CLI lines against a real
//! temporary workspace through `NativeHost`.

use futures::executor::block_on;
use serde_json::{json, Value};
use tether_core::agent::{Agent, AgentOutput, AuditRecord, Decider};
use tether_core::claude::{ClaudeBackend, ClaudeConfig};
use tether_core::config::CommonConfig;
use tether_core::gate::{UserAnswer, UserDecision};
use tether_core::host::sha256_hex;
use tether_core::native::NativeHost;
use tether_core::permissions::{remove_rule_from_settings, Rule, RuleBehavior, RuleEntry, RuleScope};

mod common;

use common::{permission_request, sent, TempWorkspace};

type ClaudeAgent = Agent<NativeHost, ClaudeBackend>;

fn agent_on(ws: &TempWorkspace, user_settings: Option<&str>) -> ClaudeAgent {
    let common = CommonConfig {
        root: ws.root().to_string(),
        mirror: None,
        home_dir: "/home/tester".into(),
        user_settings: user_settings.map(str::to_string),
        mode: None,
        model: None,
        resume: None,
        env: None,
        remote: None,
        checkpoints: None,
        ..CommonConfig::default()
    };
    let claude = ClaudeConfig::default();
    let agent = Agent::new(NativeHost::new(), common, |context| {
        Ok(Box::new(ClaudeBackend::new(context, claude)))
    })
    .unwrap();
    block_on(agent.start());
    agent
}

fn audits(outputs: &[AgentOutput]) -> Vec<AuditRecord> {
    outputs
        .iter()
        .filter_map(|o| match o {
            AgentOutput::Audit { record } => Some(record.clone()),
            _ => None,
        })
        .collect()
}

fn can_use_tool(request_id: &str, tool: &str, input: Value, tool_use_id: &str) -> String {
    json!({
        "type": "control_request",
        "request_id": request_id,
        "request": {
            "subtype": "can_use_tool",
            "tool_name": format!("mcp__tether__{tool}"),
            "input": input,
            "tool_use_id": tool_use_id
        }
    })
    .to_string()
}

fn tools_call(request_id: &str, tool: &str, arguments: Value, tool_use_id: &str) -> String {
    json!({
        "type": "control_request",
        "request_id": request_id,
        "request": {
            "subtype": "mcp_message",
            "server_name": "tether",
            "message": {
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments, "_meta": {"claudecode/toolUseId": tool_use_id}},
                "jsonrpc": "2.0",
                "id": 2
            }
        }
    })
    .to_string()
}

/// The control response to `request_id`.
fn response(outputs: &[AgentOutput], request_id: &str) -> Value {
    sent(outputs)
        .into_iter()
        .find(|l| l["type"] == "control_response" && l["response"]["request_id"] == request_id)
        .unwrap_or_else(|| panic!("no control_response for {request_id} in {outputs:?}"))["response"]["response"]
        .clone()
}

/// The MCP tool result a `tools/call` got.
fn tool_result(outputs: &[AgentOutput], request_id: &str) -> Value {
    response(outputs, request_id)["mcp_response"]["result"].clone()
}

/// The project settings file the outputs say the gate wrote, with its text.
fn settings_written(outputs: &[AgentOutput]) -> Option<(String, String)> {
    outputs.iter().find_map(|o| match o {
        AgentOutput::ProjectSettingsWritten { path, text } => Some((path.clone(), text.clone())),
        _ => None,
    })
}

fn always_to(scope: RuleScope) -> UserAnswer {
    UserAnswer {
        destination: Some(scope),
        ..UserAnswer::new(UserDecision::Always)
    }
}

fn ask_bash(agent: &ClaudeAgent, id: &str, command: &str) -> Vec<AgentOutput> {
    block_on(agent.on_message(&can_use_tool(
        id,
        "Bash",
        json!({"command": command}),
        &format!("tu-{id}"),
    )))
}

fn entry(rule: &str, scope: RuleScope) -> RuleEntry {
    RuleEntry {
        rule: rule.into(),
        behavior: RuleBehavior::Allow,
        scope,
    }
}

fn saved(ws: &TempWorkspace, rel: &str) -> Value {
    serde_json::from_str(&ws.read(rel).unwrap_or_else(|| panic!("{rel} was not written"))).unwrap()
}

#[test]
fn the_request_names_the_rules_always_would_save() {
    let ws = TempWorkspace::new();
    let agent = agent_on(&ws, None);
    let request = permission_request(&ask_bash(&agent, "p1", "npm run build"));
    assert_eq!(request["alwaysRules"], json!(["Bash(npm run:*)"]));
}

#[test]
fn always_for_this_session_writes_no_file_and_lists_the_rule_as_the_sessions() {
    let ws = TempWorkspace::new();
    let agent = agent_on(&ws, None);
    ask_bash(&agent, "p1", "npm run build");
    let out = block_on(agent.answer_permission("p1", always_to(RuleScope::Session))).unwrap();
    assert_eq!(response(&out, "p1")["behavior"], "allow");
    assert!(ws.read(".claude/settings.local.json").is_none());
    assert!(ws.read(".claude/settings.json").is_none());
    assert_eq!(agent.rules(), vec![entry("Bash(npm run:*)", RuleScope::Session)]);
    let again = ask_bash(&agent, "p2", "npm run build");
    assert_eq!(response(&again, "p2")["behavior"], "allow");
}

#[test]
fn always_saves_in_the_project_file_chosen_keeping_its_other_keys() {
    for (scope, rel, other) in [
        (
            RuleScope::ProjectSettings,
            ".claude/settings.json",
            ".claude/settings.local.json",
        ),
        (
            RuleScope::LocalSettings,
            ".claude/settings.local.json",
            ".claude/settings.json",
        ),
    ] {
        let ws = TempWorkspace::new();
        ws.write(rel, r#"{"env": {"A": "1"}, "permissions": {"deny": ["WebSearch"]}}"#);
        let agent = agent_on(&ws, None);
        ask_bash(&agent, "p1", "make all");
        let out = block_on(agent.answer_permission("p1", always_to(scope))).unwrap();
        assert_eq!(response(&out, "p1")["behavior"], "allow");
        assert_eq!(
            saved(&ws, rel),
            json!({"env": {"A": "1"}, "permissions": {"deny": ["WebSearch"], "allow": ["Bash(make all:*)"]}}),
            "{rel}"
        );
        assert!(ws.read(other).is_none(), "{other} untouched");
        let (path, text) = settings_written(&out).expect("the write is told, for the context watcher");
        assert!(path.ends_with(rel), "{path}");
        assert_eq!(Some(text), ws.read(rel));
        assert!(
            agent.rules().contains(&entry("Bash(make all:*)", scope)),
            "{:?}",
            agent.rules()
        );
        let record = audits(&out)
            .into_iter()
            .find(|r| matches!(r, AuditRecord::Permission { .. }))
            .unwrap();
        let AuditRecord::Permission {
            by,
            saved_rules,
            scope: saved_in,
            decision,
            tool,
            ..
        } = record
        else {
            unreachable!()
        };
        assert_eq!((by, decision.as_str(), tool.as_str()), (Decider::User, "allow", "Bash"));
        assert_eq!(saved_rules, Some(vec!["Bash(make all:*)".to_string()]));
        assert_eq!(saved_in, Some(scope));
    }
}

#[test]
fn always_to_the_users_settings_asks_the_driver_to_save_them_and_they_apply_when_handed_back() {
    let ws = TempWorkspace::new();
    let agent = agent_on(&ws, Some(r#"{"model": "opus"}"#));
    ask_bash(&agent, "p1", "cargo build");
    let out = block_on(agent.answer_permission("p1", always_to(RuleScope::UserSettings))).unwrap();
    assert_eq!(response(&out, "p1")["behavior"], "allow");
    let rules = out
        .iter()
        .find_map(|o| match o {
            AgentOutput::SaveUserRules { rules } => Some(rules.clone()),
            _ => None,
        })
        .expect("the driver saves the user's settings");
    assert_eq!(rules, vec!["Bash(cargo build:*)".to_string()]);
    assert!(ws.read(".claude/settings.local.json").is_none());
    // What the driver writes, and hands back.
    let text = tether_core::permissions::persist_rules(
        Some(r#"{"model": "opus"}"#),
        &[Rule::parse("Bash(cargo build:*)").unwrap()],
    )
    .unwrap();
    block_on(agent.set_user_settings(Some(&text)));
    assert!(agent
        .rules()
        .contains(&entry("Bash(cargo build:*)", RuleScope::UserSettings)));
    // Removed from the file by the driver: it no longer applies once handed back.
    let without = remove_rule_from_settings(&text, RuleBehavior::Allow, &Rule::parse("Bash(cargo build:*)").unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&without).unwrap(),
        json!({"model": "opus", "permissions": {"allow": []}})
    );
    block_on(agent.set_user_settings(Some(&without)));
    assert!(!agent
        .rules()
        .contains(&entry("Bash(cargo build:*)", RuleScope::UserSettings)));
}

#[test]
fn a_rule_removed_from_a_project_file_leaves_the_rest_and_asks_again() {
    let ws = TempWorkspace::new();
    ws.write(
        ".claude/settings.json",
        r#"{"permissions": {"allow": ["Bash(make all:*)", "WebSearch"], "ask": ["Bash(rm:*)"]}, "env": {"B": "2"}}"#,
    );
    let agent = agent_on(&ws, None);
    let listed = agent.rules();
    assert!(listed.contains(&entry("Bash(make all:*)", RuleScope::ProjectSettings)));
    assert!(listed.contains(&RuleEntry {
        rule: "Bash(rm:*)".into(),
        behavior: RuleBehavior::Ask,
        scope: RuleScope::ProjectSettings
    }));
    assert_eq!(response(&ask_bash(&agent, "p1", "make all"), "p1")["behavior"], "allow");
    let out = block_on(agent.remove_rule(entry("Bash(make all:*)", RuleScope::ProjectSettings))).unwrap();
    assert_eq!(
        saved(&ws, ".claude/settings.json"),
        json!({"permissions": {"allow": ["WebSearch"], "ask": ["Bash(rm:*)"]}, "env": {"B": "2"}})
    );
    let (path, text) = settings_written(&out).expect("the write is told");
    assert!(path.ends_with(".claude/settings.json"), "{path}");
    assert_eq!(Some(text), ws.read(".claude/settings.json"));
    let records = audits(&out);
    assert!(records
        .iter()
        .any(|r| matches!(r, AuditRecord::RuleRemoved { rule, .. } if rule == "Bash(make all:*)")));
    assert!(records
        .iter()
        .any(|r| matches!(r, AuditRecord::Write { path, .. } if path.ends_with("settings.json"))));
    permission_request(&ask_bash(&agent, "p2", "make all"));
}

#[test]
fn removing_a_session_rule_or_one_that_is_not_there() {
    let ws = TempWorkspace::new();
    let agent = agent_on(&ws, None);
    ask_bash(&agent, "p1", "make all");
    let out = block_on(agent.answer_permission("p1", always_to(RuleScope::Session))).unwrap();
    assert_eq!(settings_written(&out), None, "no file for the session's rule");
    block_on(agent.remove_rule(entry("Bash(make all:*)", RuleScope::Session))).unwrap();
    assert!(agent.rules().is_empty());
    let error = block_on(agent.remove_rule(entry("Bash(make all:*)", RuleScope::LocalSettings))).unwrap_err();
    assert!(error.contains("does not exist"), "{error}");
}

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn accepting_some_hunks_writes_only_those_names_the_others_and_the_next_edit_needs_no_read() {
    let ws = TempWorkspace::new();
    let original = numbered(40);
    ws.write("notes.txt", &original);
    let path = ws.path("notes.txt");
    let agent = agent_on(&ws, None);
    let read = block_on(agent.on_message(&tools_call("r1", "Read", json!({"file_path": path}), "tu-read")));
    assert_eq!(tool_result(&read, "r1")["isError"], false);
    let proposed = original
        .replace("line 2\n", "line two\n")
        .replace("line 20\n", "line twenty\n")
        .replace("line 38\n", "line thirty-eight\n");
    let input = json!({"file_path": path, "content": proposed});
    let asked = block_on(agent.on_message(&can_use_tool("p1", "Write", input.clone(), "tu-write")));
    let request = permission_request(&asked);
    assert_eq!(request["review"]["hunks"].as_array().unwrap().len(), 3);
    let answer = UserAnswer {
        accepted_hunks: Some(vec![0, 2]),
        ..UserAnswer::new(UserDecision::Allow)
    };
    let answered = block_on(agent.answer_permission("p1", answer)).unwrap();
    assert_eq!(response(&answered, "p1")["behavior"], "allow");
    let written = block_on(agent.on_message(&tools_call("w1", "Write", input, "tu-write")));
    let result = tool_result(&written, "w1");
    let expected = original
        .replace("line 2\n", "line two\n")
        .replace("line 38\n", "line thirty-eight\n");
    assert_eq!(ws.read("notes.txt").unwrap(), expected);
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("hunk 2 (lines 17-23) was left out"), "{text}");
    // The audit: the user's decision with the hunks, the tool call, the write's size and hash.
    let records: Vec<AuditRecord> = audits(&answered).into_iter().chain(audits(&written)).collect();
    assert!(records.iter().any(|r| matches!(
        r,
        AuditRecord::Permission { by: Decider::User, accepted_hunks: Some(h), .. } if h == &vec![0, 2]
    )));
    assert!(records
        .iter()
        .any(|r| matches!(r, AuditRecord::ToolCall { tool, ok: true, .. } if tool == "Write")));
    assert!(records.iter().any(|r| matches!(
        r,
        AuditRecord::Write { path: p, bytes, sha256 } if *p == path && *bytes == expected.len() as u64 && *sha256 == sha256_hex(expected.as_bytes())
    )));
    for record in &records {
        let line = serde_json::to_string(record).unwrap();
        assert!(
            !line.contains("thirty-eight"),
            "no file contents in the audit log: {line}"
        );
    }
    // The next Edit of the file, without a Read in between.
    let edit = json!({"file_path": path, "old_string": "line thirty-eight", "new_string": "line 38 again"});
    let out = block_on(agent.on_message(&can_use_tool("p2", "Edit", edit.clone(), "tu-edit")));
    permission_request(&out);
    block_on(agent.answer_permission("p2", UserAnswer::new(UserDecision::Allow))).unwrap();
    let out = block_on(agent.on_message(&tools_call("e1", "Edit", edit, "tu-edit")));
    assert_eq!(tool_result(&out, "e1")["isError"], false, "{out:?}");
    assert!(ws.read("notes.txt").unwrap().contains("line 38 again\n"));
}

#[test]
fn hunks_that_do_not_exist_are_refused_and_the_question_stays_open() {
    let ws = TempWorkspace::new();
    ws.write("a.txt", "one\n");
    let path = ws.path("a.txt");
    let agent = agent_on(&ws, None);
    block_on(agent.on_message(&tools_call("r1", "Read", json!({"file_path": path}), "tu-read")));
    let input = json!({"file_path": path, "old_string": "one", "new_string": "two"});
    permission_request(&block_on(agent.on_message(&can_use_tool("p1", "Edit", input, "tu-1"))));
    let bad = UserAnswer {
        accepted_hunks: Some(vec![3]),
        ..UserAnswer::new(UserDecision::Allow)
    };
    let error = block_on(agent.answer_permission("p1", bad)).unwrap_err();
    assert!(error.contains("no hunk 4"), "{error}");
    let out = block_on(agent.answer_permission("p1", UserAnswer::new(UserDecision::Deny))).unwrap();
    assert_eq!(response(&out, "p1")["behavior"], "deny");
}

#[test]
fn decisions_without_the_user_are_audited_with_who_decided() {
    let ws = TempWorkspace::new();
    ws.write(
        ".claude/settings.json",
        r#"{"permissions": {"allow": ["Bash(make:*)"], "deny": ["Bash(rm:*)"]}}"#,
    );
    let agent = agent_on(&ws, None);
    let allowed = audits(&ask_bash(&agent, "p1", "make all"));
    assert!(
        matches!(
            &allowed[..],
            [AuditRecord::Permission { decision, by: Decider::Rule, rule: Some(rule), .. }]
                if decision == "allow" && rule == "Bash(make:*) in .claude/settings.json"
        ),
        "{allowed:?}"
    );
    let denied = audits(&ask_bash(&agent, "p2", "rm -rf build"));
    assert!(
        matches!(&denied[..], [AuditRecord::Permission { decision, by: Decider::Rule, .. }] if decision == "deny"),
        "{denied:?}"
    );
    let asked = audits(&ask_bash(&agent, "p3", "curl example.com"));
    assert!(
        matches!(&asked[..], [AuditRecord::Permission { decision, .. }] if decision == "ask"),
        "{asked:?}"
    );
}
