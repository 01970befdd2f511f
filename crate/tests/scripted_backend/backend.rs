//! A backend for a made-up agent that speaks a small JSON-RPC 2.0 protocol, in the style of ACP:
//! the test plays the agent's side. It lives only here, behind the seam: the core does not know
//! it, which is the point — a backend needs nothing outside its own files.
//!
//! The protocol (one JSON-RPC message a line):
//! - Tether → agent: `initialize {tools}`, `session/prompt {prompt}` (answered `{stopReason}` when
//!   the turn ends), `session/set_mode {mode}`, `session/set_model {model}`, `session/cancel`,
//!   `session/close`.
//! - agent → Tether: `session/update {text}`, `session/request_permission {toolCall: {id, name,
//!   input}, options}` (answered `{outcome: {optionId}}`), `tools/call {name, arguments,
//!   toolUseId}` (answered with the MCP `tools/call` result).

use serde_json::{json, Value};
use std::collections::HashMap;
use tether_core::backend::{
    Action, AskPolicy, Backend, ImageInput, Launch, Output, PermissionAsk, SessionOp, SessionOpKind, Supported,
    ToolRun, Verdict,
};
use tether_core::events::{ErrorKind, PermissionOption, PermissionOptionKind, PermissionRequest, Severity, UiEvent};
use tether_core::mcp::{self, Manifest};
use tether_core::permissions::ToolRequest;
use tether_core::rpc::{self, Id, Incoming, Peer, RpcError};
use tether_core::tools::ToolOutput;

/// What a request this side sent was for.
#[derive(Debug)]
enum Sent {
    Initialize,
    Prompt,
    SetModel,
}

pub struct ScriptedBackend {
    peer: Peer<Sent>,
    /// Open questions and running tools: their JSON-RPC request ids, by Tether's id for them.
    questions: HashMap<String, (Id, Vec<PermissionOption>)>,
    tools: HashMap<String, Id>,
    session_id: String,
}

impl ScriptedBackend {
    pub fn new() -> ScriptedBackend {
        ScriptedBackend {
            peer: Peer::new(),
            questions: HashMap::new(),
            tools: HashMap::new(),
            session_id: "scripted-1".into(),
        }
    }

    fn request(&mut self, method: &str, params: Value, sent: Sent) -> Vec<Output> {
        let (_, message) = self.peer.request(method, params, sent, None);
        vec![Output::Send(message.to_string())]
    }

    fn notify(&self, method: &str, params: Value) -> Vec<Output> {
        vec![Output::Send(rpc::notification(method, params).to_string())]
    }

    fn on_request(&mut self, id: Id, method: &str, params: Value) -> Vec<Action> {
        match method {
            "session/request_permission" => {
                let call = &params["toolCall"];
                let name = call["name"].as_str().unwrap_or_default().to_string();
                let input = call["input"].clone();
                let options: Vec<PermissionOption> =
                    serde_json::from_value(params["options"].clone()).unwrap_or_default();
                let question = format!("q-{id}");
                self.questions.insert(question.clone(), (id, options.clone()));
                let request = PermissionRequest {
                    tool_use_id: call["id"].as_str().map(str::to_string),
                    options,
                    ..PermissionRequest::for_tool(question, &name, input.clone())
                };
                vec![Action::AskPermission(PermissionAsk {
                    request,
                    access: ToolRequest::for_tool(&name, &input),
                    policy: AskPolicy::Engine,
                })]
            }
            "tools/call" => {
                let call = format!("call-{id}");
                self.tools.insert(call.clone(), id);
                vec![Action::RunTool(ToolRun {
                    call,
                    tool: params["name"].as_str().unwrap_or_default().to_string(),
                    input: params["arguments"].clone(),
                    tool_use_id: params["toolUseId"].as_str().map(str::to_string),
                })]
            }
            other => {
                let reply = rpc::reply(&id, Err(RpcError::method_not_found(other)));
                vec![Action::Output(Output::Send(reply.to_string()))]
            }
        }
    }

    fn on_response(&mut self, sent: Sent, result: Result<Value, RpcError>) -> Vec<Action> {
        let event = match (sent, result) {
            (Sent::Prompt, Ok(result)) => UiEvent::Done {
                subtype: "success".into(),
                is_error: false,
                duration_ms: 0,
                num_turns: 1,
                session_id: self.session_id.clone(),
                result: None,
                stop_reason: result["stopReason"].as_str().map(str::to_string),
            },
            (Sent::SetModel, Ok(result)) => UiEvent::ModelChanged {
                model: result["model"].as_str().map(str::to_string),
            },
            (Sent::Initialize, Ok(_)) => UiEvent::SessionReady {
                agent_version: Some("scripted".into()),
                models: Vec::new(),
                commands: Vec::new(),
                permission_mode: None,
            },
            (_, Err(error)) => UiEvent::error(ErrorKind::Other, Severity::Error, error.message, None),
        };
        vec![Action::Output(Output::Event(event))]
    }

    /// The first option of `kind` the agent offered for `question`.
    fn option_of_kind(options: &[PermissionOption], kinds: &[PermissionOptionKind]) -> Value {
        kinds
            .iter()
            .find_map(|kind| options.iter().find(|o| o.kind == *kind))
            .map_or(Value::Null, |o| json!(o.option_id))
    }
}

impl Backend for ScriptedBackend {
    fn name(&self) -> &'static str {
        "Scripted agent"
    }

    fn launch(&self, parent_env: Vec<(String, String)>) -> Launch {
        Launch {
            args: vec!["--stdio".into()],
            env: parent_env.into_iter().collect(),
        }
    }

    fn start(&mut self, tools: &Manifest) -> Vec<Output> {
        let names: Vec<Value> = tools.tools_list_result["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| t["name"].clone())
            .collect();
        self.request("initialize", json!({"tools": names}), Sent::Initialize)
    }

    fn prompt(&mut self, text: &str, _images: &[ImageInput]) -> Vec<Output> {
        self.request("session/prompt", json!({"prompt": text}), Sent::Prompt)
    }

    fn on_message(&mut self, message: &str) -> Vec<Action> {
        let Ok(value) = serde_json::from_str::<Value>(message) else {
            return Vec::new();
        };
        match self.peer.receive(value) {
            Incoming::Request { id, method, params } => self.on_request(id, &method, params),
            Incoming::Notification { method, params } if method == "session/update" => {
                vec![Action::Output(Output::Event(UiEvent::TextDelta {
                    message_id: None,
                    text: params["text"].as_str().unwrap_or_default().to_string(),
                    parent_tool_use_id: None,
                }))]
            }
            Incoming::Response { context, result, .. } => self.on_response(context, result),
            Incoming::Malformed(Some(reply)) => vec![Action::Output(Output::Send(reply.to_string()))],
            Incoming::Notification { .. } | Incoming::Unmatched(_) | Incoming::Malformed(None) => Vec::new(),
        }
    }

    fn tool_result(&mut self, call: &str, output: ToolOutput) -> Vec<Output> {
        match self.tools.remove(call) {
            Some(id) => vec![Output::Send(mcp::tool_call_response(&id, output).to_string())],
            None => Vec::new(),
        }
    }

    fn answer_permission(&mut self, id: &str, verdict: Verdict) -> Vec<Output> {
        let Some((rpc_id, options)) = self.questions.remove(id) else {
            return Vec::new();
        };
        let option = match verdict {
            Verdict::Chosen { option, .. } => json!(option.option_id),
            Verdict::Allowed => Self::option_of_kind(&options, &[PermissionOptionKind::AllowOnce]),
            Verdict::Denied { .. } => Self::option_of_kind(
                &options,
                &[PermissionOptionKind::RejectOnce, PermissionOptionKind::RejectAlways],
            ),
        };
        let reply = rpc::response(&rpc_id, json!({"outcome": {"optionId": option}}));
        vec![Output::Send(reply.to_string())]
    }

    fn offers(&self) -> Vec<SessionOpKind> {
        vec![
            SessionOpKind::SetConfigOption,
            SessionOpKind::Interrupt,
            SessionOpKind::Close,
        ]
    }

    fn operate(&mut self, op: SessionOp) -> Supported<Vec<Output>> {
        match op {
            SessionOp::SetMode { mode } => Ok(self.notify("session/set_mode", json!({"mode": mode.as_str()}))),
            SessionOp::SetConfigOption { option, value } if option == "model" => {
                Ok(self.request("session/set_model", json!({"model": value}), Sent::SetModel))
            }
            SessionOp::Interrupt => Ok(self.notify("session/cancel", Value::Null)),
            SessionOp::Close => Ok(self.notify("session/close", json!({"sessionId": self.session_id}))),
            op => Err(self.refuse(&op)),
        }
    }
}

/// The options the made-up agent offers, ACP's four kinds.
pub fn acp_options() -> Value {
    json!([
        {"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
        {"optionId": "allow-always", "name": "Always allow", "kind": "allow_always"},
        {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
        {"optionId": "reject-always", "name": "Always reject", "kind": "reject_always"},
    ])
}
