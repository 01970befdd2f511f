//! The Claude Code session protocol: launch line, initialize, stdout → events, control requests
//! both ways, fed with real CLI lines (the reference examples and a recorded probe transcript).

use serde_json::{json, Value};
use std::path::PathBuf;
use tether_core::claude::init::RemoteEnvironment;
use tether_core::claude::launch::LaunchConfig;
use tether_core::claude::protocol::McpManifest;
use tether_core::claude::{Output, Session, SessionConfig};

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// The MCP manifest and environment the probe (tests/probe) runs with: one Read tool.
fn probe_config() -> SessionConfig {
    let manifest = McpManifest {
        initialize_result: json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": {"name": "tether", "version": "0.0.0-probe"}
        }),
        tools_list_result: json!({"tools": [{
            "name": "Read",
            "description": "Reads a file from the remote workspace.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "file_path": {"type": "string", "description": "The absolute path to the file to read"},
                    "offset": {"type": "number"},
                    "limit": {"type": "number"}
                },
                "required": ["file_path"]
            },
            "_meta": {"anthropic/alwaysLoad": true}
        }]}),
    };
    let environment = RemoteEnvironment {
        cwd: "/remote/project".into(),
        os: "Linux".into(),
        shell: "bash".into(),
        git_branch: Some("main".into()),
    };
    SessionConfig::new(manifest, environment)
}

fn write_lines(outputs: &[Output]) -> Vec<Value> {
    outputs
        .iter()
        .filter_map(|o| match o {
            Output::WriteLine(line) => Some(serde_json::from_str(line).expect("our lines are JSON")),
            _ => None,
        })
        .collect()
}

/// The launch the probe uses is exactly what the builder makes. `TETHER_UPDATE_FIXTURES=1`
/// rewrites the fixture after a deliberate change.
#[test]
fn probe_launch_fixture_matches_builder() {
    let launch = LaunchConfig::default().build(Vec::new());
    let mut session = Session::new(probe_config());
    let initialize = write_lines(&session.start()).remove(0);
    let fixture = json!({
        "args": launch.args,
        "env": launch.env,
        "removedEnv": tether_core::claude::launch::REMOVED_ENV,
        "initialize": initialize,
    });
    let path = fixture_path("claude-launch.json");
    let text = serde_json::to_string_pretty(&fixture).unwrap() + "\n";
    if std::env::var_os("TETHER_UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(recorded, fixture, "run with TETHER_UPDATE_FIXTURES=1 and rerun the probe");
}
