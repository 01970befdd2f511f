//! The agent with the Claude Code backend driven with CLI lines in the shapes the real CLI sends
//! (tests/fixtures/claude-cli-examples.jsonl, claude-transcript-probe.jsonl), against a real
//! temporary workspace through `NativeHost`.

use futures::executor::block_on;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use tether_core::agent::{Agent, AgentOutput};
use tether_core::backend::{ImageInput, SessionOp};
use tether_core::claude::{AgentFile, ClaudeBackend, ClaudeConfig};
use tether_core::config::{CommonConfig, FolderConfig, RemoteConfig};
use tether_core::gate::{UserAnswer, UserDecision};
use tether_core::native::NativeHost;
use tether_core::permissions::PermissionMode;
use tether_core::registry::{AgentConfig, BackendConfig};

mod common;

use common::{events, permission_request, sent, TempWorkspace};

type ClaudeAgent = Agent<NativeHost, ClaudeBackend>;

/// The session config, flat as the driver writes it: the common keys and Claude Code's.
#[derive(Clone, Default)]
struct Config {
    root: String,
    mirror: Option<String>,
    additional_folders: Option<Vec<FolderConfig>>,
    home_dir: String,
    user_settings: Option<String>,
    mode: Option<String>,
    model: Option<String>,
    resume: Option<String>,
    env: Option<BTreeMap<String, String>>,
    remote: Option<RemoteConfig>,
    extra_system_prompt: Option<String>,
    agent_files: Option<Vec<AgentFile>>,
    allowed_tools: Option<Vec<String>>,
    disallowed_tools: Option<Vec<String>>,
}

fn new_agent(config: Config) -> Result<ClaudeAgent, String> {
    let common = CommonConfig {
        root: config.root,
        mirror: config.mirror,
        additional_folders: config.additional_folders,
        home_dir: config.home_dir,
        user_settings: config.user_settings,
        mode: config.mode,
        model: config.model,
        resume: config.resume,
        env: config.env,
        remote: config.remote,
        checkpoints: None,
        mcp_servers: None,
        hooks: None,
    };
    let claude = ClaudeConfig {
        extra_system_prompt: config.extra_system_prompt,
        agent_files: config.agent_files,
        allowed_tools: config.allowed_tools,
        disallowed_tools: config.disallowed_tools,
        fork_session: None,
        resume_session_at: None,
        plugin_dirs: None,
        output_style: None,
    };
    Agent::new(NativeHost::new(), common, |context| {
        Ok(Box::new(ClaudeBackend::new(context, claude)))
    })
}

fn set_mode(agent: &ClaudeAgent, mode: PermissionMode) -> Vec<AgentOutput> {
    agent.operate(SessionOp::SetMode { mode }).unwrap()
}

/// The user's answer, which the agent must take.
fn answered(agent: &ClaudeAgent, id: &str, given: UserAnswer) -> Vec<AgentOutput> {
    block_on(agent.answer_permission(id, given)).unwrap()
}

/// A temporary workspace and the agents made on it.
struct Workspace {
    files: TempWorkspace,
    root: String,
}

impl Workspace {
    fn new() -> Workspace {
        let files = TempWorkspace::new();
        let root = files.root().to_string();
        Workspace { files, root }
    }

    fn path(&self, rel: &str) -> String {
        self.files.path(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        self.files.write(rel, text);
    }

    fn read(&self, rel: &str) -> Option<String> {
        self.files.read(rel)
    }

    fn config(&self) -> Config {
        Config {
            root: self.root.clone(),
            home_dir: "/home/tester".into(),
            ..Config::default()
        }
    }

    fn agent(&self) -> ClaudeAgent {
        self.agent_with(self.config())
    }

    fn agent_with(&self, config: Config) -> ClaudeAgent {
        let agent = new_agent(config).unwrap();
        block_on(agent.start());
        agent
    }
}

fn can_use_tool(request_id: &str, tool: &str, input: Value, tool_use_id: &str) -> String {
    json!({
        "type": "control_request",
        "request_id": request_id,
        "request": {
            "subtype": "can_use_tool",
            "tool_name": format!("mcp__tether__{tool}"),
            "mcp_server": {"name": "tether", "source": "sdk"},
            "input": input,
            "permission_suggestions": [{
                "type": "addRules",
                "rules": [{"toolName": format!("mcp__tether__{tool}")}],
                "behavior": "allow",
                "destination": "localSettings"
            }],
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
                "params": {"name": tool, "arguments": arguments, "_meta": {"claudecode/toolUseId": tool_use_id, "progressToken": 2}},
                "jsonrpc": "2.0",
                "id": 2
            }
        }
    })
    .to_string()
}

/// The `response` of the one control_response line for `request_id`.
fn control_response(outputs: &[AgentOutput], request_id: &str) -> Value {
    let lines = sent(outputs);
    let line = lines
        .iter()
        .find(|l| l["type"] == "control_response" && l["response"]["request_id"] == request_id)
        .unwrap_or_else(|| panic!("no control_response for {request_id} in {lines:?}"));
    assert_eq!(line["response"]["subtype"], "success", "{line}");
    line["response"]["response"].clone()
}

/// Read a file through the agent's MCP tool, as the CLI does before an edit.
fn read_through_agent(agent: &ClaudeAgent, path: &str) {
    let out = block_on(agent.on_message(&tools_call("read-1", "Read", json!({"file_path": path}), "toolu_read")));
    let result = &control_response(&out, "read-1")["mcp_response"]["result"];
    assert_eq!(result["isError"], false, "{result}");
}

fn edit_input(ws: &Workspace) -> Value {
    json!({"file_path": ws.path("src/lib.rs"), "old_string": "old", "new_string": "new"})
}

/// A workspace with src/lib.rs read by the model, and an Edit of it waiting for the user.
fn pending_edit(ws: &Workspace) -> (ClaudeAgent, Value) {
    ws.write("src/lib.rs", "fn old() {}\n");
    let agent = ws.agent();
    read_through_agent(&agent, &ws.path("src/lib.rs"));
    let out = block_on(agent.on_message(&can_use_tool("perm-1", "Edit", edit_input(ws), "toolu_edit")));
    assert!(sent(&out).is_empty(), "nothing is answered before the user: {out:?}");
    (agent, permission_request(&out))
}

#[test]
fn start_sends_initialize_with_the_tether_manifest() {
    let ws = Workspace::new();
    let agent = new_agent(ws.config()).unwrap();
    let out = block_on(agent.start());
    let lines = sent(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let request = &lines[0]["request"];
    assert_eq!(request["subtype"], "initialize");
    assert_eq!(request["sdkMcpServers"], json!(["tether"]));
    let tools = request["sdkMcpServerManifests"]["tether"]["toolsListResult"]["tools"]
        .as_array()
        .unwrap();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(
        names.contains(&"Read") && names.contains(&"Edit") && names.contains(&"Bash"),
        "{names:?}"
    );
    assert_eq!(names.len(), 11, "{names:?}");
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(tool["inputSchema"]["properties"].is_object(), "{tool}");
    }
    assert!(request["appendSystemPrompt"].as_str().unwrap().contains(&ws.root));
    assert!(events(&out).is_empty(), "{out:?}");
}

#[test]
fn mcp_read_call_runs_the_tool_and_answers_with_a_control_response() {
    let ws = Workspace::new();
    ws.write("README.md", "hello from the workspace\n");
    let agent = ws.agent();
    let out = block_on(agent.on_message(&tools_call(
        "call-1",
        "Read",
        json!({"file_path": ws.path("README.md")}),
        "toolu_1",
    )));
    let response = control_response(&out, "call-1");
    let result = &response["mcp_response"]["result"];
    assert_eq!(response["mcp_response"]["id"], 2);
    assert!(result["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("hello from the workspace"));
    assert_eq!(result["_meta"]["tether/toolResult"]["type"], "text");
}

#[test]
fn read_inside_the_workspace_is_allowed_without_asking() {
    let ws = Workspace::new();
    let agent = ws.agent();
    let input = json!({"file_path": ws.path("README.md")});
    let out = block_on(agent.on_message(&can_use_tool("perm-1", "Read", input.clone(), "toolu_1")));
    let response = control_response(&out, "perm-1");
    assert_eq!(response["behavior"], "allow");
    assert_eq!(response["updatedInput"], input);
    assert!(response.get("updatedPermissions").is_none(), "{response}");
    assert!(events(&out).is_empty(), "{out:?}");
}

#[test]
fn read_outside_the_workspace_asks() {
    let ws = Workspace::new();
    let outside = Workspace::new();
    outside.write("notes.txt", "elsewhere\n");
    let agent = ws.agent();
    let input = json!({"file_path": outside.path("notes.txt")});
    let out = block_on(agent.on_message(&can_use_tool("perm-1", "Read", input, "toolu_1")));
    let request = permission_request(&out);
    assert!(sent(&out).is_empty());
    assert!(
        request["reason"].as_str().unwrap().contains("outside the workspace"),
        "{request}"
    );
    assert!(request["alwaysLabel"].as_str().unwrap().contains("Read("), "{request}");
    assert!(request.get("review").is_none());
}

#[test]
fn edit_asks_with_a_review_of_the_proposed_file_and_an_always_label() {
    let ws = Workspace::new();
    let (_agent, request) = pending_edit(&ws);
    assert_eq!(request["toolName"], "Edit");
    assert_eq!(request["id"], "perm-1");
    assert_eq!(request["alwaysLabel"], "Allow all edits for this session");
    assert!(request["reason"].as_str().unwrap().contains("src/lib.rs"), "{request}");
    let review = &request["review"];
    assert_eq!(review["path"], ws.path("src/lib.rs"));
    assert_eq!(review["original"], "fn old() {}\n");
    assert_eq!(review["proposed"], "fn new() {}\n");
    assert_eq!(review["hunks"][0]["lines"], json!(["-fn old() {}", "+fn new() {}"]));
    assert_eq!(
        ws.read("src/lib.rs").unwrap(),
        "fn old() {}\n",
        "nothing written before the answer"
    );
}

#[test]
fn allow_answers_the_cli_with_the_original_input() {
    let ws = Workspace::new();
    let (agent, _) = pending_edit(&ws);
    let out = answered(&agent, "perm-1", UserAnswer::new(UserDecision::Allow));
    let response = control_response(&out, "perm-1");
    assert_eq!(response["behavior"], "allow");
    assert_eq!(response["updatedInput"], edit_input(&ws));
    assert_eq!(response["toolUseID"], "toolu_edit");
}

#[test]
fn deny_answers_with_the_rejection_and_the_users_reason() {
    let ws = Workspace::new();
    let (agent, _) = pending_edit(&ws);
    let answer = UserAnswer {
        reason: Some("use a better name".into()),
        ..UserAnswer::new(UserDecision::Deny)
    };
    let out = answered(&agent, "perm-1", answer);
    let response = control_response(&out, "perm-1");
    assert_eq!(response["behavior"], "deny");
    let message = response["message"].as_str().unwrap();
    assert!(
        message.starts_with("The user doesn't want to proceed with this tool use."),
        "{message}"
    );
    assert!(message.ends_with("the user said:\nuse a better name"), "{message}");
    assert!(response.get("interrupt").is_none(), "{response}");
}

#[test]
fn user_content_is_what_the_following_tool_call_writes() {
    let ws = Workspace::new();
    let (agent, _) = pending_edit(&ws);
    let answer = UserAnswer {
        user_content: Some("fn renamed_by_user() {}\n".into()),
        ..UserAnswer::new(UserDecision::Allow)
    };
    let out = answered(&agent, "perm-1", answer);
    assert_eq!(control_response(&out, "perm-1")["behavior"], "allow");
    let out = block_on(agent.on_message(&tools_call("call-2", "Edit", edit_input(&ws), "toolu_edit")));
    let result = &control_response(&out, "call-2")["mcp_response"]["result"];
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["_meta"]["tether/toolResult"]["userModified"], true, "{result}");
    assert_eq!(ws.read("src/lib.rs").unwrap(), "fn renamed_by_user() {}\n");
}

#[test]
fn always_on_an_edit_switches_to_accept_edits_for_the_session() {
    let ws = Workspace::new();
    let (agent, _) = pending_edit(&ws);
    let out = answered(&agent, "perm-1", UserAnswer::new(UserDecision::Always));
    assert_eq!(control_response(&out, "perm-1")["behavior"], "allow");
    assert!(
        events(&out).contains(&json!({"type": "modeChanged", "mode": "acceptEdits"})),
        "{out:?}"
    );
    assert_eq!(agent.mode(), PermissionMode::AcceptEdits);
    assert!(
        sent(&out).iter().all(|l| l["type"] == "control_response"),
        "the CLI stays in default"
    );
    assert!(
        ws.read(".claude/settings.local.json").is_none(),
        "a mode is not persisted"
    );
}

#[test]
fn always_persists_the_rule_in_the_workspace_and_allows_the_next_identical_request() {
    let ws = Workspace::new();
    let agent = ws.agent();
    let input = json!({"command": "npm run build"});
    let out = block_on(agent.on_message(&can_use_tool("perm-1", "Bash", input.clone(), "toolu_1")));
    let request = permission_request(&out);
    assert_eq!(request["alwaysLabel"], "Always allow `npm run:*`");
    let out = answered(&agent, "perm-1", UserAnswer::new(UserDecision::Always));
    let response = control_response(&out, "perm-1");
    assert_eq!(response["behavior"], "allow");
    assert!(
        response.get("updatedPermissions").is_none(),
        "the CLI keeps no rule: {response}"
    );
    let saved: Value = serde_json::from_str(&ws.read(".claude/settings.local.json").unwrap()).unwrap();
    assert_eq!(saved, json!({"permissions": {"allow": ["Bash(npm run:*)"]}}));
    let out = block_on(agent.on_message(&can_use_tool("perm-2", "Bash", input, "toolu_2")));
    assert_eq!(control_response(&out, "perm-2")["behavior"], "allow");
    assert!(events(&out).is_empty(), "{out:?}");
}

#[test]
fn always_keeps_the_other_settings_of_the_local_file() {
    let ws = Workspace::new();
    ws.write(
        ".claude/settings.local.json",
        r#"{"env": {"A": "1"}, "permissions": {"allow": ["WebSearch"]}}"#,
    );
    let agent = ws.agent();
    let out = block_on(agent.on_message(&can_use_tool("perm-1", "Bash", json!({"command": "make all"}), "t1")));
    permission_request(&out);
    answered(&agent, "perm-1", UserAnswer::new(UserDecision::Always));
    let saved: Value = serde_json::from_str(&ws.read(".claude/settings.local.json").unwrap()).unwrap();
    assert_eq!(
        saved,
        json!({"env": {"A": "1"}, "permissions": {"allow": ["WebSearch", "Bash(make all:*)"]}})
    );
}

#[test]
fn always_with_a_broken_local_settings_file_warns_and_still_allows() {
    let ws = Workspace::new();
    ws.write(".claude/settings.local.json", "{ not json");
    let agent = new_agent(ws.config()).unwrap();
    block_on(agent.start());
    let out = block_on(agent.on_message(&can_use_tool("perm-1", "Bash", json!({"command": "make all"}), "t1")));
    permission_request(&out);
    let out = answered(&agent, "perm-1", UserAnswer::new(UserDecision::Always));
    assert_eq!(control_response(&out, "perm-1")["behavior"], "allow");
    let notice = events(&out).into_iter().find(|e| e["type"] == "error").unwrap();
    assert_eq!(notice["severity"], "notice");
    assert!(
        notice["message"].as_str().unwrap().contains("this session only"),
        "{notice}"
    );
    assert_eq!(ws.read(".claude/settings.local.json").unwrap(), "{ not json");
}

#[test]
fn deny_rule_in_project_settings_denies_an_edit_without_asking() {
    let ws = Workspace::new();
    ws.write(
        ".claude/settings.json",
        r#"{"permissions": {"deny": ["Edit(src/**)"]}}"#,
    );
    ws.write("src/lib.rs", "fn old() {}\n");
    let agent = ws.agent();
    let out = block_on(agent.on_message(&can_use_tool("perm-1", "Edit", edit_input(&ws), "toolu_edit")));
    let response = control_response(&out, "perm-1");
    assert_eq!(response["behavior"], "deny");
    assert!(
        response["message"].as_str().unwrap().contains("has been denied"),
        "{response}"
    );
    let found = events(&out);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["type"], "permissionDenied");
    assert_eq!(found[0]["toolUseId"], "toolu_edit");
}

#[test]
fn accept_edits_mode_allows_edits_inside_the_workspace() {
    let ws = Workspace::new();
    ws.write("src/lib.rs", "fn old() {}\n");
    let agent = ws.agent_with(Config {
        mode: Some("acceptEdits".into()),
        ..ws.config()
    });
    let out = block_on(agent.on_message(&can_use_tool("perm-1", "Edit", edit_input(&ws), "toolu_edit")));
    assert_eq!(control_response(&out, "perm-1")["behavior"], "allow");
    assert!(events(&out).is_empty(), "{out:?}");
}

#[test]
fn accept_edits_mode_still_asks_for_an_edit_outside_the_workspace() {
    let ws = Workspace::new();
    let outside = Workspace::new();
    let agent = ws.agent_with(Config {
        mode: Some("acceptEdits".into()),
        ..ws.config()
    });
    let input = json!({"file_path": outside.path("new.txt"), "content": "x\n"});
    let out = block_on(agent.on_message(&can_use_tool("perm-1", "Write", input, "toolu_w")));
    let request = permission_request(&out);
    assert_eq!(request["review"]["original"], Value::Null);
    assert_eq!(request["review"]["proposed"], "x\n");
}

#[test]
fn an_edit_that_cannot_be_computed_is_allowed_and_its_call_reports_the_tools_error() {
    let ws = Workspace::new();
    ws.write("src/lib.rs", "fn new() {}\n");
    let agent = ws.agent();
    // The old string is not in the file: the tool refuses, and says why.
    let out = block_on(agent.on_message(&can_use_tool("perm-1", "Edit", edit_input(&ws), "toolu_edit")));
    assert_eq!(control_response(&out, "perm-1")["behavior"], "allow");
    assert!(events(&out).is_empty(), "{out:?}");
    // Even if the file now holds it, the unreviewed change is not written.
    ws.write("src/lib.rs", "fn old() {}\n");
    let out = block_on(agent.on_message(&tools_call("call-2", "Edit", edit_input(&ws), "toolu_edit")));
    let result = &control_response(&out, "call-2")["mcp_response"]["result"];
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        result["content"][0]["text"].as_str().unwrap().contains("not found"),
        "{result}"
    );
    assert_eq!(ws.read("src/lib.rs").unwrap(), "fn old() {}\n");
}

#[test]
fn malformed_project_settings_become_a_notice_and_the_other_files_still_apply() {
    let ws = Workspace::new();
    ws.write(".claude/settings.json", "{ this is not json");
    ws.write(
        ".claude/settings.local.json",
        r#"{"permissions": {"deny": ["WebFetch"]}}"#,
    );
    let agent = new_agent(ws.config()).unwrap();
    let out = block_on(agent.start());
    let notices: Vec<Value> = events(&out).into_iter().filter(|e| e["type"] == "error").collect();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0]["severity"], "notice");
    assert!(
        notices[0]["message"]
            .as_str()
            .unwrap()
            .contains(".claude/settings.json"),
        "{notices:?}"
    );
    assert_eq!(sent(&out)[0]["request"]["subtype"], "initialize");
    let line = json!({"type": "control_request", "request_id": "perm-1", "request": {
        "subtype": "can_use_tool", "tool_name": "WebFetch", "input": {"url": "https://example.com"}, "tool_use_id": "t1"}})
    .to_string();
    let out = block_on(agent.on_message(&line));
    assert_eq!(control_response(&out, "perm-1")["behavior"], "deny");
}

#[test]
fn user_settings_text_from_the_config_applies() {
    let ws = Workspace::new();
    let agent = ws.agent_with(Config {
        user_settings: Some(r#"{"permissions": {"allow": ["Bash(npm run build:*)"]}}"#.into()),
        ..ws.config()
    });
    let out = block_on(agent.on_message(&can_use_tool(
        "perm-1",
        "Bash",
        json!({"command": "npm run build"}),
        "t1",
    )));
    assert_eq!(control_response(&out, "perm-1")["behavior"], "allow");
}

#[test]
fn settings_default_mode_applies_when_the_config_names_none() {
    let ws = Workspace::new();
    ws.write(".claude/settings.json", r#"{"permissions": {"defaultMode": "plan"}}"#);
    let agent = new_agent(ws.config()).unwrap();
    assert!(agent
        .launch(Vec::new())
        .args
        .contains(&"--permission-mode=default".to_string()));
    let out = block_on(agent.start());
    let lines = sent(&out);
    assert_eq!(lines[0]["request"]["subtype"], "initialize");
    assert_eq!(
        lines[1]["request"],
        json!({"subtype": "set_permission_mode", "mode": "plan"})
    );
    assert!(events(&out).contains(&json!({"type": "modeChanged", "mode": "plan"})));
    assert_eq!(agent.mode(), PermissionMode::Plan);
}

#[test]
fn initialize_goes_out_before_the_settings_are_read_and_start_then_applies_them() {
    let ws = Workspace::new();
    ws.write(".claude/settings.json", r#"{"permissions": {"defaultMode": "plan"}}"#);
    let agent = new_agent(ws.config()).unwrap();
    let early = agent.initialize();
    let lines = sent(&early);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["request"]["subtype"], "initialize");
    assert_eq!(agent.mode(), PermissionMode::Default, "no settings read yet");
    assert!(agent.initialize().is_empty(), "initialize goes once");
    let out = block_on(agent.start());
    assert_eq!(
        sent(&out),
        vec![
            json!({"type": "control_request", "request_id": "tether-2", "request": {"subtype": "set_permission_mode", "mode": "plan"}})
        ]
    );
    assert_eq!(agent.mode(), PermissionMode::Plan);
}

#[test]
fn the_configured_mode_wins_over_the_settings_default_mode() {
    let ws = Workspace::new();
    ws.write(".claude/settings.json", r#"{"permissions": {"defaultMode": "plan"}}"#);
    let agent = ws.agent_with(Config {
        mode: Some("acceptEdits".into()),
        ..ws.config()
    });
    assert_eq!(agent.mode(), PermissionMode::AcceptEdits);
}

#[test]
fn launch_tells_the_cli_only_about_plan_mode() {
    let ws = Workspace::new();
    let launch_mode = |mode: &str| {
        let config = Config {
            mode: Some(mode.into()),
            ..ws.config()
        };
        let args = new_agent(config).unwrap().launch(Vec::new()).args;
        args.into_iter().find(|a| a.starts_with("--permission-mode=")).unwrap()
    };
    assert_eq!(launch_mode("plan"), "--permission-mode=plan");
    for mode in ["default", "acceptEdits", "dontAsk", "bypassPermissions"] {
        assert_eq!(launch_mode(mode), "--permission-mode=default", "{mode}");
    }
}

#[test]
fn launch_passes_model_resume_tools_and_environment() {
    let ws = Workspace::new();
    let config = Config {
        model: Some("opus".into()),
        resume: Some("session-1".into()),
        env: Some([("ANTHROPIC_BASE_URL".to_string(), "http://proxy".to_string())].into()),
        allowed_tools: Some(vec!["NotebookRead".into(), "Bash".into()]),
        disallowed_tools: Some(vec!["WebSearch".into()]),
        ..ws.config()
    };
    let agent = new_agent(Config {
        mirror: Some("/laptop/mirror".into()),
        ..config
    })
    .unwrap();
    let parent = vec![
        ("PATH".to_string(), "/usr/bin".to_string()),
        ("CLAUDECODE".to_string(), "1".to_string()),
    ];
    let launch = agent.launch(parent);
    for expected in [
        "--model=opus",
        "--resume=session-1",
        "--include-partial-messages",
        "--setting-sources=",
        "--restricted",
        "--strict-mcp-config",
    ] {
        assert!(
            launch.args.contains(&expected.to_string()),
            "{expected} in {:?}",
            launch.args
        );
    }
    let tools = launch.args.iter().find(|a| a.starts_with("--tools=")).unwrap();
    assert!(tools.ends_with(",NotebookRead"), "{tools}: Bash stays disabled");
    let disallowed = launch
        .args
        .iter()
        .find(|a| a.starts_with("--disallowedTools="))
        .unwrap();
    assert!(disallowed.ends_with(",WebSearch"), "{disallowed}");
    assert_eq!(launch.env["ANTHROPIC_BASE_URL"], "http://proxy");
    assert_eq!(launch.env["PATH"], "/usr/bin");
    assert!(!launch.env.contains_key("CLAUDECODE"));
}

#[test]
fn an_unknown_mode_in_the_config_is_refused() {
    let ws = Workspace::new();
    let config = Config {
        mode: Some("yolo".into()),
        ..ws.config()
    };
    let error = new_agent(config).err().unwrap();
    assert!(error.contains("yolo"), "{error}");
}

#[test]
fn interrupt_set_model_and_set_mode_write_control_requests() {
    let ws = Workspace::new();
    let agent = ws.agent();
    let interrupt = sent(&agent.operate(SessionOp::Interrupt).unwrap());
    assert_eq!(interrupt[0]["request"], json!({"subtype": "interrupt"}));
    let model = sent(
        &agent
            .operate(SessionOp::SetConfigOption {
                option: "model".into(),
                value: Some("sonnet".into()),
            })
            .unwrap(),
    );
    assert_eq!(model[0]["request"], json!({"subtype": "set_model", "model": "sonnet"}));
    let out = set_mode(&agent, PermissionMode::Plan);
    assert_eq!(
        sent(&out)[0]["request"],
        json!({"subtype": "set_permission_mode", "mode": "plan"})
    );
    assert_eq!(events(&out), vec![json!({"type": "modeChanged", "mode": "plan"})]);
}

#[test]
fn set_mode_to_accept_edits_stays_inside_tether_unless_leaving_plan() {
    let ws = Workspace::new();
    let agent = ws.agent();
    let out = set_mode(&agent, PermissionMode::AcceptEdits);
    assert!(sent(&out).is_empty(), "{out:?}");
    assert_eq!(
        events(&out),
        vec![json!({"type": "modeChanged", "mode": "acceptEdits"})]
    );
    set_mode(&agent, PermissionMode::Plan);
    let out = set_mode(&agent, PermissionMode::BypassPermissions);
    assert_eq!(
        sent(&out)[0]["request"],
        json!({"subtype": "set_permission_mode", "mode": "default"})
    );
    // The CLI's confirmation that it is in default mode does not hide Tether's mode.
    let id = sent(&out)[0]["request_id"].as_str().unwrap().to_string();
    let confirm = json!({"type": "control_response", "response": {"subtype": "success", "request_id": id, "response": {"mode": "default"}}});
    let out = block_on(agent.on_message(&confirm.to_string()));
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(agent.mode(), PermissionMode::BypassPermissions);
}

#[test]
fn exit_plan_mode_always_asks_the_user_and_approval_leaves_plan_mode() {
    let ws = Workspace::new();
    let agent = ws.agent_with(Config {
        mode: Some("plan".into()),
        ..ws.config()
    });
    let line = json!({"type": "control_request", "request_id": "perm-1", "request": {
        "subtype": "can_use_tool", "tool_name": "ExitPlanMode", "input": {"plan": "1. do it"}, "tool_use_id": "t1",
        "requires_user_interaction": true}})
    .to_string();
    let out = block_on(agent.on_message(&line));
    let request = permission_request(&out);
    assert_eq!(request["toolName"], "ExitPlanMode");
    let out = answered(&agent, "perm-1", UserAnswer::new(UserDecision::Allow));
    assert_eq!(control_response(&out, "perm-1")["behavior"], "allow");
    assert!(
        events(&out).contains(&json!({"type": "modeChanged", "mode": "default"})),
        "{out:?}"
    );
    assert_eq!(agent.mode(), PermissionMode::Default);
}

#[test]
fn bypass_mode_allows_an_outside_read_without_asking() {
    let ws = Workspace::new();
    let agent = ws.agent_with(Config {
        mode: Some("bypassPermissions".into()),
        ..ws.config()
    });
    let out = block_on(agent.on_message(&can_use_tool(
        "perm-1",
        "Read",
        json!({"file_path": "/etc/hostname"}),
        "t1",
    )));
    assert_eq!(control_response(&out, "perm-1")["behavior"], "allow");
}

#[test]
fn dont_ask_mode_denies_what_would_ask() {
    let ws = Workspace::new();
    let agent = ws.agent_with(Config {
        mode: Some("dontAsk".into()),
        ..ws.config()
    });
    let out = block_on(agent.on_message(&can_use_tool("perm-1", "Bash", json!({"command": "npm publish"}), "t1")));
    assert_eq!(control_response(&out, "perm-1")["behavior"], "deny");
}

#[test]
fn unknown_and_already_answered_permission_ids_are_ignored() {
    let ws = Workspace::new();
    let (agent, _) = pending_edit(&ws);
    let out = answered(&agent, "nope", UserAnswer::new(UserDecision::Allow));
    assert!(out.is_empty(), "{out:?}");
    answered(&agent, "perm-1", UserAnswer::new(UserDecision::Allow));
    let again = answered(&agent, "perm-1", UserAnswer::new(UserDecision::Deny));
    assert!(again.is_empty(), "{again:?}");
}

#[test]
fn a_withdrawn_question_cannot_be_answered() {
    let ws = Workspace::new();
    let (agent, _) = pending_edit(&ws);
    let cancel = json!({"type": "control_cancel_request", "request_id": "perm-1"}).to_string();
    let out = block_on(agent.on_message(&cancel));
    assert_eq!(
        events(&out),
        vec![json!({"type": "permissionCancelled", "id": "perm-1"})]
    );
    let out = answered(&agent, "perm-1", UserAnswer::new(UserDecision::Allow));
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn relative_paths_in_commands_are_judged_from_the_shells_directory() {
    let ws = Workspace::new();
    ws.write("sub/file.txt", "x\n");
    let agent = ws.agent();
    let out = block_on(agent.on_message(&tools_call("call-1", "Bash", json!({"command": "cd sub"}), "t1")));
    assert_eq!(
        control_response(&out, "call-1")["mcp_response"]["result"]["isError"],
        false
    );
    // `cat ../../x` from <root>/sub leaves the workspace; from the root it would too, but
    // `cat ../sub/file.txt` only stays inside when judged from sub.
    let out = block_on(agent.on_message(&can_use_tool(
        "perm-1",
        "Bash",
        json!({"command": "cat ../sub/file.txt"}),
        "t2",
    )));
    assert_eq!(control_response(&out, "perm-1")["behavior"], "allow", "{out:?}");
}

#[test]
fn session_events_show_tethers_mode_not_the_clis() {
    let ws = Workspace::new();
    let agent = ws.agent_with(Config {
        mode: Some("acceptEdits".into()),
        ..ws.config()
    });
    let init = json!({"type": "system", "subtype": "init", "session_id": "s1", "model": "m", "tools": [],
        "mcp_servers": [], "permissionMode": "default", "claude_code_version": "2.1.330"});
    let out = block_on(agent.on_message(&init.to_string()));
    let found = events(&out);
    assert_eq!(found[0]["type"], "sessionInit", "{found:?}");
    assert_eq!(found[0]["permissionMode"], "acceptEdits");
}

#[test]
fn file_changed_refreshes_the_cache() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\n");
    let agent = ws.agent();
    read_through_agent(&agent, &ws.path("a.txt"));
    ws.write("a.txt", "two\n");
    block_on(agent.file_changed(&ws.path("a.txt")));
    let out = block_on(agent.on_message(&tools_call(
        "call-2",
        "Read",
        json!({"file_path": ws.path("a.txt")}),
        "t2",
    )));
    let text = control_response(&out, "call-2")["mcp_response"]["result"]["content"][0]["text"].clone();
    assert!(text.as_str().unwrap().contains("two"), "{text}");
}

#[test]
fn config_from_json_reads_every_field() {
    let config = AgentConfig::from_json(&json!({
        "backend": "claude", "root": "/w", "mirror": "/m", "homeDir": "/h", "userSettings": "{}", "mode": "plan",
        "model": "opus", "resume": "s1", "env": {"A": "1"}, "remote": {"os": "Linux", "shell": "zsh", "gitBranch": "main"},
        "extraSystemPrompt": "x", "allowedTools": ["T"], "disallowedTools": ["U"], "model2": null
    }));
    assert_eq!(config.unwrap_err(), "unknown field `model2` in the config; expected one of backend, root, mirror, homeDir, userSettings, mode, model, resume, env, remote, checkpoints, mcpServers, additionalFolders, hooks, extraSystemPrompt, agentFiles, allowedTools, disallowedTools, forkSession, resumeSessionAt, pluginDirs, outputStyle");
    let AgentConfig { common, backend } = AgentConfig::from_json(&json!({
        "backend": "claude", "root": "/w", "mirror": null, "homeDir": "/h", "mode": "plan", "env": {"A": "1"},
        "remote": {"gitBranch": "main"}, "allowedTools": ["T"]
    }))
    .unwrap();
    assert_eq!((common.root.as_str(), common.home_dir.as_str()), ("/w", "/h"));
    assert_eq!(common.mirror, None);
    assert_eq!(common.mode.as_deref(), Some("plan"));
    assert_eq!(common.env.unwrap()["A"], "1");
    assert_eq!(common.remote.unwrap().git_branch.as_deref(), Some("main"));
    let BackendConfig::Claude(claude) = backend else {
        panic!("a Claude Code config")
    };
    assert_eq!(claude.allowed_tools, Some(vec!["T".to_string()]));
}

#[test]
fn config_from_json_names_the_bad_field() {
    let error = |value: Value| AgentConfig::from_json(&value).unwrap_err();
    assert_eq!(
        error(json!({"backend": "claude", "homeDir": "/h"})),
        "`root` is missing"
    );
    assert_eq!(
        error(json!({"backend": "claude", "root": 1, "homeDir": "/h"})),
        "`root` must be a string"
    );
    assert_eq!(
        error(json!({"backend": "claude", "root": "/w", "homeDir": "/h", "env": {"A": 1}})),
        "env.A must be a string"
    );
    assert_eq!(
        error(json!({"backend": "claude", "root": "/w", "homeDir": "/h", "allowedTools": "Bash"})),
        "`allowedTools` must be a list of strings"
    );
    assert!(
        error(json!({"backend": "claude", "root": "/w", "homeDir": "/h", "remote": {"arch": "x"}}))
            .contains("unknown field `arch` in remote")
    );
    assert_eq!(error(json!({"backend": "claude"})).as_str(), "`root` is missing");
    assert_eq!(
        error(json!("nope")),
        "`backend` is missing; use one of claude, acp, openclaw"
    );
    assert_eq!(
        error(json!({"root": "/w", "homeDir": "/h"})),
        "`backend` is missing; use one of claude, acp, openclaw"
    );
    assert_eq!(
        error(json!({"backend": "openai", "root": "/w", "homeDir": "/h"})),
        "unknown backend \"openai\"; use one of claude, acp, openclaw"
    );
}

#[test]
fn answer_and_images_from_json() {
    let answer = UserAnswer::from_json(&json!({"decision": "deny", "reason": "no"})).unwrap();
    assert_eq!(answer.decision, Some(UserDecision::Deny));
    assert_eq!(answer.reason.as_deref(), Some("no"));
    let answer = UserAnswer::from_json(&json!({"optionId": "always"})).unwrap();
    assert_eq!(answer.option_id.as_deref(), Some("always"));
    let error = UserAnswer::from_json(&json!({"decision": "maybe"})).unwrap_err();
    assert!(error.contains("\"maybe\""), "{error}");
    let error = UserAnswer::from_json(&json!({"reason": "no"})).unwrap_err();
    assert!(error.contains("decision") && error.contains("optionId"), "{error}");
    let images = ImageInput::list_from_json(&json!([{"mediaType": "image/png", "data": "AAAA"}])).unwrap();
    assert_eq!(
        (images[0].media_type.as_str(), images[0].data_base64.as_str()),
        ("image/png", "AAAA")
    );
    assert!(ImageInput::list_from_json(&json!([{"mediaType": "image/png"}])).is_err());
}

#[test]
fn the_projects_subagents_go_into_initialize_with_tethers_tools_and_explore_stays_read_only() {
    let ws = Workspace::new();
    let mut config = ws.config();
    config.agent_files = Some(vec![
        AgentFile {
            name: "reviewer.md".into(),
            text: "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\n---\nReview the diff.\n".into(),
        },
        AgentFile {
            name: "explore.md".into(),
            text: "---\nname: Explore\ndescription: mine\ntools: Write\n---\nWrite freely.\n".into(),
        },
    ]);
    let agent = new_agent(config).unwrap();
    let out = block_on(agent.start());
    let agents = &sent(&out)[0]["request"]["agents"];
    assert_eq!(agents["reviewer"]["prompt"], "Review the diff.");
    assert_eq!(
        agents["reviewer"]["tools"],
        json!(["mcp__tether__Read", "mcp__tether__Grep"])
    );
    let explore_tools = agents["Explore"]["tools"].as_array().unwrap();
    assert!(
        !explore_tools.iter().any(|t| t == "mcp__tether__Write"),
        "Tether's read-only Explore is kept: {explore_tools:?}"
    );
}

#[test]
fn a_broken_subagent_file_becomes_a_notice_and_the_session_still_starts() {
    let ws = Workspace::new();
    let mut config = ws.config();
    config.agent_files = Some(vec![AgentFile {
        name: "broken.md".into(),
        text: "no front matter".into(),
    }]);
    let agent = new_agent(config).unwrap();
    let out = block_on(agent.start());
    assert_eq!(sent(&out)[0]["request"]["subtype"], "initialize");
    let notices = events(&out);
    assert!(
        notices.iter().any(|e| e.to_string().contains("broken.md was skipped")),
        "{notices:?}"
    );
}

#[test]
fn a_tools_call_the_cli_did_not_ask_about_is_refused_by_a_deny_rule_and_writes_nothing() {
    let ws = Workspace::new();
    ws.write(
        ".claude/settings.json",
        r#"{"permissions": {"deny": ["Edit(src/**)"]}}"#,
    );
    ws.write("src/lib.rs", "fn old() {}\n");
    let agent = ws.agent();
    read_through_agent(&agent, &ws.path("src/lib.rs"));
    let out = block_on(agent.on_message(&tools_call("call-1", "Edit", edit_input(&ws), "toolu_unasked")));
    let result = &control_response(&out, "call-1")["mcp_response"]["result"];
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(ws.read("src/lib.rs").unwrap(), "fn old() {}\n");
}

#[test]
fn a_tools_call_the_cli_did_not_ask_about_waits_for_the_user_when_the_gate_asks() {
    let ws = Workspace::new();
    let outside = Workspace::new();
    let agent = ws.agent();
    let input = json!({"file_path": outside.path("new.txt"), "content": "x\n"});
    let out = block_on(agent.on_message(&tools_call("call-1", "Write", input, "toolu_unasked")));
    let request = permission_request(&out);
    assert!(sent(&out).is_empty(), "nothing answered before the user: {out:?}");
    assert_eq!(outside.read("new.txt"), None);
    let out = answered(
        &agent,
        request["id"].as_str().unwrap(),
        UserAnswer::new(UserDecision::Deny),
    );
    let result = &control_response(&out, "call-1")["mcp_response"]["result"];
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(outside.read("new.txt"), None);
}

#[test]
fn a_tools_call_after_an_allowed_can_use_tool_runs_without_a_second_question() {
    let ws = Workspace::new();
    let outside = Workspace::new();
    let agent = ws.agent();
    let input = json!({"file_path": outside.path("new.txt"), "content": "x\n"});
    let out = block_on(agent.on_message(&can_use_tool("perm-1", "Write", input.clone(), "toolu_w")));
    let request = permission_request(&out);
    let out = answered(
        &agent,
        request["id"].as_str().unwrap(),
        UserAnswer::new(UserDecision::Allow),
    );
    assert_eq!(control_response(&out, "perm-1")["behavior"], "allow");
    let out = block_on(agent.on_message(&tools_call("call-1", "Write", input, "toolu_w")));
    assert!(events(&out).iter().all(|e| e["type"] != "permissionRequest"), "{out:?}");
    let result = &control_response(&out, "call-1")["mcp_response"]["result"];
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(outside.read("new.txt").unwrap(), "x\n");
}
