//! The MCP server with the tools bound to one host and workspace: [`Dispatch`] plus a
//! [`Toolset`] that runs the calls. Batches are answered as one array.

use super::{tool_call_response, Dispatch, Manifest, Step};
use crate::host::Host;
use crate::rpc::{self, RpcError, INVALID_REQUEST, PARSE_ERROR};
use crate::tools::Toolset;
use serde_json::Value;
use std::cell::OnceCell;

pub struct McpServer<H: Host> {
    pub tools: Toolset<H>,
    /// Made on first use: the tool list is the costliest part of a session to make, and an agent
    /// makes its server before it spawns the agent's program.
    dispatch: OnceCell<Dispatch>,
}

impl<H: Host> McpServer<H> {
    pub fn new(tools: Toolset<H>) -> Self {
        McpServer {
            tools,
            dispatch: OnceCell::new(),
        }
    }

    fn dispatch(&self) -> &Dispatch {
        self.dispatch
            .get_or_init(|| Dispatch::new(Manifest::of_workspace(self.tools.paths.root())))
    }

    pub fn manifest(&self) -> &Manifest {
        self.dispatch().manifest()
    }

    /// What one message needs, without running anything (for a caller that puts the gate before
    /// the tools).
    pub fn receive(&self, message: Value) -> Step {
        self.dispatch().receive(message)
    }

    /// Handle one serialized message. Returns the serialized response, or None for notifications
    /// and responses (which need none).
    pub async fn handle(&self, message: &str) -> Option<String> {
        let value: Value = match serde_json::from_str(message) {
            Ok(v) => v,
            Err(e) => {
                let error = RpcError::new(PARSE_ERROR, format!("Parse error: {e}"));
                return Some(rpc::error_response(None, &error).to_string());
            }
        };
        self.handle_value(value).await.map(|v| v.to_string())
    }

    /// Handle one parsed message (or a batch).
    pub async fn handle_value(&self, message: Value) -> Option<Value> {
        let Value::Array(batch) = message else {
            return self.handle_one(message).await;
        };
        if batch.is_empty() {
            let error = RpcError::new(INVALID_REQUEST, "Invalid Request: empty batch");
            return Some(rpc::error_response(None, &error));
        }
        let mut out = Vec::new();
        for item in batch {
            // A batch holds messages, not batches: an array inside is an invalid request.
            if let Some(r) = self.handle_one(item).await {
                out.push(r);
            }
        }
        if out.is_empty() {
            None
        } else {
            Some(Value::Array(out))
        }
    }

    async fn handle_one(&self, message: Value) -> Option<Value> {
        match self.dispatch().receive(message) {
            Step::Reply(reply) => reply,
            Step::Call(call) => Some(tool_call_response(
                &call.id,
                self.tools.call(&call.name, call.arguments).await,
            )),
        }
    }
}
