//! The config the driver passes to make an agent: a common part every backend shares
//! ([`CommonConfig`]) and the part of the backend it names (`backend: "claude"` and Claude Code's
//! own keys). Read strictly ([`json`]): an unknown key or a value of the wrong type is refused with
//! a message that names it.

pub mod common;
pub mod json;

pub use common::{parse_mode, CommonConfig, RemoteConfig};

use crate::acp::{AcpBackend, AcpConfig, ACP_KEYS};
use crate::backend::{AgentProgram, Backend, SessionContext};
use crate::claude::{ClaudeBackend, ClaudeConfig, CLAUDE_KEYS};
use crate::openclaw::{OpenClawBackend, OpenClawConfig, OPENCLAW_KEYS};
use json::JsonObject;
use serde_json::Value;

/// The backend a session runs, with its own part of the config.
// Made once per session; boxing the larger part would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
#[cfg_attr(test, derive(ts_rs::TS), ts(tag = "backend", rename_all = "lowercase"))]
pub enum BackendConfig {
    /// Claude Code (its CLI over stream-json).
    Claude(ClaudeConfig),
    /// Any ACP agent (JSON-RPC over its stdio).
    Acp(AcpConfig),
    /// An OpenClaw gateway (its WebSocket protocol; no program to start).
    Openclaw(OpenClawConfig),
}

/// Everything that makes an agent (JS: `AgentConfig`).
#[derive(Clone, Debug)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AgentConfig {
    #[cfg_attr(test, ts(flatten))]
    pub common: CommonConfig,
    #[cfg_attr(test, ts(flatten))]
    pub backend: BackendConfig,
}

/// The backends by the name the config gives them, with the program the driver starts.
pub const BACKENDS: [(&str, AgentProgram); 2] = [("claude", crate::claude::PROGRAM), ("acp", crate::acp::PROGRAM)];

/// The backends the core connects to itself (no program to start), with their display names.
pub const CONNECTED_BACKENDS: [(&str, &str); 1] = [("openclaw", "OpenClaw")];

/// The backends' names, for messages.
fn backend_names() -> String {
    let names: Vec<&str> = BACKENDS
        .iter()
        .map(|(name, _)| *name)
        .chain(CONNECTED_BACKENDS.iter().map(|(name, _)| *name))
        .collect();
    names.join(", ")
}

impl AgentConfig {
    pub fn from_json(value: &Value) -> Result<AgentConfig, String> {
        let backend = match value.get("backend") {
            None | Some(Value::Null) => return Err(format!("`backend` is missing; use one of {}", backend_names())),
            Some(Value::String(name)) => name.as_str(),
            Some(_) => return Err("`backend` must be a string".into()),
        };
        match backend {
            "claude" => {
                let config = JsonObject::new(value, "the config", &known_keys(&CLAUDE_KEYS))?;
                Ok(AgentConfig {
                    common: CommonConfig::from_object(&config)?,
                    backend: BackendConfig::Claude(ClaudeConfig::from_object(&config)?),
                })
            }
            "acp" => {
                let config = JsonObject::new(value, "the config", &known_keys(&ACP_KEYS))?;
                Ok(AgentConfig {
                    common: CommonConfig::from_object(&config)?,
                    backend: BackendConfig::Acp(AcpConfig::from_object(&config)?),
                })
            }
            "openclaw" => {
                let config = JsonObject::new(value, "the config", &known_keys(&OPENCLAW_KEYS))?;
                Ok(AgentConfig {
                    common: CommonConfig::from_object(&config)?,
                    backend: BackendConfig::Openclaw(OpenClawConfig::from_object(&config)?),
                })
            }
            other => Err(format!("unknown backend {other:?}; use one of {}", backend_names())),
        }
    }
}

/// The keys a config for a backend with `own_keys` may have.
fn known_keys<'a>(own_keys: &[&'a str]) -> Vec<&'a str> {
    let mut known: Vec<&str> = vec!["backend"];
    known.extend(common::COMMON_KEYS);
    known.extend(own_keys);
    known
}

impl BackendConfig {
    /// The backend, made for the session `context` describes.
    pub fn create(self, context: &SessionContext) -> Result<Box<dyn Backend>, String> {
        match self {
            BackendConfig::Claude(config) => Ok(Box::new(ClaudeBackend::new(context, config))),
            BackendConfig::Acp(config) => Ok(Box::new(AcpBackend::new(context, config)?)),
            BackendConfig::Openclaw(config) => Ok(Box::new(OpenClawBackend::new(context, config))),
        }
    }
}
