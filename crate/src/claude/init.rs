//! The `initialize` request Tether sends first: the in-process MCP server and its manifest, the
//! guard hook, read-only redefinitions of the Explore and Plan agents, and a system prompt
//! addition that tells the model where the files really are.

use super::guard::{GUARD_CALLBACK_ID, READ_ONLY_TETHER_TOOLS};
use super::protocol::{AgentDefinition, HookMatcher, InitializeRequest, McpManifest};
use super::SERVER_NAME;
use crate::hooks::HookEvent;
use crate::mcp::MCP_PREFIX;
use std::collections::{BTreeMap, BTreeSet};

/// Where the tools act: the remote workspace, not the CLI's local (mirror) working directory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RemoteEnvironment {
    /// The workspace root on the remote machine.
    pub cwd: String,
    /// As the model should read it, e.g. "Linux 6.8 (x86_64)".
    pub os: String,
    /// e.g. "bash".
    pub shell: String,
    pub git_branch: Option<String>,
}

/// The Tether tools the prompt names, in the order the model is used to.
const TETHER_TOOL_NAMES: &[&str] = &crate::tools::TOOL_NAMES;

pub fn initialize_request(
    manifest: McpManifest,
    env: &RemoteEnvironment,
    extra_system_prompt: Option<&str>,
    project_agents: &BTreeMap<String, AgentDefinition>,
    // Whether the project's hooks are registered, and for which events when known (see
    // `project_hooks::registered_events`).
    project_hooks: bool,
    project_hook_events: Option<&BTreeSet<HookEvent>>,
) -> InitializeRequest {
    let mut append = system_prompt_append(env);
    if let Some(extra) = extra_system_prompt.filter(|e| !e.trim().is_empty()) {
        append.push_str("\n\n");
        append.push_str(extra);
    }
    InitializeRequest {
        sdk_mcp_servers: vec![SERVER_NAME.to_string()],
        sdk_mcp_server_manifests: BTreeMap::from([(SERVER_NAME.to_string(), manifest)]),
        hooks: {
            let mut hooks = BTreeMap::from([(
                "PreToolUse".to_string(),
                vec![HookMatcher {
                    matcher: Some(".*".into()),
                    hook_callback_ids: vec![GUARD_CALLBACK_ID.into()],
                    timeout: None,
                }],
            )]);
            let events = super::project_hooks::registered_events(project_hooks, project_hook_events);
            for (event, matcher) in super::project_hooks::registrations(&events) {
                hooks.entry(event).or_default().push(matcher);
            }
            hooks
        },
        append_system_prompt: Some(append),
        agents: {
            // Tether's Explore and Plan stay read-only: a project agent of the same name does
            // not replace them (the guard keys its read-only rule on those names).
            let mut agents = read_only_agents(env);
            for (name, agent) in project_agents {
                agents.entry(name.clone()).or_insert_with(|| agent.clone());
            }
            agents
        },
        // A built-in name the model emits anyway (from a skill, a subagent's prompt, habit) runs
        // Tether's tool of that name instead of failing as disabled (measured with 2.1.330: in
        // the main agent and in subagents; Explore and Plan, which lack Tether's write and shell
        // tools, still get "No such tool" for Write or Bash). The request the model sees is
        // unchanged.
        tool_aliases: crate::sort::map_of(TETHER_TOOL_NAMES.iter().map(|name| (name.to_string(), tether(name)))),
    }
}

fn tether(name: &str) -> String {
    format!("{MCP_PREFIX}{name}")
}

pub fn system_prompt_append(env: &RemoteEnvironment) -> String {
    let tools = TETHER_TOOL_NAMES
        .iter()
        .map(|n| tether(n))
        .collect::<Vec<_>>()
        .join(", ");
    let branch = env
        .git_branch
        .as_deref()
        .map(|b| format!("\n- Git branch: {b}"))
        .unwrap_or_default();
    format!(
        "# Remote workspace (Tether)\n\
         The project's files are on another machine, reached through Tether:\n\
         - Working directory: {cwd}\n\
         - Platform: {os}\n\
         - Shell: {shell}{branch}\n\
         The \"Primary working directory\" named above is a local stand-in folder that holds none of the project's files; \
         use the working directory above for every path.\n\
         The built-in Read, Write, Edit, MultiEdit, NotebookEdit, Glob, Grep, LS and Bash tools are disabled. \
         Use the {MCP_PREFIX} tools instead ({tools}): they take the same input and behave the same way, \
         but act on the remote machine, and shell commands run there in the shell above. \
         Subagents get the same {MCP_PREFIX} tools; when you brief one, tell it to use them.",
        cwd = env.cwd,
        os = env.os,
        shell = env.shell,
    )
}

/// Explore and Plan, redefined with Tether's read-only tools. Left as they are, they would get
/// Tether's Write, Edit and Bash (their built-in exclusion list names only built-ins).
pub fn read_only_agents(env: &RemoteEnvironment) -> BTreeMap<String, AgentDefinition> {
    let tools: Vec<String> = READ_ONLY_TETHER_TOOLS.iter().map(|n| tether(n)).collect();
    let workspace = format!(
        "The codebase is in a remote workspace at {cwd} ({os}). You reach it only through the {MCP_PREFIX} tools; \
         there are no other file tools.",
        cwd = env.cwd,
        os = env.os
    );
    let guidelines = format!(
        "- Use {glob} for broad file pattern matching\n\
         - Use {grep} for searching file contents with regex\n\
         - Use {read} when you know the specific file path you need to read\n\
         - Use {ls} to list a directory",
        glob = tether("Glob"),
        grep = tether("Grep"),
        read = tether("Read"),
        ls = tether("LS"),
    );
    let read_only = |task: &str, role: &str| {
        format!(
            "=== CRITICAL: READ-ONLY MODE - NO FILE MODIFICATIONS ===\n\
             This is a READ-ONLY {task} task. You can only search and read: you have no tool that creates, modifies, \
             moves or deletes files or runs commands, and you must not try to change anything.\n\n\
             Your role is EXCLUSIVELY to {role}."
        )
    };
    let explore = AgentDefinition {
        description: "Fast read-only search agent for locating code. Use it to find files by pattern (eg. \"src/components/**/*.tsx\"), \
                      grep for symbols or keywords (eg. \"API endpoints\"), or answer \"where is X defined / which files reference Y.\" \
                      Do NOT use it for code review, design-doc auditing, cross-file consistency checks, or open-ended analysis. \
                      When calling, specify search breadth: \"quick\" for a single targeted lookup, \"medium\" for moderate exploration, \
                      or \"very thorough\" to search across multiple locations and naming conventions."
            .into(),
        prompt: format!(
            "You are a file search specialist for Claude Code, Anthropic's official CLI for Claude. You excel at thoroughly \
             navigating and exploring codebases.\n\n{workspace}\n\n{}\n\n\
             Your strengths:\n\
             - Rapidly finding files using glob patterns\n\
             - Searching code and text with powerful regex patterns\n\
             - Reading and analyzing file contents\n\n\
             Guidelines:\n{guidelines}\n\
             - Adapt your search approach based on the thoroughness level specified by the caller\n\
             - Communicate your final report directly as a regular message - do NOT attempt to create files\n\n\
             NOTE: You are meant to be a fast agent that returns output as quickly as possible. Make efficient use of your tools, \
             and wherever possible make several tool calls in parallel for searching and reading files.\n\n\
             Complete the user's search request efficiently and report your findings clearly.",
            read_only("exploration", "search and analyze existing code")
        ),
        tools: Some(tools.clone()),
        disallowed_tools: None,
        model: None,
    };
    let plan = AgentDefinition {
        description: "Software architect agent for designing implementation plans. Use this when you need to plan the implementation \
                      strategy for a task. Returns step-by-step plans, identifies critical files, and considers architectural trade-offs."
            .into(),
        prompt: format!(
            "You are a software architect and planning specialist for Claude Code. Your role is to explore the codebase and \
             design implementation plans.\n\n{workspace}\n\n{}\n\n\
             You will be provided with a set of requirements and optionally a perspective on how to approach the design process.\n\n\
             ## Your Process\n\n\
             1. **Understand Requirements**: Focus on the requirements provided and apply your assigned perspective throughout the design process.\n\n\
             2. **Explore Thoroughly**:\n\
             - Read any files provided to you in the initial prompt\n\
             - Find existing patterns and conventions\n{guidelines}\n\
             - Understand the current architecture, identify similar features as reference, and trace through relevant code paths\n\n\
             3. **Design Solution**: Create an implementation approach based on your assigned perspective; consider trade-offs and \
             architectural decisions; follow existing patterns where appropriate.\n\n\
             4. **Detail the Plan**: Provide a step-by-step implementation strategy, identify dependencies and sequencing, and \
             anticipate potential challenges.\n\n\
             ## Required Output\n\n\
             End your response with:\n\n\
             ### Critical Files for Implementation\n\
             List 3-5 files most critical for implementing this plan.\n\n\
             REMEMBER: You can ONLY explore and plan. You CANNOT and MUST NOT write, edit, or modify any files.",
            read_only("planning", "explore the codebase and design implementation plans")
        ),
        tools: Some(tools),
        disallowed_tools: None,
        model: None,
    };
    BTreeMap::from([("Explore".to_string(), explore), ("Plan".to_string(), plan)])
}
