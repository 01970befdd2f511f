//! The ACP backend behind the agent (the session's state machine, its updates mapped to events,
//! `fs/*` and `terminal/*` served on the workspace behind the gate, permission questions, MCP over
//! ACP) fed any lines as if the agent wrote them, after Tether's `initialize`: nothing panics, and
//! whatever goes back to the agent is one JSON object per message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tether_core::acp::{AcpBackend, AcpConfig};
use tether_core::agent::Agent;
use tether_core::backend::SessionOp;
use tether_fuzz::{assert_sends_json_objects as check, run, session_config, text_lines, MemoryHost};

fuzz_target!(|data: &[u8]| {
    let agent = Agent::new(MemoryHost::with_sample_workspace(), session_config(), |context| {
        AcpBackend::new(context, AcpConfig::default()).map(Box::new)
    })
    .expect("agent");
    check(&run(agent.start()));
    check(&agent.prompt("fuzz", &[]));
    for line in text_lines(data) {
        check(&run(agent.on_message(&line)));
    }
    check(&agent.operate(SessionOp::Interrupt).unwrap());
});
