//! Authentication: the methods an agent offers in its `initialize` reply, `authenticate` with one
//! of them, and `logout`. Gateway authentication (claude-agent-acp, codex-acp, gemini-cli) points
//! the agent at another model API base URL: the client opts in with
//! `clientCapabilities.auth._meta.gateway = true`, then authenticates with method `gateway` and the
//! URL and headers in `_meta.gateway`.

use super::lenient::{self, Meta};
use super::Request;
use crate::json::read_struct;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Map, Value};

pub type AuthMethodId = String;

/// The method id agents give gateway authentication.
pub const GATEWAY_METHOD_ID: &str = "gateway";

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AuthMethod {
    /// The user runs a login command in a terminal (offered when the client advertises
    /// `auth.terminal`).
    Terminal(AuthMethodTerminal),
    /// The agent authenticates by itself once asked (`type` absent or `agent`).
    #[serde(untagged)]
    Agent(AuthMethodAgent),
    /// A method of a type this version does not know, as sent.
    #[serde(untagged)]
    Unknown(Value),
}

impl AuthMethod {
    pub fn id(&self) -> Option<&str> {
        match self {
            AuthMethod::Terminal(m) => Some(&m.id),
            AuthMethod::Agent(m) => Some(&m.id),
            AuthMethod::Unknown(raw) => raw.get("id").and_then(Value::as_str),
        }
    }

    pub fn name(&self) -> Option<&str> {
        match self {
            AuthMethod::Terminal(m) => Some(&m.name),
            AuthMethod::Agent(m) => Some(&m.name),
            AuthMethod::Unknown(raw) => raw.get("name").and_then(Value::as_str),
        }
    }
}

impl<'de> Deserialize<'de> for AuthMethod {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Ok(match value.get("type") {
            None | Some(Value::Null) => AuthMethod::Agent(lenient::variant(value, "agent")?),
            Some(Value::String(t)) if t == "agent" => AuthMethod::Agent(lenient::variant(value, "agent")?),
            Some(Value::String(t)) if t == "terminal" => AuthMethod::Terminal(lenient::variant(value, "terminal")?),
            Some(_) => AuthMethod::Unknown(value),
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AuthMethodAgent {
    pub id: AuthMethodId,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(AuthMethodAgent {
    id: required "id",
    name: required "name",
    description: or_default "description",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AuthMethodTerminal {
    pub id: AuthMethodId,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Arguments for the agent's own command, run in a terminal.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub env: Map<String, Value>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(AuthMethodTerminal {
    id: required "id",
    name: required "name",
    description: or_default "description",
    args: list "args",
    env: or_default "env",
    meta: or_default "_meta",
});

/// `authenticate`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthenticateRequest {
    pub method_id: AuthMethodId,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(AuthenticateRequest {
    method_id: required "methodId",
    meta: or_default "_meta",
});

impl AuthenticateRequest {
    /// Gateway authentication: the agent sends its model requests to `base_url` with `headers`.
    pub fn gateway(base_url: &str, headers: &[(&str, &str)]) -> Self {
        let headers: Map<String, Value> = headers.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
        let mut meta = Meta::new();
        meta.insert(
            GATEWAY_METHOD_ID.into(),
            json!({"baseUrl": base_url, "headers": headers}),
        );
        AuthenticateRequest {
            method_id: GATEWAY_METHOD_ID.into(),
            meta: Some(meta),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AuthenticateResponse {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(AuthenticateResponse {
    meta: or_default "_meta",
});

impl Request for AuthenticateRequest {
    const METHOD: &'static str = "authenticate";
    type Response = AuthenticateResponse;
}

/// `logout` (when the agent advertises `auth.logout`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LogoutRequest {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(LogoutRequest {
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LogoutResponse {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(LogoutResponse {
    meta: or_default "_meta",
});

impl Request for LogoutRequest {
    const METHOD: &'static str = "logout";
    type Response = LogoutResponse;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_terminal_and_unknown_methods_are_told_apart() {
        // gemini-cli 0.61.0's methods (reference/acp-gemini-codex-offline.md §7), plus a terminal one.
        let methods: Vec<AuthMethod> = crate::json::from_value(json!([
            {"id": "oauth-personal", "name": "Log in with Google", "description": null},
            {"id": "gemini-api-key", "name": "Use Gemini API key", "description": "Requires GEMINI_API_KEY"},
            {"id": "gateway", "name": "Gateway", "type": "agent"},
            {"id": "login", "name": "Log in", "type": "terminal", "args": ["--login"], "env": {"A": "1"}},
            {"id": "future", "name": "Passkey", "type": "passkey"},
        ]))
        .unwrap();
        assert!(matches!(&methods[0], AuthMethod::Agent(m) if m.description.is_none()));
        assert!(matches!(&methods[3], AuthMethod::Terminal(m) if m.args == ["--login"]));
        assert!(matches!(&methods[4], AuthMethod::Unknown(_)));
        assert_eq!(methods.iter().map(|m| m.id().unwrap()).collect::<Vec<_>>()[4], "future");
        assert_eq!(
            serde_json::to_value(&methods[3]).unwrap(),
            json!({"type": "terminal", "id": "login", "name": "Log in", "args": ["--login"], "env": {"A": "1"}})
        );
        assert_eq!(
            serde_json::to_value(&methods[2]).unwrap(),
            json!({"id": "gateway", "name": "Gateway"})
        );
    }

    #[test]
    fn gateway_authentication_is_written_as_the_adapters_expect() {
        let request = AuthenticateRequest::gateway("http://127.0.0.1:8787", &[("x-api-key", "dummy")]);
        assert_eq!(
            serde_json::to_value(request).unwrap(),
            json!({"methodId": "gateway", "_meta": {"gateway": {"baseUrl": "http://127.0.0.1:8787", "headers": {"x-api-key": "dummy"}}}})
        );
    }
}
