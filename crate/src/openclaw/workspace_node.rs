//! The workspace as the gateway's hands: the node connection's commands served with Tether's
//! tools behind Tether's permission gate. A `system.run.prepare` is a Bash permission question
//! (the engine's rules and modes, the user's prompt); the `system.run` that follows runs the
//! allowed command with the Bash tool where the workspace is; a `file.fetch` is a Read question,
//! then the file's bytes. A refusal goes back as `SYSTEM_RUN_DENIED`, which the gateway's agent
//! reads as a denial. (The pairing of the node is [`super::pairing`].)

use super::client::OpenClawClient;
use super::node::{Command, FileBinding, FileFetch, FileFetchReply, NodeError, Reply, RunOutput, RunPlan, RunPrepare};
use crate::backend::{Action, AskPolicy, FileBytes, FileRead, PermissionAsk, ToolRun, Verdict};
use crate::events::{PermissionOption, PermissionOptionKind, PermissionRequest, ToolKind};
use crate::host::FileKind;
use crate::id_table::IdTable;
use crate::permissions::{Access, ToolRequest};
use crate::tools::ToolOutput;
use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// Permission questions and tool calls of node commands are named `openclaw-node:<invoke id>`.
pub const CALL_PREFIX: &str = "openclaw-node:";
/// The pairing question ([`super::pairing`]) is named `openclaw-pair:<request id>`.
pub const PAIR_PREFIX: &str = "openclaw-pair:";
/// The Bash tool's own limit (10 minutes); the gateway asks for 30.
const MAX_RUN_MS: u64 = 600_000;
/// The gateway's default for `file.fetch` (8 MiB).
const DEFAULT_FETCH_BYTES: u64 = 8 * 1024 * 1024;

/// A command being served, by its invocation id.
enum Served {
    Prepare { request: RunPrepare, text: String },
    Run,
    Which { bins: Vec<String> },
    Fetch(FileFetch),
}

/// The node's commands in flight.
#[derive(Default)]
pub struct NodeCommands {
    served: IdTable<Served>,
}

impl NodeCommands {
    /// A command the gateway sent the node: the actions that serve it.
    pub fn on_invoke(&mut self, client: &mut OpenClawClient, id: &str, command: Command) -> Vec<Action> {
        let call = format!("{CALL_PREFIX}{id}");
        match command {
            Command::RunPrepare(request) => {
                let text = shell_text(&request.argv, request.cwd.as_deref());
                let ask = ask_permission(
                    &call,
                    "Bash",
                    json!({"command": text, "description": "The OpenClaw gateway's agent runs this in the workspace"}),
                    ToolKind::Execute,
                    ToolRequest::new("Bash", Access::Execute(text.clone())),
                );
                self.served.insert(id.to_string(), Served::Prepare { request, text });
                vec![ask]
            }
            Command::Run(request) => {
                // The plan was checked against what the user allowed (NodeSession).
                let text = shell_text(&request.argv, request.cwd.as_deref());
                let timeout = request.timeout_ms.unwrap_or(MAX_RUN_MS).min(MAX_RUN_MS);
                self.served.insert(id.to_string(), Served::Run);
                vec![Action::RunTool(ToolRun {
                    call,
                    tool: "Bash".into(),
                    input: json!({"command": text, "timeout": timeout}),
                    tool_use_id: None,
                })]
            }
            Command::Which { bins } => {
                let bins: Vec<String> = bins.into_iter().filter(|b| is_plain_name(b)).collect();
                if bins.is_empty() {
                    client.answer_node(id, Reply::Which(Ok(BTreeMap::new())));
                    return Vec::new();
                }
                let text = format!(
                    "command -v -- {}",
                    bins.iter().map(|b| quote(b)).collect::<Vec<_>>().join(" ")
                );
                self.served.insert(id.to_string(), Served::Which { bins });
                vec![Action::RunTool(ToolRun {
                    call,
                    tool: "Bash".into(),
                    input: json!({"command": text, "timeout": 10_000}),
                    tool_use_id: None,
                })]
            }
            Command::FileFetch(fetch) => {
                let ask = ask_permission(
                    &call,
                    "Read",
                    json!({"file_path": fetch.path}),
                    ToolKind::Read,
                    ToolRequest::for_tool("Read", &json!({"file_path": fetch.path})),
                );
                self.served.insert(id.to_string(), Served::Fetch(fetch));
                vec![ask]
            }
            // The node session answers what it does not serve.
            Command::Other { .. } => Vec::new(),
        }
    }

    /// The gate's answer to a node command's question (`call` without its prefix).
    pub fn on_verdict(&mut self, client: &mut OpenClawClient, id: &str, verdict: Verdict) -> Vec<Action> {
        let refusal = match verdict {
            Verdict::Allowed => None,
            Verdict::Chosen { option, reason, .. } if !option.kind.allows() => Some(
                reason
                    .filter(|r| !r.trim().is_empty())
                    .unwrap_or_else(|| "The user denied it in Tether.".into()),
            ),
            Verdict::Chosen { .. } => None,
            Verdict::Denied { message } => Some(message),
        };
        match (self.served.remove(id), refusal) {
            (Some(Served::Prepare { request, text }), None) => {
                let plan = RunPlan {
                    argv: request.argv,
                    cwd: request.cwd,
                    command_text: text,
                    agent_id: request.agent_id,
                    session_key: request.session_key,
                };
                client.answer_node(id, Reply::Plan(Ok(plan)));
                Vec::new()
            }
            (Some(Served::Prepare { .. }), Some(why)) => {
                client.answer_node(id, Reply::Plan(Err(NodeError::denied(why))));
                Vec::new()
            }
            (Some(Served::Fetch(fetch)), None) => {
                let read = FileRead {
                    call: format!("{CALL_PREFIX}{id}"),
                    path: fetch.path.clone(),
                    contents: !fetch.preflight_only,
                    max_bytes: fetch.max_bytes.unwrap_or(DEFAULT_FETCH_BYTES),
                };
                self.served.insert(id.to_string(), Served::Fetch(fetch));
                vec![Action::ReadFile(read)]
            }
            (Some(Served::Fetch(_)), Some(why)) => {
                client.answer_node(id, Reply::File(Err(NodeError::denied(why))));
                Vec::new()
            }
            (Some(other), _) => {
                self.served.insert(id.to_string(), other);
                Vec::new()
            }
            (None, _) => Vec::new(),
        }
    }

    /// The Bash tool's result for a `system.run` or `system.which`.
    pub fn on_tool_result(&mut self, client: &mut OpenClawClient, id: &str, output: ToolOutput) {
        match self.served.remove(id) {
            Some(Served::Run) => client.answer_node(id, Reply::Run(Ok(run_output(&output)))),
            Some(Served::Which { bins }) => {
                let stdout = output
                    .structured
                    .as_ref()
                    .and_then(|s| s.get("stdout"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                client.answer_node(id, Reply::Which(Ok(found_bins(&bins, &stdout))));
            }
            Some(other) => {
                self.served.insert(id.to_string(), other);
            }
            None => {}
        }
    }

    /// The file a `file.fetch` asked for, as the workspace has it.
    pub fn on_file(&mut self, client: &mut OpenClawClient, id: &str, result: Result<FileBytes, String>) {
        let Some(Served::Fetch(fetch)) = self.served.remove(id) else {
            return;
        };
        client.answer_node(id, Reply::File(fetch_reply(&fetch, result)));
    }
}

/// The answer to a `file.fetch` (preflight or fetch) for the file found.
fn fetch_reply(fetch: &FileFetch, result: Result<FileBytes, String>) -> Result<FileFetchReply, NodeError> {
    let error = |code: &str, message: String| NodeError {
        code: code.into(),
        message,
    };
    let file = result.map_err(|message| error("NOT_FOUND", message))?;
    if file.kind == FileKind::Symlink && !fetch.follow_symlinks {
        return Err(error("SYMLINK", format!("{} is a symbolic link", fetch.path)));
    }
    let binding = binding(&file);
    let limit = fetch.max_bytes.unwrap_or(DEFAULT_FETCH_BYTES);
    if file.size > limit {
        return Err(error(
            "FILE_TOO_LARGE",
            format!("{} is {} bytes, over the limit of {limit}", file.path, file.size),
        ));
    }
    let Some(bytes) = file.bytes else {
        return Ok(FileFetchReply::Preflight(binding));
    };
    let expected_path = fetch.expected_canonical_path.as_deref();
    let expected = fetch.expected_binding.as_ref();
    let same = |key: &str, have: &str| {
        expected
            .and_then(|b| b.get(key))
            .and_then(Value::as_str)
            .is_none_or(|want| want == have)
    };
    if expected_path.is_some_and(|p| p != binding.canonical_path)
        || !same("device", &binding.device)
        || !same("inode", &binding.inode)
    {
        return Err(error(
            "FILE_CHANGED",
            format!("{} changed after the preflight; fetch it again", file.path),
        ));
    }
    Ok(FileFetchReply::Contents {
        size: bytes.len() as u64,
        mime_type: mime_type(&binding.canonical_path, &bytes).into(),
        sha256: hex(&Sha256::digest(&bytes)),
        base64: base64::engine::general_purpose::STANDARD.encode(&bytes),
        binding,
    })
}

/// What the gateway pins between the preflight and the fetch. Workspace file systems
/// (`vscode.workspace.fs`) have no device or inode numbers, so the pair names the file as the
/// preflight found it: the workspace, and its path with its modification time and size (a file
/// replaced or changed in between no longer matches).
fn binding(file: &FileBytes) -> FileBinding {
    let version = format!("{}\u{0}{}\u{0}{}", file.path, file.mtime_ms, file.size);
    FileBinding {
        canonical_path: file.path.clone(),
        device: "tether-workspace".into(),
        inode: hex(&Sha256::digest(version.as_bytes())[..8]),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Text the gateway may show inline, by its extension or, without one it knows, by its bytes.
fn mime_type(path: &str, bytes: &[u8]) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "json" => "application/json",
        "md" => "text/markdown",
        "html" | "htm" => "text/html",
        _ if !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok() => "text/plain",
        _ => "application/octet-stream",
    }
}

/// What the node reports of a Bash run: the streams and the exit as the tool saw them.
fn run_output(output: &ToolOutput) -> RunOutput {
    let Some(structured) = output.structured.as_ref() else {
        return RunOutput {
            exit_code: None,
            timed_out: false,
            stdout: String::new(),
            stderr: String::new(),
            error: Some(output.text_content()),
        };
    };
    let text = |key: &str| {
        structured
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    RunOutput {
        exit_code: structured.get("exitCode").and_then(Value::as_i64).map(|c| c as i32),
        timed_out: structured.get("timedOut").and_then(Value::as_bool).unwrap_or(false),
        stdout: text("stdout"),
        stderr: text("stderr"),
        error: None,
    }
}

/// `command -v`'s lines, by the name each one ends with.
fn found_bins(bins: &[String], stdout: &str) -> BTreeMap<String, String> {
    crate::sort::map_of(stdout.lines().map(str::trim).filter_map(|line| {
        let name = line.rsplit('/').next()?;
        bins.iter()
            .any(|b| b == name)
            .then(|| (name.to_string(), line.to_string()))
    }))
}

/// The command line to judge and run: the shell text the gateway wraps in `sh -lc`, or the argv
/// quoted; in `cwd` when it names one.
pub fn shell_text(argv: &[String], cwd: Option<&str>) -> String {
    let text = match argv {
        [shell, flag, text] if is_shell(shell) && (flag == "-lc" || flag == "-c") => text.clone(),
        _ => argv.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" "),
    };
    match cwd.filter(|c| !c.is_empty()) {
        Some(cwd) => format!("cd {} && {text}", quote(cwd)),
        None => text,
    }
}

fn is_shell(program: &str) -> bool {
    matches!(
        program.rsplit('/').next().unwrap_or(program),
        "sh" | "bash" | "zsh" | "dash"
    )
}

fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'))
}

/// Single-quoted for a POSIX shell, unless it needs no quotes.
fn quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '=' | ':' | ',' | '+' | '@'));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// A node command's question for the gate: judged by the engine like the tool of that name.
fn ask_permission(id: &str, tool: &str, input: Value, kind: ToolKind, access: ToolRequest) -> Action {
    let title = input
        .get("command")
        .or_else(|| input.get("file_path"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut request = permission_request(id, tool, input, kind);
    request.raw_tool_name = format!("{tool} (OpenClaw node)");
    request.title = title;
    request.display_name = Some("The OpenClaw gateway's agent".into());
    request.options = vec![
        option("allow", "Allow", PermissionOptionKind::AllowOnce),
        option("always", "Always allow", PermissionOptionKind::AllowAlways),
        option("deny", "Reject", PermissionOptionKind::RejectOnce),
    ];
    Action::AskPermission(PermissionAsk {
        request,
        access,
        policy: AskPolicy::Engine,
    })
}

fn option(id: &str, name: &str, kind: PermissionOptionKind) -> PermissionOption {
    PermissionOption {
        option_id: id.into(),
        name: name.into(),
        kind,
    }
}

pub fn permission_request(id: &str, tool: &str, input: Value, kind: ToolKind) -> PermissionRequest {
    PermissionRequest {
        kind,
        ..PermissionRequest::for_tool(id, tool, input)
    }
}
