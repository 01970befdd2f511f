//! The gateway's `chat` and `agent` events as Tether's [`UiEvent`]s, one run (turn) at a time.
//!
//! Protocol 4 sends every turn twice: `agent` (raw streams: assistant, tool, item, thinking,
//! plan, usage, lifecycle) and `chat` (status, delta with a cumulative `message`, final,
//! aborted, error), coalesced differently. Text is rendered from `chat` only, against its
//! cumulative message, so a repeated or coalesced delta adds nothing twice and a non-prefix
//! rewrite (`replace`) becomes a [`UiEvent::MessageReplace`]. Tools, thinking, plans and usage
//! come from `agent`. The first terminal event of a run ends it; later ones (the gateway sends
//! `error` twice) are dropped. Protocol 3 (the seed's notes) renders text from the `agent`
//! assistant stream and knows the `kind` payloads (`text_delta`, `tool_start`, ...).

use crate::events::{ErrorKind, Location, SessionState, Severity, TodoItem, ToolKind, UiEvent};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// How many ended runs are remembered to drop their late duplicates.
const ENDED_RUNS_KEPT: usize = 256;

// Outputs are made once and handed on at once; boxing the UI event would cost more than it saves.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum ChatOutput {
    Ui(UiEvent),
    /// A seed (protocol 3) A2UI surface message, for the canvas.
    Canvas(Value),
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    Final,
    Aborted,
    Failed,
    /// The connection was lost and the gateway no longer runs it.
    Interrupted,
}

#[derive(Debug, Default)]
struct Run {
    session_key: String,
    text: String,
    thinking: String,
    /// Tool calls shown, with their titles.
    tools_started: BTreeMap<String, String>,
    /// Tool calls the `tool` stream reports (the tool-events cap): their result comes from it.
    tools_streamed: BTreeSet<String>,
    tools_ended: BTreeSet<String>,
    input_tokens: u64,
    output_tokens: u64,
}

#[derive(Debug)]
pub struct ChatMapper {
    protocol: u64,
    /// Render only this session's runs (canonical key, `agent:main:...`); None: every run.
    session_key: Option<String>,
    runs: crate::id_table::IdTable<Run>,
    ended: VecDeque<String>,
    v3_runs: u64,
}

impl ChatMapper {
    pub fn new(protocol: u64) -> ChatMapper {
        ChatMapper {
            protocol,
            session_key: None,
            runs: Default::default(),
            ended: VecDeque::new(),
            v3_runs: 0,
        }
    }

    pub fn set_protocol(&mut self, protocol: u64) {
        self.protocol = protocol;
    }

    /// Show `session_key`'s runs only (as the gateway names it: `agent:main:<key>`).
    pub fn watch(&mut self, session_key: Option<String>) {
        self.session_key = session_key;
    }

    /// Runs started and not ended, with the text shown so far.
    pub fn open_runs(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        self.runs
            .iter()
            .map(|(id, run)| (id.as_str(), run.session_key.as_str(), run.text.as_str()))
    }

    pub fn is_open(&self, run_id: &str) -> bool {
        self.runs.contains_key(run_id)
    }

    /// Map one gateway event; unknown events and other sessions' runs give nothing.
    pub fn on_event(&mut self, event: &str, payload: &Value) -> Vec<ChatOutput> {
        let mut out = Vec::new();
        match event {
            "chat" => self.on_chat(payload, &mut out),
            // v4 tool events carry the session row's fields at the top, `kind: "direct"`
            // among them: a v3 payload is one with a `kind` and no `stream`.
            "agent" if payload.get("stream").is_none() && payload.get("kind").is_some() => {
                self.on_v3_kind(payload, &mut out)
            }
            "agent" => self.on_agent(payload, &mut out),
            _ => {}
        }
        out
    }

    /// Bring a run's text up to `full` (a resync found it in the history): the missing tail
    /// as a delta when what was shown is its prefix, else a replacement.
    pub fn catch_up(&mut self, run_id: &str, full: &str) -> Vec<ChatOutput> {
        let mut out = Vec::new();
        if let Some(run) = self.runs.get_mut(run_id) {
            show_text(run_id, run, full, false, &mut out);
        }
        out
    }

    /// Whether the run ended (it is remembered for a while, to drop its late events).
    pub fn has_ended(&self, run_id: &str) -> bool {
        self.ended.iter().any(|id| id == run_id)
    }

    /// Show a run that was never seen streaming, as the history has it, and end it (a send
    /// replayed after a reconnect whose run ran while Tether was away).
    pub fn settle(&mut self, run_id: &str, session_key: &str, text: &str, end: RunEnd) -> Vec<ChatOutput> {
        let mut out = Vec::new();
        if self.is_open(run_id) || self.has_ended(run_id) {
            return out;
        }
        let keyed = serde_json::json!({"runId": run_id, "sessionKey": session_key});
        if let Some((run_id, run)) = self.run(&keyed, &mut out) {
            show_text(&run_id, run, text, false, &mut out);
        }
        out.extend(self.end_run(run_id, end, None));
        out
    }

    /// End a run the gateway will say no more about (`Interrupted` after a lost connection).
    pub fn end_run(&mut self, run_id: &str, end: RunEnd, message: Option<&str>) -> Vec<ChatOutput> {
        let mut out = Vec::new();
        if let Some(run) = self.runs.remove(run_id) {
            self.remember_ended(run_id);
            finish(run_id, run, end, None, message, &mut out);
        }
        out
    }

    fn watched(&self, session_key: &str) -> bool {
        self.session_key.as_deref().is_none_or(|k| k == session_key)
    }

    fn remember_ended(&mut self, run_id: &str) {
        self.ended.push_back(run_id.to_string());
        if self.ended.len() > ENDED_RUNS_KEPT {
            self.ended.pop_front();
        }
    }

    /// The open run `run_id`, started now if new; None for an ended run or another session's.
    fn run(&mut self, payload: &Value, out: &mut Vec<ChatOutput>) -> Option<(String, &mut Run)> {
        let run_id = payload.get("runId").and_then(Value::as_str)?.to_string();
        let session_key = payload.get("sessionKey").and_then(Value::as_str).unwrap_or_default();
        if self.ended.contains(&run_id) || !self.watched(session_key) {
            return None;
        }
        if !self.runs.contains_key(&run_id) {
            out.push(ChatOutput::Ui(UiEvent::Status {
                state: SessionState::Running,
            }));
            out.push(ChatOutput::Ui(UiEvent::MessageStart {
                message_id: run_id.clone(),
                parent_tool_use_id: None,
            }));
            let run = Run {
                session_key: session_key.to_string(),
                ..Run::default()
            };
            self.runs.insert(run_id.clone(), run);
        }
        let run = self.runs.get_mut(&run_id)?;
        Some((run_id, run))
    }

    fn on_chat(&mut self, payload: &Value, out: &mut Vec<ChatOutput>) {
        let state = payload.get("state").and_then(Value::as_str).unwrap_or_default();
        let protocol = self.protocol;
        let Some((run_id, run)) = self.run(payload, out) else {
            return;
        };
        match state {
            "status" => {
                let phase = payload.get("phase").and_then(Value::as_str).map(str::to_string);
                out.push(ChatOutput::Ui(UiEvent::Activity { activity: phase }));
            }
            "delta" if protocol >= 4 => {
                let replace = payload.get("replace").and_then(Value::as_bool).unwrap_or(false);
                match payload.get("message").and_then(message_text) {
                    Some(full) => show_text(&run_id, run, &full, replace, out),
                    None => {
                        let delta = payload.get("deltaText").and_then(Value::as_str).unwrap_or_default();
                        append_text(&run_id, run, delta, out);
                    }
                }
            }
            "final" | "aborted" | "error" => {
                if let Some(full) = payload.get("message").and_then(message_text) {
                    show_text(&run_id, run, &full, false, out);
                }
                if let Some(usage) = payload.get("usage") {
                    read_usage(run, usage);
                }
                let end = match state {
                    "final" => RunEnd::Final,
                    "aborted" => RunEnd::Aborted,
                    _ => RunEnd::Failed,
                };
                let stop_reason = payload.get("stopReason").and_then(Value::as_str);
                let message = payload.get("errorMessage").and_then(Value::as_str);
                if let Some(run) = self.runs.remove(&run_id) {
                    self.remember_ended(&run_id);
                    finish(&run_id, run, end, stop_reason, message, out);
                }
            }
            _ => {}
        }
    }

    fn on_agent(&mut self, payload: &Value, out: &mut Vec<ChatOutput>) {
        let stream = payload.get("stream").and_then(Value::as_str).unwrap_or_default();
        let data = payload.get("data").unwrap_or(&Value::Null);
        let protocol = self.protocol;
        // Only streams that say something new start a run (lifecycle and status come with chat).
        if !matches!(stream, "assistant" | "thinking" | "tool" | "item" | "plan" | "usage") {
            return;
        }
        let Some((run_id, run)) = self.run(payload, out) else {
            return;
        };
        let field = |key: &str| data.get(key).and_then(Value::as_str);
        match stream {
            "assistant" if protocol < 4 => match field("text") {
                Some(full) => show_text(&run_id, run, full, false, out),
                None => append_text(&run_id, run, field("delta").unwrap_or_default(), out),
            },
            "thinking" => {
                let full = match field("text") {
                    Some(full) => full.to_string(),
                    None => format!("{}{}", run.thinking, field("delta").unwrap_or_default()),
                };
                if let Some(tail) = full.strip_prefix(run.thinking.as_str()).filter(|t| !t.is_empty()) {
                    out.push(ChatOutput::Ui(UiEvent::ThinkingDelta {
                        message_id: Some(run_id.clone()),
                        text: tail.to_string(),
                        parent_tool_use_id: None,
                    }));
                }
                run.thinking = full;
            }
            // The model's words before a tool call come as a preamble item, not as chat text:
            // shown as what the agent is doing.
            "item" if field("kind") == Some("preamble") => {
                if let Some(text) = field("progressText").filter(|t| !t.trim().is_empty()) {
                    out.push(ChatOutput::Ui(UiEvent::Activity {
                        activity: Some(text.to_string()),
                    }));
                }
            }
            "item" if field("kind") == Some("tool") => {
                let Some(id) = field("toolCallId") else { return };
                match field("phase") {
                    Some("start") => start_tool(run, id, field("name"), &Value::Null, field("title"), out),
                    Some("end")
                        if !run.tools_ended.contains(id)
                            && !run.tools_streamed.contains(id)
                            && run.tools_started.contains_key(id) =>
                    {
                        // Without the tool-events cap this is all there is of the result.
                        run.tools_ended.insert(id.to_string());
                        out.push(ChatOutput::Ui(UiEvent::ToolCallResult {
                            id: id.to_string(),
                            is_error: field("status").is_some_and(|s| s != "completed"),
                            content: String::new(),
                            structured: None,
                            parent_tool_use_id: None,
                        }));
                    }
                    _ => {}
                }
            }
            "tool" => {
                let Some(id) = field("toolCallId") else { return };
                match field("phase") {
                    Some("start") => {
                        run.tools_streamed.insert(id.to_string());
                        let args = data.get("args").unwrap_or(&Value::Null);
                        start_tool(run, id, field("name"), args, None, out);
                    }
                    Some("result") if !run.tools_ended.contains(id) => {
                        run.tools_ended.insert(id.to_string());
                        let result = data.get("result").unwrap_or(&Value::Null);
                        out.push(ChatOutput::Ui(UiEvent::ToolCallResult {
                            id: id.to_string(),
                            is_error: data.get("isError").and_then(Value::as_bool).unwrap_or(false),
                            content: result_text(result),
                            structured: result.get("details").cloned(),
                            parent_tool_use_id: None,
                        }));
                    }
                    _ => {}
                }
            }
            "plan" => {
                let todos = data
                    .get("steps")
                    .and_then(Value::as_array)
                    .map(|steps| {
                        steps
                            .iter()
                            .filter_map(|step| {
                                Some(TodoItem {
                                    content: step.get("step")?.as_str()?.to_string(),
                                    status: step
                                        .get("status")
                                        .and_then(Value::as_str)
                                        .unwrap_or("pending")
                                        .to_string(),
                                    active_form: None,
                                })
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                out.push(ChatOutput::Ui(UiEvent::TodoUpdate { todos }));
            }
            "usage" => read_usage(run, data),
            _ => {}
        }
    }

    /// Protocol 3's agent payloads with a `kind` (the seed's notes).
    fn on_v3_kind(&mut self, payload: &Value, out: &mut Vec<ChatOutput>) {
        let kind = payload.get("kind").and_then(Value::as_str).unwrap_or_default();
        if kind == "a2ui" {
            out.push(ChatOutput::Canvas(
                payload.get("payload").cloned().unwrap_or(Value::Null),
            ));
            return;
        }
        if !matches!(kind, "text_delta" | "tool_start" | "tool_result" | "done") {
            return;
        }
        // v3 kind events carry no run id: they belong to the open run, or start one.
        let run_id = match self.runs.keys().next() {
            Some(id) => id.clone(),
            None => {
                self.v3_runs += 1;
                format!("v3-run-{}", self.v3_runs)
            }
        };
        let keyed = serde_json::json!({"runId": run_id, "sessionKey": self.session_key.clone().unwrap_or_default()});
        let Some((run_id, run)) = self.run(&keyed, out) else {
            return;
        };
        let text = |key: &str| payload.get(key).and_then(Value::as_str);
        match kind {
            "text_delta" => append_text(&run_id, run, text("content").unwrap_or_default(), out),
            "tool_start" => {
                let Some(id) = text("id") else { return };
                let input = payload.get("input").unwrap_or(&Value::Null);
                start_tool(run, id, text("tool"), input, text("title"), out);
            }
            "tool_result" => {
                let Some(id) = text("id") else { return };
                let error = payload.get("error").filter(|e| !e.is_null());
                let content = match (payload.get("output"), error) {
                    (_, Some(Value::String(message))) => message.clone(),
                    (Some(Value::String(output)), _) => output.clone(),
                    (Some(output), _) if !output.is_null() => output.to_string(),
                    _ => String::new(),
                };
                run.tools_ended.insert(id.to_string());
                out.push(ChatOutput::Ui(UiEvent::ToolCallResult {
                    id: id.to_string(),
                    is_error: error.is_some(),
                    content,
                    structured: None,
                    parent_tool_use_id: None,
                }));
            }
            _ => {
                let stop_reason = text("stopReason");
                if let Some(run) = self.runs.remove(&run_id) {
                    self.remember_ended(&run_id);
                    finish(&run_id, run, RunEnd::Final, stop_reason, None, out);
                }
            }
        }
    }
}

/// Append a delta that comes without the cumulative text.
fn append_text(run_id: &str, run: &mut Run, delta: &str, out: &mut Vec<ChatOutput>) {
    if delta.is_empty() {
        return;
    }
    run.text.push_str(delta);
    out.push(ChatOutput::Ui(UiEvent::TextDelta {
        message_id: Some(run_id.to_string()),
        text: delta.to_string(),
        parent_tool_use_id: None,
    }));
}

/// Show `full` as the run's text: its new tail as a delta, or all of it as a replacement.
fn show_text(run_id: &str, run: &mut Run, full: &str, replace: bool, out: &mut Vec<ChatOutput>) {
    match full.strip_prefix(run.text.as_str()) {
        Some("") => return,
        Some(tail) if !replace => out.push(ChatOutput::Ui(UiEvent::TextDelta {
            message_id: Some(run_id.to_string()),
            text: tail.to_string(),
            parent_tool_use_id: None,
        })),
        // A shorter cumulative text is a stale frame unless the gateway says it replaces.
        None if !replace && run.text.starts_with(full) => return,
        _ => out.push(ChatOutput::Ui(UiEvent::MessageReplace {
            message_id: run_id.to_string(),
            text: full.to_string(),
        })),
    }
    run.text = full.to_string();
}

fn start_tool(
    run: &mut Run,
    id: &str,
    name: Option<&str>,
    args: &Value,
    title: Option<&str>,
    out: &mut Vec<ChatOutput>,
) {
    let name = name.unwrap_or("tool");
    let path = args
        .get("path")
        .or_else(|| args.get("file_path"))
        .and_then(Value::as_str);
    let locations: Vec<Location> = path
        .map(|p| Location {
            path: p.to_string(),
            line: None,
        })
        .into_iter()
        .collect();
    let title = title
        .map(str::to_string)
        .or_else(|| run.tools_started.get(id).cloned())
        .unwrap_or_else(|| tool_title(name, args));
    if run.tools_started.insert(id.to_string(), title.clone()).is_none() {
        out.push(ChatOutput::Ui(UiEvent::ToolCallStart {
            id: id.to_string(),
            name: name.to_string(),
            input: if args.is_null() {
                Value::Object(Default::default())
            } else {
                args.clone()
            },
            kind: tool_kind(name),
            title,
            locations,
            parent_tool_use_id: None,
        }));
    } else if !args.is_null() {
        out.push(ChatOutput::Ui(UiEvent::ToolCallUpdate {
            id: id.to_string(),
            input: args.clone(),
            title,
            locations,
        }));
    }
}

/// The gateway agent's own tools (`read`, `exec`, ...) by kind.
pub fn tool_kind(name: &str) -> ToolKind {
    match name {
        "read" | "ls" | "file_fetch" | "dir_list" | "dir_fetch" => ToolKind::Read,
        "write" | "edit" | "apply_patch" | "file_write" => ToolKind::Edit,
        "exec" | "process" => ToolKind::Execute,
        "tool_search" | "grep" | "find" => ToolKind::Search,
        "web_fetch" | "web_search" => ToolKind::Fetch,
        _ => ToolKind::Other,
    }
}

fn tool_title(name: &str, args: &Value) -> String {
    let text = |key: &str| args.get(key).and_then(Value::as_str);
    match (name, text("command"), text("path")) {
        ("exec", Some(command), _) => command.lines().next().unwrap_or_default().to_string(),
        (_, _, Some(path)) => format!("{name} {path}"),
        _ => name.to_string(),
    }
}

/// A message's text: a plain string, or its `text` blocks joined.
pub fn message_text(message: &Value) -> Option<String> {
    match message.get("content")? {
        Value::String(text) => Some(text.clone()),
        Value::Array(blocks) => Some(
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect(),
        ),
        _ => None,
    }
}

fn result_text(result: &Value) -> String {
    match result {
        Value::String(text) => text.clone(),
        _ => result
            .get("content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default(),
    }
}

fn read_usage(run: &mut Run, usage: &Value) {
    let number = |keys: &[&str]| keys.iter().find_map(|k| usage.get(*k).and_then(Value::as_u64));
    if let Some(input) = number(&["inputTokens", "input"]) {
        run.input_tokens = input;
    }
    if let Some(output) = number(&["outputTokens", "output"]) {
        run.output_tokens = output;
    }
}

fn finish(
    run_id: &str,
    run: Run,
    end: RunEnd,
    stop_reason: Option<&str>,
    message: Option<&str>,
    out: &mut Vec<ChatOutput>,
) {
    let ui = |event| ChatOutput::Ui(event);
    out.push(ui(UiEvent::MessageStop {
        message_id: run_id.to_string(),
        stop_reason: stop_reason.map(str::to_string),
    }));
    if run.input_tokens > 0 || run.output_tokens > 0 {
        out.push(ui(UiEvent::Usage {
            input_tokens: run.input_tokens,
            output_tokens: run.output_tokens,
            cache_read_tokens: 0,
            cache_creation_tokens: 0,
            cost_usd: None,
        }));
    }
    let error = match end {
        RunEnd::Final => None,
        RunEnd::Aborted => Some((ErrorKind::Interrupted, Severity::Notice, "Stopped.".to_string())),
        RunEnd::Interrupted => Some((
            ErrorKind::Interrupted,
            Severity::Notice,
            message
                .unwrap_or("The turn was interrupted: the gateway connection was lost.")
                .to_string(),
        )),
        RunEnd::Failed => Some((
            ErrorKind::Api,
            Severity::Error,
            message.unwrap_or("The gateway's agent failed.").to_string(),
        )),
    };
    let is_error = error.is_some();
    if let Some((kind, severity, message)) = error {
        out.push(ui(UiEvent::error(kind, severity, message, None)));
    }
    out.push(ui(UiEvent::Done {
        subtype: if is_error { "error_during_execution" } else { "success" }.to_string(),
        is_error,
        duration_ms: 0,
        num_turns: 1,
        session_id: run.session_key,
        result: Some(run.text),
        stop_reason: stop_reason.map(str::to_string),
    }));
    out.push(ui(UiEvent::Activity { activity: None }));
    out.push(ui(UiEvent::Status {
        state: SessionState::Idle,
    }));
}
