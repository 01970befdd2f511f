//! The client's options, outputs and node replies as JSON, for hosts that are not Rust (the
//! wasm boundary, the test harness): one object per output, tagged by `type`.

use super::client::ClientOutput;
use super::frame::GatewayError;
use super::handshake::{ClientId, ClientMode, ConnectOptions, DeviceIdentity, Role};
use super::history::History;
use super::node::{Command, FileBinding, FileFetchReply, NodeError, Reply, RunOutput, RunPlan};
use super::reconnect::Backoff;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// `ConnectOptions` and `Backoff` from `{role, clientId, clientMode, clientVersion, platform,
/// deviceFamily?, displayName?, scopes?, caps?, commands?, pathEnv?, token?, deviceToken?,
/// device?: {id, publicKey}, backoff?: {baseMs, capMs, maxTries}}`.
pub fn options_from_json(value: &Value) -> Result<(ConnectOptions, Backoff), String> {
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    let strings = |key: &str| -> Option<Vec<String>> {
        value
            .get(key)
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
    };
    let version = text("clientVersion").unwrap_or_else(|| "0.0.0".into());
    let platform = text("platform").unwrap_or_else(|| "linux".into());
    let token = text("token");
    let device = match value.get("device") {
        None | Some(Value::Null) => None,
        Some(device) => Some(DeviceIdentity {
            id: device
                .get("id")
                .and_then(Value::as_str)
                .ok_or("device.id is missing")?
                .into(),
            public_key: device
                .get("publicKey")
                .and_then(Value::as_str)
                .ok_or("device.publicKey is missing")?
                .into(),
        }),
    };
    let mut options = match text("role").as_deref() {
        None | Some("operator") => ConnectOptions::operator(token, &version, &platform),
        Some("node") => ConnectOptions::node(
            token,
            &version,
            &platform,
            device.clone().ok_or("a node needs a device identity")?,
        ),
        Some(other) => return Err(format!("unknown role {other:?}")),
    };
    options.device = device.or(options.device);
    if let Some(id) = text("clientId") {
        options.client_id =
            ClientId::parse(&id).ok_or_else(|| format!("client id {id:?} is not one the gateway accepts"))?;
    }
    if let Some(mode) = text("clientMode") {
        options.client_mode =
            ClientMode::parse(&mode).ok_or_else(|| format!("client mode {mode:?} is not one the gateway accepts"))?;
    }
    options.device_family = text("deviceFamily").or(options.device_family);
    options.display_name = text("displayName").or(options.display_name);
    options.scopes = strings("scopes").unwrap_or(options.scopes);
    options.caps = strings("caps").unwrap_or(options.caps);
    options.commands = strings("commands").unwrap_or(options.commands);
    options.path_env = text("pathEnv");
    options.device_token = text("deviceToken");
    let mut backoff = Backoff::default();
    if let Some(b) = value.get("backoff") {
        let number = |key: &str| b.get(key).and_then(Value::as_u64);
        backoff.base_ms = number("baseMs").unwrap_or(backoff.base_ms);
        backoff.cap_ms = number("capMs").unwrap_or(backoff.cap_ms);
        backoff.max_tries = number("maxTries").map_or(backoff.max_tries, |n| n.min(u32::MAX as u64) as u32);
    }
    if options.role == Role::Node && options.device.is_none() {
        return Err("a node needs a device identity".into());
    }
    Ok((options, backoff))
}

pub fn error_json(error: &GatewayError) -> Value {
    json!({"code": error.code, "message": error.message, "details": *error.details})
}

pub fn output_json(output: &ClientOutput) -> Value {
    match output {
        ClientOutput::Open => json!({"type": "open"}),
        ClientOutput::Send(text) => json!({"type": "send", "text": text}),
        ClientOutput::Close { code, reason } => json!({"type": "close", "code": code, "reason": reason}),
        ClientOutput::Sign { payload } => json!({"type": "sign", "payload": payload}),
        ClientOutput::State { state, message } => json!({"type": "state", "state": state.as_str(), "message": message}),
        ClientOutput::DeviceToken(token) => json!({"type": "deviceToken", "token": token}),
        ClientOutput::Ui(event) => json!({"type": "ui", "event": event}),
        ClientOutput::ReplaceText { message_id, text } => {
            json!({"type": "replaceText", "messageId": message_id, "text": text})
        }
        ClientOutput::Canvas(message) => json!({"type": "canvas", "message": message}),
        ClientOutput::History(history) => json!({"type": "history", "history": history_json(history)}),
        ClientOutput::Response { id, method, result } => match result {
            Ok(payload) => json!({"type": "response", "id": id, "method": method, "ok": true, "payload": payload}),
            Err(error) => {
                json!({"type": "response", "id": id, "method": method, "ok": false, "error": error_json(error)})
            }
        },
        ClientOutput::NodeInvoke { id, command } => {
            json!({"type": "nodeInvoke", "id": id, "command": command_json(command)})
        }
        ClientOutput::Log(message) => json!({"type": "log", "message": message}),
    }
}

fn history_json(history: &History) -> Value {
    let messages: Vec<Value> = history
        .messages
        .iter()
        .map(|m| json!({"role": m.role, "text": m.text, "runId": m.run_id, "stopReason": m.stop_reason}))
        .collect();
    json!({"sessionKey": history.session_key, "messages": messages,
        "activeRunIds": history.active_run_ids, "hasMore": history.has_more})
}

fn command_json(command: &Command) -> Value {
    match command {
        Command::RunPrepare(p) => json!({"command": "system.run.prepare", "argv": p.argv,
            "rawCommand": p.raw_command, "cwd": p.cwd, "agentId": p.agent_id, "sessionKey": p.session_key}),
        Command::Run(r) => json!({"command": "system.run", "argv": r.argv, "rawCommand": r.raw_command,
            "cwd": r.cwd, "timeoutMs": r.timeout_ms, "runId": r.run_id}),
        Command::Which { bins } => json!({"command": "system.which", "bins": bins}),
        Command::FileFetch(f) => json!({"command": "file.fetch", "path": f.path, "maxBytes": f.max_bytes,
            "followSymlinks": f.follow_symlinks, "preflightOnly": f.preflight_only,
            "expectedCanonicalPath": f.expected_canonical_path, "expectedBinding": f.expected_binding}),
        Command::Other { command, params } => json!({"command": command, "params": params}),
    }
}

/// A host's answer to a `nodeInvoke`: `{error: {code?, message}}` or, by command,
/// `{plan: {argv, cwd?, commandText}}`, `{run: {exitCode, timedOut, stdout, stderr, error?}}`,
/// `{bins: {name: path}}`, `{file: {path, device, inode}}` (preflight) or
/// `{file: {path, device, inode, size, mimeType, base64, sha256}}`.
pub fn reply_from_json(command: &str, value: &Value) -> Result<Reply, String> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    if let Some(error) = value.get("error") {
        let error = NodeError {
            code: text(error, "code").unwrap_or_else(|| super::node::DENIED.to_string()),
            message: text(error, "message").unwrap_or_default(),
        };
        return Ok(match command {
            "system.run.prepare" => Reply::Plan(Err(error)),
            "system.run" => Reply::Run(Err(error)),
            "system.which" => Reply::Which(Err(error)),
            _ => Reply::File(Err(error)),
        });
    }
    let part = |key: &str| {
        value
            .get(key)
            .ok_or_else(|| format!("the answer to {command} has no {key}"))
    };
    Ok(match command {
        "system.run.prepare" => {
            let plan = part("plan")?;
            Reply::Plan(Ok(RunPlan {
                argv: plan
                    .get("argv")
                    .and_then(Value::as_array)
                    .ok_or("plan.argv is missing")?
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
                cwd: text(plan, "cwd"),
                command_text: text(plan, "commandText").unwrap_or_default(),
                agent_id: text(plan, "agentId"),
                session_key: text(plan, "sessionKey"),
            }))
        }
        "system.run" => {
            let run = part("run")?;
            Reply::Run(Ok(RunOutput {
                exit_code: run.get("exitCode").and_then(Value::as_i64).map(|c| c as i32),
                timed_out: run.get("timedOut").and_then(Value::as_bool).unwrap_or(false),
                stdout: text(run, "stdout").unwrap_or_default(),
                stderr: text(run, "stderr").unwrap_or_default(),
                error: text(run, "error"),
            }))
        }
        "system.which" => {
            let bins: BTreeMap<String, String> = part("bins")?
                .as_object()
                .map(|found| {
                    found
                        .iter()
                        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                        .collect()
                })
                .unwrap_or_default();
            Reply::Which(Ok(bins))
        }
        "file.fetch" => {
            let file = part("file")?;
            let binding = FileBinding {
                canonical_path: text(file, "path").ok_or("file.path is missing")?,
                device: file.get("device").map(scalar_text).unwrap_or_default(),
                inode: file.get("inode").map(scalar_text).unwrap_or_default(),
            };
            Reply::File(Ok(match text(file, "base64") {
                None => FileFetchReply::Preflight(binding),
                Some(base64) => FileFetchReply::Contents {
                    binding,
                    size: file.get("size").and_then(Value::as_u64).unwrap_or(0),
                    mime_type: text(file, "mimeType").unwrap_or_else(|| "application/octet-stream".into()),
                    base64,
                    sha256: text(file, "sha256").unwrap_or_default(),
                },
            }))
        }
        other => return Err(format!("no answer format for {other}")),
    })
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
