//! Real frames of `openclaw@2026.9.6` (shared/reference/openclaw-gateway-examples.md and
//! openclaw-gateway-protocol.md, shortened where the reference shortens them) and helpers that
//! drive the sans-IO client with them.
#![allow(dead_code)]

use serde_json::{json, Value};
use tether_core::openclaw::client::{ClientOutput, OpenClawClient};
use tether_core::openclaw::connection::SocketOp;
use tether_core::openclaw::protocol::handshake::ConnectOptions;
use tether_core::openclaw::reconnect::Backoff;

pub const CHALLENGE: &str = r#"{"type":"event","event":"connect.challenge","payload":{"nonce":"7b4c4d4d-f298-43b2-a10e-7d32111076ac","ts":1795341839992,"capabilities":["model-catalog-snapshot"]}}"#;

/// The reference's hello-ok, shortened (features and snapshot cut down), answering `id`.
pub fn hello_ok(id: &str) -> String {
    json!({"type":"res","id":id,"ok":true,"payload":{"type":"hello-ok","protocol":4,
        "server":{"version":"2026.9.6","buildId":"2026.9.6-release-eb377ac59e6c-2026-09-23T16-33-12.144Z","bootId":"c7165c09-a0f6-4f00-af54-813500c42ddc","controlUiBuildSource":"bundled","connId":"a20813b1-208d-462d-a0ef-c2705c8a2bc7"},
        "features":{"methods":["health","chat.send","chat.abort","chat.history","sessions.list","sessions.create"],"events":["connect.challenge","agent","chat"],"capabilities":["model-catalog-snapshot"]},
        "snapshot":{"sessionDefaults":{"defaultAgentId":"main","modelConfigured":true,"mainKey":"main","mainSessionKey":"agent:main:main","scope":"per-sender"}},
        "auth":{"method":"token","role":"operator","scopes":["operator.read","operator.write"],"recoveryScope":"PP6EKAzldoCcq87tcXx4rm4d-0tmyJVeKCQvqa4V5A4"},
        "policy":{"maxPayload":26214400,"maxBufferedBytes":52428800,"tickIntervalMs":30000,"attachments":{"maxBytes":19464192,"maxImageBytes":6291456}}}})
    .to_string()
}

pub fn refusal(id: &str, error: Value) -> String {
    json!({"type":"res","id":id,"ok":false,"error":error}).to_string()
}

pub fn token_mismatch() -> Value {
    json!({"code":"INVALID_REQUEST","message":"unauthorized: gateway token mismatch (use this gateway's gateway.auth.token or pair the device)","details":{"code":"AUTH_TOKEN_MISMATCH","authReason":"token_mismatch","canRetryWithDeviceToken":false,"recommendedNextStep":"update_auth_credentials"}})
}

/// The refusal a v3-only gateway gives a v4 client (the v4 gateway's shape, reversed).
pub fn wants_v3() -> Value {
    json!({"code":"INVALID_REQUEST","message":"protocol mismatch","details":{"code":"PROTOCOL_MISMATCH","clientMinProtocol":4,"clientMaxProtocol":4,"expectedProtocol":3,"minimumProbeProtocol":3}})
}

pub const SESSION: &str = "agent:main:vscode-test-09165b9a";
pub const RUN: &str = "861593e4-018f-45c9-afaa-bb55e2dca272";

/// The streamed turn of frames-chat1.jsonl: chat status, interleaved agent/chat deltas (not
/// aligned one to one), usage, lifecycle end, the last chat delta, final.
pub fn chat_turn() -> Vec<String> {
    let chat = |seq: u64, payload: Value| {
        let mut p = json!({"runId":RUN,"sessionKey":SESSION,"agentId":"main"});
        p.as_object_mut().unwrap().extend(payload.as_object().unwrap().clone());
        json!({"type":"event","event":"chat","payload":p,"seq":seq}).to_string()
    };
    let agent = |seq: u64, pseq: u64, stream: &str, data: Value| {
        json!({"type":"event","event":"agent","payload":{"runId":RUN,"stream":stream,"data":data,"sessionKey":SESSION,"agentId":"main","seq":pseq,"ts":1795341849002u64,"isHeartbeat":false},"seq":seq}).to_string()
    };
    let message =
        |text: &str| json!({"role":"assistant","content":[{"type":"text","text":text}],"timestamp":1795341849007u64});
    vec![
        chat(6, json!({"seq":1,"state":"status","phase":"preparing_workspace"})),
        agent(7, 1, "run_status", json!({"phase":"preparing_workspace"})),
        chat(8, json!({"seq":2,"state":"status","phase":"preparing_context"})),
        agent(
            10,
            3,
            "lifecycle",
            json!({"phase":"start","startedAt":1795341848516u64}),
        ),
        chat(11, json!({"seq":4,"state":"status","phase":"starting_model"})),
        agent(
            17,
            6,
            "assistant",
            json!({"text":"Hello","delta":"Hello","itemId":"c6c7:1"}),
        ),
        chat(
            18,
            json!({"seq":6,"state":"delta","deltaText":"Hello","message":message("Hello")}),
        ),
        agent(
            19,
            9,
            "assistant",
            json!({"text":"Hello from the fake","delta":" from the fake","itemId":"c6c7:1"}),
        ),
        chat(
            20,
            json!({"seq":9,"state":"delta","deltaText":" from the fake","message":message("Hello from the fake")}),
        ),
        agent(
            21,
            11,
            "assistant",
            json!({"text":"Hello from the fake LLM. This","delta":" LLM. This","itemId":"c6c7:1"}),
        ),
        chat(
            22,
            json!({"seq":12,"state":"delta","deltaText":" LLM. This reply","message":message("Hello from the fake LLM. This reply")}),
        ),
        agent(
            23,
            13,
            "assistant",
            json!({"text":"Hello from the fake LLM. This reply was","delta":" reply was","itemId":"c6c7:1"}),
        ),
        agent(25, 18, "usage", json!({"outputTokens":20})),
        agent(
            29,
            21,
            "lifecycle",
            json!({"stopReason":"stop","aborted":false,"phase":"end"}),
        ),
        chat(
            30,
            json!({"seq":21,"state":"delta","deltaText":" was streamed token by token.","message":message("Hello from the fake LLM. This reply was streamed token by token.")}),
        ),
        chat(
            31,
            json!({"seq":21,"state":"final","stopReason":"stop","message":message("Hello from the fake LLM. This reply was streamed token by token.")}),
        ),
    ]
}

pub const TURN_TEXT: &str = "Hello from the fake LLM. This reply was streamed token by token.";

/// A client with the reference's operator options, connected (challenge + hello-ok done),
/// watching [`SESSION`]; its outputs so far are drained.
pub fn connected_client() -> OpenClawClient {
    let mut options = ConnectOptions::operator(Some("test-token-123".into()), "0.1.0", "linux");
    options.display_name = None;
    let mut client = OpenClawClient::new(options, Backoff::default());
    client.connect(1_000);
    client.on_open(1_000);
    client.on_frame(CHALLENGE);
    let connect_id = sent_ids(&client.take_outputs())[0].clone();
    client.on_frame(&hello_ok(&connect_id));
    client.watch(SESSION);
    client.take_outputs();
    client
}

/// The frames the outputs send, parsed.
pub fn sent(outputs: &[ClientOutput]) -> Vec<Value> {
    outputs
        .iter()
        .filter_map(|o| match o {
            ClientOutput::Socket(SocketOp::Send(text)) => serde_json::from_str(text).ok(),
            _ => None,
        })
        .collect()
}

pub fn sent_ids(outputs: &[ClientOutput]) -> Vec<String> {
    sent(outputs)
        .iter()
        .map(|frame| frame["id"].as_str().unwrap().to_string())
        .collect()
}
