//! The OpenClaw gateway protocol (`openclaw@2026.9.6` speaks v4; the seed's notes describe v3),
//! client side and sans-IO: the host owns the WebSocket (the `ws` package), the clock and the
//! device key; this module turns frames into frames to send, [`crate::events::UiEvent`]s and
//! requests to the host. Facts: `shared/reference/openclaw-gateway-protocol.md`,
//! `openclaw-gateway-examples.md`, `openclaw-node-mode.md`.
//!
//! - [`protocol`]: the wire types: the frames (`req`, `res`, `event`), parsed without panics, and
//!   the handshake (challenge, `connect`, the device signature payload, `hello-ok` and its
//!   policy, refusals).
//! - [`pending`], [`sequence`]: requests awaiting answers (timeouts), frame `seq` checks.
//! - [`reconnect`]: the backoff as a pure function.
//! - [`connection`]: one connection's life, composed of the above.
//! - [`chat`], [`history`]: `chat`/`agent` events as UI events; resync from `chat.history`.
//! - [`node`]: node mode (`node.invoke.request` / `node.invoke.result`).
//! - [`client`]: connection + mapping + resync + sends that survive a reconnect + node.
//! - [`backend`]: the backend seam's side: the operator and node clients, sessions, pairing,
//!   [`workspace_node`] (node commands behind Tether's gate), [`pairing`] (the node's pairing in
//!   one question), [`canvas`]; [`config`].

mod backend;
pub mod canvas;
pub mod chat;
pub mod client;
mod config;
pub mod connection;
pub mod history;
pub mod node;
pub mod pairing;
pub mod pending;
pub mod protocol;
pub mod reconnect;
pub mod sequence;
pub mod workspace_node;

pub use backend::{OpenClawBackend, GATEWAY, NODE};
pub use client::{ClientOutput, OpenClawClient};
pub use config::{BackoffConfig, DeviceConfig, NodeConfig, OpenClawConfig, OPENCLAW_KEYS};
