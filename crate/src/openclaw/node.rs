//! Node mode: the workspace as the gateway's hands. A node connection (role `node`, client
//! `node-host`, a signed device) declares commands; the gateway's agent then sends
//! `node.invoke.request` events and the node answers each with a `node.invoke.result` request.
//!
//! The gateway trusts whatever plan and policy a node returns, so Tether enforces its own: a
//! `system.run` is served only when it runs exactly what an earlier `system.run.prepare` was
//! allowed to run (the [`NodeHandler`] decides that one, in front of Tether's permission gate),
//! and each allowed plan is used once.

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// What Tether's node serves. `file.fetch` is effective only when the gateway allows it
/// (`gateway.nodes.commands.allow`; linux's default list lacks it).
pub const DEFAULT_COMMANDS: [&str; 4] = ["system.run.prepare", "system.run", "system.which", "file.fetch"];

/// The refusal code the gateway reports as a policy denial ("denied before execution").
pub const DENIED: &str = "SYSTEM_RUN_DENIED";

/// How many allowed-but-unused plans are kept.
const PLANS_KEPT: usize = 64;

#[derive(Clone, Debug, PartialEq)]
pub struct Invocation {
    pub id: String,
    pub node_id: String,
    pub timeout_ms: Option<u64>,
    pub idempotency_key: Option<String>,
    pub command: Command,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    RunPrepare(RunPrepare),
    Run(RunRequest),
    Which {
        bins: Vec<String>,
    },
    FileFetch(FileFetch),
    /// Anything else: answered "unsupported" unless the handler knows it.
    Other {
        command: String,
        params: Value,
    },
}

impl Command {
    /// The node command's name (`system.run`).
    pub fn name(&self) -> &str {
        match self {
            Command::RunPrepare(_) => "system.run.prepare",
            Command::Run(_) => "system.run",
            Command::Which { .. } => "system.which",
            Command::FileFetch(_) => "file.fetch",
            Command::Other { command, .. } => command,
        }
    }
}

/// `system.run.prepare`: the agent wants to run a command.
#[derive(Clone, Debug, PartialEq)]
pub struct RunPrepare {
    /// The argv; shell text arrives wrapped as `["/bin/sh", "-lc", text]`.
    pub argv: Vec<String>,
    pub raw_command: Option<String>,
    pub cwd: Option<String>,
    pub agent_id: Option<String>,
    pub session_key: Option<String>,
}

/// What Tether allowed: `system.run` must match it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunPlan {
    pub argv: Vec<String>,
    pub cwd: Option<String>,
    /// The command as the user saw it when allowing it.
    pub command_text: String,
    pub agent_id: Option<String>,
    pub session_key: Option<String>,
}

/// `system.run`.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRequest {
    pub argv: Vec<String>,
    pub raw_command: Option<String>,
    pub cwd: Option<String>,
    pub timeout_ms: Option<u64>,
    pub run_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOutput {
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    pub error: Option<String>,
}

/// `file.fetch`: first a preflight (`preflight_only`), then the fetch of the same file.
#[derive(Clone, Debug, PartialEq)]
pub struct FileFetch {
    pub path: String,
    pub max_bytes: Option<u64>,
    pub follow_symlinks: bool,
    pub preflight_only: bool,
    pub expected_canonical_path: Option<String>,
    pub expected_binding: Option<Value>,
}

/// The file a preflight found, which the fetch must still find.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileBinding {
    pub canonical_path: String,
    pub device: String,
    pub inode: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileFetchReply {
    Preflight(FileBinding),
    Contents {
        binding: FileBinding,
        size: u64,
        mime_type: String,
        base64: String,
        /// Hex SHA-256 of the bytes; the gateway checks it.
        sha256: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeError {
    pub code: String,
    pub message: String,
}

impl NodeError {
    pub fn denied(message: impl Into<String>) -> NodeError {
        NodeError {
            code: DENIED.to_string(),
            message: message.into(),
        }
    }
}

/// An answer now, or later through [`NodeSession::answer`] (a prompt, a running command).
#[derive(Clone, Debug, PartialEq)]
pub enum Answer<T> {
    Now(Result<T, NodeError>),
    Later,
}

/// What a backend supplies to serve the gateway's node commands: Tether's tools behind its
/// permission gate. `prepare` is where the user is asked.
pub trait NodeHandler {
    fn prepare(&mut self, invocation_id: &str, request: &RunPrepare) -> Answer<RunPlan>;
    /// Run an allowed plan (already checked against the request).
    fn run(&mut self, invocation_id: &str, plan: &RunPlan, request: &RunRequest) -> Answer<RunOutput>;
    /// Where each of `bins` is on the workspace's PATH (missing ones left out).
    fn which(&mut self, invocation_id: &str, bins: &[String]) -> Answer<BTreeMap<String, String>>;
    fn fetch_file(&mut self, invocation_id: &str, request: &FileFetch) -> Answer<FileFetchReply>;
}

/// A reply for [`NodeSession::answer`].
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Plan(Result<RunPlan, NodeError>),
    Run(Result<RunOutput, NodeError>),
    File(Result<FileFetchReply, NodeError>),
    Which(Result<BTreeMap<String, String>, NodeError>),
}

/// The node side's state: invocations waiting for an answer and the plans Tether allowed.
#[derive(Debug, Default)]
pub struct NodeSession {
    waiting: BTreeMap<String, String>,
    plans: Vec<RunPlan>,
}

impl NodeSession {
    /// Handle a `node.invoke.request` payload: the params of the `node.invoke.result` to send
    /// now, if the answer is known now.
    pub fn on_invoke(&mut self, payload: &Value, handler: &mut dyn NodeHandler) -> Option<Value> {
        let invocation = match parse_invocation(payload) {
            Ok(invocation) => invocation,
            Err(Some((id, node_id, why))) => {
                let error = NodeError {
                    code: "INVALID_REQUEST".into(),
                    message: why,
                };
                return Some(result_params(&id, &node_id, Err(error)));
            }
            Err(None) => return None,
        };
        let Invocation {
            id, node_id, command, ..
        } = invocation;
        let answered = match command {
            Command::RunPrepare(request) => match handler.prepare(&id, &request) {
                Answer::Now(result) => Some(self.plan_reply(result)),
                Answer::Later => None,
            },
            Command::Run(request) => match self.take_plan(&request) {
                None => Some(Err(NodeError::denied(format!(
                    "Tether did not allow this command: {}",
                    request.raw_command.clone().unwrap_or_else(|| request.argv.join(" "))
                )))),
                Some(plan) => match handler.run(&id, &plan, &request) {
                    Answer::Now(result) => Some(result.map(|output| run_payload(&output))),
                    Answer::Later => None,
                },
            },
            Command::Which { bins } => match handler.which(&id, &bins) {
                Answer::Now(result) => Some(result.map(|found| json!({"bins": found}))),
                Answer::Later => None,
            },
            Command::FileFetch(request) => match handler.fetch_file(&id, &request) {
                Answer::Now(result) => Some(result.map(|reply| file_payload(&reply))),
                Answer::Later => None,
            },
            Command::Other { command, .. } => Some(Err(NodeError {
                code: "UNSUPPORTED".into(),
                message: format!("Tether's node does not serve {command}"),
            })),
        };
        match answered {
            Some(result) => Some(result_params(&id, &node_id, result)),
            None => {
                self.waiting.insert(id, node_id);
                None
            }
        }
    }

    /// The later answer to invocation `id`: the params of its `node.invoke.result`.
    pub fn answer(&mut self, id: &str, reply: Reply) -> Option<Value> {
        let node_id = self.waiting.remove(id)?;
        let result = match reply {
            Reply::Plan(result) => self.plan_reply(result),
            Reply::Run(result) => result.map(|output| run_payload(&output)),
            Reply::File(result) => result.map(|reply| file_payload(&reply)),
            Reply::Which(result) => result.map(|found| json!({"bins": found})),
        };
        Some(result_params(id, &node_id, result))
    }

    fn plan_reply(&mut self, result: Result<RunPlan, NodeError>) -> Result<Value, NodeError> {
        let plan = result?;
        let payload = json!({
            "plan": {
                "argv": plan.argv,
                "cwd": plan.cwd,
                "commandText": plan.command_text,
                "commandPreview": Value::Null,
                "agentId": plan.agent_id,
                "sessionKey": plan.session_key,
            },
            // Tether asked already; the gateway need not ask again.
            "execPolicy": {"security": "full", "ask": "off"},
            "allowAlwaysCoverage": {"complete": false, "patterns": []},
        });
        if self.plans.len() == PLANS_KEPT {
            self.plans.remove(0);
        }
        self.plans.push(plan);
        Ok(payload)
    }

    /// The allowed plan this run matches (same argv, and the same cwd when it names one).
    fn take_plan(&mut self, request: &RunRequest) -> Option<RunPlan> {
        let index = self
            .plans
            .iter()
            .position(|p| p.argv == request.argv && (request.cwd.is_none() || request.cwd == p.cwd))?;
        Some(self.plans.remove(index))
    }
}

/// Parse `node.invoke.request`'s payload. An error with the ids can still be answered.
pub fn parse_invocation(payload: &Value) -> Result<Invocation, Option<(String, String, String)>> {
    let text = |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    let id = text(payload, "id").ok_or(None)?;
    let node_id = text(payload, "nodeId").unwrap_or_default();
    let command = text(payload, "command").ok_or_else(|| Some((id.clone(), node_id.clone(), "no command".into())))?;
    let params = match (payload.get("params"), payload.get("paramsJSON").and_then(Value::as_str)) {
        (Some(params), _) if params.is_object() => params.clone(),
        (_, Some(json)) => serde_json::from_str(json)
            .map_err(|e| Some((id.clone(), node_id.clone(), format!("paramsJSON is not JSON: {e}"))))?,
        _ => Value::Object(Map::new()),
    };
    let invalid = |why: String| Some((id.clone(), node_id.clone(), why));
    let strings = |key: &str| -> Vec<String> {
        params
            .get(key)
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    };
    // What a command runs is exactly what the gateway names: a command that is not a list of
    // strings is refused, not read as an empty one.
    let argv = || -> Result<Vec<String>, Option<(String, String, String)>> {
        match params.get("command") {
            Some(Value::Array(items)) if !items.is_empty() => items
                .iter()
                .map(|item| item.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| invalid(format!("{command}: command must be a list of strings"))),
            _ => Err(invalid(format!(
                "{command}: command must be a non-empty list of strings"
            ))),
        }
    };
    let optional_text = |key: &str| -> Result<Option<String>, Option<(String, String, String)>> {
        match params.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(value)) => Ok(Some(value.clone())),
            Some(_) => Err(invalid(format!("{command}: {key} must be a string"))),
        }
    };
    let command = match command.as_str() {
        "system.run.prepare" => Command::RunPrepare(RunPrepare {
            argv: argv()?,
            raw_command: optional_text("rawCommand")?,
            cwd: optional_text("cwd")?,
            agent_id: text(&params, "agentId"),
            session_key: text(&params, "sessionKey"),
        }),
        "system.run" => Command::Run(RunRequest {
            argv: argv()?,
            raw_command: optional_text("rawCommand")?,
            cwd: optional_text("cwd")?.or_else(|| {
                params
                    .pointer("/systemRunPlan/cwd")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            }),
            timeout_ms: params.get("timeoutMs").and_then(Value::as_u64),
            run_id: text(&params, "runId"),
        }),
        "system.which" => Command::Which { bins: strings("bins") },
        "file.fetch" => Command::FileFetch(FileFetch {
            path: match optional_text("path")? {
                Some(path) if !path.is_empty() => path,
                _ => return Err(invalid("file.fetch: path must be a non-empty string".into())),
            },
            max_bytes: params.get("maxBytes").and_then(Value::as_u64),
            follow_symlinks: params.get("followSymlinks").and_then(Value::as_bool).unwrap_or(false),
            preflight_only: params.get("preflightOnly").and_then(Value::as_bool).unwrap_or(false),
            expected_canonical_path: text(&params, "expectedCanonicalPath"),
            expected_binding: params.get("expectedBinding").cloned(),
        }),
        _ => Command::Other { command, params },
    };
    Ok(Invocation {
        timeout_ms: payload.get("timeoutMs").and_then(Value::as_u64),
        idempotency_key: text(payload, "idempotencyKey"),
        id,
        node_id,
        command,
    })
}

/// An error message as sent back: a message that quotes a hostile input (a 200 KB path) is cut.
fn capped(message: &str) -> String {
    const MAX_MESSAGE: usize = 2_000;
    match message.char_indices().nth(MAX_MESSAGE) {
        Some((at, _)) => format!("{}…", &message[..at]),
        None => message.to_string(),
    }
}

/// `node.invoke.result`'s params.
pub fn result_params(id: &str, node_id: &str, result: Result<Value, NodeError>) -> Value {
    match result {
        Ok(payload) => json!({"id": id, "nodeId": node_id, "ok": true, "payload": payload}),
        Err(error) => json!({"id": id, "nodeId": node_id, "ok": false,
            "error": {"code": error.code, "message": capped(&error.message)}}),
    }
}

/// `system.run`'s result payload; the gateway requires the boolean `success`.
pub fn run_payload(output: &RunOutput) -> Value {
    json!({
        "exitCode": output.exit_code,
        "timedOut": output.timed_out,
        "success": output.exit_code == Some(0) && !output.timed_out && output.error.is_none(),
        "stdout": output.stdout,
        "stderr": output.stderr,
        "error": output.error,
    })
}

fn file_payload(reply: &FileFetchReply) -> Value {
    let binding = |b: &FileBinding| json!({"kind": "existing", "device": b.device, "inode": b.inode});
    match reply {
        FileFetchReply::Preflight(b) => json!({"ok": true, "path": b.canonical_path, "binding": binding(b)}),
        FileFetchReply::Contents {
            binding: b,
            size,
            mime_type,
            base64,
            sha256,
        } => json!({
            "ok": true, "path": b.canonical_path, "binding": binding(b), "size": size,
            "mimeType": mime_type, "base64": base64, "sha256": sha256,
        }),
    }
}
