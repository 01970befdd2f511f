//! The OpenClaw gateway's part of the session config: where the gateway is, the credentials
//! the host keeps for it (the shared token, the public half of each device key, the tokens the
//! gateway issued to those devices), and whether the workspace is offered as the gateway's node.

use crate::config::json::JsonObject;
use serde_json::Value;

/// The keys of [`OpenClawConfig`] in the JSON the driver passes.
pub const OPENCLAW_KEYS: [&str; 8] = [
    "gatewayUrl",
    "token",
    "device",
    "deviceToken",
    "node",
    "instanceId",
    "clientVersion",
    "backoff",
];

#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase", optional_fields))]
pub struct OpenClawConfig {
    /// `ws://` or `wss://`.
    #[cfg_attr(test, ts(optional = false))]
    pub gateway_url: String,
    /// The gateway's shared token (`gateway.auth.token`).
    pub token: Option<String>,
    /// The operator connection's device key (its private half stays with the host, which signs).
    pub device: Option<DeviceConfig>,
    /// What the gateway issued to that device; used when there is no shared token.
    pub device_token: Option<String>,
    /// Offer the workspace as the gateway's node (its agent's `exec` and `file_fetch` then act
    /// there, behind Tether's permission gate).
    pub node: Option<NodeConfig>,
    /// Unique per run of the driver: the idempotency keys and new session keys start with it.
    pub instance_id: Option<String>,
    pub client_version: Option<String>,
    /// Reconnect timing (tests shorten it); default 1 s doubling to 30 s, 10 tries.
    pub backoff: Option<BackoffConfig>,
}

/// The public half of a device key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase"))]
pub struct DeviceConfig {
    /// Hex SHA-256 of the raw Ed25519 public key.
    pub id: String,
    /// The raw public key, base64url.
    pub public_key: String,
}

/// The workspace as the gateway's node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase", optional_fields))]
pub struct NodeConfig {
    /// The node's own device key (a node must have one).
    #[cfg_attr(test, ts(optional = false))]
    pub device: DeviceConfig,
    pub device_token: Option<String>,
    /// What the gateway shows for it.
    pub display_name: Option<String>,
    /// The workspace's OS as the gateway names platforms (`linux`, `darwin`, `win32`): on
    /// another, the gateway drops `system.run`.
    pub platform: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "camelCase", optional_fields))]
pub struct BackoffConfig {
    pub base_ms: Option<u64>,
    pub cap_ms: Option<u64>,
    pub max_tries: Option<u32>,
}

impl OpenClawConfig {
    /// The gateway's keys of the config.
    pub fn from_object(config: &JsonObject) -> Result<OpenClawConfig, String> {
        let url = config.string("gatewayUrl")?;
        if !(url.starts_with("ws://") || url.starts_with("wss://")) {
            return Err(format!("`gatewayUrl` must be a ws:// or wss:// URL, not {url:?}"));
        }
        Ok(OpenClawConfig {
            gateway_url: url,
            token: config.opt_string("token")?,
            device: config.get("device").map(|d| device(d, "device")).transpose()?,
            device_token: config.opt_string("deviceToken")?,
            node: config.get("node").map(node).transpose()?,
            instance_id: config.opt_string("instanceId")?,
            client_version: config.opt_string("clientVersion")?,
            backoff: config.get("backoff").map(backoff).transpose()?,
        })
    }
}

fn device(value: &Value, what: &str) -> Result<DeviceConfig, String> {
    let device = JsonObject::new(value, what, &["id", "publicKey"])?;
    Ok(DeviceConfig {
        id: device.string("id")?,
        public_key: device.string("publicKey")?,
    })
}

fn node(value: &Value) -> Result<NodeConfig, String> {
    let node = JsonObject::new(value, "node", &["device", "deviceToken", "displayName", "platform"])?;
    Ok(NodeConfig {
        device: device(node.get("device").ok_or("`node.device` is missing")?, "node.device")?,
        device_token: node.opt_string("deviceToken")?,
        display_name: node.opt_string("displayName")?,
        platform: node.opt_string("platform")?,
    })
}

fn backoff(value: &Value) -> Result<BackoffConfig, String> {
    let backoff = JsonObject::new(value, "backoff", &["baseMs", "capMs", "maxTries"])?;
    let number = |key: &str| -> Result<Option<u64>, String> {
        match backoff.get(key) {
            None => Ok(None),
            Some(n) => n
                .as_u64()
                .map(Some)
                .ok_or_else(|| format!("`backoff.{key}` must be a whole number")),
        }
    };
    Ok(BackoffConfig {
        base_ms: number("baseMs")?,
        cap_ms: number("capMs")?,
        max_tries: number("maxTries")?.map(|n| n.min(u32::MAX as u64) as u32),
    })
}
