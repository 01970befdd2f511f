//! Content blocks: what prompts, message chunks and tool results are made of (the MCP content
//! shapes). Text and resource links are always allowed in a prompt; images, audio and embedded
//! resources only when the agent's prompt capabilities say so.

use super::lenient::{first_of, open_enum, tagged_union, Meta};
use crate::json::read_struct;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text(TextContent),
    Image(ImageContent),
    Audio(AudioContent),
    ResourceLink(ResourceLink),
    Resource(EmbeddedResource),
    /// A block of a type this version does not know, as sent.
    #[serde(untagged)]
    Unknown(Value),
}

impl ContentBlock {
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent {
            text: text.into(),
            annotations: None,
            meta: None,
        })
    }

    /// The text of a text block, or of an embedded text resource.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            ContentBlock::Resource(EmbeddedResource {
                resource: ResourceContents::Text(t),
                ..
            }) => Some(&t.text),
            _ => None,
        }
    }
}

tagged_union!(ContentBlock, "type", {
    "text" => Text,
    "image" => Image,
    "audio" => Audio,
    "resource_link" => ResourceLink,
    "resource" => Resource,
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TextContent {
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(TextContent {
    text: required "text",
    annotations: or_default "annotations",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64.
    pub data: String,
    pub mime_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ImageContent {
    data: required "data",
    mime_type: required "mimeType",
    uri: or_default "uri",
    annotations: or_default "annotations",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// Base64.
    pub data: String,
    pub mime_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(AudioContent {
    data: required "data",
    mime_type: required "mimeType",
    annotations: or_default "annotations",
    meta: or_default "_meta",
});

/// A reference to a resource the agent may fetch itself (an `@`-mentioned file, when embedding
/// is not offered).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    pub uri: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ResourceLink {
    uri: required "uri",
    name: required "name",
    title: or_default "title",
    description: or_default "description",
    mime_type: or_default "mimeType",
    size: or_default "size",
    annotations: or_default "annotations",
    meta: or_default "_meta",
});

/// A resource's contents carried in the message (needs `promptCapabilities.embeddedContext`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EmbeddedResource {
    pub resource: ResourceContents,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(EmbeddedResource {
    resource: required "resource",
    annotations: or_default "annotations",
    meta: or_default "_meta",
});

/// Text or base64 bytes, told apart by which field is present.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ResourceContents {
    Text(TextResourceContents),
    Blob(BlobResourceContents),
}

impl<'de> Deserialize<'de> for ResourceContents {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        first_of(
            Value::deserialize(d)?,
            "ResourceContents",
            &[
                |value| crate::json::from_value(value).map(Self::Text),
                |value| crate::json::from_value(value).map(Self::Blob),
            ],
        )
        .map_err(serde::de::Error::custom)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    pub uri: String,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(TextResourceContents {
    uri: required "uri",
    text: required "text",
    mime_type: or_default "mimeType",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    pub uri: String,
    /// Base64.
    pub blob: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(BlobResourceContents {
    uri: required "uri",
    blob: required "blob",
    mime_type: or_default "mimeType",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(Annotations {
    audience: opt_list "audience",
    last_modified: or_default "lastModified",
    priority: or_default "priority",
    meta: or_default "_meta",
});

open_enum! {
    pub enum Role {
        Assistant = "assistant",
        User = "user",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_block_type_reads_and_writes_back_unchanged() {
        let blocks = json!([
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///p/a.rs", "name": "a.rs", "mimeType": "text/x-rust", "size": 12},
            {"type": "resource", "resource": {"uri": "file:///p/a.rs", "text": "fn main() {}", "mimeType": "text/x-rust"}},
            {"type": "resource", "resource": {"uri": "file:///p/a.bin", "blob": "AAE="}},
        ]);
        let read: Vec<ContentBlock> = crate::json::from_value(blocks.clone()).unwrap();
        assert!(matches!(read[3], ContentBlock::ResourceLink(ref l) if l.size == Some(12)));
        assert!(matches!(&read[5], ContentBlock::Resource(r) if matches!(r.resource, ResourceContents::Blob(_))));
        assert_eq!(read[4].as_text(), Some("fn main() {}"));
        assert_eq!(serde_json::to_value(&read).unwrap(), blocks);
    }

    #[test]
    fn a_block_of_an_unknown_type_is_kept_as_sent() {
        let raw = json!({"type": "hologram", "depth": 3});
        let read: ContentBlock = crate::json::from_value(raw.clone()).unwrap();
        assert_eq!(read, ContentBlock::Unknown(raw.clone()));
        assert_eq!(serde_json::to_value(&read).unwrap(), raw);
    }

    #[test]
    fn a_malformed_known_block_is_an_error_naming_it() {
        let err = crate::json::from_value::<ContentBlock>(json!({"type": "text"})).unwrap_err();
        assert!(err.to_string().contains("text: missing field `text`"), "{err}");
    }

    #[test]
    fn annotations_of_the_wrong_shape_are_dropped_not_fatal() {
        let read: ContentBlock = crate::json::from_value(
            json!({"type": "text", "text": "x", "annotations": {"audience": ["user", 3], "priority": "high"}}),
        )
        .unwrap();
        let ContentBlock::Text(text) = read else { panic!() };
        let annotations = text.annotations.unwrap();
        assert_eq!(annotations.audience, Some(vec![Role::User]));
        assert_eq!(annotations.priority, None);
    }
}
