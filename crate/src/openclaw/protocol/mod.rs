//! The gateway's wire types, apart from what Tether does with them (as ACP's are in
//! `acp::protocol`): the frames and the handshake.
//!
//! - [`frame`]: the wire frames (`req`, `res`, `event`), parsed without panics.
//! - [`handshake`]: challenge, `connect` (client id/mode enums, device signature payload),
//!   `hello-ok` and its policy, refusals.

pub mod frame;
pub mod handshake;
