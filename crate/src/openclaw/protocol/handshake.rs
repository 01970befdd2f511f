//! The handshake: the gateway's `connect.challenge`, the client's `connect` request (protocol 4,
//! or 3 for an older gateway), the device signature the host makes over the challenge, and the
//! `hello-ok` (or refusal) that ends it.

use super::frame::GatewayError;
use serde_json::{json, Map, Value};

/// The protocol this client speaks first; [`LEGACY_PROTOCOL`] when the gateway asks for it.
pub const PROTOCOL: u64 = 4;
pub const LEGACY_PROTOCOL: u64 = 3;

/// Generates the closed enums the gateway checks `client.id` and `client.mode` against (any
/// other value is refused with `INVALID_REQUEST` and the socket closed).
macro_rules! wire_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $wire:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($variant),+ }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $wire),+ }
            }
            pub fn parse(text: &str) -> Option<$name> {
                match text { $($wire => Some($name::$variant),)+ _ => None }
            }
        }
    };
}

wire_enum!(
    /// `client.id` (openclaw 2026.9.6). Without a device identity only `cli` and
    /// `gateway-client` keep their scopes; with one, any of them.
    ClientId {
        WebchatUi = "webchat-ui",
        ControlUi = "openclaw-control-ui",
        BrowserCopilot = "openclaw-browser-copilot",
        Tui = "openclaw-tui",
        Webchat = "webchat",
        Cli = "cli",
        GatewayClient = "gateway-client",
        Macos = "openclaw-macos",
        Linux = "openclaw-linux",
        Ios = "openclaw-ios",
        Watchos = "openclaw-watchos",
        Android = "openclaw-android",
        NodeHost = "node-host",
        Worker = "openclaw-worker",
        Test = "test",
        Fingerprint = "fingerprint",
        Probe = "openclaw-probe",
    }
);

wire_enum!(
    /// `client.mode`.
    ClientMode {
        Webchat = "webchat",
        Cli = "cli",
        Ui = "ui",
        Backend = "backend",
        Node = "node",
        Worker = "worker",
        Probe = "probe",
        Test = "test",
    }
);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Operator,
    /// The workspace offered as the gateway's hands (`node.invoke.request`).
    Node,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Operator => "operator",
            Role::Node => "node",
        }
    }
}

/// The public half of the device key; the host keeps the private half and signs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceIdentity {
    /// Hex SHA-256 of the raw 32-byte Ed25519 public key.
    pub id: String,
    /// The raw public key, base64url without padding.
    pub public_key: String,
}

/// Everything the `connect` request says about this client.
#[derive(Clone, Debug, PartialEq)]
pub struct ConnectOptions {
    pub client_id: ClientId,
    pub client_mode: ClientMode,
    pub client_version: String,
    /// `linux`, `darwin`, `win32`: a node on an unknown platform gets no `system.run`.
    pub platform: String,
    pub device_family: Option<String>,
    /// Free text shown by the gateway (`Tether`).
    pub display_name: Option<String>,
    pub role: Role,
    pub scopes: Vec<String>,
    /// `tool-events` for the agent's tool stream; `exec-approvals` to answer exec approvals.
    pub caps: Vec<String>,
    /// For a node: the commands it serves.
    pub commands: Vec<String>,
    pub path_env: Option<String>,
    /// The gateway's shared token.
    pub token: Option<String>,
    /// The token a previous `hello-ok` issued to this device.
    pub device_token: Option<String>,
    pub device: Option<DeviceIdentity>,
}

impl ConnectOptions {
    /// An operator that chats, sees tool events and keeps its scopes without a device (`cli`).
    pub fn operator(token: Option<String>, client_version: &str, platform: &str) -> ConnectOptions {
        ConnectOptions {
            client_id: ClientId::Cli,
            client_mode: ClientMode::Cli,
            client_version: client_version.to_string(),
            platform: platform.to_string(),
            device_family: None,
            display_name: Some("Tether".to_string()),
            role: Role::Operator,
            scopes: vec!["operator.read".into(), "operator.write".into()],
            caps: vec!["tool-events".into()],
            commands: Vec::new(),
            path_env: None,
            token,
            device_token: None,
            device: None,
        }
    }

    /// A node (`node-host`/`node`) serving `commands`; the gateway requires a device for it.
    pub fn node(token: Option<String>, client_version: &str, platform: &str, device: DeviceIdentity) -> ConnectOptions {
        ConnectOptions {
            client_id: ClientId::NodeHost,
            client_mode: ClientMode::Node,
            client_version: client_version.to_string(),
            platform: platform.to_string(),
            device_family: None,
            display_name: Some("Tether workspace".to_string()),
            role: Role::Node,
            scopes: Vec::new(),
            caps: Vec::new(),
            commands: crate::openclaw::node::DEFAULT_COMMANDS
                .iter()
                .map(|c| c.to_string())
                .collect(),
            path_env: None,
            token,
            device_token: None,
            device: Some(device),
        }
    }

    /// The token that goes in `auth` and in the signature: the shared one, else the device's.
    pub fn auth_token(&self) -> Option<&str> {
        self.token.as_deref().or(self.device_token.as_deref())
    }
}

/// `connect.challenge`'s payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    pub nonce: String,
    /// The gateway's clock; the signature's `signedAt`.
    pub ts: u64,
}

impl Challenge {
    pub fn parse(payload: &Value) -> Option<Challenge> {
        Some(Challenge {
            nonce: payload.get("nonce")?.as_str()?.to_string(),
            ts: payload.get("ts").and_then(Value::as_u64).unwrap_or(0),
        })
    }
}

/// The text the host signs with the device's Ed25519 key (the gateway's v3 device payload):
/// `v3|device|client id|mode|role|scopes|signedAt|token|nonce|platform|family`, platform and
/// family trimmed and ASCII-lowercased as the gateway does before it verifies.
pub fn device_signature_payload(options: &ConnectOptions, device: &DeviceIdentity, challenge: &Challenge) -> String {
    let normalise = |value: Option<&str>| value.unwrap_or_default().trim().to_ascii_lowercase();
    [
        "v3".to_string(),
        device.id.clone(),
        options.client_id.as_str().to_string(),
        options.client_mode.as_str().to_string(),
        options.role.as_str().to_string(),
        options.scopes.join(","),
        challenge.ts.to_string(),
        options.auth_token().unwrap_or_default().to_string(),
        challenge.nonce.clone(),
        normalise(Some(&options.platform)),
        normalise(options.device_family.as_deref()),
    ]
    .join("|")
}

/// `connect`'s params for `protocol` (4, or 3 for a gateway that asked for it), with the
/// host's signature when there is a device.
pub fn connect_params(options: &ConnectOptions, protocol: u64, signed: Option<(&Challenge, &str)>) -> Value {
    let mut client = Map::new();
    client.insert("id".into(), json!(options.client_id.as_str()));
    client.insert("version".into(), json!(options.client_version));
    client.insert("platform".into(), json!(options.platform));
    client.insert("mode".into(), json!(options.client_mode.as_str()));
    if let Some(name) = &options.display_name {
        client.insert("displayName".into(), json!(name));
    }
    if let Some(family) = &options.device_family {
        client.insert("deviceFamily".into(), json!(family));
    }
    let mut auth = Map::new();
    if let Some(token) = &options.token {
        auth.insert("token".into(), json!(token));
    }
    // The shared token wins when there is one (the gateway's own client does the same).
    if let (None, Some(token)) = (&options.token, &options.device_token) {
        auth.insert("deviceToken".into(), json!(token));
    }
    let mut params = json!({
        "minProtocol": protocol,
        "maxProtocol": protocol,
        "client": client,
        "role": options.role.as_str(),
        "scopes": options.scopes,
        "caps": options.caps,
        "commands": options.commands,
        "permissions": {},
    });
    if !auth.is_empty() {
        params["auth"] = Value::Object(auth);
    }
    if let Some(path) = &options.path_env {
        params["pathEnv"] = json!(path);
    }
    if let (Some(device), Some((challenge, signature))) = (&options.device, signed) {
        params["device"] = json!({
            "id": device.id,
            "publicKey": device.public_key,
            "signature": signature,
            "signedAt": challenge.ts,
            "nonce": challenge.nonce,
        });
    }
    params
}

/// `hello-ok.policy`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    pub tick_interval_ms: u64,
    /// The largest frame the gateway accepts (and sends).
    pub max_payload: usize,
    /// How much the client may leave unsent in its socket before the gateway drops it.
    pub max_buffered_bytes: usize,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            tick_interval_ms: 30_000,
            max_payload: super::frame::DEFAULT_MAX_PAYLOAD,
            max_buffered_bytes: 2 * super::frame::DEFAULT_MAX_PAYLOAD,
        }
    }
}

/// What `hello-ok` tells the client.
#[derive(Clone, Debug, PartialEq)]
pub struct Hello {
    pub protocol: u64,
    pub server_version: Option<String>,
    pub role: Option<String>,
    pub scopes: Vec<String>,
    /// Issued to a signed device: the host stores it for the next connect.
    pub device_token: Option<String>,
    pub policy: Policy,
    /// `features.methods`: what this gateway serves.
    pub methods: Vec<String>,
    /// `snapshot.sessionDefaults.mainSessionKey` (`agent:main:main`).
    pub main_session_key: Option<String>,
}

impl Hello {
    pub fn parse(payload: &Value) -> Option<Hello> {
        if payload.get("type").and_then(Value::as_str) != Some("hello-ok") {
            return None;
        }
        let defaults = Policy::default();
        let policy = payload.get("policy");
        let policy_number = |key: &str| {
            policy
                .and_then(|p| p.get(key))
                .and_then(Value::as_u64)
                .filter(|n| *n > 0)
        };
        let strings = |value: Option<&Value>| -> Vec<String> {
            value
                .and_then(Value::as_array)
                .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default()
        };
        let auth = payload.get("auth");
        let auth_text = |key: &str| {
            auth.and_then(|a| a.get(key))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        Some(Hello {
            protocol: payload
                .get("protocol")
                .and_then(Value::as_u64)
                .unwrap_or(LEGACY_PROTOCOL),
            server_version: payload
                .pointer("/server/version")
                .and_then(Value::as_str)
                .map(str::to_string),
            role: auth_text("role"),
            scopes: strings(auth.and_then(|a| a.get("scopes"))),
            device_token: auth_text("deviceToken"),
            policy: Policy {
                tick_interval_ms: policy_number("tickIntervalMs").unwrap_or(defaults.tick_interval_ms),
                max_payload: policy_number("maxPayload").map_or(defaults.max_payload, clamp_usize),
                max_buffered_bytes: policy_number("maxBufferedBytes").map_or(defaults.max_buffered_bytes, clamp_usize),
            },
            methods: strings(payload.pointer("/features/methods")),
            main_session_key: payload
                .pointer("/snapshot/sessionDefaults/mainSessionKey")
                .and_then(Value::as_str)
                .map(str::to_string),
        })
    }
}

fn clamp_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// What a refused `connect` means for the next step.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    /// The gateway speaks another protocol; connect again speaking `expected`.
    ProtocolMismatch { expected: u64 },
    /// Not ready yet (`UNAVAILABLE`, "gateway starting"); try again after the delay.
    Retry { after_ms: u64 },
    /// Wrong credentials, a missing device, a refused client id: retrying cannot help.
    Fatal { message: String },
}

/// Classify a refused `connect`.
pub fn classify_refusal(error: &GatewayError) -> Refusal {
    let code = error.detail_code();
    let mismatch = code == "PROTOCOL_MISMATCH" || error.message.to_ascii_lowercase().contains("protocol mismatch");
    if mismatch {
        if let Some(expected) = error
            .details
            .get("expectedProtocol")
            .and_then(Value::as_u64)
            .filter(|p| *p == LEGACY_PROTOCOL || *p == PROTOCOL)
        {
            return Refusal::ProtocolMismatch { expected };
        }
    }
    // A node's pairing that changed while it connected (the gateway's "node pairing changed
    // during connect", seen when the node connects as its pairing is being recorded) is a race
    // on the gateway's side, not a verdict: the next try finds the pairing settled.
    let pairing_race = error.code == "NOT_PAIRED" && error.message.contains("changed during connect");
    if error.retryable || error.code == "UNAVAILABLE" || pairing_race {
        return Refusal::Retry {
            after_ms: error.retry_after_ms.unwrap_or(1_000),
        };
    }
    let next_step = error
        .details
        .get("recommendedNextStep")
        .and_then(Value::as_str)
        .map(|step| format!("; the gateway recommends: {}", step.replace('_', " ")))
        .unwrap_or_default();
    Refusal::Fatal {
        message: format!("the gateway refused the connection: {error}{next_step}"),
    }
}
