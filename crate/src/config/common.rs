//! The part of the session's config every backend shares: the workspace, the permission mode and
//! settings, the model, the session to resume, the agent's environment, and what the model is
//! told about the machine the workspace is on.

use super::json::{string_map, JsonObject};
use super::mcp::McpServerEntry;
use crate::permissions::PermissionMode;
use std::collections::BTreeMap;

/// The keys of [`CommonConfig`] in the JSON the driver passes.
pub const COMMON_KEYS: [&str; 13] = [
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
    "additionalFolders",
    "hooks",
];

#[derive(Clone, Debug, Default)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase", optional_fields))]
pub struct CommonConfig {
    /// The workspace root (the remote path for a remote workspace).
    pub root: String,
    /// The agent's local working directory; paths under it map onto `root`.
    pub mirror: Option<String>,
    /// The workspace's other folders, offered to the agent as additional directories.
    pub additional_folders: Option<Vec<FolderConfig>>,
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
    /// The project's MCP servers the agent is given besides Tether's own (`config/mcp.rs`).
    pub mcp_servers: Option<Vec<McpServerEntry>>,
    /// Whose hooks Tether runs on the workspace; absent: the project's, not the user's.
    pub hooks: Option<HooksConfig>,
}

/// One more folder of the workspace: its root, and the mirror the agent knows it by on a remote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase", optional_fields))]
pub struct FolderConfig {
    pub root: String,
    pub mirror: Option<String>,
}

impl FolderConfig {
    /// The folder as the agent sees it: its mirror on a remote, else the folder itself.
    pub fn agent_path(&self) -> &str {
        self.mirror.as_deref().unwrap_or(&self.root)
    }
}

/// Whose hooks Tether runs (on the workspace, for every backend).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase"))]
pub struct HooksConfig {
    /// The workspace's `.claude/settings.json` and `.claude/settings.local.json`.
    pub project: bool,
    /// The user's `~/.claude/settings.json` (the `userSettings` text).
    pub user: bool,
    /// The events those settings have hooks for, when the host read them before the start
    /// (`hookEvents`): an agent that fires hooks through Tether is asked for these only. Absent:
    /// every event (a change to the settings restarts the session, so the list stays true).
    #[cfg_attr(test, ts(optional))]
    pub events: Option<Vec<String>>,
}

impl Default for HooksConfig {
    fn default() -> HooksConfig {
        HooksConfig {
            project: true,
            user: false,
            events: None,
        }
    }
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
        let additional_folders = match config.get("additionalFolders") {
            None => None,
            Some(serde_json::Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|item| {
                        let folder = JsonObject::new(item, "an additionalFolders entry", &["root", "mirror"])?;
                        Ok(FolderConfig {
                            root: folder.string("root")?,
                            mirror: folder.opt_string("mirror")?,
                        })
                    })
                    .collect::<Result<Vec<_>, String>>()?,
            ),
            Some(_) => return Err("`additionalFolders` must be a list of {root, mirror?}".into()),
        };
        let hooks = match config.get("hooks") {
            None => None,
            Some(value) => {
                let object = JsonObject::new(value, "hooks", &["project", "user", "events"])?;
                let flag = |name: &str, default: bool| match object.get(name) {
                    None => Ok(default),
                    Some(serde_json::Value::Bool(on)) => Ok(*on),
                    Some(_) => Err(format!("`hooks.{name}` must be true or false")),
                };
                let events = match object.get("events") {
                    None => None,
                    Some(serde_json::Value::Array(names)) => Some(
                        names
                            .iter()
                            .map(|name| name.as_str().map(str::to_string))
                            .collect::<Option<Vec<_>>>()
                            .ok_or("`hooks.events` must be a list of event names")?,
                    ),
                    Some(_) => return Err("`hooks.events` must be a list of event names".into()),
                };
                Some(HooksConfig {
                    project: flag("project", true)?,
                    user: flag("user", false)?,
                    events,
                })
            }
        };
        Ok(CommonConfig {
            checkpoints,
            additional_folders,
            hooks,
            root: config.string("root")?,
            mirror: config.opt_string("mirror")?,
            home_dir: config.string("homeDir")?,
            user_settings: config.opt_string("userSettings")?,
            mode: config.opt_string("mode")?,
            model: config.opt_string("model")?,
            resume: config.opt_string("resume")?,
            env: config.get("env").map(|env| string_map(env, "env")).transpose()?,
            remote,
            mcp_servers: config.get("mcpServers").map(super::mcp::entries).transpose()?,
        })
    }

    /// The configured mode; an unknown one is refused.
    pub fn permission_mode(&self) -> Result<Option<PermissionMode>, String> {
        self.mode.as_deref().map(parse_mode).transpose()
    }
}

/// A permission mode by name, or an error that lists them.
pub fn parse_mode(text: &str) -> Result<PermissionMode, String> {
    PermissionMode::parse(text).ok_or_else(|| {
        let names: Vec<&str> = PermissionMode::ALL.iter().map(|m| m.as_str()).collect();
        format!("unknown permission mode {text:?}; use one of {}", names.join(", "))
    })
}
