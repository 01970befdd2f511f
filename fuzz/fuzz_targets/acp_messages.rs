//! ACP messages as the client reads them: the JSON-RPC envelope, then every agent request and
//! notification by method (`session/update`, `fs/*`, `terminal/*`, permission, elicitation, MCP
//! over ACP). Reading is lenient by design; what is read must write back as JSON. The backend
//! that acts on them is `acp_session`'s target.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tether_core::acp::protocol::dispatch::{AgentNotification, AgentRequest};
use tether_core::rpc::{self, Message};
use tether_fuzz::text_lines;

fuzz_target!(|data: &[u8]| {
    for line in text_lines(data) {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        match rpc::parse(value) {
            Ok(Message::Request { method, params, .. }) => {
                if let Ok(request) = AgentRequest::parse(&method, params) {
                    let _ = request.session_id();
                    let _ = format!("{request:?}");
                }
            }
            Ok(Message::Notification { method, params }) => {
                let _ = AgentNotification::parse(&method, params).map(|n| format!("{n:?}"));
            }
            Ok(Message::Response { .. }) | Err(_) => {}
        }
    }
});
