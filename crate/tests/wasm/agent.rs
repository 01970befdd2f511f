//! The exported `TetherAgent` class as the driver uses it: its config read from JS, and the
//! `initialize` line taken before the settings are read.

use crate::support::*;
use serde_json::{json, Value};
use tether_core::wasm::TetherAgent;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;

fn agent(fx: &Fixture, config: JsValue) -> Result<TetherAgent, String> {
    TetherAgent::new(fx.js_host(), config).map_err(|e| {
        let error = JsValue::from(e);
        js_sys::Reflect::get(&error, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_else(|| format!("{error:?}"))
    })
}

fn from_js(value: JsValue) -> Value {
    let text = js_sys::JSON::stringify(&value).unwrap_or_else(|e| panic!("{e:?}"));
    serde_json::from_str(&String::from(text)).unwrap_or_else(|e| panic!("{e}"))
}

fn written_subtypes(outputs: &Value) -> Vec<String> {
    outputs
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {outputs}"))
        .iter()
        .filter(|o| o["type"] == "send")
        .map(|o| {
            let line: Value = serde_json::from_str(o["message"].as_str().unwrap_or("")).unwrap_or(Value::Null);
            line["request"]["subtype"].as_str().unwrap_or("").to_string()
        })
        .collect()
}

#[wasm_bindgen_test]
async fn initialize_is_written_first_and_start_then_loads_the_settings_without_it() {
    let fx = Fixture::new();
    make_dir(&fx.path(".claude"));
    write_text(
        &fx.path(".claude/settings.json"),
        r#"{"permissions": {"defaultMode": "plan"}}"#,
    );
    let agent = agent(
        &fx,
        js(&json!({"backend": "claude", "root": fx.dir, "homeDir": "/home/u"})),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(written_subtypes(&from_js(agent.initialize())), ["initialize"]);
    let started = from_js(JsFuture::from(agent.start()).await.unwrap_or_else(|e| panic!("{e:?}")));
    assert_eq!(written_subtypes(&started), ["set_permission_mode"], "{started}");
}

#[wasm_bindgen_test]
fn config_fields_left_undefined_count_as_missing() {
    let fx = Fixture::new();
    let config = js(&json!({"backend": "claude", "root": fx.dir, "homeDir": "/home/u"}));
    js_sys::Reflect::set(&config, &"mirror".into(), &JsValue::UNDEFINED).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(agent(&fx, config).is_ok());
}

#[wasm_bindgen_test]
fn a_config_value_json_cannot_hold_is_refused_with_a_clear_error() {
    let fx = Fixture::new();
    let config = js(&json!({"backend": "claude", "root": fx.dir, "homeDir": "/home/u"}));
    js_sys::Reflect::set(&config, &"model".into(), &js_sys::BigInt::from(7u32).into())
        .unwrap_or_else(|e| panic!("{e:?}"));
    let message = agent(&fx, config).err().unwrap_or_default();
    assert!(
        message.contains("Invalid Tether agent config") && message.contains("not representable as JSON"),
        "{message}"
    );
}

#[wasm_bindgen_test]
async fn an_answer_that_picks_no_offered_option_is_rejected_and_the_question_stays_open() {
    let fx = Fixture::new();
    let config = js(&json!({"backend": "claude", "root": fx.dir, "homeDir": "/home/u"}));
    let agent = agent(&fx, config).unwrap_or_else(|e| panic!("{e}"));
    JsFuture::from(agent.start()).await.unwrap_or_else(|e| panic!("{e:?}"));
    let ask = json!({"type": "control_request", "request_id": "p1", "request": {"subtype": "can_use_tool",
        "tool_name": "WebFetch", "input": {"url": "https://example.com"}, "tool_use_id": "t1"}});
    let asked = from_js(
        JsFuture::from(agent.on_message(ask.to_string()))
            .await
            .unwrap_or_else(|e| panic!("{e:?}")),
    );
    // The question, after its audit record.
    let request = asked
        .as_array()
        .and_then(|outputs| outputs.iter().find(|o| o["type"] == "event"))
        .map(|o| &o["event"])
        .unwrap_or_else(|| panic!("no event in {asked}"));
    assert_eq!(request["type"], "permissionRequest", "{asked}");
    let offered: Vec<&str> = request["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["optionId"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["allow", "always", "deny"]);
    let refused = JsFuture::from(agent.answer_permission("p1".into(), js(&json!({"optionId": "maybe"})))).await;
    let message = js_sys::Reflect::get(&refused.unwrap_err(), &"message".into())
        .ok()
        .and_then(|m| m.as_string());
    assert!(message.unwrap_or_default().contains("allow, always, deny"));
    let answered = from_js(
        JsFuture::from(agent.answer_permission("p1".into(), js(&json!({"optionId": "deny"}))))
            .await
            .unwrap_or_else(|e| panic!("{e:?}")),
    );
    // The CLI's answer, after the answer's audit record.
    let sent = answered
        .as_array()
        .and_then(|outputs| outputs.iter().find(|o| o["type"] == "send"))
        .unwrap_or_else(|| panic!("nothing sent in {answered}"));
    let line: Value = serde_json::from_str(sent["message"].as_str().unwrap()).unwrap();
    assert_eq!(line["response"]["response"]["behavior"], "deny", "{line}");
}
