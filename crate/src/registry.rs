//! The backends Tether knows, and the one place each is named: the config the driver passes to
//! make an agent, a common part every backend shares ([`CommonConfig`]) and the part of the
//! backend it names (`backend: "claude"` and Claude Code's own keys), read strictly (an unknown
//! key or a value of the wrong type is refused with a message that names it); and the backend
//! made from it. Above the backends (each is a folder that knows nothing of the others), beside
//! [`crate::agent`]. Adding a backend: its folder, and one entry in `backends!` below.

use crate::acp::{AcpBackend, AcpConfig, ACP_KEYS};
use crate::backend::{AgentProgram, Backend, SessionContext};
use crate::claude::{ClaudeBackend, ClaudeConfig, CLAUDE_KEYS};
use crate::config::common::{CommonConfig, COMMON_KEYS};
use crate::config::json::JsonObject;
use crate::openclaw::{OpenClawBackend, OpenClawConfig, OPENCLAW_KEYS};
use serde_json::Value;

/// How the driver reaches a backend's agent.
pub enum Reach {
    /// It starts the agent's program and speaks over its stdio.
    Program(AgentProgram),
    /// The core connects to the agent itself (no program), asking the driver for sockets.
    Connected { display_name: &'static str },
}

/// One entry a backend: its variant of [`BackendConfig`] (its doc, its config type), its name in
/// the config, the keys its config adds, how it is reached and how it is made.
macro_rules! backends {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident($config:ty) = $name:literal, $keys:expr, $reach:expr, $create:expr;
    )+) => {
        /// The backend a session runs, with its own part of the config.
        // Made once per session; boxing the larger part would buy nothing.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug)]
        #[cfg_attr(test, derive(ts_rs::TS), ts(tag = "backend", rename_all = "lowercase"))]
        pub enum BackendConfig {
            $($(#[doc = $doc])* $variant($config),)+
        }

        /// Every backend by the name the config gives it, with how the driver reaches it.
        pub const BACKENDS: &[(&str, Reach)] = &[$(($name, $reach),)+];

        /// The config of the backend `name` (with the common keys); None for a name no backend
        /// has.
        fn read_backend(name: &str, value: &Value) -> Option<Result<AgentConfig, String>> {
            match name {
                $($name => Some(read(value, &$keys, |config| {
                    Ok(BackendConfig::$variant(<$config>::from_object(config)?))
                })),)+
                _ => None,
            }
        }

        impl BackendConfig {
            /// The backend, made for the session `context` describes.
            pub fn create(self, context: &SessionContext) -> Result<Box<dyn Backend>, String> {
                match self {
                    $(BackendConfig::$variant(config) => {
                        let create: fn(&SessionContext, $config) -> Result<Box<dyn Backend>, String> = $create;
                        create(context, config)
                    })+
                }
            }
        }
    };
}

backends! {
    /// Claude Code (its CLI over stream-json).
    Claude(ClaudeConfig) = "claude", CLAUDE_KEYS, Reach::Program(crate::claude::PROGRAM),
        |context, config| Ok(Box::new(ClaudeBackend::new(context, config)));
    /// Any ACP agent (JSON-RPC over its stdio).
    Acp(AcpConfig) = "acp", ACP_KEYS, Reach::Program(crate::acp::PROGRAM),
        |context, config| Ok(Box::new(AcpBackend::new(context, config)?));
    /// An OpenClaw gateway (its WebSocket protocol; no program to start).
    Openclaw(OpenClawConfig) = "openclaw", OPENCLAW_KEYS, Reach::Connected { display_name: "OpenClaw" },
        |context, config| Ok(Box::new(OpenClawBackend::new(context, config)));
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

/// The backends' names, for messages.
fn backend_names() -> String {
    let names: Vec<&str> = BACKENDS.iter().map(|(name, _)| *name).collect();
    names.join(", ")
}

impl AgentConfig {
    pub fn from_json(value: &Value) -> Result<AgentConfig, String> {
        let backend = match value.get("backend") {
            None | Some(Value::Null) => return Err(format!("`backend` is missing; use one of {}", backend_names())),
            Some(Value::String(name)) => name.as_str(),
            Some(_) => return Err("`backend` must be a string".into()),
        };
        read_backend(backend, value)
            .unwrap_or_else(|| Err(format!("unknown backend {backend:?}; use one of {}", backend_names())))
    }
}

/// The config of a backend whose own keys are `own_keys`, its own part read by `backend`.
fn read(
    value: &Value,
    own_keys: &[&str],
    backend: impl FnOnce(&JsonObject) -> Result<BackendConfig, String>,
) -> Result<AgentConfig, String> {
    let mut known: Vec<&str> = vec!["backend"];
    known.extend(COMMON_KEYS);
    known.extend(own_keys);
    let config = JsonObject::new(value, "the config", &known)?;
    Ok(AgentConfig {
        common: CommonConfig::from_object(&config)?,
        backend: backend(&config)?,
    })
}
