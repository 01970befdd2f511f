//! The ACP backend behind the agent (the session's state machine, its updates mapped to events,
//! `fs/*` and `terminal/*` served on the workspace behind the gate, permission questions, MCP over
//! ACP) fed any lines as if the agent wrote them, after Tether's `initialize`: nothing panics, and
//! whatever goes back to the agent is one JSON object per message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tether_core::acp::{AcpBackend, AcpConfig};
use tether_core::agent::{Agent, AgentOutput};
use tether_core::config::CommonConfig;
use tether_fuzz::{run, text_lines, MemoryHost, ROOT};

fn config() -> CommonConfig {
    CommonConfig {
        root: ROOT.into(),
        mirror: None,
        home_dir: "/home/user".into(),
        user_settings: None,
        mode: None,
        model: None,
        resume: None,
        env: None,
        remote: None,
    }
}

fn check(outputs: &[AgentOutput]) {
    for output in outputs {
        if let AgentOutput::Send { message } = output {
            let value: serde_json::Value = serde_json::from_str(message).expect("a message to the agent is JSON");
            assert!(value.is_object(), "{message}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let agent = Agent::new(MemoryHost::with_sample_workspace(), config(), |context| {
        AcpBackend::new(context, AcpConfig::default())
    })
    .expect("agent");
    check(&run(agent.start()));
    check(&agent.prompt("fuzz", &[]));
    for line in text_lines(data) {
        check(&run(agent.on_message(&line)));
    }
    check(&agent.interrupt());
});
