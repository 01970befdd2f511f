//! The gateway protocol below the chat: frames, the handshake, request matching, frame `seq`,
//! the policy and reconnecting, driven with the real gateway's frames.

mod openclaw_support;

use openclaw_support::*;
use serde_json::{json, Value};
use tether_core::openclaw::client::{ClientOutput, OpenClawClient};
use tether_core::openclaw::connection::{Connection, ConnectionOutput, ConnectionState, ResyncReason, SocketOp};
use tether_core::openclaw::protocol::frame::{parse_frame, Frame, DEFAULT_MAX_PAYLOAD};
use tether_core::openclaw::protocol::handshake::{
    device_signature_payload, Challenge, ClientId, ClientMode, ConnectOptions, DeviceIdentity,
};
use tether_core::openclaw::reconnect::{next_step, Backoff, CloseCause, Reconnect};

fn operator() -> ConnectOptions {
    let mut options = ConnectOptions::operator(Some("test-token-123".into()), "0.1.0", "linux");
    options.display_name = None;
    options
}

fn device() -> DeviceIdentity {
    DeviceIdentity {
        id: "550b090b28fddf8110d8200aad4020d5f110a00ebcb5c0e3b8ea3b470ea3ade2".into(),
        public_key: "6QLGygmPFOkMsxtMKafgM3JHEEfI6nEmA8xXO8vJVvU".into(),
    }
}

fn sends(outputs: &[ConnectionOutput]) -> Vec<Value> {
    outputs
        .iter()
        .filter_map(|o| match o {
            ConnectionOutput::Socket(SocketOp::Send(text)) => serde_json::from_str(text).ok(),
            _ => None,
        })
        .collect()
}

fn states(outputs: &[ConnectionOutput]) -> Vec<(ConnectionState, Option<String>)> {
    outputs
        .iter()
        .filter_map(|o| match o {
            ConnectionOutput::State { state, message } => Some((*state, message.clone())),
            _ => None,
        })
        .collect()
}

/// Open and answer the challenge; returns the connect request sent.
fn open_and_challenge(connection: &mut Connection, now: u64) -> Value {
    connection.advance(now);
    connection.on_open(now);
    connection.on_frame(CHALLENGE);
    let mut frames = sends(&connection.take_outputs());
    frames.pop().expect("a connect request")
}

fn connected(options: ConnectOptions) -> Connection {
    let mut connection = Connection::new(options, Backoff::default());
    connection.connect(0);
    let connect = open_and_challenge(&mut connection, 0);
    connection.on_frame(&hello_ok(connect["id"].as_str().unwrap()));
    connection.take_outputs();
    connection
}

fn event(name: &str, seq: u64) -> String {
    json!({"type":"event","event":name,"payload":{"ts":seq},"seq":seq}).to_string()
}

#[test]
fn connect_request_is_the_one_the_reference_gateway_accepted() {
    let mut connection = Connection::new(operator(), Backoff::default());
    connection.connect(0);
    assert_eq!(connection.take_outputs()[0], ConnectionOutput::Socket(SocketOp::Open));
    let connect = open_and_challenge(&mut connection, 5);
    assert_eq!(connect["method"], "connect");
    assert_eq!(
        connect["params"],
        json!({"minProtocol":4,"maxProtocol":4,"client":{"id":"cli","version":"0.1.0","platform":"linux","mode":"cli"},"role":"operator","scopes":["operator.read","operator.write"],"caps":["tool-events"],"commands":[],"permissions":{},"auth":{"token":"test-token-123"}})
    );
}

#[test]
fn client_ids_and_modes_are_the_gateways_closed_lists() {
    let ids: Vec<&str> = ClientId::ALL.iter().map(|id| id.as_str()).collect();
    assert_eq!(ids.len(), 17);
    assert!(ids.contains(&"cli") && ids.contains(&"node-host") && ids.contains(&"gateway-client"));
    assert_eq!(
        ClientId::parse("vscode-openclaw"),
        None,
        "the seed's id is refused by the gateway"
    );
    assert_eq!(ClientMode::parse("operator"), None, "and so is its mode");
    assert_eq!(ClientMode::ALL.len(), 8);
}

#[test]
fn device_payload_is_the_gateways_v3_form_with_platform_and_family_lowercased() {
    let mut options = ConnectOptions::node(Some("tok".into()), "0.0.1", "linux", device());
    options.device_family = Some(" Linux ".into());
    let challenge = Challenge {
        nonce: "b2e80758-10a2-4adf-88fe-d293f910a9cd".into(),
        ts: 1795341900263,
    };
    assert_eq!(
        device_signature_payload(&options, &device(), &challenge),
        "v3|550b090b28fddf8110d8200aad4020d5f110a00ebcb5c0e3b8ea3b470ea3ade2|node-host|node|node||1795341900263|tok|b2e80758-10a2-4adf-88fe-d293f910a9cd|linux|linux"
    );
}

#[test]
fn a_device_is_signed_by_the_host_and_sent_with_the_challenge() {
    let mut options = operator();
    options.device = Some(device());
    let mut connection = Connection::new(options, Backoff::default());
    connection.connect(0);
    connection.on_open(0);
    connection.on_frame(CHALLENGE);
    let outputs = connection.take_outputs();
    let payload = outputs
        .iter()
        .find_map(|o| match o {
            ConnectionOutput::Socket(SocketOp::Sign { payload }) => Some(payload.clone()),
            _ => None,
        })
        .expect("asks the host to sign");
    assert!(payload.starts_with("v3|550b090b"), "{payload}");
    assert!(payload.contains("|cli|cli|operator|operator.read,operator.write|1795341839992|test-token-123|7b4c4d4d-"));
    assert!(sends(&outputs).is_empty(), "connect waits for the signature");
    connection.on_signed("SIGNATURE");
    let connect = sends(&connection.take_outputs()).pop().unwrap();
    assert_eq!(
        connect["params"]["device"],
        json!({"id": device().id, "publicKey": device().public_key, "signature": "SIGNATURE",
            "signedAt": 1795341839992u64, "nonce": "7b4c4d4d-f298-43b2-a10e-7d32111076ac"})
    );
}

#[test]
fn hello_ok_connects_and_its_policy_is_kept() {
    let mut connection = Connection::new(operator(), Backoff::default());
    connection.connect(0);
    let connect = open_and_challenge(&mut connection, 0);
    connection.on_frame(&hello_ok(connect["id"].as_str().unwrap()));
    let outputs = connection.take_outputs();
    assert_eq!(
        states(&outputs),
        vec![(ConnectionState::Connected, Some("2026.9.6".into()))]
    );
    assert!(connection.is_connected());
    let policy = connection.policy();
    assert_eq!(
        (policy.tick_interval_ms, policy.max_payload, policy.max_buffered_bytes),
        (30_000, 26_214_400, 52_428_800)
    );
}

#[test]
fn a_v3_gateway_gets_a_second_connect_speaking_3() {
    let mut connection = Connection::new(operator(), Backoff::default());
    connection.connect(0);
    let connect = open_and_challenge(&mut connection, 0);
    connection.on_frame(&refusal(connect["id"].as_str().unwrap(), wants_v3()));
    assert!(matches!(
        connection.take_outputs().last(),
        Some(ConnectionOutput::Socket(SocketOp::Close { .. }))
    ));
    connection.on_close(1008, "", 10);
    connection.advance(10);
    assert!(
        connection
            .take_outputs()
            .contains(&ConnectionOutput::Socket(SocketOp::Open)),
        "reconnects at once"
    );
    let second = open_and_challenge(&mut connection, 10);
    assert_eq!(
        (
            second["params"]["minProtocol"].clone(),
            second["params"]["maxProtocol"].clone()
        ),
        (json!(3), json!(3))
    );
    let mut hello: Value = serde_json::from_str(&hello_ok(second["id"].as_str().unwrap())).unwrap();
    hello["payload"]["protocol"] = json!(3);
    connection.on_frame(&hello.to_string());
    assert!(connection.is_connected());
    assert_eq!(connection.protocol(), 3);
}

#[test]
fn a_wrong_token_is_a_clear_error_and_no_reconnect() {
    let mut connection = Connection::new(operator(), Backoff::default());
    connection.connect(0);
    let connect = open_and_challenge(&mut connection, 0);
    connection.on_frame(&refusal(connect["id"].as_str().unwrap(), token_mismatch()));
    let outputs = connection.take_outputs();
    let (state, message) = states(&outputs).pop().unwrap();
    assert_eq!(state, ConnectionState::Error);
    let message = message.unwrap();
    assert!(
        message.contains("gateway token mismatch") && message.contains("AUTH_TOKEN_MISMATCH"),
        "{message}"
    );
    assert!(message.contains("update auth credentials"), "{message}");
    connection.on_close(1008, "", 20);
    for minute in 1..=30 {
        connection.advance(minute * 60_000);
    }
    assert!(!connection
        .take_outputs()
        .contains(&ConnectionOutput::Socket(SocketOp::Open)));
    assert_eq!(connection.next_wakeup(), None);
}

#[test]
fn backoff_doubles_from_one_second_to_thirty_and_stops_after_ten_tries() {
    let backoff = Backoff::default();
    let delays: Vec<Option<u64>> = (0..11).map(|n| backoff.delay_ms(n)).collect();
    let expected: Vec<Option<u64>> = [1, 2, 4, 8, 16, 30, 30, 30, 30, 30]
        .iter()
        .map(|s| Some(s * 1000))
        .chain([None])
        .collect();
    assert_eq!(delays, expected);
    assert_eq!(next_step(&backoff, &CloseCause::Manual, 0), Reconnect::Stop);
    assert_eq!(next_step(&backoff, &CloseCause::Lost, 10), Reconnect::GiveUp);
    assert_eq!(
        next_step(
            &backoff,
            &CloseCause::Shutdown {
                restart_expected_ms: Some(12_000)
            },
            3
        ),
        Reconnect::After { ms: 12_000 }
    );
    assert_eq!(
        next_step(&backoff, &CloseCause::RetryAfter { ms: 500 }, 0),
        Reconnect::After { ms: 1000 }
    );
}

#[test]
fn failed_tries_back_off_give_up_after_ten_and_a_success_resets_the_count() {
    let mut connection = Connection::new(operator(), Backoff::default());
    connection.connect(0);
    let mut now = 0;
    let mut waits = Vec::new();
    // The gateway is down: every socket fails before opening.
    loop {
        connection.on_close(1006, "ECONNREFUSED", now);
        match connection.next_wakeup() {
            Some(at) => {
                waits.push(at - now);
                now = at;
                connection.advance(now);
            }
            None => break,
        }
    }
    assert_eq!(
        waits,
        vec![1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000, 30000]
    );
    let (state, message) = states(&connection.take_outputs()).pop().unwrap();
    assert_eq!(state, ConnectionState::Error);
    assert!(message.unwrap().contains("gave up after 10 tries"));
    // The user connects again; it works; a later drop starts again from one second.
    connection.connect(now);
    let connect = open_and_challenge(&mut connection, now);
    connection.on_frame(&hello_ok(connect["id"].as_str().unwrap()));
    connection.on_close(1006, "", now + 5);
    assert_eq!(connection.next_wakeup(), Some(now + 5 + 1000));
}

#[test]
fn a_manual_disconnect_stops_reconnecting() {
    let mut connection = connected(operator());
    connection.disconnect();
    assert!(matches!(
        connection.take_outputs()[0],
        ConnectionOutput::Socket(SocketOp::Close { code: 1000, .. })
    ));
    connection.on_close(1000, "", 100);
    assert_eq!(
        states(&connection.take_outputs()),
        vec![(ConnectionState::Disconnected, None)]
    );
    connection.advance(10 * 60_000);
    assert!(connection.take_outputs().is_empty());
}

#[test]
fn a_manual_disconnect_while_closing_for_a_retry_stops_the_retry() {
    let mut connection = Connection::new(operator(), Backoff::default());
    connection.connect(0);
    let connect = open_and_challenge(&mut connection, 0);
    let starting =
        json!({"code":"UNAVAILABLE","message":"gateway starting; retry shortly","retryable":true,"retryAfterMs":500});
    connection.on_frame(&refusal(connect["id"].as_str().unwrap(), starting));
    assert!(matches!(
        connection.take_outputs().last(),
        Some(ConnectionOutput::Socket(SocketOp::Close { .. }))
    ));
    connection.disconnect();
    connection.on_close(1013, "", 10);
    assert_eq!(
        states(&connection.take_outputs()),
        vec![(ConnectionState::Disconnected, None)]
    );
    assert_eq!(connection.next_wakeup(), None);
}

#[test]
fn a_node_refused_because_its_pairing_changed_during_connect_tries_again() {
    let mut connection = Connection::new(operator(), Backoff::default());
    connection.connect(0);
    let connect = open_and_challenge(&mut connection, 0);
    let race = json!({"code":"NOT_PAIRED","message":"node pairing changed during connect"});
    connection.on_frame(&refusal(connect["id"].as_str().unwrap(), race));
    connection.on_close(1008, "node pairing changed during connect", 10);
    let outputs = connection.take_outputs();
    assert!(
        !states(&outputs)
            .iter()
            .any(|(state, _)| *state == ConnectionState::Error),
        "not a verdict: {outputs:?}"
    );
    let at = connection.next_wakeup().expect("another try is planned");
    connection.advance(at);
    assert!(connection
        .take_outputs()
        .contains(&ConnectionOutput::Socket(SocketOp::Open)));
    // Not paired for any other reason stays a clear error.
    let mut refused = Connection::new(operator(), Backoff::default());
    refused.connect(0);
    let connect = open_and_challenge(&mut refused, 0);
    let verdict = json!({"code":"NOT_PAIRED","message":"device is not paired"});
    refused.on_frame(&refusal(connect["id"].as_str().unwrap(), verdict));
    refused.on_close(1008, "", 10);
    assert!(states(&refused.take_outputs())
        .iter()
        .any(|(state, _)| *state == ConnectionState::Error));
}

#[test]
fn a_refusal_arriving_after_a_manual_disconnect_does_not_bring_a_retry() {
    let mut connection = Connection::new(operator(), Backoff::default());
    connection.connect(0);
    let connect = open_and_challenge(&mut connection, 0);
    connection.disconnect();
    let starting = json!({"code":"UNAVAILABLE","message":"starting","retryable":true,"retryAfterMs":500});
    connection.on_frame(&refusal(connect["id"].as_str().unwrap(), starting));
    connection.on_close(1000, "", 10);
    let outputs = connection.take_outputs();
    assert!(outputs
        .iter()
        .any(|o| matches!(o, ConnectionOutput::Dropped { why } if why.contains("after the socket was closed"))));
    assert_eq!(states(&outputs), vec![(ConnectionState::Disconnected, None)]);
    assert_eq!(connection.next_wakeup(), None);
}

#[test]
fn a_shutdown_waits_for_the_announced_restart() {
    let mut connection = connected(operator());
    connection.on_frame(
        r#"{"type":"event","event":"shutdown","payload":{"reason":"restart","restartExpectedMs":12000},"seq":1}"#,
    );
    connection.on_close(1012, "service restart", 1_000);
    assert_eq!(connection.next_wakeup(), Some(13_000));
    connection.advance(12_999);
    assert!(!connection
        .take_outputs()
        .contains(&ConnectionOutput::Socket(SocketOp::Open)));
    connection.advance(13_000);
    assert!(connection
        .take_outputs()
        .contains(&ConnectionOutput::Socket(SocketOp::Open)));
}

#[test]
fn a_gateway_still_starting_is_retried_after_its_delay() {
    let mut connection = Connection::new(operator(), Backoff::default());
    connection.connect(0);
    let connect = open_and_challenge(&mut connection, 0);
    let starting = json!({"code":"UNAVAILABLE","message":"gateway starting; retry shortly","retryable":true,"retryAfterMs":500,"details":{"reason":"startup-sidecars"}});
    connection.on_frame(&refusal(connect["id"].as_str().unwrap(), starting));
    connection.on_close(1013, "", 10);
    assert_eq!(
        connection.next_wakeup(),
        Some(10 + 1000),
        "the first retry's 1 s is longer than the 500 ms asked"
    );
    assert_eq!(
        states(&connection.take_outputs()).last().unwrap().0,
        ConnectionState::Connecting
    );
}

#[test]
fn responses_match_their_requests_in_any_order_and_late_ones_time_out() {
    let mut connection = connected(operator());
    connection.advance(1_000);
    let first = connection.request("sessions.list", json!({}), 30_000).unwrap();
    let second = connection
        .request("chat.history", json!({"sessionKey": SESSION}), 5_000)
        .unwrap();
    connection.take_outputs();
    connection.on_frame(&json!({"type":"res","id":second,"ok":true,"payload":{"messages":[]}}).to_string());
    connection.on_frame(r#"{"type":"res","id":"nobody-9","ok":true,"payload":{}}"#);
    let outputs = connection.take_outputs();
    assert!(
        matches!(&outputs[0], ConnectionOutput::Response { id, method, result: Ok(_) } if *id == second && method == "chat.history")
    );
    assert!(matches!(&outputs[1], ConnectionOutput::Dropped { why } if why.contains("unknown request")));
    connection.advance(30_999);
    assert!(connection.take_outputs().is_empty());
    connection.advance(31_000);
    let outputs = connection.take_outputs();
    assert!(
        matches!(&outputs[..], [ConnectionOutput::Response { id, result: Err(e), .. }] if *id == first && e.code == "TIMEOUT")
    );
}

#[test]
fn requests_waiting_when_the_socket_closes_fail_at_once() {
    let mut connection = connected(operator());
    let id = connection.request("chat.history", json!({}), 30_000).unwrap();
    connection.take_outputs();
    connection.on_close(1006, "", 5);
    let outputs = connection.take_outputs();
    assert!(outputs.iter().any(|o| matches!(o, ConnectionOutput::Response { id: i, result: Err(e), .. } if *i == id && e.code == "DISCONNECTED")));
}

#[test]
fn duplicate_frames_are_dropped_and_a_gap_asks_for_a_resync() {
    let mut connection = connected(operator());
    for seq in [1, 2, 2, 1, 5, 6] {
        connection.on_frame(&event("tick", seq));
    }
    let outputs = connection.take_outputs();
    let seqs: Vec<u64> = outputs
        .iter()
        .filter_map(|o| match o {
            ConnectionOutput::Event(e) => e.seq,
            _ => None,
        })
        .collect();
    assert_eq!(seqs, vec![1, 2, 5, 6]);
    assert!(outputs.contains(&ConnectionOutput::Resync(ResyncReason::Gap {
        expected: 3,
        received: 5
    })));
    assert_eq!(
        outputs
            .iter()
            .filter(|o| matches!(o, ConnectionOutput::Dropped { .. }))
            .count(),
        2
    );
}

#[test]
fn silence_longer_than_two_ticks_closes_the_socket() {
    let mut connection = connected(operator());
    connection.advance(59_000);
    connection.on_frame(&event("tick", 1));
    connection.advance(59_000 + 60_000);
    assert!(connection
        .take_outputs()
        .iter()
        .all(|o| !matches!(o, ConnectionOutput::Socket(SocketOp::Close { .. }))));
    connection.advance(59_000 + 60_001);
    assert!(matches!(
        connection.take_outputs().last(),
        Some(ConnectionOutput::Socket(SocketOp::Close { code: 4000, .. }))
    ));
}

#[test]
fn a_request_over_the_policys_payload_limit_is_refused_before_sending() {
    let mut connection = Connection::new(operator(), Backoff::default());
    connection.connect(0);
    let connect = open_and_challenge(&mut connection, 0);
    let mut hello: Value = serde_json::from_str(&hello_ok(connect["id"].as_str().unwrap())).unwrap();
    hello["payload"]["policy"]["maxPayload"] = json!(200);
    connection.on_frame(&hello.to_string());
    connection.take_outputs();
    let error = connection
        .request("chat.send", json!({"message": "x".repeat(300)}), 1000)
        .unwrap_err();
    assert_eq!(error.code, "PAYLOAD_TOO_LARGE");
    assert!(connection.take_outputs().is_empty(), "nothing sent");
    assert!(connection.request("health", json!({}), 1000).is_ok());
}

#[test]
fn a_reconnect_after_a_lost_connection_asks_for_a_resync() {
    let mut connection = connected(operator());
    connection.on_close(1006, "", 100);
    connection.advance(1_100);
    let connect = open_and_challenge(&mut connection, 1_100);
    connection.on_frame(&hello_ok(connect["id"].as_str().unwrap()));
    assert!(connection
        .take_outputs()
        .contains(&ConnectionOutput::Resync(ResyncReason::Reconnected)));
}

#[test]
fn frames_parse_as_the_reference_shows_them() {
    let Frame::Event(challenge) = parse_frame(CHALLENGE, DEFAULT_MAX_PAYLOAD).unwrap() else {
        panic!()
    };
    assert_eq!((challenge.event.as_str(), challenge.seq), ("connect.challenge", None));
    let Frame::Response(refused) = parse_frame(&refusal("connect", token_mismatch()), 1 << 20).unwrap() else {
        panic!()
    };
    let error = refused.result.unwrap_err();
    assert_eq!(error.detail_code(), "AUTH_TOKEN_MISMATCH");
    // The seed's v3 error is a bare string.
    let Frame::Response(v3) = parse_frame(
        r#"{"type":"res","id":"cmd_1","ok":false,"error":"error message"}"#,
        1 << 20,
    )
    .unwrap() else {
        panic!()
    };
    assert_eq!(v3.result.unwrap_err().message, "error message");
    assert!(parse_frame(&"x".repeat(101), 100).is_err());
}

/// A small deterministic generator (no crate needed) for garbage frames.
fn garbage(seed: u64, count: usize) -> Vec<String> {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let pieces = [
        "{",
        "}",
        "[",
        "]",
        "\"type\":",
        "\"event\"",
        "\"res\"",
        "\"req\"",
        "\"seq\":",
        "-1",
        "1e400",
        "null",
        ",",
        "\"payload\":",
        "\"id\":",
        "\"ok\":",
        "true",
        "\"error\":",
        "\"chat\"",
        "\"agent\"",
        "\"state\":\"delta\"",
        "\"runId\":\"r\"",
        "\"message\":",
        "\"content\":",
        "\u{0}",
        "\u{10FFFF}",
        "\"node.invoke.request\"",
        ":",
        "\"",
    ];
    (0..count)
        .map(|_| {
            let len = (next() % 24) as usize;
            (0..len)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect()
        })
        .collect()
}

#[test]
fn garbage_frames_never_panic_in_any_phase() {
    let mut frames: Vec<String> = vec![
        String::new(),
        "null".into(),
        "[]".into(),
        "{}".into(),
        r#"{"type":"event"}"#.into(),
        r#"{"type":"event","event":"chat","payload":{"state":"delta","runId":7}}"#.into(),
        r#"{"type":"event","event":"chat","payload":{"state":"final","runId":"r","sessionKey":"agent:main:vscode-test-09165b9a","message":{"content":5}}}"#.into(),
        r#"{"type":"event","event":"agent","payload":{"kind":"tool_result","output":{"a":1}}}"#.into(),
        r#"{"type":"event","event":"tick","seq":1000000}"#.into(),
        r#"{"type":"event","event":"tick","seq":18446744073709551616}"#.into(),
        r#"{"type":"event","event":"tick","seq":-3}"#.into(),
        r#"{"type":"res","id":{},"ok":true}"#.into(),
        r#"{"type":"event","event":"connect.challenge","payload":{"nonce":5}}"#.into(),
        r#"{"type":"event","event":"node.invoke.request","payload":{"id":"x","paramsJSON":"{"}}"#.into(),
    ];
    frames.extend(garbage(0x9E37_79B9_7F4A_7C15, 3000));
    frames.extend(chat_turn().iter().map(|f| f[..f.len() / 2].to_string()));
    let mut fresh = OpenClawClient::new(operator(), Backoff::default());
    fresh.connect(0);
    fresh.on_open(0);
    let mut node = OpenClawClient::new(ConnectOptions::node(None, "0", "linux", device()), Backoff::default());
    node.connect(0);
    node.on_open(0);
    let mut clients = [fresh, connected_client(), node];
    for frame in &frames {
        for client in clients.iter_mut() {
            client.on_frame(frame);
            client.take_outputs();
        }
    }
    // Still working afterwards (frame seq going on past what the garbage used).
    let client = &mut clients[1];
    for frame in chat_turn() {
        let mut frame: Value = serde_json::from_str(&frame).unwrap();
        frame["seq"] = json!(frame["seq"].as_u64().unwrap() + 2_000_000);
        client.on_frame(&frame.to_string());
    }
    let text: String = client
        .take_outputs()
        .iter()
        .filter_map(|o| match o {
            ClientOutput::Ui(tether_core::events::UiEvent::TextDelta { text, .. }) => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(text, TURN_TEXT);
}
