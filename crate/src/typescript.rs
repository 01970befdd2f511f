//! The TypeScript side of the types that cross the wasm boundary, generated from the Rust types
//! (ts-rs, derived under `cfg(test)` so nothing of it reaches the wasm) into one checked-in file
//! that the extension and the webview import. `cargo test` fails when the file differs from what
//! the types produce; `TETHER_UPDATE_GENERATED=1 cargo test -p tether-core --lib typescript`
//! rewrites it.

use crate::agent::{AgentConfig, AgentFile, AgentOutput, RemoteConfig, UserAnswer, UserDecision};
use crate::diff::Hunk;
use crate::events::{
    CommandInfo, EditReview, ErrorKind, Location, McpServerStatus, ModelOption, PermissionRequest, SessionState,
    Severity, TodoItem, ToolKind, UiEvent,
};
use crate::permissions::PermissionMode;
use std::path::PathBuf;
use ts_rs::{Config, TS};

/// Where the generated declarations live, from the crate's folder.
const GENERATED_FILE: &str = "../extension/src/generated/core.ts";

fn declaration<T: TS>(cfg: &Config) -> String {
    let doc = T::docs().map(|docs| format!("{docs}\n")).unwrap_or_default();
    // One union member a line, so a changed variant is a one-line diff.
    let decl = T::decl(cfg).replace("} | {", "}\n  | {");
    format!("{doc}export {decl}\n")
}

fn string_list(items: impl IntoIterator<Item = &'static str>) -> String {
    let quoted: Vec<String> = items.into_iter().map(|item| format!("{item:?}")).collect();
    format!("[{}]", quoted.join(", "))
}

/// The whole file: every type, then the constants the TypeScript side needs at run time.
fn generated() -> String {
    // JavaScript numbers carry every count and duration Tether sends.
    let cfg = Config::new().with_large_int("number");
    let declarations = [
        declaration::<serde_json::Value>(&cfg),
        declaration::<UiEvent>(&cfg),
        declaration::<ToolKind>(&cfg),
        declaration::<Location>(&cfg),
        declaration::<TodoItem>(&cfg),
        declaration::<PermissionRequest>(&cfg),
        declaration::<EditReview>(&cfg),
        declaration::<Hunk>(&cfg),
        declaration::<SessionState>(&cfg),
        declaration::<McpServerStatus>(&cfg),
        declaration::<ModelOption>(&cfg),
        declaration::<CommandInfo>(&cfg),
        declaration::<ErrorKind>(&cfg),
        declaration::<Severity>(&cfg),
        declaration::<AgentOutput>(&cfg),
        declaration::<AgentConfig>(&cfg),
        declaration::<AgentFile>(&cfg),
        declaration::<RemoteConfig>(&cfg),
        declaration::<PermissionMode>(&cfg),
        declaration::<UserAnswer>(&cfg),
        declaration::<UserDecision>(&cfg),
    ];
    let constants = [
        format!(
            "/** Every permission mode, in the order the pickers show them. */\nexport const PERMISSION_MODES: readonly PermissionMode[] = {};\n",
            string_list(PermissionMode::ALL.map(PermissionMode::as_str))
        ),
        format!(
            "/** Tether's tools, by the built-in names the model knows. */\nexport const TOOL_NAMES = {} as const;\n",
            string_list(crate::tools::TOOL_NAMES)
        ),
        format!(
            "/** How an agent sees Tether's tools: `{}Read`, ... */\nexport const MCP_PREFIX = {:?};\n",
            crate::claude::MCP_PREFIX,
            crate::claude::MCP_PREFIX
        ),
    ];
    format!(
        "// Generated from the Rust types by `cargo test` (crate/src/typescript.rs). Do not edit: change the\n\
         // Rust type, then run `TETHER_UPDATE_GENERATED=1 cargo test -p tether-core --lib typescript`.\n\n{}\n{}",
        declarations.join("\n"),
        constants.join("\n")
    )
}

#[test]
fn generated_typescript_matches_the_rust_types() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(GENERATED_FILE);
    let want = generated();
    if std::env::var_os("TETHER_UPDATE_GENERATED").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{} is out of date with the Rust types: run `TETHER_UPDATE_GENERATED=1 cargo test -p tether-core --lib typescript` and commit it",
        path.display()
    );
}
