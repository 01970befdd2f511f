//! The ACP agents Tether knows, and how each is closed ("force-local"): the switches that turn its
//! own file and shell tools off when its working directory is a laptop stand-in for a remote
//! workspace, so everything it does goes through Tether's tools. Measured in tests/acp (README):
//!
//! Everything that touches no disk and runs no command stays on (DESIGN.md):
//!
//! - claude-agent-acp: `session/new` `_meta.claudeCode.options.tools` = the built-ins Claude
//!   Code's backend keeps (subagents, todos, web, plan mode, skills), `disallowedTools` = the file
//!   and shell ones (not remembered: sent again on every load and resume; subagents get the same
//!   lists); Tether's tools and the built-ins Claude Code runs unasked pre-allowed, so Tether's
//!   gate is the only one.
//! - gemini-cli: an admin policy (`--admin-policy`, its highest tier) allowing Tether's tools and
//!   gemini's web search, web fetch and todos, and denying every other, so the model is offered
//!   those only; system settings with the same `tools.core` (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`;
//!   gemini skips them unless root owns them and every folder above); `--skip-trust` (without it
//!   the MCP servers of `session/new` are dropped, local workspaces included). Both files live in
//!   Tether's private state folder, checked by the host before the launch
//!   (extension/src/session/stateFolder.ts).
//! - codex-acp: its shell and other local tools off (`CODEX_CONFIG` features; its web search, a
//!   tool of the model's API, stays) and the read-only mode,
//!   but it keeps `apply_patch` for the models of its catalog, which writes the laptop's folder:
//!   it cannot be closed, so it is refused on a remote workspace unless the user overrides that.
//!   On a local folder it starts in read-only mode too, so it asks Tether before apply_patch.
//!
//! Whatever a switch says, `closed` stops a closed session whose agent asks to run, or runs, a
//! write or command of its own (the switch did not take).

use crate::claude::launch::{disallowed_builtin_tools, ALLOWED_BUILTIN_TOOLS};
use crate::mcp::SERVER_NAME;
use crate::tools::TOOL_NAMES;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// An ACP agent Tether knows by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownAgent {
    /// Its name in `tether.agents`, `--agent`, and its profile's name.
    pub name: &'static str,
    pub display_name: &'static str,
    /// Its command on PATH.
    pub command: &'static str,
    /// The arguments that make the command speak ACP.
    pub args: &'static [&'static str],
    /// Its npm package, for the install hint.
    pub package: &'static str,
    /// Whether its own file and shell tools can all be switched off.
    pub closable: bool,
    /// `session/load` of a session started in the same wall-clock minute fails and erases it
    /// (gemini-cli#28775): wait for the next minute.
    pub load_in_a_later_minute: bool,
}

pub const KNOWN_AGENTS: [KnownAgent; 3] = [
    KnownAgent {
        name: "claude-agent-acp",
        display_name: "Claude Agent",
        command: "claude-agent-acp",
        args: &[],
        package: "@agentclientprotocol/claude-agent-acp",
        closable: true,
        load_in_a_later_minute: false,
    },
    KnownAgent {
        name: "gemini",
        display_name: "Gemini CLI",
        command: "gemini",
        args: &["--acp"],
        package: "@google/gemini-cli",
        closable: true,
        load_in_a_later_minute: true,
    },
    KnownAgent {
        name: "codex",
        display_name: "Codex",
        command: "codex-acp",
        args: &[],
        package: "@agentclientprotocol/codex-acp",
        closable: false,
        load_in_a_later_minute: false,
    },
];

pub fn known_agent(name: &str) -> Option<&'static KnownAgent> {
    KNOWN_AGENTS.iter().find(|agent| agent.name == name)
}

/// Claude Code's todo list as the agent SDK offers it (2.1.330 offers no `TodoWrite` there): kept
/// beside [`ALLOWED_BUILTIN_TOOLS`]; the list lives in the agent's own home, not the project.
const TASK_LIST_TOOLS: &[&str] = &["TaskCreate", "TaskGet", "TaskList", "TaskUpdate"];

/// Built-ins Claude Code runs without asking (delegating, the todo list, loading deferred tools):
/// pre-allowed too, or the adapter's initial mode `auto` sends each to its classifier. A
/// subagent's own calls still go through Tether's gate.
const UNASKED_BUILTIN_TOOLS: &[&str] = &[
    "Agent",
    "ListAgents",
    "ToolSearch",
    "TodoWrite",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskUpdate",
];

/// The name of gemini's system settings file in the state folder.
const GEMINI_SETTINGS_FILE: &str = "gemini-system-settings.json";
/// gemini's admin policy folder in the state folder, and the policy file in it.
const GEMINI_POLICY_DIR: &str = "gemini-policy";
const GEMINI_POLICY_FILE: &str = "tether.toml";

/// How one known agent is launched and opened by Tether, closed or not.
#[derive(Clone, Debug)]
pub struct Profile {
    pub agent: &'static KnownAgent,
    /// Its own tools are switched off (a remote workspace).
    pub closed: bool,
}

impl Profile {
    /// Arguments to add to the user's, a flag with its value together; `state_dir` holds the
    /// files of [`Self::files`].
    pub fn extra_args(&self, state_dir: Option<&str>, windows: bool) -> Vec<Vec<String>> {
        // Untrusted folders silently lose the MCP servers of session/new, Tether's included.
        let skip_trust = vec!["--skip-trust".to_string()];
        match (self.agent.name, self.closed, state_dir) {
            ("gemini", true, Some(dir)) => vec![
                skip_trust,
                vec!["--admin-policy".into(), in_state_dir(dir, GEMINI_POLICY_DIR, windows)],
            ],
            ("gemini", _, _) => vec![skip_trust],
            _ => Vec::new(),
        }
    }

    /// Environment to add (over the user's); `state_dir` holds the files of [`Self::files`].
    pub fn env(
        &self,
        env: &mut BTreeMap<String, String>,
        state_dir: Option<&str>,
        windows: bool,
    ) -> Result<(), String> {
        match (self.agent.name, self.closed) {
            // The "# Memory" section would tell the model to Write memory files under ~/.claude.
            ("claude-agent-acp", _) => {
                env.insert("CLAUDE_CODE_DISABLE_AUTO_MEMORY".into(), "1".into());
            }
            ("gemini", true) => {
                let Some(dir) = state_dir else {
                    return Err("gemini needs a folder for its settings (stateDir) to be closed".into());
                };
                env.insert(
                    "GEMINI_CLI_SYSTEM_SETTINGS_PATH".into(),
                    in_state_dir(dir, GEMINI_SETTINGS_FILE, windows),
                );
            }
            ("codex", true) => {
                let config = codex_config(env.get("CODEX_CONFIG").map(String::as_str))?;
                env.insert("CODEX_CONFIG".into(), config);
                // The default mode sends approvals to a model request; read-only asks the client.
                env.insert("INITIAL_AGENT_MODE".into(), "read-only".into());
            }
            // On a local folder too: in its default mode (`agent`) codex applies apply_patch
            // without asking anyone; read-only asks Tether first. The user's own choice stays.
            ("codex", false) => {
                env.entry("INITIAL_AGENT_MODE".into())
                    .or_insert_with(|| "read-only".into());
            }
            _ => {}
        }
        Ok(())
    }

    /// What a closed agent must not find in its folder (see [`Backend::refused_in_cwd`]), because
    /// it would act on it on the laptop whatever Tether's switches say (measured with Claude Code
    /// 2.1.330 and gemini-cli 0.61.0; refused in tests/hostile/mirror-hooks.test.mjs):
    /// - claude-agent-acp reads user, project and local settings (`--setting-sources=user,project,local`):
    ///   a project's `apiKeyHelper` runs and its `env` reaches the agent's processes even with
    ///   hooks off, and `.mcp.json` names local servers. The mirror Tether syncs holds none of them.
    /// - gemini-cli reads `.gemini/settings.json` there (hooks, MCP servers, tool discovery
    ///   commands; trusted under `--skip-trust`), its extensions and commands (`!{…}` runs a
    ///   shell), and a `.env`.
    ///
    /// [`Backend::refused_in_cwd`]: crate::backend::Backend::refused_in_cwd
    pub fn refused_in_cwd(&self) -> &'static [&'static str] {
        match (self.agent.name, self.closed) {
            ("claude-agent-acp", true) => &[".claude/settings.json", ".claude/settings.local.json", ".mcp.json"],
            ("gemini", true) => &[".gemini", ".env"],
            _ => &[],
        }
    }

    /// Files to write before the launch (absolute path → content).
    pub fn files(&self, state_dir: Option<&str>, windows: bool) -> Vec<(String, String)> {
        match (self.agent.name, self.closed, state_dir) {
            ("gemini", true, Some(dir)) => {
                let policy_dir = in_state_dir(dir, GEMINI_POLICY_DIR, windows);
                vec![
                    (in_state_dir(dir, GEMINI_SETTINGS_FILE, windows), gemini_settings()),
                    (in_state_dir(&policy_dir, GEMINI_POLICY_FILE, windows), gemini_policy()),
                ]
            }
            _ => Vec::new(),
        }
    }

    /// `_meta` for `session/new`, `load` and `resume` (claude-agent-acp forgets it in between).
    pub fn session_meta(&self) -> Option<Map<String, Value>> {
        if self.agent.name != "claude-agent-acp" {
            return None;
        }
        let allowed: Vec<String> = TOOL_NAMES
            .iter()
            .map(|tool| format!("mcp__{SERVER_NAME}__{tool}"))
            .chain(UNASKED_BUILTIN_TOOLS.iter().map(|tool| tool.to_string()))
            .collect();
        // Tether's tools run without the agent asking: Tether's gate asks instead.
        let mut options = json!({"allowedTools": allowed, "promptSuggestions": false});
        if self.closed {
            // The same split as Claude Code's backend: the built-ins that touch no disk and run no
            // command stay (subagents, todos, web, plan mode, skills), in subagents too; the file
            // and shell ones are denied as well, so a call gets a clear "disabled" error.
            let kept: Vec<&str> = ALLOWED_BUILTIN_TOOLS.iter().chain(TASK_LIST_TOOLS).copied().collect();
            options["tools"] = json!(kept);
            options["disallowedTools"] = json!(disallowed_builtin_tools().collect::<Vec<_>>());
            // The hooks of settings, plugins and skills' or agents' frontmatter would run in the
            // mirror, on the laptop (a mirrored skill's did): Tether runs the project's hooks on
            // the workspace instead. The adapter's own SDK callbacks are not hooks in this sense.
            options["settings"] = json!({"disableAllHooks": true});
        }
        let mut meta = Map::new();
        meta.insert("claudeCode".into(), json!({ "options": options }));
        Some(meta)
    }

    /// gemini-cli answers a read of a missing file with an error that fails its own write of a
    /// new file; an empty text lets it create the file (through `fs/write_text_file`).
    pub fn missing_file_reads_empty(&self) -> bool {
        self.agent.name == "gemini"
    }
}

fn in_state_dir(dir: &str, name: &str, windows: bool) -> String {
    let separator = if windows { '\\' } else { '/' };
    format!("{}{separator}{name}", dir.trim_end_matches(['/', '\\']))
}

/// gemini's own tools that touch no disk and run no command: web search and fetch (requests to
/// the model's API or the web, from the laptop) and its todo list (kept in the conversation).
const GEMINI_KEPT_TOOLS: &[&str] = &["google_web_search", "web_fetch", "write_todos"];

/// The tools gemini-cli keeps in a closed session, by its names: Tether's and [`GEMINI_KEPT_TOOLS`].
fn gemini_core_tools() -> Vec<String> {
    TOOL_NAMES
        .iter()
        .map(|tool| format!("mcp_{SERVER_NAME}_{tool}"))
        .chain(GEMINI_KEPT_TOOLS.iter().map(|tool| tool.to_string()))
        .collect()
}

/// gemini's system settings: the tools of [`gemini_core_tools`] (`tools.core`), MCP servers kept
/// in any folder, no hooks (a workspace's would run on the laptop), no usage statistics (an
/// installation id file). gemini-cli 0.61.0 skips a system
/// settings file unless it and every folder above it belong to root and no group or other may
/// write them (`isFileAndDirectorySecureSync`): for anyone but root this file is ignored, and the
/// admin policy ([`gemini_policy`]) is what closes the agent.
fn gemini_settings() -> String {
    json!({
        "security": {"folderTrust": {"enabled": false}},
        "privacy": {"usageStatisticsEnabled": false},
        "hooksConfig": {"enabled": false},
        "tools": {"core": gemini_core_tools()},
    })
    .to_string()
}

/// gemini's admin policy (`--admin-policy DIR`, its highest tier, read without an ownership
/// check): the tools of [`gemini_core_tools`] allowed, every other tool denied, which also takes
/// them out of what the model is offered. gemini ignores `--admin-policy` when its system
/// policies folder (`/etc/gemini-cli/policies`) holds a policy: the backstop in `closed` then
/// stops the session at the first write or command of its own.
fn gemini_policy() -> String {
    let allowed = serde_json::to_string(&gemini_core_tools()).unwrap_or_default();
    format!(
        "# Tether: gemini-cli's own file and shell tools off; the workspace is reached through Tether's tools only.\n\
         [[rule]]\ntoolName = {allowed}\ndecision = \"allow\"\npriority = 999\n\n\
         [[rule]]\ntoolName = \"*\"\ndecision = \"deny\"\npriority = 998\n\
         denyMessage = \"This session works on a remote workspace through Tether's tools only.\"\n"
    )
}

/// The user's `CODEX_CONFIG` (session overrides, JSON) with codex's own tools switched off.
fn codex_config(user: Option<&str>) -> Result<String, String> {
    let mut config: Map<String, Value> = match user.map(str::trim).filter(|c| !c.is_empty()) {
        None => Map::new(),
        Some(text) => match serde_json::from_str(text) {
            Ok(Value::Object(map)) => map,
            _ => return Err("CODEX_CONFIG must be a JSON object to add Tether's switches to".into()),
        },
    };
    let features = config.entry("features").or_insert_with(|| Value::Object(Map::new()));
    if !features.is_object() {
        *features = Value::Object(Map::new());
    }
    for feature in ["shell_tool", "unified_exec", "view_image", "multi_agent", "goals"] {
        features[feature] = Value::Bool(false);
    }
    Ok(Value::Object(config).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(name: &str, closed: bool) -> Profile {
        Profile {
            agent: known_agent(name).unwrap(),
            closed,
        }
    }

    #[test]
    fn claude_agent_is_closed_to_built_ins_that_touch_no_disk_and_tethers_pre_allowed() {
        let meta = profile("claude-agent-acp", true).session_meta().unwrap();
        let options = &meta["claudeCode"]["options"];
        let kept = options["tools"].as_array().unwrap();
        for tool in ["Agent", "WebSearch", "ExitPlanMode", "Skill", "TaskCreate"] {
            assert!(kept.contains(&json!(tool)), "{tool} kept");
        }
        let denied = options["disallowedTools"].as_array().unwrap();
        for tool in ["Write", "Bash", "Read", "Monitor"] {
            assert!(denied.contains(&json!(tool)), "{tool} denied");
        }
        assert_eq!(options["allowedTools"][0], "mcp__tether__Read");
        let allowed = options["allowedTools"].as_array().unwrap();
        assert!(allowed.contains(&json!("Agent")));
        assert!(!allowed.contains(&json!("ExitPlanMode")) && !allowed.contains(&json!("WebFetch")));
        assert_eq!(options["promptSuggestions"], false);
        assert_eq!(options["settings"], json!({"disableAllHooks": true}));
        let open = profile("claude-agent-acp", false).session_meta().unwrap();
        assert!(open["claudeCode"]["options"].get("tools").is_none());
        assert!(
            open["claudeCode"]["options"].get("settings").is_none(),
            "a local folder's hooks are the agent's own"
        );
    }

    #[test]
    fn a_closed_agent_refuses_a_folder_holding_configuration_it_would_act_on_locally() {
        let claude = profile("claude-agent-acp", true).refused_in_cwd();
        assert!(claude.contains(&".claude/settings.json") && claude.contains(&".claude/settings.local.json"));
        assert!(claude.contains(&".mcp.json"));
        assert_eq!(profile("gemini", true).refused_in_cwd(), [".gemini", ".env"]);
        for name in ["claude-agent-acp", "gemini", "codex"] {
            assert!(
                profile(name, false).refused_in_cwd().is_empty(),
                "{name} on a local folder"
            );
        }
    }

    #[test]
    fn gemini_is_closed_by_system_settings_naming_tethers_tools_only() {
        let gemini = profile("gemini", true);
        let mut env = BTreeMap::new();
        gemini.env(&mut env, Some("/state/"), false).unwrap();
        assert_eq!(
            env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"],
            "/state/gemini-system-settings.json"
        );
        let files = gemini.files(Some("/state"), false);
        let settings: Value = serde_json::from_str(&files[0].1).unwrap();
        let core = settings["tools"]["core"].as_array().unwrap();
        assert_eq!(core.len(), TOOL_NAMES.len() + GEMINI_KEPT_TOOLS.len());
        assert!(core.contains(&json!("google_web_search")));
        assert!(!core.iter().any(|t| t == "write_file" || t == "run_shell_command"));
        assert_eq!(settings["tools"]["core"][0], "mcp_tether_Read");
        assert_eq!(settings["hooksConfig"]["enabled"], false);
        assert_eq!(
            gemini.extra_args(Some("/state"), false),
            [vec!["--skip-trust"], vec!["--admin-policy", "/state/gemini-policy"]]
        );
        assert_eq!(
            profile("gemini", false).extra_args(Some("/state"), false),
            [vec!["--skip-trust"]]
        );
        assert!(gemini.env(&mut BTreeMap::new(), None, false).is_err());
        assert!(profile("gemini", false).files(Some("/state"), false).is_empty());
    }

    #[test]
    fn gemini_is_closed_by_an_admin_policy_allowing_tethers_tools_and_denying_the_rest() {
        let files = profile("gemini", true).files(Some("C:\\state"), true);
        let (path, policy) = &files[1];
        assert_eq!(path, "C:\\state\\gemini-policy\\tether.toml");
        let allow = policy.find("decision = \"allow\"").unwrap();
        let deny = policy.find("toolName = \"*\"\ndecision = \"deny\"").unwrap();
        assert!(policy[..allow].contains(r#""mcp_tether_Read","mcp_tether_Write""#));
        assert!(policy.contains("priority = 999") && policy.contains("priority = 998") && allow < deny);
    }

    #[test]
    fn codex_keeps_the_users_config_and_loses_its_shell() {
        let mut env = BTreeMap::from([(
            "CODEX_CONFIG".to_string(),
            r#"{"model":"m","features":{"apps":true}}"#.to_string(),
        )]);
        profile("codex", true).env(&mut env, None, false).unwrap();
        let config: Value = serde_json::from_str(&env["CODEX_CONFIG"]).unwrap();
        assert_eq!(config["model"], "m");
        assert_eq!(config["features"]["apps"], true);
        assert_eq!(config["features"]["shell_tool"], false);
        // Its web search is the model API's own (a hosted tool): nothing on the laptop.
        assert!(config.get("web_search").is_none());
        assert_eq!(env["INITIAL_AGENT_MODE"], "read-only");
        let mut local = BTreeMap::new();
        profile("codex", false).env(&mut local, None, false).unwrap();
        assert_eq!(
            local["INITIAL_AGENT_MODE"], "read-only",
            "asks before apply_patch on a local folder too"
        );
        let mut chosen = BTreeMap::from([("INITIAL_AGENT_MODE".to_string(), "agent".to_string())]);
        profile("codex", false).env(&mut chosen, None, false).unwrap();
        assert_eq!(chosen["INITIAL_AGENT_MODE"], "agent");
        env.insert("CODEX_CONFIG".into(), "[1]".into());
        assert!(profile("codex", true).env(&mut env, None, false).is_err());
    }
}
