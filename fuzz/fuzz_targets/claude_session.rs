//! The Claude Code session (stream-json reading, the control protocol, the event mapping, MCP over
//! `mcp_message`, the permission gate and the tools) fed any lines as if the CLI wrote them:
//! nothing panics, and whatever goes back to the CLI is one JSON object per message. The session's
//! first messages (`Agent::start`: the settings and `initialize` with the whole tool manifest) take
//! no input and would make each run five times slower, so the lines meet a session that has not
//! sent them; the manifest is still made when a line asks for the tool list.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tether_core::agent::Agent;
use tether_core::backend::SessionOp;
use tether_core::claude::{ClaudeBackend, ClaudeConfig};
use tether_fuzz::{assert_sends_json_objects as check, run, session_config, text_lines, MemoryHost};

fuzz_target!(|data: &[u8]| {
    let agent = Agent::new(MemoryHost::with_sample_workspace(), session_config(), |context| {
        Ok(Box::new(ClaudeBackend::new(context, ClaudeConfig::default())))
    })
    .expect("agent");
    check(&agent.prompt("fuzz", &[]));
    for line in text_lines(data) {
        check(&run(agent.on_message(&line)));
    }
    check(&agent.operate(SessionOp::Interrupt).unwrap());
});
