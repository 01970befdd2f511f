//! `session/update` → UI events. Message and thought chunks become streamed messages; tool calls
//! are followed by id (a call first seen in an update or a permission request is announced then;
//! gemini-cli does that) and shown with their kind, title, workspace locations, diffs and
//! terminals; calls of Tether's own tools show as those tools (`Read`, `Edit`, …). Terminal output
//! agents send in `_meta` (`terminal_info`, `terminal_output(_delta)`, `terminal_exit`) goes to
//! the terminal it names, whether or not Tether created it. The plan feeds the todo list, the
//! commands the composer, modes and options the pickers, usage and the title the header.

use super::calls::Tracked;
use super::protocol::content::ContentBlock;
use super::protocol::terminal::TerminalDisplay;
use super::protocol::tool_call::{ToolCall, ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolKind as AcpKind};
use super::protocol::update::{ContentChunk, SessionNotification, SessionUpdate};
use super::state::AcpBackend;
use crate::backend::{Action, Output};
use crate::events::{describe_tool, tool_kind, CommandInfo, Location, TodoItem, ToolContentItem, ToolKind, UiEvent};
use crate::mcp::SERVER_NAME;
use crate::tools::is_known_tool;
use serde_json::{json, Value};

/// The most of a tool's raw output shown as its result text.
const MAX_RESULT_CHARS: usize = 20_000;

/// The tool of Tether's a call is, with its input: recognised however each agent names its MCP
/// calls (claude-agent-acp: `_meta.claudeCode.toolName` `mcp__tether__Read`; codex-acp:
/// `rawInput {server: "tether", tool, arguments}`; gemini-cli: ids `mcp_tether_Read__…` and
/// titles `Read (tether MCP Server)`, the input as JSON text in its content).
pub fn tether_tool(call: &ToolCall) -> Option<(String, Value)> {
    let known = |name: &str| is_known_tool(name).then(|| name.to_string());
    let raw = call.raw_input.clone().filter(|v| v.is_object());
    let claude_prefix = format!("mcp__{SERVER_NAME}__");
    let meta_name = call
        .meta
        .as_ref()
        .and_then(|m| m.get("claudeCode"))
        .and_then(|c| c.get("toolName"))
        .and_then(Value::as_str);
    if let Some(name) = meta_name.and_then(|n| n.strip_prefix(&claude_prefix)).and_then(known) {
        return Some((name, raw.unwrap_or_else(|| json!({}))));
    }
    if let Some(raw) = &raw {
        if raw.get("server").and_then(Value::as_str) == Some(SERVER_NAME) {
            let name = raw.get("tool").and_then(Value::as_str).and_then(known)?;
            return Some((name, raw.get("arguments").cloned().unwrap_or_else(|| json!({}))));
        }
    }
    let gemini_prefix = format!("mcp_{SERVER_NAME}_");
    let gemini_suffix = format!(" ({SERVER_NAME} MCP Server)");
    let name = call
        .tool_call_id
        .strip_prefix(&gemini_prefix)
        .and_then(|rest| rest.split("__").next())
        .and_then(known)
        .or_else(|| call.title.strip_suffix(&gemini_suffix).and_then(known))
        .or_else(|| call.title.strip_prefix(&claude_prefix).and_then(known))?;
    let from_text = call.content.iter().find_map(|c| match c {
        ToolCallContent::Content(item) => item
            .content
            .as_text()
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .filter(Value::is_object),
        _ => None,
    });
    Some((name, raw.or(from_text).unwrap_or_else(|| json!({}))))
}

/// ACP's tool kinds as the chat draws them.
pub fn event_kind(kind: &AcpKind) -> ToolKind {
    match kind {
        AcpKind::Read => ToolKind::Read,
        AcpKind::Edit | AcpKind::Delete | AcpKind::Move => ToolKind::Edit,
        AcpKind::Search => ToolKind::Search,
        AcpKind::Execute => ToolKind::Execute,
        AcpKind::Think => ToolKind::Think,
        AcpKind::Fetch => ToolKind::Fetch,
        AcpKind::SwitchMode => ToolKind::SwitchMode,
        AcpKind::Other | AcpKind::Unknown(_) => ToolKind::Other,
    }
}

impl AcpBackend {
    pub(super) fn on_update(&mut self, notification: SessionNotification) -> Vec<Action> {
        // Late updates of a session left behind (a load switched sessions) are not this chat's.
        if self.session.as_ref().is_some_and(|s| *s != notification.session_id) {
            return Vec::new();
        }
        let out = match notification.update {
            SessionUpdate::AgentMessageChunk(chunk) => self.chunk(chunk, false),
            SessionUpdate::AgentThoughtChunk(chunk) => self.chunk(chunk, true),
            SessionUpdate::UserMessageChunk(chunk) => {
                // Only a replayed conversation shows the user's turns; in a turn they are echoes.
                if self.in_turn || self.silent_replay {
                    Vec::new()
                } else {
                    let mut out = self.close_message();
                    out.push(Output::Event(UiEvent::UserMessageChunk {
                        text: chunk_text(&chunk.content),
                    }));
                    out
                }
            }
            SessionUpdate::ToolCall(call) if !self.silent_replay => {
                let id = call.tool_call_id.clone();
                let mut out = self.close_message();
                out.extend(self.track_call(call));
                out.extend(self.check_still_closed(&id));
                out
            }
            SessionUpdate::ToolCallUpdate(update) if !self.silent_replay => {
                let id = update.tool_call_id.clone();
                let mut out = self.track_update(update);
                out.extend(self.check_still_closed(&id));
                out
            }
            SessionUpdate::ToolCall(_) | SessionUpdate::ToolCallUpdate(_) => Vec::new(),
            SessionUpdate::Plan(plan) => vec![Output::Event(UiEvent::TodoUpdate {
                todos: plan
                    .entries
                    .into_iter()
                    .map(|e| TodoItem {
                        content: e.content,
                        status: e.status.as_str().to_string(),
                        active_form: None,
                    })
                    .collect(),
            })],
            SessionUpdate::AvailableCommandsUpdate(update) => vec![Output::Event(UiEvent::Commands {
                commands: update
                    .available_commands
                    .into_iter()
                    .map(|c| CommandInfo {
                        name: c.name,
                        description: Some(c.description).filter(|d| !d.is_empty()),
                        argument_hint: c.input.map(|i| i.hint),
                    })
                    .collect(),
            })],
            SessionUpdate::CurrentModeUpdate(update) => {
                self.options.set_mode(&update.current_mode_id);
                self.options_changed()
            }
            SessionUpdate::ConfigOptionUpdate(update) => {
                self.options
                    .replace_config(&json!({"configOptions": update.config_options}));
                self.options_changed()
            }
            SessionUpdate::SessionInfoUpdate(update) => vec![Output::Event(UiEvent::SessionInfo {
                title: update.title,
                updated_at: update.updated_at,
            })],
            SessionUpdate::UsageUpdate(update) => vec![Output::Event(UiEvent::ContextUsage {
                used: update.used,
                size: update.size,
                cost: update.cost.as_ref().map(|c| c.amount),
                currency: update.cost.map(|c| c.currency),
                breakdown: Vec::new(),
            })],
            // Kinds this version does not know are ignored.
            SessionUpdate::Unknown(_) => Vec::new(),
        };
        out.into_iter().map(Action::Output).collect()
    }

    fn chunk(&mut self, chunk: ContentChunk, thought: bool) -> Vec<Output> {
        if self.silent_replay {
            return Vec::new();
        }
        let mut out = Vec::new();
        let id = match (&chunk.message_id, &self.open_message) {
            (Some(id), _) => id.clone(),
            (None, Some(open)) => open.clone(),
            (None, None) => {
                self.next_message += 1;
                format!("acp-message-{}", self.next_message)
            }
        };
        if self.open_message.as_ref() != Some(&id) {
            out.extend(self.close_message());
            self.open_message = Some(id.clone());
            out.push(Output::Event(UiEvent::MessageStart {
                message_id: id.clone(),
                parent_tool_use_id: parent_of(chunk.meta.as_ref()),
            }));
        }
        let text = chunk_text(&chunk.content);
        let parent_tool_use_id = parent_of(chunk.meta.as_ref());
        out.push(Output::Event(if thought {
            UiEvent::ThinkingDelta {
                message_id: Some(id),
                text,
                parent_tool_use_id,
            }
        } else {
            UiEvent::TextDelta {
                message_id: Some(id),
                text,
                parent_tool_use_id,
            }
        }));
        out
    }

    /// End the message being streamed (a tool call or the end of the turn follows it).
    pub(super) fn close_message(&mut self) -> Vec<Output> {
        match self.open_message.take() {
            Some(message_id) => vec![Output::Event(UiEvent::MessageStop {
                message_id,
                stop_reason: None,
            })],
            None => Vec::new(),
        }
    }

    fn track_call(&mut self, call: ToolCall) -> Vec<Output> {
        if self.calls.map.contains_key(&call.tool_call_id) {
            // Announced twice: the second says what changed.
            return self.track_update(update_of(call));
        }
        let (name, input, kind, title) = match tether_tool(&call) {
            Some((name, input)) => {
                let cwd = self.paths.mirror_root().unwrap_or(self.paths.root()).to_string();
                let description = describe_tool(&name, &input, Some(&cwd));
                (name.clone(), input, tool_kind(&name), description.title)
            }
            None => (
                agent_tool_name(&call),
                call.raw_input.clone().unwrap_or_else(|| json!({})),
                event_kind(&call.kind),
                call.title.clone(),
            ),
        };
        let id = call.tool_call_id.clone();
        let mut out = vec![Output::Event(UiEvent::ToolCallStart {
            id: id.clone(),
            name: name.clone(),
            input,
            kind,
            title,
            locations: self.locations(&call),
            parent_tool_use_id: parent_of(call.meta.as_ref()),
        })];
        if !call.content.is_empty() {
            out.push(self.content_event(&id, &call.content));
        }
        out.extend(self.terminal_meta(call.meta.as_ref()));
        let finished = matches!(call.status, ToolCallStatus::Completed | ToolCallStatus::Failed);
        if finished {
            out.push(result_event(&call));
        }
        self.calls.map.insert(id, Tracked { call, name, finished });
        out
    }

    /// An update of a call; one never announced is announced now.
    pub(super) fn track_update(&mut self, update: ToolCallUpdate) -> Vec<Output> {
        let Some(tracked) = self.calls.map.get_mut(&update.tool_call_id) else {
            return self.track_call(update.into());
        };
        let id = update.tool_call_id.clone();
        let changed_view = update.title.is_some() || update.raw_input.is_some() || update.locations.is_some();
        let content = update.content.clone();
        let meta = update.meta.clone();
        tracked.call.apply(update);
        let call = tracked.call.clone();
        let newly_finished =
            !tracked.finished && matches!(call.status, ToolCallStatus::Completed | ToolCallStatus::Failed);
        tracked.finished |= newly_finished;
        let mut out = Vec::new();
        if changed_view {
            let (input, title) = match tether_tool(&call) {
                Some((name, input)) => {
                    let cwd = self.paths.mirror_root().unwrap_or(self.paths.root()).to_string();
                    let title = describe_tool(&name, &input, Some(&cwd)).title;
                    (input, title)
                }
                None => (call.raw_input.clone().unwrap_or_else(|| json!({})), call.title.clone()),
            };
            out.push(Output::Event(UiEvent::ToolCallUpdate {
                id: id.clone(),
                input,
                title,
                locations: self.locations(&call),
            }));
        }
        if let Some(content) = content {
            out.push(self.content_event(&id, &content));
        }
        out.extend(self.terminal_meta(meta.as_ref()));
        if newly_finished {
            out.push(result_event(&call));
        }
        out
    }

    /// Locations in the agent's namespace, as workspace paths.
    fn locations(&self, call: &ToolCall) -> Vec<Location> {
        call.locations
            .iter()
            .map(|l| Location {
                path: self.paths.resolve(&l.path).unwrap_or_else(|_| l.path.clone()),
                line: l.line.map(u64::from),
            })
            .collect()
    }

    fn content_event(&self, id: &str, content: &[ToolCallContent]) -> Output {
        let content = content
            .iter()
            .filter_map(|c| match c {
                ToolCallContent::Content(item) => Some(ToolContentItem::Text {
                    text: chunk_text(&item.content),
                }),
                ToolCallContent::Diff(diff) => Some(ToolContentItem::Diff {
                    path: self.paths.resolve(&diff.path).unwrap_or_else(|_| diff.path.clone()),
                    old_text: diff.old_text.clone(),
                    new_text: diff.new_text.clone(),
                }),
                // Shown whether or not Tether created it (codex-acp names its own shells so).
                ToolCallContent::Terminal(terminal) => Some(ToolContentItem::Terminal {
                    terminal_id: terminal.terminal_id.clone(),
                }),
                ToolCallContent::Unknown(_) => None,
            })
            .collect();
        Output::Event(UiEvent::ToolContent {
            id: id.to_string(),
            content,
        })
    }

    /// The `_meta` terminal display of agents that run their own shell.
    fn terminal_meta(&self, meta: Option<&super::protocol::lenient::Meta>) -> Vec<Output> {
        let Some(display) = meta.and_then(TerminalDisplay::from_meta) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let event = |terminal_id: String, output: String, append: bool| UiEvent::TerminalOutput {
            terminal_id,
            output,
            append,
            exited: false,
            exit_code: None,
            signal: None,
        };
        if let Some(output) = display.output {
            out.push(Output::Event(event(output.terminal_id, output.data, false)));
        }
        if let Some(delta) = display.output_delta {
            out.push(Output::Event(event(delta.terminal_id, delta.data, true)));
        }
        if let Some(exit) = display.exit {
            out.push(Output::Event(UiEvent::TerminalOutput {
                terminal_id: exit.terminal_id,
                output: String::new(),
                append: true,
                exited: true,
                exit_code: exit.exit_code,
                signal: exit.signal,
            }));
        }
        out
    }
}

/// A `tool_call` that says again what a call is, as an update of it.
fn update_of(call: ToolCall) -> ToolCallUpdate {
    ToolCallUpdate {
        tool_call_id: call.tool_call_id,
        title: Some(call.title),
        kind: Some(call.kind),
        status: Some(call.status),
        content: Some(call.content),
        locations: Some(call.locations),
        raw_input: call.raw_input,
        raw_output: call.raw_output,
        meta: call.meta,
    }
}

/// The agent's name for its own tool: claude-agent-acp gives it in `_meta`; else the title.
fn agent_tool_name(call: &ToolCall) -> String {
    call.meta
        .as_ref()
        .and_then(|m| m.get("claudeCode"))
        .and_then(|c| c.get("toolName"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| call.title.clone())
}

/// The subagent a message or call belongs to (claude-agent-acp's `parentToolUseId`).
fn parent_of(meta: Option<&super::protocol::lenient::Meta>) -> Option<String> {
    meta.and_then(|m| m.get("claudeCode"))
        .and_then(|c| c.get("parentToolUseId"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// A content block as text (other kinds by a short placeholder).
fn chunk_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Image(_) => "[image]".into(),
        ContentBlock::Audio(_) => "[audio]".into(),
        ContentBlock::ResourceLink(link) => format!("[{}]({})", link.name, link.uri),
        ContentBlock::Resource(_) => block
            .as_text()
            .map(str::to_string)
            .unwrap_or_else(|| "[resource]".into()),
        ContentBlock::Unknown(_) => String::new(),
    }
}

/// The end of a call: its text, and the structured result Tether's tool gave when the agent
/// passes it on.
fn result_event(call: &ToolCall) -> Output {
    let mut text: Vec<String> = call
        .content
        .iter()
        .filter_map(|c| match c {
            ToolCallContent::Content(item) => Some(chunk_text(&item.content)),
            _ => None,
        })
        .collect();
    if text.is_empty() {
        match &call.raw_output {
            Some(Value::String(s)) => text.push(s.clone()),
            Some(Value::Null) | None => {}
            Some(other) => text.push(other.to_string()),
        }
    }
    let mut content = text.join("\n");
    if content.chars().count() > MAX_RESULT_CHARS {
        content = content.chars().take(MAX_RESULT_CHARS).collect::<String>() + "…";
    }
    Output::Event(UiEvent::ToolCallResult {
        id: call.tool_call_id.clone(),
        is_error: call.status == ToolCallStatus::Failed,
        content,
        structured: call.raw_output.as_ref().and_then(structured_result),
        parent_tool_use_id: parent_of(call.meta.as_ref()),
    })
}

/// Tether's structured result inside an agent's raw output (an MCP result, as codex-acp passes it).
fn structured_result(raw: &Value) -> Option<Value> {
    let key = crate::mcp::STRUCTURED_META_KEY;
    let direct = raw.get("_meta").and_then(|m| m.get(key));
    let nested = raw.get("result").and_then(|r| r.get("_meta")).and_then(|m| m.get(key));
    direct.or(nested).cloned()
}
