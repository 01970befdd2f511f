//! `fs/read_text_file` and `fs/write_text_file`, agent to client (when the client advertises
//! `fs.readTextFile` / `fs.writeTextFile`). Reads see the editor's unsaved text; a write creates
//! a missing file. gemini-cli uses them for its edits inside the workspace; the v2 draft drops them.

use super::lenient::Meta;
use super::session::SessionId;
use super::Request;
use crate::json::read_struct;
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadTextFileRequest {
    pub session_id: SessionId,
    /// Absolute.
    pub path: String,
    /// First line to return, 1-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// How many lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ReadTextFileRequest {
    session_id: required "sessionId",
    path: required "path",
    line: or_default "line",
    limit: or_default "limit",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ReadTextFileResponse {
    pub content: String,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ReadTextFileResponse {
    content: required "content",
    meta: or_default "_meta",
});

impl Request for ReadTextFileRequest {
    const METHOD: &'static str = "fs/read_text_file";
    type Response = ReadTextFileResponse;
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteTextFileRequest {
    pub session_id: SessionId,
    /// Absolute.
    pub path: String,
    pub content: String,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(WriteTextFileRequest {
    session_id: required "sessionId",
    path: required "path",
    content: required "content",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WriteTextFileResponse {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(WriteTextFileResponse {
    meta: or_default "_meta",
});

impl Request for WriteTextFileRequest {
    const METHOD: &'static str = "fs/write_text_file";
    type Response = WriteTextFileResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_read_with_a_bad_range_reads_the_whole_file() {
        let read: ReadTextFileRequest =
            crate::json::from_value(json!({"sessionId": "s", "path": "/p/a.txt", "line": -3, "limit": "ten"})).unwrap();
        assert_eq!((read.line, read.limit), (None, None));
        let read: ReadTextFileRequest =
            crate::json::from_value(json!({"sessionId": "s", "path": "/p/a.txt", "line": 5, "limit": 10})).unwrap();
        assert_eq!((read.line, read.limit), (Some(5), Some(10)));
    }

    #[test]
    fn responses_are_written_exactly() {
        let read = ReadTextFileResponse {
            content: "hello\n".into(),
            meta: None,
        };
        assert_eq!(serde_json::to_value(read).unwrap(), json!({"content": "hello\n"}));
        assert_eq!(
            serde_json::to_value(WriteTextFileResponse::default()).unwrap(),
            json!({})
        );
    }
}
