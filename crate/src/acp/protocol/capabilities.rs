//! Capabilities, exchanged once in `initialize`. Read as "present means supported": the schema
//! spells most of them as empty objects, so `{}` counts, and anything missing counts as not
//! supported. Optional methods the agent did not advertise are not called.

use super::lenient::{self, Meta, Supported};
use serde::{Deserialize, Serialize};

/// What the client offers the agent (written by Tether).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub fs: FileSystemCapabilities,
    /// `terminal/*` are served.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub terminal: bool,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub session: Option<ClientSessionCapabilities>,
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub auth: AuthCapabilities,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub elicitation: Option<ElicitationCapabilities>,
    /// Extensions: `terminal_output: true` asks agents that run their own shell to send its
    /// output in `_meta.terminal_output` (see [`super::terminal::TerminalDisplay`]).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileSystemCapabilities {
    /// `fs/read_text_file` is served.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub read_text_file: bool,
    /// `fs/write_text_file` is served.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub write_text_file: bool,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientSessionCapabilities {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub config_options: Option<ConfigOptionsCapabilities>,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConfigOptionsCapabilities {
    /// Boolean config options can be shown.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::presence"
    )]
    pub boolean: Option<Supported>,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AuthCapabilities {
    /// Terminal login methods can be run.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub terminal: bool,
    /// Extensions: `gateway: true` opts in to gateway authentication ([`super::auth`]).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCapabilities {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::presence"
    )]
    pub form: Option<Supported>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::presence"
    )]
    pub url: Option<Supported>,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

/// What the agent offers (read by Tether).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// `session/load` is available.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub load_session: bool,
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub prompt_capabilities: PromptCapabilities,
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub mcp_capabilities: McpCapabilities,
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub session_capabilities: SessionCapabilities,
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub auth: AgentAuthCapabilities,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

/// What a prompt may carry beyond text and resource links.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptCapabilities {
    #[serde(default, deserialize_with = "lenient::flag")]
    pub image: bool,
    #[serde(default, deserialize_with = "lenient::flag")]
    pub audio: bool,
    /// Embedded `resource` blocks (an `@`-mentioned file's text); without it, send resource links.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub embedded_context: bool,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

/// MCP transports the agent takes in `session/new` besides stdio (always supported).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct McpCapabilities {
    #[serde(default, deserialize_with = "lenient::flag")]
    pub http: bool,
    #[serde(default, deserialize_with = "lenient::flag")]
    pub sse: bool,
    /// Unstable: servers declared `{"type": "acp"}`, reached over the ACP connection
    /// ([`super::mcp_over_acp`]).
    #[serde(
        default,
        skip_serializing_if = "std::ops::Not::not",
        deserialize_with = "lenient::flag"
    )]
    pub acp: bool,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

/// Optional session methods.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionCapabilities {
    /// `session/list`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::presence"
    )]
    pub list: Option<Supported>,
    /// `session/resume` (a session back without the replay `session/load` sends).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::presence"
    )]
    pub resume: Option<Supported>,
    /// `session/close`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::presence"
    )]
    pub close: Option<Supported>,
    /// `session/delete`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::presence"
    )]
    pub delete: Option<Supported>,
    /// `additionalDirectories` in `session/new`, `load` and `resume`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::presence"
    )]
    pub additional_directories: Option<Supported>,
    /// `session/fork` (unstable in v1).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::presence"
    )]
    pub fork: Option<Supported>,
    /// A `systemPrompt` in `session/new`, `load` and `resume` (unstable in v1; claude-agent-acp and
    /// codex-acp take `append`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::presence"
    )]
    pub system_prompt: Option<Supported>,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentAuthCapabilities {
    /// `logout`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::presence"
    )]
    pub logout: Option<Supported>,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::or_default"
    )]
    pub meta: Option<Meta>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn client_capabilities_are_written_exactly() {
        let mut meta = Meta::new();
        meta.insert("terminal_output".into(), json!(true));
        let mut auth_meta = Meta::new();
        auth_meta.insert("gateway".into(), json!(true));
        let caps = ClientCapabilities {
            fs: FileSystemCapabilities {
                read_text_file: true,
                write_text_file: true,
                meta: None,
            },
            terminal: true,
            session: Some(ClientSessionCapabilities {
                config_options: Some(ConfigOptionsCapabilities {
                    boolean: Some(Supported::default()),
                    meta: None,
                }),
                meta: None,
            }),
            auth: AuthCapabilities {
                terminal: false,
                meta: Some(auth_meta),
            },
            elicitation: Some(ElicitationCapabilities {
                form: Some(Supported::default()),
                url: None,
                meta: None,
            }),
            meta: Some(meta),
        };
        assert_eq!(
            serde_json::to_value(&caps).unwrap(),
            json!({
                "fs": {"readTextFile": true, "writeTextFile": true},
                "terminal": true,
                "session": {"configOptions": {"boolean": {}}},
                "auth": {"terminal": false, "_meta": {"gateway": true}},
                "elicitation": {"form": {}},
                "_meta": {"terminal_output": true},
            })
        );
    }

    #[test]
    fn present_means_supported_and_absent_means_not() {
        let caps: AgentCapabilities = crate::json::from_value(json!({
            "loadSession": true,
            "promptCapabilities": {"image": true, "embeddedContext": {}},
            "mcpCapabilities": {"http": true, "sse": false},
            "sessionCapabilities": {"list": {}, "resume": {"_meta": {"x": 1}}, "close": null, "fork": true, "title": {}},
            "auth": {"logout": {}},
        }))
        .unwrap();
        assert!(caps.load_session);
        assert!(caps.prompt_capabilities.image && caps.prompt_capabilities.embedded_context);
        assert!(!caps.prompt_capabilities.audio);
        assert!(caps.mcp_capabilities.http && !caps.mcp_capabilities.sse && !caps.mcp_capabilities.acp);
        let session = &caps.session_capabilities;
        assert!(session.list.is_some() && session.resume.is_some() && session.fork.is_some());
        assert!(session.close.is_none() && session.delete.is_none());
        assert!(caps.auth.logout.is_some());
    }

    #[test]
    fn capabilities_of_the_wrong_shape_read_as_unsupported() {
        let caps: AgentCapabilities =
            crate::json::from_value(json!({"loadSession": "yes", "promptCapabilities": [], "sessionCapabilities": 3}))
                .unwrap();
        assert_eq!(caps, AgentCapabilities::default());
    }
}
