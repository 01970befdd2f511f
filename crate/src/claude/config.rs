//! Claude Code's own part of the session config: more system prompt, the project's subagents,
//! and extra entries for the CLI's `--tools` and `--disallowedTools`.

use crate::config::json::JsonObject;

/// The keys of [`ClaudeConfig`] in the JSON the driver passes.
pub const CLAUDE_KEYS: [&str; 8] = [
    "extraSystemPrompt",
    "agentFiles",
    "allowedTools",
    "disallowedTools",
    "forkSession",
    "resumeSessionAt",
    "pluginDirs",
    "outputStyle",
];

#[derive(Clone, Debug, Default)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase", optional_fields))]
pub struct ClaudeConfig {
    /// More system prompt, e.g. the remote project's CLAUDE.md.
    pub extra_system_prompt: Option<String>,
    /// The project's `.claude/agents/*.md` files, read by the driver: offered to the model as
    /// subagents.
    pub agent_files: Option<Vec<AgentFile>>,
    /// Extra built-ins for `--tools`.
    pub allowed_tools: Option<Vec<String>>,
    /// Extra entries for `--disallowedTools`.
    pub disallowed_tools: Option<Vec<String>>,
    /// Resume as a new session (`--fork-session`), the conversation it resumes left as it was.
    pub fork_session: Option<bool>,
    /// Resume only up to this message of the transcript (its uuid; `--resume-session-at`).
    pub resume_session_at: Option<String>,
    /// Plugin folders for `--plugin-dir`: a remote project's mirrored skills and output styles.
    pub plugin_dirs: Option<Vec<String>>,
    /// The output style by the name the CLI knows it (`project:<name>` for a mirrored one).
    pub output_style: Option<String>,
}

/// One of the project's `.claude/agents/*.md` files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AgentFile {
    /// The file name (`reviewer.md`).
    pub name: String,
    pub text: String,
}

impl ClaudeConfig {
    /// Claude Code's keys of the config.
    pub fn from_object(config: &JsonObject) -> Result<ClaudeConfig, String> {
        Ok(ClaudeConfig {
            extra_system_prompt: config.opt_string("extraSystemPrompt")?,
            agent_files: config.get("agentFiles").map(agent_files).transpose()?,
            allowed_tools: config.opt_strings("allowedTools")?,
            disallowed_tools: config.opt_strings("disallowedTools")?,
            fork_session: match config.get("forkSession") {
                None => None,
                Some(serde_json::Value::Bool(fork)) => Some(*fork),
                Some(_) => return Err("`forkSession` must be a boolean".into()),
            },
            resume_session_at: config.opt_string("resumeSessionAt")?,
            plugin_dirs: config.opt_strings("pluginDirs")?,
            output_style: config.opt_string("outputStyle")?,
        })
    }
}

/// `agentFiles`: `[{name, text}]`.
fn agent_files(value: &serde_json::Value) -> Result<Vec<AgentFile>, String> {
    let Some(items) = value.as_array() else {
        return Err("agentFiles must be a list of {name, text}".to_string());
    };
    items
        .iter()
        .map(|item| {
            let file = JsonObject::new(item, "an agentFiles entry", &["name", "text"])?;
            Ok(AgentFile {
                name: file.string("name")?,
                text: file.string("text")?,
            })
        })
        .collect()
}
