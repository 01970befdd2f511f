//! A multi-root workspace with an ACP agent: the other folders go into `session/new` as
//! `additionalDirectories` (by the path the agent knows them: their mirrors on a remote) when the
//! agent advertises them, and a notice says so when it does not.

mod acp_support;

use acp_support::*;
use serde_json::json;
use tether_core::acp::AcpBackend;
use tether_core::agent::Agent;
use tether_core::config::{CommonConfig, FolderConfig};
use tether_core::native::NativeHost;

/// A session in one folder with a second one (kept alive by the caller).
fn two_folder_session(remote: bool) -> (Session, String, TempWorkspace) {
    let ws = TempWorkspace::new();
    let second = TempWorkspace::new();
    let mirror = remote.then(|| format!("{}-mirror", ws.root()));
    let second_path = if remote {
        format!("{}-mirror", second.root())
    } else {
        second.root().to_string()
    };
    let common = CommonConfig {
        root: ws.root().to_string(),
        mirror: mirror.clone(),
        home_dir: "/home/tester".into(),
        additional_folders: Some(vec![FolderConfig {
            root: second.root().to_string(),
            mirror: remote.then(|| second_path.clone()),
        }]),
        ..CommonConfig::default()
    };
    let acp = config(Some("claude-agent-acp"));
    let agent = Agent::new(NativeHost::new(), common, |context| {
        AcpBackend::new(context, acp).map(Box::new)
    })
    .unwrap();
    (Session { ws, agent, mirror }, second_path, second)
}

#[test]
fn the_other_folders_are_additional_directories_where_the_agent_takes_them() {
    let (s, second, _folder) = two_folder_session(true);
    let mut caps = claude_caps();
    caps["agentCapabilities"]["sessionCapabilities"]["additionalDirectories"] = json!({});
    let (messages, _) = open(&s, caps);
    let new = request(&messages, "session/new");
    assert_eq!(new["params"]["additionalDirectories"], json!([second]));
}

#[test]
fn an_agent_without_additional_directories_gets_none_and_the_user_is_told() {
    let (s, second, _folder) = two_folder_session(false);
    let (messages, outputs) = open(&s, claude_caps());
    let new = request(&messages, "session/new");
    assert!(new["params"].get("additionalDirectories").is_none());
    let shown = events(&outputs);
    assert!(
        shown
            .iter()
            .any(|e| e["type"] == "error" && e["message"].as_str().unwrap_or("").contains(&second)),
        "{shown:?}"
    );
}
