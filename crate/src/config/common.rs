//! The part of the session's config every backend shares: the workspace, the permission mode and
//! settings, the model, the session to resume, the agent's environment, and what the model is
//! told about the machine the workspace is on.

use super::json::{string_map, JsonObject};
use crate::permissions::PermissionMode;
use std::collections::BTreeMap;

/// The keys of [`CommonConfig`] in the JSON the driver passes.
pub const COMMON_KEYS: [&str; 11] = [
    "root",
    "mirror",
    "homeDir",
    "userSettings",
    "mode",
    "model",
    "resume",
    "env",
    "remote",
    "checkpoints",
    "mcpServers",
];

#[derive(Clone, Debug, Default)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase", optional_fields))]
pub struct CommonConfig {
    /// The workspace root (the remote path for a remote workspace).
    pub root: String,
    /// The agent's local working directory; paths under it map onto `root`.
    pub mirror: Option<String>,
    /// For `~/` in permission rules and commands.
    pub home_dir: String,
    /// The text of the user's `~/.claude/settings.json`, read by the driver.
    pub user_settings: Option<String>,
    /// A permission mode; when absent, the settings' `defaultMode` applies.
    #[cfg_attr(test, ts(as = "Option<PermissionMode>"))]
    pub mode: Option<String>,
    pub model: Option<String>,
    /// A session id to resume.
    pub resume: Option<String>,
    /// Extra environment for the agent's program (not for the commands the tools run).
    pub env: Option<BTreeMap<String, String>>,
    pub remote: Option<RemoteConfig>,
    /// Where the before-images of the files Tether changes are kept (on the workspace side).
    pub checkpoints: Option<CheckpointsConfig>,
    /// More stdio MCP servers for the agent, beside Tether's own tools (the IDE tools' bridge).
    pub mcp_servers: Option<Vec<McpServerCommand>>,
}

/// A stdio MCP server the agent starts: its name (the model sees its tools as
/// `mcp__<name>__<tool>`), its program and arguments, and its environment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct McpServerCommand {
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
}

/// The session's checkpoint folder and its retention.
#[derive(Clone, Debug, Default)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase"))]
pub struct CheckpointsConfig {
    /// An absolute folder on the workspace's file system, this session's own.
    pub dir: String,
    /// The checkpoints of at most this many user messages are kept, the oldest dropped first.
    pub keep_messages: u32,
}

/// What the model is told about the machine the workspace is on.
#[derive(Clone, Debug, Default)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase", optional_fields))]
pub struct RemoteConfig {
    pub os: Option<String>,
    pub shell: Option<String>,
    pub git_branch: Option<String>,
}

impl CommonConfig {
    /// The common keys of `config` (read by the caller, which knows the backend's keys too).
    pub fn from_object(config: &JsonObject) -> Result<CommonConfig, String> {
        let remote = match config.get("remote") {
            None => None,
            Some(remote) => {
                let remote = JsonObject::new(remote, "remote", &["os", "shell", "gitBranch"])?;
                Some(RemoteConfig {
                    os: remote.opt_string("os")?,
                    shell: remote.opt_string("shell")?,
                    git_branch: remote.opt_string("gitBranch")?,
                })
            }
        };
        let checkpoints = match config.get("checkpoints") {
            None => None,
            Some(value) => {
                let object = JsonObject::new(value, "checkpoints", &["dir", "keepMessages"])?;
                let keep_messages = match object.get("keepMessages").map(|v| v.as_u64()) {
                    None => 100,
                    Some(Some(n)) if n >= 1 => u32::try_from(n).unwrap_or(u32::MAX),
                    Some(_) => return Err("`checkpoints.keepMessages` must be a whole number of at least 1".into()),
                };
                Some(CheckpointsConfig {
                    dir: object.string("dir")?,
                    keep_messages,
                })
            }
        };
        let mcp_servers = config.get("mcpServers").map(mcp_servers).transpose()?;
        Ok(CommonConfig {
            checkpoints,
            mcp_servers,
            root: config.string("root")?,
            mirror: config.opt_string("mirror")?,
            home_dir: config.string("homeDir")?,
            user_settings: config.opt_string("userSettings")?,
            mode: config.opt_string("mode")?,
            model: config.opt_string("model")?,
            resume: config.opt_string("resume")?,
            env: config.get("env").map(|env| string_map(env, "env")).transpose()?,
            remote,
        })
    }

    /// The configured mode; an unknown one is refused.
    pub fn permission_mode(&self) -> Result<Option<PermissionMode>, String> {
        self.mode.as_deref().map(parse_mode).transpose()
    }
}

/// `mcpServers`: `[{name, command, args?, env?}]`, each name used once and not Tether's own.
fn mcp_servers(value: &serde_json::Value) -> Result<Vec<McpServerCommand>, String> {
    let Some(items) = value.as_array() else {
        return Err("`mcpServers` must be a list of {name, command, args, env}".into());
    };
    let mut servers: Vec<McpServerCommand> = Vec::with_capacity(items.len());
    for item in items {
        let object = JsonObject::new(item, "an mcpServers entry", &["name", "command", "args", "env"])?;
        let server = McpServerCommand {
            name: object.string("name")?,
            command: object.string("command")?,
            args: object.opt_strings("args")?.unwrap_or_default(),
            env: object
                .get("env")
                .map(|env| string_map(env, "mcpServers.env"))
                .transpose()?
                .unwrap_or_default(),
        };
        if server.name == crate::mcp::SERVER_NAME || servers.iter().any(|s| s.name == server.name) {
            return Err(format!("the MCP server name {:?} is taken", server.name));
        }
        servers.push(server);
    }
    Ok(servers)
}

/// A permission mode by name, or an error that lists them.
pub fn parse_mode(text: &str) -> Result<PermissionMode, String> {
    PermissionMode::parse(text).ok_or_else(|| {
        let names: Vec<&str> = PermissionMode::ALL.iter().map(|m| m.as_str()).collect();
        format!("unknown permission mode {text:?}; use one of {}", names.join(", "))
    })
}
