//! The project's hooks: matchers as Claude Code reads them, the settings they come from, and
//! the output contract (exit codes, JSON stdout), run for real through `NativeHost` in a
//! temporary workspace.

use futures::executor::block_on;
use serde_json::{json, Map, Value};
use tether_core::hooks::matcher::matches;
use tether_core::hooks::{run_hooks, HookContext, HookEvent, HookOutcome, HookSet, HooksSource, PermissionDecision};
use tether_core::native::NativeHost;

mod common;

use common::TempWorkspace;

fn set(settings: Value) -> HookSet {
    let text = settings.to_string();
    HookSet::from_settings(&[(HooksSource::Project, &text)]).0
}

fn one_hook(event: &str, matcher: &str, command: &str) -> HookSet {
    set(json!({"hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]}}))
}

fn tool_input(root: &str, event: HookEvent, tool: &str, input: Value) -> Value {
    let context = HookContext {
        root: root.to_string(),
        session_id: "s1".into(),
        transcript_path: String::new(),
        permission_mode: "default".into(),
    };
    let mut fields = Map::new();
    fields.insert("tool_name".into(), json!(tool));
    fields.insert("tool_input".into(), input);
    context.input(event, fields)
}

fn run(ws: &TempWorkspace, hooks: &HookSet, event: HookEvent, input: &Value) -> HookOutcome {
    block_on(run_hooks(&NativeHost::new(), hooks, event, input, ws.root()))
}

#[test]
fn a_plain_name_list_matches_those_names_exactly() {
    let pre = HookEvent::PreToolUse;
    assert!(matches(pre, Some("Edit|Write"), Some("Edit")));
    assert!(matches(pre, Some("Edit|Write"), Some("Write")));
    assert!(!matches(pre, Some("Edit|Write"), Some("MultiEdit")));
    assert!(
        matches(pre, Some("Edit, Write"), Some("Write")),
        "tool events list names with commas too"
    );
    assert!(!matches(pre, Some("Bash"), Some("mcp__tether__Bash")));
}

#[test]
fn other_matchers_are_unanchored_regular_expressions() {
    let pre = HookEvent::PreToolUse;
    assert!(matches(pre, Some("Notebook.*"), Some("NotebookEdit")));
    assert!(
        matches(pre, Some("Edi."), Some("MultiEdit")),
        "unanchored, as JavaScript's test()"
    );
    assert!(!matches(pre, Some("^Edi.$"), Some("MultiEdit")));
    assert!(
        !matches(pre, Some("(unclosed"), Some("Edit")),
        "an invalid expression matches nothing"
    );
}

#[test]
fn no_matcher_an_empty_one_or_a_star_matches_everything() {
    for matcher in [None, Some(""), Some("*")] {
        assert!(matches(HookEvent::PostToolUse, matcher, Some("Bash")));
    }
    assert!(
        matches(HookEvent::Stop, Some("Anything"), None),
        "Stop has nothing to match"
    );
}

#[test]
fn session_start_and_notification_match_their_source_and_type() {
    let hooks = set(json!({"hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo start"}]}],
        "Notification": [{"matcher": "permission_prompt", "hooks": [{"type": "command", "command": "echo ask"}]}]
    }}));
    assert_eq!(
        hooks
            .matching(HookEvent::SessionStart, &json!({"source": "startup"}))
            .len(),
        1
    );
    assert_eq!(
        hooks
            .matching(HookEvent::SessionStart, &json!({"source": "resume"}))
            .len(),
        0
    );
    assert_eq!(
        hooks
            .matching(
                HookEvent::Notification,
                &json!({"notification_type": "permission_prompt"})
            )
            .len(),
        1
    );
}

#[test]
fn identical_commands_run_once_and_disable_all_hooks_turns_them_off() {
    let twice = set(json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "check"}]},
        {"matcher": "*", "hooks": [{"type": "command", "command": "check"}]}
    ]}}));
    assert_eq!(
        twice
            .matching(HookEvent::PreToolUse, &json!({"tool_name": "Bash"}))
            .len(),
        1
    );
    let project = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}).to_string();
    let local = json!({"disableAllHooks": true}).to_string();
    let (off, _) = HookSet::from_settings(&[(HooksSource::Project, &project), (HooksSource::Local, &local)]);
    assert!(off.is_empty());
}

#[test]
fn hooks_tether_does_not_run_are_told() {
    let text = json!({"hooks": {
        "PostToolUseFailure": [{"hooks": [{"type": "command", "command": "x"}]}],
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "Are you done?"}]}]
    }})
    .to_string();
    let (hooks, notices) = HookSet::from_settings(&[(HooksSource::Project, &text)]);
    assert!(hooks.is_empty());
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices
        .iter()
        .any(|n| n.contains("PostToolUseFailure") && n.contains(".claude/settings.json")));
    assert!(notices.iter().any(|n| n.contains("\"prompt\"")));
}

#[test]
fn the_hook_reads_the_event_on_stdin_in_the_workspace_with_claude_project_dir() {
    let ws = TempWorkspace::new();
    let hooks = one_hook(
        "PostToolUse",
        "Edit|Write",
        "cat > seen.json; echo \"$CLAUDE_PROJECT_DIR|$PWD\" > env.txt",
    );
    let input = tool_input(
        ws.root(),
        HookEvent::PostToolUse,
        "Edit",
        json!({"file_path": ws.path("a.py")}),
    );
    let outcome = run(&ws, &hooks, HookEvent::PostToolUse, &input);
    assert_eq!(outcome.ran, 1);
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(ws.path("seen.json")).unwrap()).unwrap();
    assert_eq!(seen["hook_event_name"], "PostToolUse");
    assert_eq!(seen["tool_name"], "Edit");
    assert_eq!(seen["cwd"], ws.root());
    assert_eq!(seen["tool_input"]["file_path"], ws.path("a.py"));
    let env = std::fs::read_to_string(ws.path("env.txt")).unwrap();
    assert_eq!(env.trim(), format!("{}|{}", ws.root(), ws.root()));
}

#[test]
fn a_large_input_reaches_stdin_whole_through_a_file_that_is_removed_after() {
    let ws = TempWorkspace::new();
    let hooks = one_hook("PostToolUse", "Write", "wc -c > size.txt");
    let content = "x".repeat(300 * 1024);
    let input = tool_input(ws.root(), HookEvent::PostToolUse, "Write", json!({"content": content}));
    let outcome = run(&ws, &hooks, HookEvent::PostToolUse, &input);
    assert!(outcome.messages.is_empty(), "{:?}", outcome.messages);
    let size: usize = std::fs::read_to_string(ws.path("size.txt"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(size, input.to_string().len());
    let left = std::fs::read_dir(ws.path(".tether/hooks")).unwrap().count();
    assert_eq!(left, 0, "the input file is removed");
}

#[test]
fn exit_2_on_pre_tool_use_denies_with_stderr_as_the_reason() {
    let ws = TempWorkspace::new();
    let hooks = one_hook("PreToolUse", "Bash", "echo 'rm is not allowed here' >&2; exit 2");
    let input = tool_input(
        ws.root(),
        HookEvent::PreToolUse,
        "Bash",
        json!({"command": "rm -rf build"}),
    );
    let outcome = run(&ws, &hooks, HookEvent::PreToolUse, &input);
    assert_eq!(
        outcome.permission,
        Some((PermissionDecision::Deny, "rm is not allowed here".into()))
    );
    assert_eq!(
        outcome.to_claude(HookEvent::PreToolUse)["hookSpecificOutput"],
        json!({"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "rm is not allowed here"})
    );
    assert!(
        outcome.messages.is_empty(),
        "the refused call shows the reason: {:?}",
        outcome.messages
    );
}

#[test]
fn another_exit_code_is_a_non_blocking_error_shown_with_its_stderr() {
    let ws = TempWorkspace::new();
    let hooks = one_hook("PostToolUse", "*", "echo 'formatter missing' >&2; exit 1");
    let input = tool_input(ws.root(), HookEvent::PostToolUse, "Edit", json!({}));
    let outcome = run(&ws, &hooks, HookEvent::PostToolUse, &input);
    assert_eq!(outcome.block, None);
    assert_eq!(outcome.to_claude(HookEvent::PostToolUse), json!({}));
    assert_eq!(
        outcome.messages,
        vec!["PostToolUse:Edit hook error: echo 'formatter missing' >&2; exit 1: Failed with non-blocking status code 1: formatter missing"]
    );
}

#[test]
fn json_stdout_decides_rewrites_input_adds_context_and_messages() {
    let ws = TempWorkspace::new();
    let output = json!({
        "systemMessage": "checked by policy",
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
            "permissionDecisionReason": "safe", "updatedInput": {"command": "ls -la"}}
    });
    let hooks = one_hook("PreToolUse", "Bash", &format!("echo '{output}'"));
    let input = tool_input(ws.root(), HookEvent::PreToolUse, "Bash", json!({"command": "ls"}));
    let outcome = run(&ws, &hooks, HookEvent::PreToolUse, &input);
    assert_eq!(outcome.permission, Some((PermissionDecision::Allow, "safe".into())));
    assert_eq!(outcome.updated_input, Some(json!({"command": "ls -la"})));
    assert_eq!(outcome.messages, vec!["checked by policy"]);
}

#[test]
fn deny_wins_over_allow_among_several_hooks() {
    let ws = TempWorkspace::new();
    let allow = r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'"#;
    let hooks = set(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": allow},
        {"type": "command", "command": "echo no >&2; exit 2"}
    ]}]}}));
    let input = tool_input(ws.root(), HookEvent::PreToolUse, "Write", json!({}));
    let outcome = run(&ws, &hooks, HookEvent::PreToolUse, &input);
    assert_eq!(outcome.ran, 2);
    assert_eq!(outcome.permission.unwrap().0, PermissionDecision::Deny);
}

#[test]
fn stop_blocked_and_continue_false_become_claude_code_answers() {
    let ws = TempWorkspace::new();
    let hooks = one_hook(
        "Stop",
        "",
        r#"echo '{"decision":"block","reason":"run the tests first"}'"#,
    );
    let input = HookContext {
        root: ws.root().into(),
        ..HookContext::default()
    }
    .input(HookEvent::Stop, Map::new());
    let outcome = run(&ws, &hooks, HookEvent::Stop, &input);
    assert_eq!(
        outcome.to_claude(HookEvent::Stop),
        json!({"decision": "block", "reason": "run the tests first"})
    );
    let halt = one_hook(
        "UserPromptSubmit",
        "",
        r#"echo '{"continue":false,"stopReason":"frozen"}'"#,
    );
    let outcome = run(&ws, &halt, HookEvent::UserPromptSubmit, &input);
    assert_eq!(
        outcome.to_claude(HookEvent::UserPromptSubmit),
        json!({"continue": false, "stopReason": "frozen"})
    );
}

#[test]
fn plain_stdout_is_context_for_user_prompt_submit_only() {
    let ws = TempWorkspace::new();
    let input = HookContext {
        root: ws.root().into(),
        ..HookContext::default()
    }
    .input(HookEvent::UserPromptSubmit, Map::new());
    let prompt = one_hook("UserPromptSubmit", "", "echo 'Sprint 12 is frozen'");
    let outcome = run(&ws, &prompt, HookEvent::UserPromptSubmit, &input);
    assert_eq!(outcome.context().as_deref(), Some("Sprint 12 is frozen"));
    let post = one_hook("PostToolUse", "", "echo 'formatted'");
    let outcome = run(
        &ws,
        &post,
        HookEvent::PostToolUse,
        &tool_input(ws.root(), HookEvent::PostToolUse, "Edit", json!({})),
    );
    assert_eq!(outcome.context(), None);
}

#[test]
fn a_hook_past_its_timeout_is_stopped_and_told() {
    let ws = TempWorkspace::new();
    let hooks =
        set(json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sleep 5", "timeout": 0.3}]}]}}));
    let input = HookContext {
        root: ws.root().into(),
        ..HookContext::default()
    }
    .input(HookEvent::Stop, Map::new());
    let started = std::time::Instant::now();
    let outcome = run(&ws, &hooks, HookEvent::Stop, &input);
    assert!(started.elapsed().as_secs_f64() < 3.0);
    assert_eq!(outcome.messages, vec!["Stop hook timed out after 0.3 s: sleep 5"]);
    assert_eq!(outcome.block, None);
}

#[test]
fn the_events_with_command_hooks_are_listed_once_and_none_when_all_are_disabled() {
    let hooks = set(json!({"hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "a"}]}, {"hooks": [{"type": "command", "command": "b"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "c"}]}],
        "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "prompt", "prompt": "not run by Tether"}]}]
    }}));
    assert_eq!(hooks.events(), [HookEvent::PreToolUse, HookEvent::Stop]);
    let off =
        set(json!({"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a"}]}]}}));
    assert!(off.events().is_empty());
}
