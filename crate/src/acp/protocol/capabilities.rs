//! Capabilities, exchanged once in `initialize`. Read as "present means supported": the schema
//! spells most of them as empty objects, so `{}` counts, and anything missing counts as not
//! supported. Optional methods the agent did not advertise are not called.

use super::lenient::{Meta, Supported};
use crate::json::read_struct;
use serde::Serialize;

/// What the client offers the agent (written by Tether).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    pub fs: FileSystemCapabilities,
    /// `terminal/*` are served.
    pub terminal: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<ClientSessionCapabilities>,
    pub auth: AuthCapabilities,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapabilities>,
    /// Extensions: `terminal_output: true` asks agents that run their own shell to send its
    /// output in `_meta.terminal_output` (see [`super::terminal::TerminalDisplay`]).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ClientCapabilities {
    fs: or_default "fs",
    terminal: flag "terminal",
    session: or_default "session",
    auth: or_default "auth",
    elicitation: or_default "elicitation",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileSystemCapabilities {
    /// `fs/read_text_file` is served.
    pub read_text_file: bool,
    /// `fs/write_text_file` is served.
    pub write_text_file: bool,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(FileSystemCapabilities {
    read_text_file: flag "readTextFile",
    write_text_file: flag "writeTextFile",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientSessionCapabilities {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_options: Option<ConfigOptionsCapabilities>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ClientSessionCapabilities {
    config_options: or_default "configOptions",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ConfigOptionsCapabilities {
    /// Boolean config options can be shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boolean: Option<Supported>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ConfigOptionsCapabilities {
    boolean: presence "boolean",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AuthCapabilities {
    /// Terminal login methods can be run.
    pub terminal: bool,
    /// Extensions: `gateway: true` opts in to gateway authentication ([`super::auth`]).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(AuthCapabilities {
    terminal: flag "terminal",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ElicitationCapabilities {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form: Option<Supported>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<Supported>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(ElicitationCapabilities {
    form: presence "form",
    url: presence "url",
    meta: or_default "_meta",
});

/// What the agent offers (read by Tether).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// `session/load` is available.
    pub load_session: bool,
    pub prompt_capabilities: PromptCapabilities,
    pub mcp_capabilities: McpCapabilities,
    pub session_capabilities: SessionCapabilities,
    pub auth: AgentAuthCapabilities,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(AgentCapabilities {
    load_session: flag "loadSession",
    prompt_capabilities: or_default "promptCapabilities",
    mcp_capabilities: or_default "mcpCapabilities",
    session_capabilities: or_default "sessionCapabilities",
    auth: or_default "auth",
    meta: or_default "_meta",
});

/// What a prompt may carry beyond text and resource links.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptCapabilities {
    pub image: bool,
    pub audio: bool,
    /// Embedded `resource` blocks (an `@`-mentioned file's text); without it, send resource links.
    pub embedded_context: bool,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(PromptCapabilities {
    image: flag "image",
    audio: flag "audio",
    embedded_context: flag "embeddedContext",
    meta: or_default "_meta",
});

/// MCP transports the agent takes in `session/new` besides stdio (always supported).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct McpCapabilities {
    pub http: bool,
    pub sse: bool,
    /// Unstable: servers declared `{"type": "acp"}`, reached over the ACP connection
    /// ([`super::mcp_over_acp`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub acp: bool,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(McpCapabilities {
    http: flag "http",
    sse: flag "sse",
    acp: flag "acp",
    meta: or_default "_meta",
});

/// Optional session methods.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionCapabilities {
    /// `session/list`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list: Option<Supported>,
    /// `session/resume` (a session back without the replay `session/load` sends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume: Option<Supported>,
    /// `session/close`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub close: Option<Supported>,
    /// `session/delete`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delete: Option<Supported>,
    /// `additionalDirectories` in `session/new`, `load` and `resume`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_directories: Option<Supported>,
    /// `session/fork` (unstable in v1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fork: Option<Supported>,
    /// A `systemPrompt` in `session/new`, `load` and `resume` (unstable in v1; claude-agent-acp and
    /// codex-acp take `append`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<Supported>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SessionCapabilities {
    list: presence "list",
    resume: presence "resume",
    close: presence "close",
    delete: presence "delete",
    additional_directories: presence "additionalDirectories",
    fork: presence "fork",
    system_prompt: presence "systemPrompt",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AgentAuthCapabilities {
    /// `logout`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logout: Option<Supported>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(AgentAuthCapabilities {
    logout: presence "logout",
    meta: or_default "_meta",
});

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
