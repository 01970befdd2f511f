//! The OpenClaw gateway client (`on_frame`: handshake, requests, chat and agent events, node
//! invocations, reconnects) fed any frames, with time moving on between them: nothing panics, and
//! every frame it sends is JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tether_core::openclaw::protocol::handshake::ConnectOptions;
use tether_core::openclaw::connection::SocketOp;
use tether_core::openclaw::reconnect::Backoff;
use tether_core::openclaw::{ClientOutput, OpenClawClient};
use tether_fuzz::text_lines;

fn drain(client: &mut OpenClawClient) {
    for output in client.take_outputs() {
        if let ClientOutput::Socket(SocketOp::Send(text)) = output {
            serde_json::from_str::<serde_json::Value>(&text).expect("a frame sent is JSON");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let options = ConnectOptions::operator(Some("token".into()), "0.0.0", "linux");
    let mut client = OpenClawClient::new(options, Backoff::default());
    let mut now = 0;
    client.connect(now);
    client.on_open(now);
    drain(&mut client);
    for (i, frame) in text_lines(data).into_iter().enumerate() {
        client.on_frame(&frame);
        drain(&mut client);
        if i % 4 == 3 {
            now += 7_000;
            client.advance(now);
            drain(&mut client);
        }
        if i == 2 {
            client.watch("agent:main:fuzz");
            let _ = client.send_message("hello", "fuzz-key");
            drain(&mut client);
        }
    }
    client.on_close(1006, "gone", now);
    drain(&mut client);
});
