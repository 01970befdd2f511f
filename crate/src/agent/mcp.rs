//! Tether's MCP server for an agent that reaches it on its own connection: the MCP bridge a stdio
//! MCP client runs (ACP agents get it in `session/new`), or MCP over ACP. Every `tools/call` goes
//! through the gate first, as Claude Code's `can_use_tool` questions do: rules and modes decide,
//! or the user does (a reviewed edit writes what the user left in review), and only then does the
//! tool run. The reply goes back the way the message came.

use super::audit::Asked;
use super::turn_hooks::BeforeTool;
use super::{Agent, AgentOutput};
use crate::backend::{AskPolicy, Backend, PermissionAsk, Verdict};
use crate::events::{describe_tool, PermissionRequest, UiEvent};
use crate::gate::{standard_options, Judgement};
use crate::hooks::PermissionDecision;
use crate::host::Host;
use crate::mcp::{tool_call_response, Step, ToolCall, MCP_PREFIX};
use crate::permissions::ToolRequest;
use crate::rpc::{self, RpcError, PARSE_ERROR};
use crate::tools::ToolOutput;
use serde_json::Value;

/// The model reads this when the user stopped the turn before answering.
const WITHDRAWN: &str = "The user stopped the turn before answering; the tool did not run.";

/// Where an MCP reply goes.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum McpRoute {
    /// The bridge connection it came in on.
    Bridge(u32),
    /// The backend, by its handle (MCP over ACP).
    Backend(String),
}

/// A tool call waiting for the user's answer.
pub(super) struct PendingMcpCall {
    route: McpRoute,
    call: ToolCall,
    tool_use_id: String,
}

/// The reply to a message that is not JSON.
pub(super) fn parse_error(connection: u32, reason: &str) -> Vec<AgentOutput> {
    let error = RpcError::new(PARSE_ERROR, format!("Parse error: {reason}"));
    vec![AgentOutput::McpReply {
        connection,
        message: rpc::error_response(None, &error).to_string(),
    }]
}

impl<H: Host, B: Backend + ?Sized> Agent<H, B> {
    pub(super) async fn serve_mcp(&self, route: McpRoute, message: Value) -> Vec<AgentOutput> {
        let mut call = match self.server.receive(message) {
            Step::Reply(reply) => return self.mcp_reply(&route, reply),
            Step::Call(call) => call,
        };
        let tool_use_id = call.tool_use_id().map(str::to_string).unwrap_or_else(|| {
            let n = self.next_mcp_call.get() + 1;
            self.next_mcp_call.set(n);
            format!("tether-call-{n}")
        });
        let (before, mut out) = self.before_tool(&mut call, &tool_use_id).await;
        let policy = match before {
            BeforeTool::Refused(output) => {
                out.extend(self.mcp_reply(&route, Some(tool_call_response(&call.id, output))));
                return out;
            }
            BeforeTool::Run(Some(PermissionDecision::Allow)) => {
                let pending = PendingMcpCall {
                    route,
                    call,
                    tool_use_id,
                };
                out.extend(self.finish_mcp_call(pending, Verdict::Allowed).await);
                return out;
            }
            BeforeTool::Run(Some(PermissionDecision::Ask)) => AskPolicy::User {
                reason: "a PreToolUse hook asks you".into(),
                always: None,
            },
            BeforeTool::Run(_) => AskPolicy::Engine,
        };
        let request = self.mcp_permission_request(&call, &tool_use_id);
        let id = request.id.clone();
        let ask = PermissionAsk {
            access: ToolRequest::for_tool(&call.name, &call.arguments),
            request,
            policy,
        };
        let asked = Asked::of(&ask.request);
        let judgement = self.gate.judge(self.toolset(), ask).await;
        let audit = asked.record(&judgement);
        match judgement {
            Judgement::Answered { verdict, event, .. } => {
                let pending = PendingMcpCall {
                    route,
                    call,
                    tool_use_id,
                };
                out.push(audit);
                out.extend(event.map(|event| AgentOutput::Event { event }));
                out.extend(self.finish_mcp_call(pending, verdict).await);
                out
            }
            Judgement::Ask(request) => {
                let tool = call.name.clone();
                self.asked.borrow_mut().insert(id.clone(), asked);
                self.mcp_calls.borrow_mut().insert(
                    id,
                    PendingMcpCall {
                        route,
                        call,
                        tool_use_id,
                    },
                );
                out.push(audit);
                out.push(AgentOutput::Event {
                    event: UiEvent::PermissionRequest(request),
                });
                out.extend(self.notify_permission(&tool).await);
                out
            }
        }
    }

    /// The question shown for a call of one of Tether's tools, by its built-in name.
    fn mcp_permission_request(&self, call: &ToolCall, tool_use_id: &str) -> PermissionRequest {
        let paths = &self.toolset().paths;
        let cwd = paths.mirror_root().unwrap_or(paths.root());
        let description = describe_tool(&call.name, &call.arguments, Some(cwd));
        PermissionRequest {
            tool_use_id: Some(tool_use_id.to_string()),
            raw_tool_name: format!("{MCP_PREFIX}{}", call.name),
            kind: description.kind,
            title: Some(description.title),
            options: standard_options(true),
            ..PermissionRequest::for_tool(format!("mcp-{tool_use_id}"), &call.name, call.arguments.clone())
        }
    }

    /// Run the call (or the change the user reviewed) when allowed, else tell the model why not.
    pub(super) async fn finish_mcp_call(&self, pending: PendingMcpCall, verdict: Verdict) -> Vec<AgentOutput> {
        let PendingMcpCall {
            route,
            call,
            tool_use_id,
        } = pending;
        let runs = match &verdict {
            Verdict::Allowed => true,
            Verdict::Chosen { option, .. } => option.kind.allows(),
            Verdict::Denied { .. } => false,
        };
        let (output, mut out) = match verdict {
            _ if runs => {
                let output = self
                    .call_tool(&call.name, call.arguments.clone(), Some(&tool_use_id))
                    .await;
                self.after_tool(&call, &tool_use_id, output).await
            }
            Verdict::Chosen { reason, .. } => (ToolOutput::error(refusal(reason.as_deref())), Vec::new()),
            Verdict::Allowed => unreachable!("an allowed call runs"),
            Verdict::Denied { message } => (ToolOutput::error(message), Vec::new()),
        };
        out.extend(self.mcp_reply(&route, Some(tool_call_response(&call.id, output))));
        out.extend(self.news());
        out
    }

    /// Withdraw every call still waiting for the user (the turn was stopped).
    pub(super) fn withdraw_mcp_calls(&self) -> Vec<AgentOutput> {
        let pending: Vec<(String, PendingMcpCall)> = self.mcp_calls.borrow_mut().drain();
        let mut out = Vec::new();
        for (id, call) in pending {
            self.gate.forget(&id);
            out.push(AgentOutput::Event {
                event: UiEvent::PermissionCancelled { id },
            });
            let reply = tool_call_response(&call.call.id, ToolOutput::error(WITHDRAWN));
            out.extend(self.mcp_reply(&call.route, Some(reply)));
        }
        out
    }

    fn mcp_reply(&self, route: &McpRoute, reply: Option<Value>) -> Vec<AgentOutput> {
        match route {
            McpRoute::Bridge(connection) => reply
                .map(|reply| AgentOutput::McpReply {
                    connection: *connection,
                    message: reply.to_string(),
                })
                .into_iter()
                .collect(),
            McpRoute::Backend(call) => {
                let outputs = self.backend.borrow_mut().mcp_reply(call, reply);
                self.emit(outputs)
            }
        }
    }
}

/// What the model reads when the user refused a call.
fn refusal(reason: Option<&str>) -> String {
    match reason.map(str::trim).filter(|r| !r.is_empty()) {
        Some(reason) => format!("The user refused this tool call and said: {reason}"),
        None => "The user refused this tool call. Do not retry it; ask the user how to proceed.".to_string(),
    }
}
