//! What the agent asks of the client, served on the workspace behind Tether's gate:
//! - `session/request_permission`: in [`super::questions`].
//! - `fs/read_text_file`, `fs/write_text_file`: inside the workspace only, through the gate like
//!   Read and Write (a write is reviewed like an Edit, unless the user just allowed exactly that
//!   change in the agent's own question); reads see unsaved editor text.
//! - `terminal/*`: commands run in the workspace's shell through the host (`super::commands`).
//! - MCP over ACP (`mcp/connect`, `mcp/message`, `mcp/disconnect`): Tether's server, gated.
//!
//! Unknown methods were answered method-not-found before they get here; every answer Tether
//! still owes is given when the turn is cancelled or the agent withdraws the request.

use super::protocol::dispatch::AgentRequest;
use super::protocol::rpc::{CancelRequestNotification, RESOURCE_NOT_FOUND};
use super::questions::{blank_request, pick};
use super::state::{AcpBackend, AgentAsk, PendingOp, Work};
use crate::backend::{
    Action, AskPolicy, Output, PermissionAsk, ToolRun, Verdict, WorkspaceAnswer, WorkspaceOp, WorkspaceRequest,
};
use crate::events::{describe_tool, PermissionOptionKind, PermissionRequest, UiEvent};
use crate::host::HostErrorKind;
use crate::mcp::SERVER_NAME;
use crate::permissions::ToolRequest;
use crate::rpc::{Id, RpcError, INTERNAL_ERROR, INVALID_PARAMS, REQUEST_CANCELLED};
use crate::tools::ToolOutput;
use serde_json::{json, Value};

/// A request refused by Tether's rules or by the user (JSON-RPC's implementation-defined range).
pub const REFUSED: i64 = -32003;

impl AcpBackend {
    /// One request of the agent's, read.
    pub(super) fn on_request(&mut self, id: Id, request: AgentRequest) -> Vec<Action> {
        if let (Some(asked), Some(ours)) = (request.session_id(), &self.session) {
            if asked != ours {
                let error = RpcError::new(INVALID_PARAMS, format!("Unknown session {asked}"));
                return vec![Action::Output(self.respond(&id, Err(error)))];
            }
        }
        let out: Vec<Output> = match request {
            AgentRequest::RequestPermission(request) => return self.on_permission(id, request),
            AgentRequest::ReadTextFile(r) => match self.workspace_path(&r.path) {
                Ok(path) => {
                    let input = json!({"file_path": path});
                    let work = Work::Read {
                        path,
                        line: r.line,
                        limit: r.limit,
                    };
                    return vec![self.ask_for_work(id, "Read", input, work)];
                }
                Err(error) => self.refuse_path(&id, error),
            },
            AgentRequest::WriteTextFile(r) => match self.workspace_path(&r.path) {
                Ok(path) => {
                    if self.approved_writes.get(&path) == Some(&r.content) {
                        self.approved_writes.remove(&path);
                        self.start_work(
                            id,
                            Work::Write {
                                path,
                                content: r.content,
                            },
                            None,
                        );
                        return Vec::new();
                    }
                    let input = json!({"file_path": path, "content": r.content});
                    let work = Work::Write {
                        path,
                        content: r.content,
                    };
                    return vec![self.ask_for_work(id, "Write", input, work)];
                }
                Err(error) => self.refuse_path(&id, error),
            },
            AgentRequest::CreateTerminal(r) => return self.on_create_terminal(id, r),
            AgentRequest::TerminalOutput(r) => match self.terminals.get(&r.0.terminal_id) {
                Some(terminal) => {
                    let mut result = json!({"output": terminal.output, "truncated": terminal.truncated});
                    if let Some(status) = terminal.exit_status() {
                        result["exitStatus"] = status;
                    }
                    vec![self.respond(&id, Ok(result))]
                }
                None => vec![self.unknown_terminal(&id, &r.0.terminal_id)],
            },
            AgentRequest::WaitForTerminalExit(r) => match self.terminals.get(&r.0.terminal_id) {
                Some(terminal) => match terminal.exit_status() {
                    Some(status) => vec![self.respond(&id, Ok(status))],
                    None => {
                        terminal.waiters.push(id);
                        Vec::new()
                    }
                },
                None => vec![self.unknown_terminal(&id, &r.0.terminal_id)],
            },
            AgentRequest::KillTerminal(r) => self.kill_terminal(id, &r.0.terminal_id, false),
            AgentRequest::ReleaseTerminal(r) => self.kill_terminal(id, &r.0.terminal_id, true),
            AgentRequest::CreateElicitation(r) => return self.on_elicitation(id, r),
            AgentRequest::McpConnect(r) if r.server_id == SERVER_NAME => {
                vec![self.respond(&id, Ok(json!({"connectionId": SERVER_NAME})))]
            }
            AgentRequest::McpConnect(r) => {
                let error = RpcError::new(INVALID_PARAMS, format!("No MCP server {:?} was offered", r.server_id));
                vec![self.respond(&id, Err(error))]
            }
            AgentRequest::McpMessage(message) => {
                let call = self.add_op(PendingOp::Mcp { id });
                return vec![Action::ServeMcp {
                    call,
                    message: message.to_jsonrpc(Some(json!(1))),
                }];
            }
            AgentRequest::McpDisconnect(_) => vec![self.respond(&id, Ok(json!({})))],
            AgentRequest::Unknown { method, .. } => {
                vec![self.respond(&id, Err(RpcError::method_not_found(&method)))]
            }
        };
        out.into_iter().map(Action::Output).collect()
    }

    /// A path the agent named, as a workspace path; paths outside the workspace are refused.
    pub(super) fn workspace_path(&self, path: &str) -> Result<String, String> {
        let resolved = self.paths.resolve(path).map_err(|e| e.to_string())?;
        if self.paths.contains(&resolved) {
            Ok(resolved)
        } else {
            Err(format!(
                "{path} is outside the workspace ({}); Tether serves files inside it only",
                self.paths.mirror_root().unwrap_or(self.paths.root())
            ))
        }
    }

    pub(super) fn refuse_path(&self, id: &Id, why: String) -> Vec<Output> {
        vec![
            self.respond(id, Err(RpcError::new(INVALID_PARAMS, why.clone()))),
            self.notice(format!("Refused a request of {}: {why}.", self.agent_name)),
        ]
    }

    pub(super) fn unknown_terminal(&self, id: &Id, terminal: &str) -> Output {
        let error = RpcError::new(
            INVALID_PARAMS,
            format!("No terminal {terminal} (Tether did not create it, or it was released)"),
        );
        self.respond(id, Err(error))
    }

    pub(super) fn add_op(&mut self, op: PendingOp) -> String {
        self.next_op += 1;
        let call = format!("op-{}", self.next_op);
        self.ops.insert(call.clone(), op);
        call
    }

    /// A question for Tether's gate before `work`, with Tether's own options.
    pub(super) fn ask_for_work(&mut self, id: Id, tool: &str, input: Value, work: Work) -> Action {
        self.next_op += 1;
        let ask_id = format!("acp-{}", self.next_op);
        let description = describe_tool(tool, &input, Some(self.paths.root()));
        let request = PermissionRequest {
            id: ask_id.clone(),
            tool_use_id: Some(ask_id.clone()),
            tool_name: tool.to_string(),
            raw_tool_name: tool.to_string(),
            kind: description.kind,
            input: input.clone(),
            ..blank_request(&ask_id, description.title)
        };
        self.asks.insert(ask_id, AgentAsk::Work { id, work });
        Action::AskPermission(PermissionAsk {
            access: ToolRequest::for_tool(tool, &input),
            request,
            policy: AskPolicy::Engine,
        })
    }

    /// Start allowed work; `tool_use_id` names the reviewed change of a write.
    fn start_work(&mut self, id: Id, work: Work, tool_use_id: Option<String>) {
        let action = match work {
            Work::Read { path, line, limit } => {
                let call = self.add_op(PendingOp::Read { id, line, limit });
                Action::Workspace(WorkspaceRequest {
                    call,
                    op: WorkspaceOp::ReadText { path },
                })
            }
            Work::Write { path, content } => {
                let call = self.add_op(PendingOp::Write { id });
                Action::RunTool(ToolRun {
                    call,
                    tool: "Write".into(),
                    input: json!({"file_path": path, "content": content}),
                    tool_use_id,
                })
            }
            Work::Spawn {
                command,
                cwd,
                env,
                limit,
            } => {
                let terminal = self.terminals.create(limit);
                let call = self.add_op(PendingOp::Spawn { id, terminal });
                Action::Workspace(WorkspaceRequest {
                    call,
                    op: WorkspaceOp::Spawn { command, cwd, env },
                })
            }
        };
        self.follow.push(action);
    }

    /// The gate's (or the user's) answer to one of the agent's questions.
    pub(super) fn on_verdict(&mut self, ui_id: &str, verdict: Verdict) -> Vec<Output> {
        let Some(ask) = self.asks.remove(ui_id) else {
            return Vec::new();
        };
        match ask {
            AgentAsk::Permission { id, options, writes } => {
                let option = match &verdict {
                    Verdict::Allowed => pick(&options, PermissionOptionKind::AllowOnce),
                    Verdict::Denied { .. } => pick(&options, PermissionOptionKind::RejectOnce),
                    Verdict::Chosen { option, .. } => options.iter().find(|o| o.option_id == option.option_id),
                };
                if option.is_some_and(|o| o.kind.allows()) {
                    self.approved_writes.extend(writes);
                }
                vec![self.answer_option(&id, option)]
            }
            AgentAsk::Work { id, work } => match verdict {
                Verdict::Allowed => {
                    self.start_work(id, work, Some(ui_id.to_string()));
                    Vec::new()
                }
                Verdict::Chosen { option, .. } if option.kind.allows() => {
                    self.start_work(id, work, Some(ui_id.to_string()));
                    Vec::new()
                }
                Verdict::Chosen { reason, .. } => {
                    let why = reason.map(|r| format!(": {r}")).unwrap_or_default();
                    vec![self.respond(&id, Err(RpcError::new(REFUSED, format!("The user refused{why}"))))]
                }
                Verdict::Denied { message } => vec![self.respond(&id, Err(RpcError::new(REFUSED, message)))],
            },
            AgentAsk::Elicitation { id, schema } => vec![self.answer_elicitation(&id, &schema, verdict)],
        }
    }

    /// The result of a write Tether ran for the agent.
    pub(super) fn on_tool_result(&mut self, call: &str, output: ToolOutput) -> Vec<Output> {
        let Some(PendingOp::Write { id }) = self.ops.remove(call) else {
            return Vec::new();
        };
        if output.is_error {
            vec![self.respond(&id, Err(RpcError::new(INTERNAL_ERROR, output.text_content())))]
        } else {
            vec![self.respond(&id, Ok(json!({})))]
        }
    }

    /// What the host answered for work started for the agent.
    pub(super) fn on_workspace_answer(&mut self, call: &str, answer: WorkspaceAnswer) -> Vec<Output> {
        let Some(op) = self.ops.remove(call) else {
            return Vec::new();
        };
        let failure = |message: String| RpcError::new(INTERNAL_ERROR, message);
        match (op, answer) {
            (PendingOp::Read { id, line, limit }, WorkspaceAnswer::Text(text)) => {
                vec![self.respond(&id, Ok(json!({"content": lines(&text, line, limit)})))]
            }
            (
                PendingOp::Read { id, .. },
                WorkspaceAnswer::Failed {
                    kind: HostErrorKind::NotFound,
                    message,
                },
            ) => {
                if self.profile.as_ref().is_some_and(|p| p.missing_file_reads_empty()) {
                    vec![self.respond(&id, Ok(json!({"content": ""})))]
                } else {
                    vec![self.respond(&id, Err(RpcError::new(RESOURCE_NOT_FOUND, message)))]
                }
            }
            (PendingOp::Spawn { id, terminal }, WorkspaceAnswer::Spawned(host_id)) => {
                if let Some(t) = self.terminals.get(&terminal) {
                    t.host_id = Some(host_id.clone());
                }
                self.poll_terminal(&terminal, host_id);
                vec![
                    self.respond(&id, Ok(json!({"terminalId": terminal}))),
                    Output::Event(UiEvent::TerminalOutput {
                        terminal_id: terminal,
                        output: String::new(),
                        append: false,
                        exited: false,
                        exit_code: None,
                        signal: None,
                    }),
                ]
            }
            (PendingOp::Spawn { id, terminal }, answer) => {
                self.terminals.remove(&terminal);
                vec![self.respond(&id, Err(failure(describe(answer))))]
            }
            (PendingOp::Kill { id }, _) => vec![self.respond(&id, Ok(json!({})))],
            (PendingOp::Poll { terminal }, WorkspaceAnswer::Output(status)) => self.terminal_output(&terminal, status),
            (PendingOp::Poll { terminal }, answer) => {
                let message = describe(answer);
                self.terminal_ended(&terminal, None, Some(message))
            }
            (PendingOp::Read { id, .. } | PendingOp::Write { id } | PendingOp::Mcp { id }, answer) => {
                vec![self.respond(&id, Err(failure(describe(answer))))]
            }
        }
    }

    /// Tether's MCP server answered a message that came over ACP.
    pub(super) fn on_mcp_reply(&mut self, call: &str, reply: Option<Value>) -> Vec<Output> {
        let Some(PendingOp::Mcp { id }) = self.ops.remove(call) else {
            return Vec::new();
        };
        let result = match reply {
            Some(reply) => match (reply.get("result"), reply.get("error")) {
                (Some(result), _) => Ok(result.clone()),
                (None, Some(error)) => Err(RpcError::new(
                    error.get("code").and_then(Value::as_i64).unwrap_or(INTERNAL_ERROR),
                    error.get("message").and_then(Value::as_str).unwrap_or("MCP error"),
                )),
                (None, None) => Ok(Value::Null),
            },
            None => Ok(Value::Null),
        };
        vec![self.respond(&id, result)]
    }

    /// Answer every question of the agent still open as cancelled (a cancelled or ended turn):
    /// permission questions with `cancelled`, file and terminal requests with `code`.
    pub(super) fn cancel_asks(&mut self, code: i64) -> Vec<Output> {
        let asks: Vec<(String, AgentAsk)> = self.asks.drain();
        let mut out = Vec::new();
        for (ui_id, ask) in asks {
            out.push(match ask {
                AgentAsk::Permission { id, .. } => self.answer_option(&id, None),
                AgentAsk::Work { id, .. } => self.respond(&id, Err(RpcError::new(code, "Cancelled"))),
                AgentAsk::Elicitation { id, .. } => self.respond(&id, Ok(json!({"action": "cancel"}))),
            });
            out.push(Output::Event(UiEvent::PermissionCancelled { id: ui_id }));
        }
        out
    }

    /// `$/cancel_request`: the agent no longer wants an answer to one of its requests.
    pub(super) fn on_cancel_request(&mut self, cancel: CancelRequestNotification) -> Vec<Action> {
        let wanted = &cancel.request_id;
        let mut out = Vec::new();
        let asks: Vec<String> = self
            .asks
            .iter()
            .filter(|(_, ask)| match ask {
                AgentAsk::Permission { id, .. } | AgentAsk::Work { id, .. } | AgentAsk::Elicitation { id, .. } => {
                    wanted.as_ref() == Some(id)
                }
            })
            .map(|(ui_id, _)| ui_id.clone())
            .collect();
        for ui_id in asks {
            if let Some(
                AgentAsk::Permission { id, .. } | AgentAsk::Work { id, .. } | AgentAsk::Elicitation { id, .. },
            ) = self.asks.remove(&ui_id)
            {
                out.push(self.respond(&id, Err(RpcError::new(REQUEST_CANCELLED, "Cancelled"))));
            }
            out.push(Output::Event(UiEvent::PermissionCancelled { id: ui_id }));
        }
        let ops: Vec<String> = self
            .ops
            .iter()
            .filter(|(_, op)| match op {
                PendingOp::Read { id, .. }
                | PendingOp::Write { id }
                | PendingOp::Spawn { id, .. }
                | PendingOp::Mcp { id } => wanted.as_ref() == Some(id),
                PendingOp::Kill { .. } | PendingOp::Poll { .. } => false,
            })
            .map(|(call, _)| call.clone())
            .collect();
        for call in ops {
            if let Some(
                PendingOp::Read { id, .. }
                | PendingOp::Write { id }
                | PendingOp::Spawn { id, .. }
                | PendingOp::Mcp { id },
            ) = self.ops.remove(&call)
            {
                out.push(self.respond(&id, Err(RpcError::new(REQUEST_CANCELLED, "Cancelled"))));
            }
        }
        out.into_iter().map(Action::Output).collect()
    }
}

fn describe(answer: WorkspaceAnswer) -> String {
    match answer {
        WorkspaceAnswer::Failed { message, .. } => message,
        other => format!("unexpected answer from the host: {other:?}"),
    }
}

/// `limit` lines from the 1-based `line` on (the whole text without either).
fn lines(text: &str, line: Option<u32>, limit: Option<u32>) -> String {
    if line.is_none() && limit.is_none() {
        return text.to_string();
    }
    let skip = line.map_or(0, |l| l.saturating_sub(1) as usize);
    let take = limit.map_or(usize::MAX, |l| l as usize);
    text.split_inclusive('\n').skip(skip).take(take).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_of_lines_is_cut_from_the_text() {
        let text = "a\nb\nc\nd\n";
        assert_eq!(lines(text, Some(2), Some(2)), "b\nc\n");
        assert_eq!(lines(text, None, Some(1)), "a\n");
        assert_eq!(lines(text, Some(4), None), "d\n");
        assert_eq!(lines(text, Some(9), None), "");
        assert_eq!(lines(text, None, None), text);
    }
}
