//! Tether's MCP server (`McpServer`: JSON-RPC, `Dispatch`, every tool) on a workspace in memory:
//! any sequence of lines gets JSON-RPC answers only, every request with a usable id is answered
//! under that id, and nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tether_core::mcp::McpServer;
use tether_fuzz::{run, sample_toolset, text_lines};

fuzz_target!(|data: &[u8]| {
    let server = McpServer::new(sample_toolset());
    for line in text_lines(data) {
        let request_id = serde_json::from_str::<Value>(&line).ok().and_then(|v| {
            let id = v.get("id")?.clone();
            (v.get("method")?.is_string() && (id.is_string() || id.is_number())).then_some(id)
        });
        let reply = run(server.handle(&line));
        let Some(reply) = reply else {
            assert!(request_id.is_none(), "a request got no answer: {line}");
            continue;
        };
        let reply: Value = serde_json::from_str(&reply).expect("the answer is JSON");
        let answers = match &reply {
            Value::Array(items) => items.clone(),
            single => vec![single.clone()],
        };
        for answer in &answers {
            assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
            assert!(
                answer.get("result").is_some() != answer.get("error").is_some(),
                "{answer}"
            );
        }
        if let Some(id) = request_id {
            assert_eq!(reply["id"], id, "{line} -> {reply}");
        }
    }
});
