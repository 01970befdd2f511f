//! Plan mode in the permission engine: reads and read-only commands run; file changes and other
//! commands are refused without asking, with Claude Code's text and the instruction to present a
//! plan; deny rules keep their own refusal, allow rules open nothing. The same for Tether's tools,
//! the ACP client requests (`fs/write_text_file` is judged as Write, `terminal/create` as Bash)
//! and an agent's own edit and command tools.

use serde_json::{json, Value};
use tether_core::paths::PathMapper;
use tether_core::permissions::{
    Access, Decision, PermissionEngine, PermissionMode, SettingsKind, SettingsSource, Target, ToolRequest,
};

const ROOT: &str = "/work/proj";

fn plan_engine(permissions: Value) -> PermissionEngine {
    let mut engine = PermissionEngine::new(PathMapper::new(ROOT).unwrap(), Some("/home/me"));
    let settings = json!({ "permissions": permissions }).to_string();
    let diagnostics = engine.load(&[SettingsSource {
        kind: SettingsKind::Project,
        text: settings,
        base_dir: ROOT.to_string(),
    }]);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    engine.set_mode(PermissionMode::Plan).unwrap();
    engine
}

fn decide(engine: &PermissionEngine, tool: &str, input: Value) -> Decision {
    engine.decide(&ToolRequest::for_tool(tool, &input))
}

/// The refusal's message; panics unless the decision is a refusal.
fn refusal(decision: &Decision) -> &str {
    match decision {
        Decision::Deny { message, .. } => message,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn assert_plan_refusal(decision: &Decision, first_sentence: &str) {
    let message = refusal(decision);
    assert!(message.starts_with(first_sentence), "{message}");
    assert!(message.contains("present your plan"), "{message}");
}

#[test]
fn every_file_changing_tool_is_refused_without_asking() {
    let engine = plan_engine(json!({}));
    let cases = [
        ("Write", json!({"file_path": "/work/proj/new.txt", "content": "x"})),
        (
            "Edit",
            json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b"}),
        ),
        ("MultiEdit", json!({"file_path": "/work/proj/src/a.rs", "edits": []})),
        (
            "mcp__tether__Write",
            json!({"file_path": "/work/proj/new.txt", "content": "x"}),
        ),
    ];
    for (tool, input) in cases {
        let path = input["file_path"].as_str().unwrap();
        let shown = if path.starts_with('/') {
            path.to_string()
        } else {
            format!("{ROOT}/{path}")
        };
        let decision = decide(&engine, tool, input.clone());
        assert_plan_refusal(&decision, &format!("Cannot write to {shown} while in plan mode."));
    }
    let notebook = decide(
        &engine,
        "NotebookEdit",
        json!({"notebook_path": "/work/proj/n.ipynb", "new_source": ""}),
    );
    assert_plan_refusal(&notebook, "Cannot write to /work/proj/n.ipynb while in plan mode.");
}

#[test]
fn writes_outside_the_workspace_and_to_sensitive_files_are_refused_too() {
    let engine = plan_engine(json!({}));
    let outside = decide(&engine, "Write", json!({"file_path": "/etc/hosts", "content": "x"}));
    assert_plan_refusal(&outside, "Cannot write to /etc/hosts while in plan mode.");
    let sensitive = decide(&engine, "Edit", json!({"file_path": "/work/proj/.git/config"}));
    assert_plan_refusal(&sensitive, "Cannot write to /work/proj/.git/config while in plan mode.");
}

#[test]
fn reads_and_read_only_commands_keep_working() {
    let engine = plan_engine(json!({}));
    for (tool, input) in [
        ("Read", json!({"file_path": "/work/proj/src/a.rs"})),
        ("Glob", json!({"pattern": "**/*.rs"})),
        ("Grep", json!({"pattern": "fn", "path": "/work/proj"})),
        ("LS", json!({"path": "/work/proj"})),
        ("Bash", json!({"command": "git status"})),
        ("Bash", json!({"command": "cd src && ls -la && cat a.rs | head -5"})),
        ("BashOutput", json!({"bash_id": "1"})),
    ] {
        let decision = decide(&engine, tool, input.clone());
        assert!(
            matches!(decision, Decision::Allow { .. }),
            "{tool} {input}: {decision:?}"
        );
    }
}

#[test]
fn commands_that_are_not_read_only_are_refused_without_asking() {
    let engine = plan_engine(json!({}));
    for command in [
        "npm install",
        "echo hi > out.txt",
        "ls && rm -rf build",
        "cat $(which x)",
        "touch a",
    ] {
        let decision = decide(&engine, "Bash", json!({ "command": command }));
        assert_plan_refusal(&decision, "Cannot call Bash while in plan mode.");
    }
}

#[test]
fn allow_rules_and_accept_edits_rules_open_nothing() {
    let engine = plan_engine(json!({"allow": ["Write", "Edit(src/**)", "Bash(npm install:*)", "Bash"]}));
    let write = decide(
        &engine,
        "Write",
        json!({"file_path": "/work/proj/a.txt", "content": ""}),
    );
    assert_plan_refusal(&write, "Cannot write to /work/proj/a.txt while in plan mode.");
    let edit = decide(&engine, "Edit", json!({"file_path": "/work/proj/src/a.rs"}));
    assert_plan_refusal(&edit, "Cannot write to /work/proj/src/a.rs while in plan mode.");
    let command = decide(&engine, "Bash", json!({"command": "npm install"}));
    assert_plan_refusal(&command, "Cannot call Bash while in plan mode.");
}

#[test]
fn deny_rules_keep_their_own_refusal() {
    let engine = plan_engine(json!({"deny": ["Edit(secret/**)", "Bash(curl:*)", "Bash(cat .env)", "NotebookEdit"]}));
    let edit = refusal(&decide(
        &engine,
        "Write",
        json!({"file_path": "/work/proj/secret/a", "content": ""}),
    ))
    .to_string();
    assert!(
        edit.starts_with("Permission to edit /work/proj/secret/a has been denied."),
        "{edit}"
    );
    let command = refusal(&decide(&engine, "Bash", json!({"command": "curl x"}))).to_string();
    assert!(
        command.starts_with("Permission to use Bash with command curl x has been denied."),
        "{command}"
    );
    let read_only = refusal(&decide(&engine, "Bash", json!({"command": "cat .env"}))).to_string();
    assert!(
        read_only.starts_with("Permission to use Bash with command cat .env"),
        "{read_only}"
    );
    let tool = refusal(&decide(
        &engine,
        "NotebookEdit",
        json!({"notebook_path": "/work/proj/n.ipynb"}),
    ))
    .to_string();
    assert!(
        tool.starts_with("Permission to use NotebookEdit has been denied."),
        "{tool}"
    );
}

#[test]
fn ask_rules_do_not_turn_a_refusal_into_a_question() {
    let engine = plan_engine(json!({"ask": ["Write", "Bash(make:*)"]}));
    let write = decide(
        &engine,
        "Write",
        json!({"file_path": "/work/proj/a.txt", "content": ""}),
    );
    assert_plan_refusal(&write, "Cannot write to /work/proj/a.txt while in plan mode.");
    let command = decide(&engine, "Bash", json!({"command": "make"}));
    assert_plan_refusal(&command, "Cannot call Bash while in plan mode.");
}

#[test]
fn acp_requests_and_the_agents_own_tools_are_judged_the_same_way() {
    let engine = plan_engine(json!({}));
    // fs/write_text_file and terminal/create reach the engine as Write and Bash.
    let write = decide(
        &engine,
        "Write",
        json!({"file_path": "/work/proj/a.txt", "content": "x"}),
    );
    assert_plan_refusal(&write, "Cannot write to /work/proj/a.txt while in plan mode.");
    let terminal = decide(&engine, "Bash", json!({"command": "cargo build"}));
    assert_plan_refusal(&terminal, "Cannot call Bash while in plan mode.");
    let own_edit = engine.decide(&ToolRequest::new(
        "AgentEdit",
        Access::Write(Target::Path {
            path: "/work/proj/a.txt".into(),
            directory: false,
        }),
    ));
    assert_plan_refusal(&own_edit, "Cannot write to /work/proj/a.txt while in plan mode.");
    let own_command = engine.decide(&ToolRequest::new("AgentCommand", Access::Execute("make".into())));
    assert_plan_refusal(&own_command, "Cannot call AgentCommand while in plan mode.");
    let own_read_only = engine.decide(&ToolRequest::new("AgentCommand", Access::Execute("ls".into())));
    assert!(matches!(own_read_only, Decision::Allow { .. }), "{own_read_only:?}");
}

#[test]
fn other_tools_still_ask_so_exit_plan_mode_can_be_approved() {
    let engine = plan_engine(json!({}));
    let decision = decide(&engine, "ExitPlanMode", json!({"plan": "1. edit a"}));
    assert!(matches!(decision, Decision::Ask { .. }), "{decision:?}");
}

#[test]
fn leaving_plan_mode_brings_back_the_usual_questions() {
    let mut engine = plan_engine(json!({}));
    engine.set_mode(PermissionMode::Default).unwrap();
    let write = decide(
        &engine,
        "Write",
        json!({"file_path": "/work/proj/a.txt", "content": ""}),
    );
    assert!(matches!(write, Decision::Ask { .. }), "{write:?}");
}
