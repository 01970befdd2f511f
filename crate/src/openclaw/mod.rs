//! The OpenClaw gateway protocol (`openclaw@2026.9.6` speaks v4; the seed's notes describe v3),
//! client side and sans-IO: the host owns the WebSocket (the `ws` package), the clock and the
//! device key; this module turns frames into frames to send, [`crate::events::UiEvent`]s and
//! requests to the host. Facts: `shared/reference/openclaw-gateway-protocol.md`,
//! `openclaw-gateway-examples.md`, `openclaw-node-mode.md`.
//!
//! - [`frame`]: the wire frames (`req`, `res`, `event`), parsed without panics.
//! - [`handshake`]: challenge, `connect` (client id/mode enums, device signature payload),
//!   `hello-ok` and its policy, refusals.
//! - [`pending`], [`sequence`]: requests awaiting answers (timeouts), frame `seq` checks.
//! - [`reconnect`]: the backoff as a pure function.
//! - [`connection`]: one connection's life, composed of the above.
//! - [`chat`], [`history`]: `chat`/`agent` events as UI events; resync from `chat.history`.
//! - [`node`]: node mode (`node.invoke.request` / `node.invoke.result`).
//! - [`client`]: what a backend drives: connection + mapping + resync + node.
//! - [`json`]: the client's options, outputs and node replies as JSON, for hosts that are not
//!   Rust (the test bridge now; the wasm boundary with the backend).

pub mod chat;
pub mod client;
pub mod connection;
pub mod frame;
pub mod handshake;
pub mod history;
pub mod json;
pub mod node;
pub mod pending;
pub mod reconnect;
pub mod sequence;

pub use client::{ClientOutput, OpenClawClient};
