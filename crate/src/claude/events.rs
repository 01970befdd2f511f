//! Claude Code's stdout messages (system, assistant, user, stream events, results) as UI events,
//! each shown once: streamed text is not repeated by the final message, a tool call announced while
//! its input streams is completed by an update, and a turn's result becomes usage, an error or a
//! notice, and `done`.

use super::builtin_name;
use super::protocol::{
    tool_result_text, AssistantMessage, CliMessage, ContentBlock, Delta, ResultMessage, StreamEvent,
    StreamEventMessage, SystemMessage, UserMessage,
};
use crate::events::{describe_tool, ErrorKind, McpServerStatus, SessionState, Severity, TodoItem, UiEvent};
use crate::mcp::STRUCTURED_META_KEY;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Per-turn bookkeeping for turning messages into events exactly once.
#[derive(Default)]
struct TurnState {
    /// Messages whose text arrived as stream deltas (their final `assistant` copy is not re-sent).
    streamed_messages: HashSet<String>,
    started_messages: HashSet<String>,
    /// The message the latest stream events belong to (when they carry no `api_message_id`).
    current_message: Option<String>,
    stop_reasons: HashMap<String, String>,
    /// [`block_key`] → tool call id, to route `input_json_delta`s. (A string key shares the
    /// map code the other string maps compile; a tuple key would compile a map of its own.)
    block_tools: HashMap<String, String>,
}

/// The state of the mapping: the turn's bookkeeping, the tool calls still open, the CLI's mode.
pub(super) struct EventMapper {
    /// The workspace folder the model sees; paths under it are shown relative to it.
    cwd: String,
    turn: TurnState,
    /// Tool calls announced and not yet answered: id → built-in name.
    open_tools: HashMap<String, String>,
    mode: Option<String>,
    /// The user asked to stop; the turn's error result is then a notice, not a failure.
    pub(super) interrupted: bool,
    /// A steering message was written: the turn it cuts short ends without a `Done`.
    pub(super) steered: bool,
}

impl EventMapper {
    pub(super) fn new(cwd: String) -> EventMapper {
        EventMapper {
            cwd,
            turn: TurnState::default(),
            open_tools: HashMap::new(),
            mode: None,
            interrupted: false,
            steered: false,
        }
    }

    /// The events of one stdout message; control traffic has none here.
    pub(super) fn on_message(&mut self, message: CliMessage) -> Vec<UiEvent> {
        match message {
            CliMessage::System(system) => self.on_system(system),
            CliMessage::Assistant(assistant) => self.on_assistant(assistant),
            CliMessage::User(user) => self.on_user(user),
            CliMessage::StreamEvent(event) => self.on_stream_event(event),
            CliMessage::Result(result) => self.on_result(result),
            CliMessage::RateLimit(event) => vec![UiEvent::RateLimit {
                status: event.rate_limit_info.status,
                resets_at: event.rate_limit_info.resets_at,
                limit_type: event.rate_limit_info.rate_limit_type,
            }],
            CliMessage::ToolProgress(progress) => vec![UiEvent::ToolProgress {
                id: progress.tool_use_id,
                name: builtin_name(&progress.tool_name).to_string(),
                elapsed_seconds: progress.elapsed_time_seconds,
            }],
            CliMessage::ControlRequest(_)
            | CliMessage::ControlResponse(_)
            | CliMessage::ControlCancelRequest { .. }
            | CliMessage::KeepAlive
            | CliMessage::Unknown(_) => Vec::new(),
        }
    }

    /// The CLI reported its mode (in the `initialize` response).
    pub(super) fn note_mode(&mut self, mode: &str) {
        self.mode = Some(mode.to_string());
    }

    pub(super) fn mode_changed(&mut self, mode: String) -> Vec<UiEvent> {
        if self.mode.as_deref() == Some(mode.as_str()) {
            return Vec::new();
        }
        self.mode = Some(mode.clone());
        vec![UiEvent::ModeChanged { mode }]
    }

    // -- stdout messages -----------------------------------------------------------------------

    fn on_system(&mut self, system: SystemMessage) -> Vec<UiEvent> {
        let event = match system {
            SystemMessage::Init(init) => {
                if init.permission_mode.is_some() {
                    self.mode = init.permission_mode.clone();
                }
                UiEvent::SessionInit {
                    session_id: init.session_id,
                    model: init.model,
                    tools: init.tools,
                    mcp_servers: init
                        .mcp_servers
                        .into_iter()
                        .map(|s| McpServerStatus {
                            name: s.name,
                            status: s.status,
                        })
                        .collect(),
                    permission_mode: init.permission_mode,
                    agent_version: init.claude_code_version,
                }
            }
            SystemMessage::Status(status) => {
                let mut out = status.permission_mode.map(|m| self.mode_changed(m)).unwrap_or_default();
                out.push(UiEvent::Activity {
                    activity: status.status,
                });
                return out;
            }
            SystemMessage::ApiRetry(retry) => UiEvent::ApiRetry {
                attempt: retry.attempt,
                max_retries: retry.max_retries,
                delay_ms: retry.retry_delay_ms,
                error_status: retry.error_status,
                error: match retry.error {
                    Value::String(s) => s,
                    Value::Null => String::new(),
                    other => other.to_string(),
                },
            },
            SystemMessage::SessionStateChanged { state } => {
                let state = match state.as_str() {
                    "idle" => SessionState::Idle,
                    "running" => SessionState::Running,
                    "requires_action" => SessionState::RequiresAction,
                    _ => return Vec::new(),
                };
                UiEvent::Status { state }
            }
            SystemMessage::SessionTitleChanged { title } => UiEvent::SessionInfo {
                title: Some(title),
                updated_at: None,
            },
            SystemMessage::PermissionDenied(denied) => UiEvent::PermissionDenied {
                tool_name: builtin_name(&denied.tool_name).to_string(),
                tool_use_id: denied.tool_use_id,
                message: denied.message,
                reason: denied.decision_reason_type,
                agent_id: denied.agent_id,
            },
            SystemMessage::CompactBoundary(boundary) => UiEvent::Compacted {
                trigger: boundary.compact_metadata.trigger,
                pre_tokens: boundary.compact_metadata.pre_tokens,
            },
            SystemMessage::TaskStarted(task) => UiEvent::TaskUpdate {
                task_id: task.task_id,
                tool_use_id: task.tool_use_id,
                status: "started".into(),
                description: task.description,
                summary: None,
                output: None,
                exit_code: None,
            },
            SystemMessage::TaskNotification(task) => UiEvent::TaskUpdate {
                task_id: task.task_id,
                tool_use_id: task.tool_use_id,
                status: task.status,
                description: None,
                summary: task.summary,
                output: None,
                exit_code: None,
            },
            SystemMessage::Other { .. } => return Vec::new(),
        };
        vec![event]
    }

    fn message_started(&mut self, message_id: &str, parent_tool_use_id: &Option<String>) -> Vec<UiEvent> {
        if message_id.is_empty() || !self.turn.started_messages.insert(message_id.to_string()) {
            return Vec::new();
        }
        vec![UiEvent::MessageStart {
            message_id: message_id.to_string(),
            parent_tool_use_id: parent_tool_use_id.clone(),
        }]
    }

    fn on_stream_event(&mut self, message: StreamEventMessage) -> Vec<UiEvent> {
        let parent = message.parent_tool_use_id;
        if let StreamEvent::MessageStart { id } = &message.event {
            self.turn.current_message = Some(id.clone());
        }
        let Some(message_id) = message.api_message_id.or_else(|| self.turn.current_message.clone()) else {
            return Vec::new();
        };
        self.turn.streamed_messages.insert(message_id.clone());
        match message.event {
            StreamEvent::MessageStart { .. } => self.message_started(&message_id, &parent),
            StreamEvent::ContentBlockStart {
                index,
                block: ContentBlock::ToolUse { id, name, input },
            } => {
                self.turn.block_tools.insert(block_key(&message_id, index), id.clone());
                self.tool_use(id, &name, input, &parent)
            }
            StreamEvent::ContentBlockDelta { index, delta } => {
                let event = match delta {
                    Delta::Text(text) => UiEvent::TextDelta {
                        message_id: Some(message_id),
                        text,
                        parent_tool_use_id: parent,
                    },
                    Delta::Thinking(text) => UiEvent::ThinkingDelta {
                        message_id: Some(message_id),
                        text,
                        parent_tool_use_id: parent,
                    },
                    Delta::InputJson(partial_json) => {
                        let Some(id) = self.turn.block_tools.get(&block_key(&message_id, index)) else {
                            return Vec::new();
                        };
                        UiEvent::ToolInputDelta {
                            id: id.clone(),
                            partial_json,
                        }
                    }
                    Delta::Signature | Delta::Other(_) => return Vec::new(),
                };
                vec![event]
            }
            StreamEvent::MessageDelta { stop_reason } => {
                if let Some(reason) = stop_reason {
                    self.turn.stop_reasons.insert(message_id, reason);
                }
                Vec::new()
            }
            StreamEvent::MessageStop => {
                let stop_reason = self.turn.stop_reasons.remove(&message_id);
                vec![UiEvent::MessageStop {
                    message_id,
                    stop_reason,
                }]
            }
            StreamEvent::ContentBlockStart { .. }
            | StreamEvent::ContentBlockStop { .. }
            | StreamEvent::Ping
            | StreamEvent::Other(_) => Vec::new(),
        }
    }

    /// A tool_use block, from the stream (input still `{}`) or from the final assistant message.
    fn tool_use(&mut self, id: String, raw_name: &str, input: Value, parent: &Option<String>) -> Vec<UiEvent> {
        let name = builtin_name(raw_name).to_string();
        let cwd = Some(self.cwd.as_str()).filter(|c| !c.is_empty());
        let described = describe_tool(&name, &input, cwd);
        let mut out = Vec::new();
        if name == "TodoWrite" {
            if let Some(todos) = todo_items(&input) {
                out.push(UiEvent::TodoUpdate { todos });
            }
        }
        if self.open_tools.contains_key(&id) {
            out.insert(
                0,
                UiEvent::ToolCallUpdate {
                    id,
                    input,
                    title: described.title,
                    locations: described.locations,
                },
            );
            return out;
        }
        self.open_tools.insert(id.clone(), name.clone());
        out.insert(
            0,
            UiEvent::ToolCallStart {
                id,
                name,
                input,
                kind: described.kind,
                title: described.title,
                locations: described.locations,
                parent_tool_use_id: parent.clone(),
            },
        );
        out
    }

    fn on_assistant(&mut self, assistant: AssistantMessage) -> Vec<UiEvent> {
        let message_id = assistant.message.id;
        let parent = assistant.parent_tool_use_id;
        let mut out = self.message_started(&message_id, &parent);
        // Text and thinking that were streamed must not be shown twice.
        let streamed = self.turn.streamed_messages.contains(&message_id);
        let id = Some(message_id.clone()).filter(|m| !m.is_empty());
        for block in assistant.message.content {
            match block {
                ContentBlock::Text { text } if !streamed => out.push(UiEvent::TextDelta {
                    message_id: id.clone(),
                    text,
                    parent_tool_use_id: parent.clone(),
                }),
                ContentBlock::Thinking { thinking } if !streamed => out.push(UiEvent::ThinkingDelta {
                    message_id: id.clone(),
                    text: thinking,
                    parent_tool_use_id: parent.clone(),
                }),
                ContentBlock::ToolUse { id, name, input } => out.extend(self.tool_use(id, &name, input, &parent)),
                _ => {}
            }
        }
        out
    }

    fn on_user(&mut self, user: UserMessage) -> Vec<UiEvent> {
        if user.is_replay {
            return Vec::new();
        }
        let results: Vec<(String, Value, bool)> = user
            .message
            .content
            .into_iter()
            .filter_map(|block| match block {
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                } => Some((tool_use_id, content, is_error)),
                _ => None,
            })
            .collect();
        // The structured result belongs to the message, so it is only unambiguous for one result.
        let structured = if results.len() == 1 {
            user.tool_use_result.map(tether_structured_result)
        } else {
            None
        };
        let mut out = Vec::new();
        for (id, content, is_error) in results {
            let is_plan = self.open_tools.remove(&id).as_deref() == Some("ExitPlanMode");
            out.push(UiEvent::ToolCallResult {
                id: id.clone(),
                is_error,
                content: tool_result_text(&content),
                structured: structured.clone(),
                parent_tool_use_id: user.parent_tool_use_id.clone(),
            });
            if is_plan && !is_error {
                // The plan lives in a file; the tool's structured result carries its text.
                let field = |key: &str| {
                    structured
                        .as_ref()
                        .and_then(|s| s.get(key))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                };
                out.push(UiEvent::Plan {
                    tool_call_id: id,
                    plan: field("plan"),
                    file_path: field("filePath"),
                });
            }
        }
        out
    }

    fn on_result(&mut self, result: ResultMessage) -> Vec<UiEvent> {
        let cut_for_steering = std::mem::take(&mut self.steered) && is_aborted(&result);
        if cut_for_steering {
            self.turn = TurnState::default();
            return Vec::new();
        }
        let mut out = Vec::new();
        if let Some(usage) = &result.usage {
            out.push(UiEvent::Usage {
                input_tokens: usage.input_tokens,
                output_tokens: usage.output_tokens,
                cache_read_tokens: usage.cache_read_input_tokens,
                cache_creation_tokens: usage.cache_creation_input_tokens,
                cost_usd: result.total_cost_usd,
            });
        }
        if let Some(event) = self.result_error(&result) {
            out.push(event);
        }
        out.push(UiEvent::Done {
            subtype: result.subtype,
            is_error: result.is_error,
            duration_ms: result.duration_ms,
            num_turns: result.num_turns,
            session_id: result.session_id,
            result: result.result,
            stop_reason: result.stop_reason,
        });
        self.interrupted = false;
        self.turn = TurnState::default();
        out
    }

    fn result_error(&self, result: &ResultMessage) -> Option<UiEvent> {
        let text = result.result.clone().unwrap_or_default();
        let event = |kind, severity, message: String, hint: Option<&str>| {
            UiEvent::error(kind, severity, message, hint.map(str::to_string))
        };
        let aborted = is_aborted(result);
        Some(match result.subtype.as_str() {
            "success" if !result.is_error => return None,
            "success" if text.contains("Not logged in") => event(
                ErrorKind::NotLoggedIn,
                Severity::Error,
                text,
                Some("Claude Code has no credentials. Set an API key in Tether's settings, or run `claude` in a terminal on this machine and log in with /login."),
            ),
            "success" if text.starts_with("API Error") => event(ErrorKind::Api, Severity::Error, text, None),
            "error_max_turns" => event(
                ErrorKind::MaxTurns,
                Severity::Notice,
                format!("Stopped after the maximum number of turns ({}).", result.num_turns),
                None,
            ),
            "error_max_budget_usd" => event(
                ErrorKind::MaxBudget,
                Severity::Notice,
                "Stopped: the spending limit for this session was reached.".into(),
                None,
            ),
            "error_during_execution" if self.interrupted || aborted => {
                event(ErrorKind::Interrupted, Severity::Notice, "Stopped.".into(), None)
            }
            "error_during_execution" => {
                let message = if result.errors.is_empty() {
                    "The turn failed while running.".to_string()
                } else {
                    result.errors.join("\n")
                };
                event(ErrorKind::ExecutionError, Severity::Error, message, None)
            }
            _ => {
                let message = [text, result.errors.join("\n")]
                    .into_iter()
                    .find(|m| !m.is_empty())
                    .unwrap_or_else(|| format!("The turn ended with {}.", result.subtype));
                event(ErrorKind::Other, Severity::Error, message, None)
            }
        })
    }
}

/// The turn was cut short (by an interrupt, or by a message with priority `now`).
fn is_aborted(result: &ResultMessage) -> bool {
    matches!(
        result.terminal_reason.as_deref(),
        Some("aborted_tools" | "aborted_streaming")
    )
}

/// For Tether's tools the CLI passes the MCP result through (`{content, _meta}`); the
/// built-in-shaped structured result is under `_meta["tether/toolResult"]`.
fn tether_structured_result(tool_use_result: Value) -> Value {
    match tool_use_result.get("_meta").and_then(|m| m.get(STRUCTURED_META_KEY)) {
        Some(structured) => structured.clone(),
        None => tool_use_result,
    }
}

fn todo_items(input: &Value) -> Option<Vec<TodoItem>> {
    let todos = input.get("todos")?.as_array()?;
    Some(
        todos
            .iter()
            .filter_map(|t| {
                let text = |key: &str| t.get(key).and_then(Value::as_str).map(str::to_string);
                Some(TodoItem {
                    content: text("content")?,
                    status: text("status").unwrap_or_else(|| "pending".into()),
                    active_form: text("activeForm"),
                })
            })
            .collect(),
    )
}

/// A content block's key: its message id and its index in the message.
fn block_key(message_id: &str, index: u64) -> String {
    format!("{message_id}\u{0}{index}")
}
