//! The TypeScript side of the types that cross the wasm boundary, generated from the Rust types
//! (ts-rs, derived under `cfg(test)` so nothing of it reaches the wasm) into one checked-in file
//! that the extension and the webview import. `cargo test` fails when the file differs from what
//! the types produce; `TETHER_UPDATE_GENERATED=1 cargo test -p tether-core --lib typescript`
//! rewrites it.

use crate::acp::{AcpConfig, BridgeCommand};
use crate::agent::{AgentOutput, AuditRecord, Decider};
use crate::backend::{SessionOp, SessionOpKind, TransportEvent, TransportRequest};
use crate::claude::{AgentFile, ClaudeConfig};
use crate::config::{CheckpointsConfig, CommonConfig, FolderConfig, HooksConfig, McpServerEntry, RemoteConfig};
use crate::diff::Hunk;
use crate::events::{
    AgentOption, AuthMethodInfo, CanvasAction, CanvasUpdate, CanvasWidget, CommandInfo, ConnectionStatus,
    ContextCategory, EditReview, ErrorKind, FormChoice, FormField, FormFieldKind, FormValue, Location, McpServerStatus,
    ModelOption, PermissionOption, PermissionOptionKind, PermissionRequest, QuestionForm, SessionState, SessionSummary,
    Severity, SurfaceComponent, TodoItem, ToolContentItem, ToolKind, TranscriptMessage, UiEvent,
};
use crate::framing::Frame;
use crate::gate::{UserAnswer, UserDecision};
use crate::host::{BackgroundStatus, DirEntry, ExecOutput, ExecRequest, FileKind, Metadata};
use crate::openclaw::{BackoffConfig, DeviceConfig, NodeConfig, OpenClawConfig};
use crate::permissions::{PermissionMode, RuleBehavior, RuleEntry, RuleScope};
use crate::project::{McpChoice, McpDecision, OffItem, PlannedServer, ProjectMcpPlan};
use crate::registry::{AgentConfig, BackendConfig, Reach, BACKENDS};
use crate::tools::checkpoints::rewind::{RewindAction, RewindFile, RewindOutcome, RewindPreview};
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

/// `{claude: {displayName, command, pathVariable, installDirs, installHint}}`.
fn agent_programs() -> String {
    let programs: serde_json::Map<String, serde_json::Value> = BACKENDS
        .iter()
        .filter_map(|(name, reach)| match reach {
            Reach::Program(program) => Some((name, program)),
            Reach::Connected { .. } => None,
        })
        .map(|(name, program)| {
            let value = serde_json::json!({
                "displayName": program.display_name,
                "command": program.command,
                "pathVariable": program.path_variable,
                "installDirs": program.install_dirs,
                "installHint": program.install_hint,
            });
            (name.to_string(), value)
        })
        .collect();
    serde_json::to_string_pretty(&programs).unwrap()
}

/// `[{name, displayName, command, args, package, closable, loadInALaterMinute}]`.
fn acp_agents() -> String {
    let agents: Vec<serde_json::Value> = crate::acp::profile::KNOWN_AGENTS
        .iter()
        .map(|agent| {
            serde_json::json!({
                "name": agent.name,
                "displayName": agent.display_name,
                "command": agent.command,
                "args": agent.args,
                "package": agent.package,
                "closable": agent.closable,
                "loadInALaterMinute": agent.load_in_a_later_minute,
            })
        })
        .collect();
    serde_json::to_string_pretty(&agents).unwrap()
}

/// `{openclaw: {displayName}}`.
fn connected_backends() -> String {
    let backends: serde_json::Map<String, serde_json::Value> = BACKENDS
        .iter()
        .filter_map(|(name, reach)| match reach {
            Reach::Connected { display_name } => {
                Some((name.to_string(), serde_json::json!({"displayName": display_name})))
            }
            Reach::Program(_) => None,
        })
        .collect();
    serde_json::to_string_pretty(&backends).unwrap()
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
        declaration::<PermissionOption>(&cfg),
        declaration::<QuestionForm>(&cfg),
        declaration::<FormField>(&cfg),
        declaration::<FormFieldKind>(&cfg),
        declaration::<FormChoice>(&cfg),
        declaration::<FormValue>(&cfg),
        declaration::<PermissionOptionKind>(&cfg),
        declaration::<EditReview>(&cfg),
        declaration::<Hunk>(&cfg),
        declaration::<SessionState>(&cfg),
        declaration::<ConnectionStatus>(&cfg),
        declaration::<SessionSummary>(&cfg),
        declaration::<TranscriptMessage>(&cfg),
        declaration::<ContextCategory>(&cfg),
        declaration::<CanvasUpdate>(&cfg),
        declaration::<CanvasWidget>(&cfg),
        declaration::<CanvasAction>(&cfg),
        declaration::<SurfaceComponent>(&cfg),
        declaration::<McpServerStatus>(&cfg),
        declaration::<ModelOption>(&cfg),
        declaration::<CommandInfo>(&cfg),
        declaration::<ToolContentItem>(&cfg),
        declaration::<AgentOption>(&cfg),
        declaration::<AuthMethodInfo>(&cfg),
        declaration::<ErrorKind>(&cfg),
        declaration::<Severity>(&cfg),
        declaration::<AgentOutput>(&cfg),
        declaration::<TransportRequest>(&cfg),
        declaration::<TransportEvent>(&cfg),
        declaration::<SessionOp>(&cfg),
        declaration::<SessionOpKind>(&cfg),
        declaration::<AgentConfig>(&cfg),
        declaration::<CommonConfig>(&cfg),
        declaration::<RemoteConfig>(&cfg),
        declaration::<CheckpointsConfig>(&cfg),
        declaration::<McpServerEntry>(&cfg),
        declaration::<ProjectMcpPlan>(&cfg),
        declaration::<PlannedServer>(&cfg),
        declaration::<McpDecision>(&cfg),
        declaration::<McpChoice>(&cfg),
        declaration::<OffItem>(&cfg),
        declaration::<FolderConfig>(&cfg),
        declaration::<HooksConfig>(&cfg),
        declaration::<RewindPreview>(&cfg),
        declaration::<RewindFile>(&cfg),
        declaration::<RewindAction>(&cfg),
        declaration::<RewindOutcome>(&cfg),
        declaration::<BackendConfig>(&cfg),
        declaration::<ClaudeConfig>(&cfg),
        declaration::<AcpConfig>(&cfg),
        declaration::<BridgeCommand>(&cfg),
        declaration::<AgentFile>(&cfg),
        declaration::<OpenClawConfig>(&cfg),
        declaration::<DeviceConfig>(&cfg),
        declaration::<NodeConfig>(&cfg),
        declaration::<BackoffConfig>(&cfg),
        declaration::<PermissionMode>(&cfg),
        declaration::<UserAnswer>(&cfg),
        declaration::<UserDecision>(&cfg),
        declaration::<RuleScope>(&cfg),
        declaration::<RuleBehavior>(&cfg),
        declaration::<RuleEntry>(&cfg),
        declaration::<AuditRecord>(&cfg),
        declaration::<Decider>(&cfg),
        declaration::<Frame>(&cfg),
        declaration::<FileKind>(&cfg),
        declaration::<Metadata>(&cfg),
        declaration::<DirEntry>(&cfg),
        declaration::<ExecRequest>(&cfg),
        declaration::<ExecOutput>(&cfg),
        declaration::<BackgroundStatus>(&cfg),
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
            "/** The agent programs the driver starts, by backend. */\nexport const AGENT_PROGRAMS = {} as const;\n",
            agent_programs()
        ),
        format!(
            "/** The ACP agents Tether knows by name, and what their force-local profile knows of them. */\nexport const ACP_AGENTS = {} as const;\n",
            acp_agents()
        ),
        format!(
            "/** The backends the core connects to itself (no program), with their display names. */\nexport const CONNECTED_BACKENDS = {} as const;\n",
            connected_backends()
        ),
        format!(
            "/** How an agent sees Tether's tools: `{}Read`, ... */\nexport const MCP_PREFIX = {:?};\n",
            crate::mcp::MCP_PREFIX,
            crate::mcp::MCP_PREFIX
        ),
        format!(
            "/** The MCP servers the extension's IDE tools are served as: `getDiagnostics` under `{}` (Claude Code offers\n * the model no other tool of a server so named), the language features under `{}`. */\nexport const IDE_SERVERS = {{ diagnostics: {:?}, language: {:?} }} as const;\n",
            crate::mcp::IDE_DIAGNOSTICS_SERVER,
            crate::mcp::IDE_LANGUAGE_SERVER,
            crate::mcp::IDE_DIAGNOSTICS_SERVER,
            crate::mcp::IDE_LANGUAGE_SERVER
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
