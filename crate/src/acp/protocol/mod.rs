//! The Agent Client Protocol (ACP), schema version 1, as data types for the client side: what
//! Tether sends an ACP agent and what it reads back. Types only — no transport, no behaviour; the
//! JSON-RPC envelope is the core's JSON-RPC peer's, and the session state machine the ACP
//! backend's.
//!
//! Split by concept, each module holding both directions of its methods:
//! - client → agent: [`initialize`], [`auth`] (`authenticate`, `logout`), [`session`] (`new`,
//!   `load`, `resume`, `list`, `close`, `delete`, unstable `fork`, legacy `set_model`), [`modes`]
//!   (`set_mode`),
//!   [`config`] (`set_config_option`), [`prompt`] (`prompt`, the `cancel` notification);
//! - agent → client: [`permission`] (`session/request_permission`), [`fs`], [`terminal`],
//!   [`elicitation`], [`mcp_over_acp`] (unstable); the `session/update` notification in
//!   [`update`]; read by method in [`dispatch`];
//! - shared pieces: [`content`] blocks, [`tool_call`]s, [`plan`]s, [`capabilities`],
//!   [`mcp_server`]s, and [`rpc`] (request ids, `$/cancel_request`, error codes).
//!
//! Reading is lenient ([`lenient`]): unknown fields are ignored, a field of the wrong shape takes
//! its default, lists drop unreadable items, capabilities count when present, and unknown enum
//! values, content blocks and `session/update` kinds are kept as `Unknown`. Writing is exact:
//! camelCase names, absent options left out, and `Unknown` values written back as they came.

pub mod auth;
pub mod capabilities;
pub mod config;
pub mod content;
pub mod dispatch;
pub mod elicitation;
pub mod fs;
pub mod initialize;
pub mod lenient;
pub mod mcp_over_acp;
pub mod mcp_server;
pub mod modes;
pub mod permission;
pub mod plan;
pub mod prompt;
pub mod rpc;
pub mod session;
pub mod terminal;
pub mod tool_call;
pub mod update;

pub type ProtocolVersion = u16;

/// The stable protocol version this client speaks.
pub const PROTOCOL_VERSION: ProtocolVersion = 1;

/// A request type: its method name and the type of its result.
pub trait Request {
    const METHOD: &'static str;
    type Response;
}

/// A notification type: its method name.
pub trait Notification {
    const METHOD: &'static str;
}
