//! Claude Code and the chat's user messages: each prompt carries a transcript uuid made from the
//! message's id, and a fork at a message starts the CLI with its fork options.

mod common;

use common::sent;
use futures::executor::block_on;
use serde_json::{json, Value};
use tether_core::agent::Agent;
use tether_core::backend::Backend;
use tether_core::native::NativeHost;
use tether_core::registry::AgentConfig;

fn agent(config: Value) -> Agent<NativeHost, dyn Backend> {
    let AgentConfig { common, backend } = AgentConfig::from_json(&config).unwrap();
    Agent::new(NativeHost::new(), common, |context| backend.create(context)).unwrap()
}

#[test]
fn a_fork_at_a_message_resumes_with_the_clis_fork_options() {
    let agent = agent(json!({
        "backend": "claude", "root": "/w", "homeDir": "/h", "resume": "s1", "forkSession": true, "resumeSessionAt": "a-uuid"
    }));
    let args = agent.launch(Vec::new()).args;
    let at = args.iter().position(|a| a == "--resume=s1").expect("resumes");
    assert_eq!(&args[at + 1..at + 3], ["--fork-session", "--resume-session-at=a-uuid"]);
}

#[test]
fn a_prompt_carries_the_transcript_uuid_made_from_the_chats_message_id() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_string_lossy().into_owned();
    let agent = agent(json!({"backend": "claude", "root": root, "homeDir": root}));
    block_on(agent.begin_message("user-1764230000000"));
    let first = sent(&agent.prompt("hello", &[]));
    assert_eq!(first[0]["uuid"], "7e7e7e7e-0000-4000-8000-019ac44d6d80");
    // A prompt with no message id of its own carries none.
    let second = sent(&agent.prompt("again", &[]));
    assert!(second[0].get("uuid").is_none());
}
