//! The ACP backend's own part of the session config: which agent it is (its name, the arguments
//! it was given, the force-local profile that closes it), how Tether's tools reach it (the MCP
//! bridge the driver runs), where launch files go, and the user's overrides.

use crate::config::json::{string_map, JsonObject};
use std::collections::BTreeMap;

/// The keys of [`AcpConfig`] in the JSON the driver passes.
pub const ACP_KEYS: [&str; 7] = [
    "agentName",
    "agentArgs",
    "profile",
    "bridge",
    "stateDir",
    "allowLocalTools",
    "replay",
];

#[derive(Clone, Debug, Default)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase", optional_fields))]
pub struct AcpConfig {
    /// What people call the agent ("Gemini CLI"), for messages.
    pub agent_name: Option<String>,
    /// The arguments the user gave the agent's command (its `tether.agents` entry).
    pub agent_args: Option<Vec<String>>,
    /// The known agent whose force-local switches apply (`claude-agent-acp`, `gemini`, `codex`);
    /// none for any other agent.
    pub profile: Option<String>,
    /// How the agent starts Tether's MCP server: the bridge process and its environment.
    pub bridge: Option<BridgeCommand>,
    /// A laptop folder of Tether's own for files the agent's launch names (settings).
    pub state_dir: Option<String>,
    /// Run an agent that cannot be closed on a remote workspace anyway (its tools that would act
    /// on the laptop are refused one by one).
    #[cfg_attr(test, ts(as = "Option<bool>"))]
    pub allow_local_tools: bool,
    /// When resuming: show the conversation the agent replays (a session picked from history).
    #[cfg_attr(test, ts(as = "Option<bool>"))]
    pub replay: bool,
}

/// A stdio MCP server for the agent to start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct BridgeCommand {
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
}

impl AcpConfig {
    /// The ACP keys of the config.
    pub fn from_object(config: &JsonObject) -> Result<AcpConfig, String> {
        let flag = |key: &str| match config.get(key) {
            None => Ok(false),
            Some(serde_json::Value::Bool(on)) => Ok(*on),
            Some(_) => Err(format!("`{key}` must be true or false")),
        };
        let bridge = match config.get("bridge") {
            None => None,
            Some(value) => {
                let bridge = JsonObject::new(value, "bridge", &["command", "args", "env"])?;
                Some(BridgeCommand {
                    command: bridge.string("command")?,
                    args: bridge.opt_strings("args")?.unwrap_or_default(),
                    env: bridge
                        .get("env")
                        .map(|env| string_map(env, "bridge.env"))
                        .transpose()?
                        .unwrap_or_default(),
                })
            }
        };
        Ok(AcpConfig {
            agent_name: config.opt_string("agentName")?,
            agent_args: config.opt_strings("agentArgs")?,
            profile: config.opt_string("profile")?,
            bridge,
            state_dir: config.opt_string("stateDir")?,
            allow_local_tools: flag("allowLocalTools")?,
            replay: flag("replay")?,
        })
    }
}
