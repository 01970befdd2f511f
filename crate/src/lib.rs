//! tether-core: the proxied tool suite, the MCP server that serves it, path mapping, the coherent
//! file cache and diffs, the permission gate, and one agent session over a backend seam
//! ([`agent::Agent`], [`backend::Backend`]). I/O-free logic generic over [`host::Host`]; the
//! wasm-bindgen boundary lives in `wasm/` alone.

pub mod acp;
pub mod agent;
pub mod backend;
mod bytes;
pub mod cache;
pub mod claude;
pub mod config;
pub mod diff;
pub mod events;
pub mod framing;
pub mod gate;
pub mod hooks;
pub mod host;
pub mod id_table;
pub mod json;
pub mod mcp;
pub mod openclaw;
pub mod paths;
pub mod permissions;
pub mod project;
pub mod registry;
pub mod rpc;
pub mod sort;
pub mod tools;

#[cfg(test)]
mod typescript;

#[cfg(not(target_arch = "wasm32"))]
pub mod native;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
