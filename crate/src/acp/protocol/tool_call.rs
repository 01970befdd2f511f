//! Tool calls as the agent reports them: a `tool_call` creates one, `tool_call_update`s change any
//! field of it later (and a permission request carries one as well). Kinds and locations tell the
//! client how to show it; content is text, a diff, or a terminal.

use super::content::ContentBlock;
use super::lenient::{open_enum, tagged_union, Meta};
use crate::json::read_struct;
use serde::Serialize;
use serde_json::Value;

pub type ToolCallId = String;

/// A new tool call (`sessionUpdate: "tool_call"`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub tool_call_id: ToolCallId,
    /// Required by the schema; an agent that leaves it out gets an empty title, not a dropped call.
    pub title: String,
    pub kind: ToolKind,
    pub status: ToolCallStatus,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ToolCallContent>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<ToolCallLocation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_input: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<Value>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ToolCall {
    tool_call_id: required "toolCallId",
    title: or_default "title",
    kind: or_default "kind",
    status: or_default "status",
    content: list "content",
    locations: list "locations",
    raw_input: default "rawInput",
    raw_output: default "rawOutput",
    meta: or_default "_meta",
});

/// Changes to a tool call (`sessionUpdate: "tool_call_update"`, and the `toolCall` of a permission
/// request): only the fields given change. The id may name a call never announced (gemini-cli
/// announces a call needing approval only in the permission request).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallUpdate {
    pub tool_call_id: ToolCallId,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<ToolCallStatus>,
    /// Replaces the whole content when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ToolCallContent>>,
    /// Replaces the locations when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locations: Option<Vec<ToolCallLocation>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_input: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<Value>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ToolCallUpdate {
    tool_call_id: required "toolCallId",
    title: or_default "title",
    kind: or_default "kind",
    status: or_default "status",
    content: opt_list "content",
    locations: opt_list "locations",
    raw_input: default "rawInput",
    raw_output: default "rawOutput",
    meta: or_default "_meta",
});

open_enum! {
    /// What a tool does, for icons and grouping. Unknown kinds show as `other`.
    #[derive(Default)]
    pub enum ToolKind {
        Read = "read",
        Edit = "edit",
        Delete = "delete",
        Move = "move",
        Search = "search",
        Execute = "execute",
        Think = "think",
        Fetch = "fetch",
        SwitchMode = "switch_mode",
        #[default]
        Other = "other",
    }
}

open_enum! {
    #[derive(Default)]
    pub enum ToolCallStatus {
        /// Not started: the input is still streaming, or it waits for approval.
        #[default]
        Pending = "pending",
        InProgress = "in_progress",
        Completed = "completed",
        Failed = "failed",
    }
}

/// What a tool call shows.
// Read, matched on and dropped: boxing the content block would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolCallContent {
    Content(ContentItem),
    Diff(Diff),
    /// Output of a terminal, by id. The id may name a terminal the client never created (agents
    /// that run their own shell show it through `_meta.terminal_*`, see [`super::terminal`]).
    Terminal(TerminalRef),
    #[serde(untagged)]
    Unknown(Value),
}

tagged_union!(ToolCallContent, "type", {
    "content" => Content,
    "diff" => Diff,
    "terminal" => Terminal,
});

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContentItem {
    pub content: ContentBlock,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ContentItem {
    content: required "content",
    meta: or_default "_meta",
});

/// A file change: `old_text` is `None` for a new file.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_text: Option<String>,
    pub new_text: String,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(Diff {
    path: required "path",
    old_text: or_default "oldText",
    new_text: required "newText",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminalRef {
    pub terminal_id: String,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(TerminalRef {
    terminal_id: required "terminalId",
    meta: or_default "_meta",
});

/// A file a tool call touches, for follow-along; `line` is 1-based.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ToolCallLocation {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ToolCallLocation {
    path: required "path",
    line: or_default "line",
    meta: or_default "_meta",
});

impl ToolCall {
    /// Apply an update: the fields it carries replace these.
    pub fn apply(&mut self, update: ToolCallUpdate) {
        if let Some(title) = update.title {
            self.title = title;
        }
        if let Some(kind) = update.kind {
            self.kind = kind;
        }
        if let Some(status) = update.status {
            self.status = status;
        }
        if let Some(content) = update.content {
            self.content = content;
        }
        if let Some(locations) = update.locations {
            self.locations = locations;
        }
        if update.raw_input.is_some() {
            self.raw_input = update.raw_input;
        }
        if update.raw_output.is_some() {
            self.raw_output = update.raw_output;
        }
        if let Some(meta) = update.meta {
            self.meta.get_or_insert_with(Meta::new).extend(meta);
        }
    }
}

impl From<ToolCallUpdate> for ToolCall {
    /// A call first seen as an update (or in a permission request): what it says, defaults for the rest.
    fn from(update: ToolCallUpdate) -> Self {
        let mut call = ToolCall {
            tool_call_id: update.tool_call_id.clone(),
            ..ToolCall::default()
        };
        call.apply(update);
        call
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_kinds_and_statuses_are_kept_and_defaults_fill_the_gaps() {
        let call: ToolCall = crate::json::from_value(json!({"toolCallId": "c1", "kind": "teleport"})).unwrap();
        assert_eq!(call.kind, ToolKind::Unknown("teleport".into()));
        assert_eq!(call.status, ToolCallStatus::Pending);
        assert_eq!(call.title, "");
        let call: ToolCall = crate::json::from_value(json!({"toolCallId": "c1", "title": "t", "kind": 7})).unwrap();
        assert_eq!(call.kind, ToolKind::Other);
    }

    #[test]
    fn unreadable_content_items_are_skipped_and_unknown_ones_kept() {
        let update: ToolCallUpdate = crate::json::from_value(json!({
            "toolCallId": "c1",
            "content": [
                {"type": "diff", "path": "/p/a", "newText": "x"},
                {"type": "diff"},
                {"type": "terminal", "terminalId": "toolu_1"},
                {"type": "widget", "id": 1},
                {"type": "content", "content": {"type": "text", "text": "ok"}},
            ],
            "locations": [{"path": "/p/a", "line": 1}, {"line": 2}],
        }))
        .unwrap();
        let content = update.content.unwrap();
        assert_eq!(content.len(), 4);
        assert!(matches!(&content[0], ToolCallContent::Diff(d) if d.old_text.is_none()));
        assert!(matches!(&content[1], ToolCallContent::Terminal(t) if t.terminal_id == "toolu_1"));
        assert!(matches!(&content[2], ToolCallContent::Unknown(_)));
        assert_eq!(update.locations.unwrap().len(), 1);
    }

    #[test]
    fn an_update_changes_only_the_fields_it_carries() {
        let mut call: ToolCall = crate::json::from_value(json!({
            "toolCallId": "c1", "title": "Read File", "kind": "read", "status": "pending", "rawInput": {}
        }))
        .unwrap();
        call.apply(
            crate::json::from_value(
                json!({"toolCallId": "c1", "status": "completed", "rawOutput": "done", "_meta": {"a": 1}}),
            )
            .unwrap(),
        );
        assert_eq!(call.title, "Read File");
        assert_eq!(call.kind, ToolKind::Read);
        assert_eq!(call.status, ToolCallStatus::Completed);
        assert_eq!(call.raw_input, Some(json!({})));
        assert_eq!(call.raw_output, Some(json!("done")));
        assert_eq!(call.meta.unwrap()["a"], 1);
    }

    #[test]
    fn a_call_first_seen_as_an_update_takes_its_fields() {
        let update: ToolCallUpdate = crate::json::from_value(
            json!({"toolCallId": "w1", "title": "Writing to new.txt", "kind": "edit", "status": "pending"}),
        )
        .unwrap();
        let call = ToolCall::from(update);
        assert_eq!(
            (call.tool_call_id.as_str(), call.title.as_str()),
            ("w1", "Writing to new.txt")
        );
        assert_eq!(call.kind, ToolKind::Edit);
    }

    #[test]
    fn a_tool_call_writes_only_what_it_has() {
        let call = ToolCall {
            tool_call_id: "c1".into(),
            title: "Edit a.rs".into(),
            kind: ToolKind::Edit,
            status: ToolCallStatus::InProgress,
            ..ToolCall::default()
        };
        assert_eq!(
            serde_json::to_value(call).unwrap(),
            json!({"toolCallId": "c1", "title": "Edit a.rs", "kind": "edit", "status": "in_progress"})
        );
    }
}
