//! Control requests and their responses, either direction: what the CLI asks of the host
//! (`can_use_tool`, `mcp_message`, `hook_callback`) and what the host asks of the CLI
//! (`initialize`, `interrupt`, `set_permission_mode`, ...).

use super::{str_field, Fields};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// A control request the CLI sends: `{"type":"control_request","request_id":..,"request":{..}}`.
#[derive(Clone, Debug, PartialEq)]
pub struct IncomingControlRequest {
    pub request_id: String,
    pub request: CliRequest,
}

impl IncomingControlRequest {
    pub(super) fn from_value(value: &Value) -> Option<IncomingControlRequest> {
        let request_id = str_field(value, "request_id")?.to_string();
        let request = value.get("request").cloned().unwrap_or(Value::Null);
        Some(IncomingControlRequest {
            request_id,
            request: CliRequest::from_value(request),
        })
    }
}

/// Requests the CLI makes of the host.
#[derive(Clone, Debug, PartialEq)]
pub enum CliRequest {
    CanUseTool(CanUseTool),
    McpMessage {
        server_name: String,
        message: Value,
    },
    HookCallback(HookCallback),
    /// Any other subtype (elicitation, request_user_dialog, ...), or a known one in an
    /// unexpected shape. `subtype` is empty when there was none.
    Other {
        subtype: String,
        raw: Value,
    },
}

impl CliRequest {
    pub fn subtype(&self) -> &str {
        match self {
            CliRequest::CanUseTool(_) => "can_use_tool",
            CliRequest::McpMessage { .. } => "mcp_message",
            CliRequest::HookCallback(_) => "hook_callback",
            CliRequest::Other { subtype, .. } => subtype,
        }
    }

    pub fn from_value(value: Value) -> CliRequest {
        let subtype = str_field(&value, "subtype").unwrap_or_default().to_string();
        let parsed = match subtype.as_str() {
            "can_use_tool" => CanUseTool::parse(&value).map(CliRequest::CanUseTool),
            "mcp_message" => match (str_field(&value, "server_name"), value.get("message")) {
                (Some(server), Some(message)) => Some(CliRequest::McpMessage {
                    server_name: server.into(),
                    message: message.clone(),
                }),
                _ => None,
            },
            "hook_callback" => HookCallback::parse(&value).map(CliRequest::HookCallback),
            _ => None,
        };
        parsed.unwrap_or(CliRequest::Other { subtype, raw: value })
    }
}

/// `can_use_tool`: the CLI asks whether a tool call may run (with `--permission-prompt-tool stdio`).
#[derive(Clone, Debug, PartialEq)]
pub struct CanUseTool {
    pub tool_name: String,
    pub input: Value,
    pub tool_use_id: Option<String>,
    /// PermissionUpdate objects, kept verbatim so they can be echoed back.
    pub permission_suggestions: Vec<Value>,
    pub blocked_path: Option<String>,
    pub decision_reason: Option<String>,
    pub decision_reason_type: Option<String>,
    pub title: Option<String>,
    pub display_name: Option<String>,
    pub description: Option<String>,
    pub agent_id: Option<String>,
    pub suppress_always_allow_rule: bool,
    pub requires_user_interaction: bool,
}

impl CanUseTool {
    pub(super) fn parse(value: &Value) -> Option<CanUseTool> {
        let f = Fields::of(value)?;
        Some(CanUseTool {
            tool_name: f.required_string("tool_name")?,
            input: f.value("input"),
            tool_use_id: f.opt_string("tool_use_id")?,
            permission_suggestions: f.list("permission_suggestions", |s| Some(s.clone()))?,
            blocked_path: f.opt_string("blocked_path")?,
            decision_reason: f.opt_string("decision_reason")?,
            decision_reason_type: f.opt_string("decision_reason_type")?,
            title: f.opt_string("title")?,
            display_name: f.opt_string("display_name")?,
            description: f.opt_string("description")?,
            agent_id: f.opt_string("agent_id")?,
            suppress_always_allow_rule: f.bool("suppress_always_allow_rule")?,
            requires_user_interaction: f.bool("requires_user_interaction")?,
        })
    }
}

/// `hook_callback`: a hook registered in `initialize.hooks` fired.
#[derive(Clone, Debug, PartialEq)]
pub struct HookCallback {
    pub callback_id: String,
    pub input: Value,
    pub tool_use_id: Option<String>,
}

impl HookCallback {
    pub(super) fn parse(value: &Value) -> Option<HookCallback> {
        let f = Fields::of(value)?;
        Some(HookCallback {
            callback_id: f.required_string("callback_id")?,
            input: f.value("input"),
            tool_use_id: f.opt_string("tool_use_id")?,
        })
    }
}

/// The answer to a control request, either direction.
#[derive(Clone, Debug, PartialEq)]
pub enum ControlResponse {
    Success {
        request_id: String,
        response: Value,
    },
    Error {
        request_id: String,
        error: String,
        error_code: Option<String>,
    },
}

impl ControlResponse {
    pub fn request_id(&self) -> &str {
        match self {
            ControlResponse::Success { request_id, .. } | ControlResponse::Error { request_id, .. } => request_id,
        }
    }

    pub(super) fn from_value(value: &Value) -> Option<ControlResponse> {
        let body = value.get("response")?;
        let request_id = str_field(body, "request_id")?.to_string();
        match str_field(body, "subtype")? {
            "success" => Some(ControlResponse::Success {
                request_id,
                response: body.get("response").cloned().unwrap_or(Value::Null),
            }),
            "error" => Some(ControlResponse::Error {
                request_id,
                error: match body.get("error") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                },
                error_code: str_field(body, "error_code").map(str::to_string),
            }),
            _ => None,
        }
    }

    /// The stdin line carrying this response.
    pub fn to_line(&self) -> String {
        let body = match self {
            ControlResponse::Success { request_id, response } => {
                json!({"subtype": "success", "request_id": request_id, "response": response})
            }
            ControlResponse::Error {
                request_id,
                error,
                error_code,
            } => {
                let mut body = json!({"subtype": "error", "request_id": request_id, "error": error});
                if let Some(code) = error_code {
                    body["error_code"] = json!(code);
                }
                body
            }
        };
        json!({"type": "control_response", "response": body}).to_string()
    }
}

/// Requests the host makes of the CLI.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum HostRequest {
    Initialize(InitializeRequest),
    Interrupt,
    SetPermissionMode {
        mode: String,
    },
    /// `None` goes back to the default model.
    SetModel {
        model: Option<String>,
    },
    McpStatus,
    /// How full the context window is, by category (answered after `count_tokens` calls: some
    /// 27 the first time in a process, one each time after, as measured with 2.1.330).
    GetContextUsage,
    /// Stop one subagent or background task (`task_id` of its `system/task_started`).
    StopTask {
        task_id: String,
    },
    /// A message from an in-process MCP server to the CLI (e.g. `notifications/tools/list_changed`).
    McpMessage {
        server_name: String,
        message: Value,
    },
}

impl HostRequest {
    /// The stdin line carrying this request.
    pub fn to_line(&self, request_id: &str) -> String {
        json!({"type": "control_request", "request_id": request_id, "request": self}).to_string()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequest {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sdk_mcp_servers: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sdk_mcp_server_manifests: BTreeMap<String, McpManifest>,
    /// Hook event name (PreToolUse, ...) → matchers.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hooks: BTreeMap<String, Vec<HookMatcher>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append_system_prompt: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub agents: BTreeMap<String, AgentDefinition>,
    /// A tool name the model may emit → the tool that runs it instead (one hop).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tool_aliases: BTreeMap<String, String>,
}

/// The MCP `initialize` and `tools/list` results, sent ahead so no handshake crosses the wire.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpManifest {
    pub initialize_result: Value,
    pub tools_list_result: Value,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookMatcher {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    pub hook_callback_ids: Vec<String>,
    /// Seconds the CLI waits for the callback's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentDefinition {
    pub description: String,
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disallowed_tools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// The answer to `can_use_tool`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
pub enum PermissionResult {
    Allow {
        /// Replaces the tool's input (the host may have edited it).
        #[serde(rename = "updatedInput")]
        updated_input: Value,
        #[serde(rename = "updatedPermissions", default, skip_serializing_if = "Option::is_none")]
        updated_permissions: Option<Vec<Value>>,
        #[serde(rename = "toolUseID", default, skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<String>,
        /// user_temporary, user_permanent or user_reject (the CLI infers it when absent).
        #[serde(rename = "decisionClassification", default, skip_serializing_if = "Option::is_none")]
        decision_classification: Option<String>,
    },
    Deny {
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        interrupt: Option<bool>,
        #[serde(rename = "toolUseID", default, skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<String>,
    },
}

/// The answer to a `hook_callback`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HookOutput {
    #[serde(rename = "continue", default, skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    #[serde(rename = "hookSpecificOutput", default, skip_serializing_if = "Option::is_none")]
    pub hook_specific_output: Option<PreToolUseDecision>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreToolUseDecision {
    /// Always "PreToolUse".
    pub hook_event_name: String,
    /// allow, deny or ask.
    pub permission_decision: String,
    pub permission_decision_reason: String,
}

impl HookOutput {
    /// No opinion: the CLI goes on with its normal permission flow.
    pub fn proceed() -> HookOutput {
        HookOutput {
            continue_: Some(true),
            hook_specific_output: None,
        }
    }

    pub fn deny_tool(reason: impl Into<String>) -> HookOutput {
        HookOutput {
            continue_: None,
            hook_specific_output: Some(PreToolUseDecision {
                hook_event_name: "PreToolUse".into(),
                permission_decision: "deny".into(),
                permission_decision_reason: reason.into(),
            }),
        }
    }
}
