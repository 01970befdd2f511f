//! The gateway client over stdio, for the JavaScript suites in tests/openclaw (the real gateway,
//! the scripted fake one, the benchmark): they run this test binary with `--ignored --exact
//! stdio_bridge --nocapture` and drive the native client with one JSON command per line. After
//! each command it prints the client's outputs (`openclaw::json`), one per line, then
//! `{"type":"done","nextWakeup":ms|null}`. The client is not in the wasm yet (the backend seam
//! will bring it there), so the suites drive the same Rust code natively.

use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::time::Instant;
use tether_core::events::UiEvent;
use tether_core::openclaw::client::{ClientOutput, OpenClawClient};
use tether_core::openclaw::json::{error_json, options_from_json, output_json, reply_from_json};

#[test]
#[ignore = "the stdio bridge of tests/openclaw; they start it"]
fn stdio_bridge() {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let mut client: Option<OpenClawClient> = None;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let mut printed = Vec::new();
        match serde_json::from_str::<Value>(&line) {
            Ok(command) => run(&command, &mut client, &mut printed),
            Err(e) => printed.push(json!({"type": "bridgeError", "message": format!("not JSON: {e}")})),
        }
        if let Some(client) = client.as_mut() {
            printed.extend(client.take_outputs().iter().map(output_json));
        }
        let wakeup = client.as_ref().and_then(|c| c.next_wakeup());
        printed.push(json!({"type": "done", "nextWakeup": wakeup}));
        for value in printed {
            writeln!(stdout, "{value}").unwrap();
        }
        stdout.flush().unwrap();
    }
}

fn run(command: &Value, slot: &mut Option<OpenClawClient>, printed: &mut Vec<Value>) {
    let op = command["op"].as_str().unwrap_or_default();
    let text = |key: &str| command[key].as_str().unwrap_or_default();
    let now = command["now"].as_u64().unwrap_or(0);
    if op == "new" {
        match options_from_json(&command["options"]) {
            Ok((options, backoff)) => *slot = Some(OpenClawClient::new(options, backoff)),
            Err(message) => printed.push(json!({"type": "bridgeError", "message": message})),
        }
        return;
    }
    if op == "bench" {
        let cumulative = command["cumulative"].as_bool().unwrap_or(false);
        printed.push(bench(command["deltas"].as_u64().unwrap_or(10_000), cumulative));
        return;
    }
    let Some(client) = slot.as_mut() else {
        printed.push(json!({"type": "bridgeError", "message": "no client yet (op new)"}));
        return;
    };
    let answer = |result: Result<Value, tether_core::openclaw::frame::GatewayError>| match result {
        Ok(value) => json!({"type": "result", "ok": true, "value": value}),
        Err(error) => json!({"type": "result", "ok": false, "error": error_json(&error)}),
    };
    match op {
        "connect" => client.connect(now),
        "disconnect" => client.disconnect(),
        "open" => client.on_open(now),
        "frame" => {
            client.advance(now);
            client.on_frame(text("text"));
        }
        "signed" => client.on_signed(text("signature")),
        "close" => client.on_close(command["code"].as_u64().unwrap_or(1006) as u16, text("reason"), now),
        "advance" => client.advance(now),
        "watch" => client.watch(text("sessionKey")),
        "send" => printed.push(answer(
            client
                .send_message(text("text"), text("idempotencyKey"))
                .map(Value::from),
        )),
        "abort" => printed.push(answer(client.abort().map(|_| Value::Null))),
        "history" => printed.push(answer(
            client
                .load_history(command["limit"].as_u64().unwrap_or(50))
                .map(Value::from),
        )),
        "request" => {
            let timeout = command["timeoutMs"].as_u64().unwrap_or(30_000);
            let result = client.request(text("method"), command["params"].clone(), timeout);
            printed.push(answer(result.map(Value::from)));
        }
        "answerNode" => match reply_from_json(text("command"), &command["reply"]) {
            Ok(reply) => client.answer_node(text("id"), reply),
            Err(message) => printed.push(json!({"type": "bridgeError", "message": message})),
        },
        other => printed.push(json!({"type": "bridgeError", "message": format!("unknown op {other:?}")})),
    }
}

/// Frames to UI events in process: a connected client, then one run of `deltas` chat deltas
/// and its final. With `cumulative`, each delta also carries the whole message so far, as the
/// gateway's do (its frames then grow with the reply).
fn bench(deltas: u64, cumulative: bool) -> Value {
    let options = json!({"token": "t"});
    let (options, backoff) = options_from_json(&options).unwrap();
    let mut client = OpenClawClient::new(options, backoff);
    client.connect(0);
    client.on_open(0);
    client.on_frame(r#"{"type":"event","event":"connect.challenge","payload":{"nonce":"n","ts":1}}"#);
    let hello = json!({"type":"res","id":"connect-1","ok":true,"payload":{"type":"hello-ok","protocol":4,"policy":{"tickIntervalMs":30000}}});
    client.on_frame(&hello.to_string());
    client.watch("bench");
    client.take_outputs();
    let mut frames = Vec::with_capacity(deltas as usize + 1);
    let mut text = String::new();
    for n in 0..deltas {
        let delta = format!("word{n} ");
        text.push_str(&delta);
        let mut payload =
            json!({"runId":"r","sessionKey":"agent:main:bench","seq":n,"state":"delta","deltaText":delta});
        if cumulative {
            payload["message"] = json!({"role":"assistant","content":[{"type":"text","text":text}]});
        }
        frames.push(json!({"type":"event","event":"chat","payload":payload,"seq":n + 1}).to_string());
    }
    let last = json!({"runId":"r","sessionKey":"agent:main:bench","state":"final","stopReason":"stop"});
    frames.push(json!({"type":"event","event":"chat","payload":last,"seq":deltas + 1}).to_string());
    // Baseline in the same run: parsing the same frames as JSON, nothing else.
    let parsing = Instant::now();
    for frame in &frames {
        std::hint::black_box(serde_json::from_str::<Value>(frame).unwrap());
    }
    let parse_ms = parsing.elapsed().as_secs_f64() * 1000.0;
    let started = Instant::now();
    let mut events = 0usize;
    let mut shown = 0usize;
    for frame in &frames {
        client.on_frame(frame);
        for output in client.take_outputs() {
            events += 1;
            if let ClientOutput::Ui(UiEvent::TextDelta { text, .. }) = output {
                shown += text.len();
            }
        }
    }
    let elapsed = started.elapsed();
    assert_eq!(shown, text.len(), "every delta shown once");
    json!({"type": "bench", "frames": frames.len(), "events": events,
        "bytes": frames.iter().map(String::len).sum::<usize>(), "ms": elapsed.as_secs_f64() * 1000.0,
        "parseMs": parse_ms})
}
