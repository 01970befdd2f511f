//! The config's low layer, which every backend reads its own part with: the JSON helpers that
//! read a config strictly ([`json`]: an unknown key or a value of the wrong type is refused with
//! a message that names it) and the part every backend shares ([`common`]). Which backends there
//! are, and the config that names one, is [`crate::registry`]'s.

pub mod common;
pub mod json;

pub use common::{parse_mode, CheckpointsConfig, CommonConfig, McpServerCommand, RemoteConfig};
