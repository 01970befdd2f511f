//! The exported `TetherServer` class and the core's `McpServer` over the wasm host: handshake,
//! tool listing, JSON-RPC errors, configuration errors, overlapping calls.

use crate::support::*;
use futures::future::join_all;
use serde_json::{json, Value};
use tether_core::wasm::TetherServer;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;

const TOOL_NAMES: [&str; 11] = [
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "Glob",
    "Grep",
    "LS",
    "Bash",
    "BashOutput",
    "KillShell",
];

fn error_message(error: JsValue) -> String {
    js_sys::Reflect::get(&error, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| format!("{error:?}"))
}

fn construction_error(config: JsValue) -> String {
    let fx = Fixture::new();
    let host = fx.js_host();
    match TetherServer::new(host, config) {
        Ok(_) => panic!("the configuration was accepted"),
        Err(e) => error_message(e.into()),
    }
}

#[wasm_bindgen_test]
async fn initialize_names_the_tether_server_and_protocol() {
    let fx = Fixture::new();
    let server = fx.server();
    let response = request(
        &server,
        7,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
    )
    .await;
    assert_eq!(response["id"], json!(7));
    let result = &response["result"];
    assert_eq!(result["serverInfo"]["name"], json!("tether"));
    assert_eq!(result["protocolVersion"], json!("2025-11-25"));
    assert!(result["capabilities"]["tools"].is_object());
    assert_eq!(
        serde_json::from_str::<Value>(&server.initialize_result()).unwrap(),
        *result
    );
}

#[wasm_bindgen_test]
async fn tools_list_has_the_eleven_tools_all_always_loaded() {
    let fx = Fixture::new();
    let server = fx.server();
    let response = request(&server, 1, "tools/list", json!({})).await;
    let tools = response["result"]["tools"].as_array().expect("a tools array");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, TOOL_NAMES);
    for tool in tools {
        assert_eq!(tool["_meta"]["anthropic/alwaysLoad"], json!(true), "{}", tool["name"]);
        assert_eq!(tool["inputSchema"]["type"], json!("object"), "{}", tool["name"]);
    }
    assert_eq!(
        serde_json::from_str::<Value>(&server.tools_list()).unwrap(),
        response["result"]
    );
}

#[wasm_bindgen_test]
async fn ping_answers_an_empty_result() {
    let fx = Fixture::new();
    let response = request(&fx.server(), 3, "ping", Value::Null).await;
    assert_eq!(response, json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
}

#[wasm_bindgen_test]
async fn notifications_get_no_response() {
    let fx = Fixture::new();
    let response = send(
        &fx.server(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert_eq!(response, None);
}

#[wasm_bindgen_test]
async fn a_line_that_is_not_json_is_a_parse_error() {
    let fx = Fixture::new();
    let response = send(&fx.server(), "{not json").await.expect("a response");
    assert_eq!(response["error"]["code"], json!(-32700));
    assert_eq!(response["id"], Value::Null);
}

#[wasm_bindgen_test]
async fn an_unknown_method_is_method_not_found() {
    let fx = Fixture::new();
    let response = request(&fx.server(), 4, "no/such", json!({})).await;
    assert_eq!(response["error"]["code"], json!(-32601));
}

#[wasm_bindgen_test]
async fn an_unknown_tool_is_an_invalid_params_error() {
    let fx = Fixture::new();
    let response = request(
        &fx.server(),
        5,
        "tools/call",
        json!({"name": "Teleport", "arguments": {}}),
    )
    .await;
    assert_eq!(response["error"]["code"], json!(-32602));
    assert!(response["error"]["message"].as_str().unwrap_or("").contains("Teleport"));
}

#[wasm_bindgen_test]
async fn overlapping_messages_are_all_answered() {
    let fx = Fixture::new();
    let server = fx.server();
    let pending: Vec<JsFuture> = (0..20)
        .map(|id| {
            let method = if id % 2 == 0 { "ping" } else { "tools/list" };
            let message = json!({"jsonrpc": "2.0", "id": id, "method": method});
            JsFuture::from(server.handle(message.to_string()))
        })
        .collect();
    let mut ids: Vec<u64> = join_all(pending)
        .await
        .into_iter()
        .map(|r| {
            let text = r.unwrap().as_string().unwrap();
            serde_json::from_str::<Value>(&text).unwrap()["id"].as_u64().unwrap()
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..20).collect::<Vec<_>>());
}

#[wasm_bindgen_test]
async fn the_core_server_type_runs_over_the_wasm_host() {
    let fx = Fixture::new();
    let server = fx.mcp_server();
    let response = server
        .handle(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#)
        .await
        .expect("a response");
    let value: Value = serde_json::from_str(&response).unwrap();
    assert!(value["result"]["instructions"].as_str().unwrap_or("").contains(&fx.dir));
}

#[wasm_bindgen_test]
fn a_config_without_root_is_refused_with_a_clear_error() {
    let message = construction_error(js(&json!({"mirror": "/m"})));
    assert!(
        message.contains("Invalid Tether config") && message.contains("root"),
        "{message}"
    );
}

#[wasm_bindgen_test]
fn a_relative_root_is_refused() {
    let message = construction_error(js(&json!({"root": "relative/dir"})));
    assert!(message.contains("Invalid Tether config"), "{message}");
}

#[wasm_bindgen_test]
fn an_unknown_config_field_is_refused() {
    let message = construction_error(js(&json!({"root": "/tmp", "mirorr": "/m"})));
    assert!(message.contains("mirorr"), "{message}");
}

#[wasm_bindgen_test]
fn a_config_that_is_not_an_object_is_refused() {
    let message = construction_error(JsValue::UNDEFINED);
    assert!(message.contains("Invalid Tether config"), "{message}");
}

#[wasm_bindgen_test]
fn a_host_object_missing_methods_is_refused_at_construction() {
    let message = match TetherServer::new(partial_host(), js(&json!({"root": "/tmp"}))) {
        Ok(_) => panic!("accepted"),
        Err(e) => error_message(e.into()),
    };
    assert!(message.contains("writeFile"), "{message}");
}

#[wasm_bindgen_test]
fn a_full_config_is_accepted() {
    let fx = Fixture::new();
    let config = js(&json!({"root": fx.dir, "mirror": "/local/mirror", "allowOutsideRoot": true, "env": {"A": "1"}}));
    assert!(TetherServer::new(fx.js_host(), config).is_ok());
}
