//! The exported `NdjsonSplitter`, as the TypeScript side uses it: frames as plain objects.

use serde_json::{json, Value};
use tether_core::wasm::NdjsonSplitter;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

fn frames(value: JsValue) -> Value {
    let text = js_sys::JSON::stringify(&value).unwrap_or_else(|e| panic!("{e:?}"));
    serde_json::from_str(&String::from(text)).unwrap_or_else(|e| panic!("{e}"))
}

#[wasm_bindgen_test]
fn lines_split_across_chunks_come_out_whole_and_bad_lines_are_reported() {
    let mut splitter = NdjsonSplitter::new(Some(16));
    let text = "{\"a\":\"é\"}\n".as_bytes();
    assert_eq!(frames(splitter.push(&text[..7]).into()), json!([]));
    assert_eq!(
        frames(splitter.push(&text[7..]).into()),
        json!([{"kind": "line", "line": "{\"a\":\"é\"}"}])
    );
    assert_eq!(
        frames(splitter.push(b"\xff\n0123456789abcdefgh\nlast").into()),
        json!([{"kind": "invalidUtf8", "bytes": 1, "validUpTo": 0}, {"kind": "oversized", "bytes": 18}])
    );
    assert_eq!(frames(splitter.finish()), json!({"kind": "line", "line": "last"}));
    assert!(splitter.finish().is_undefined());
    assert_eq!(splitter.max_line_bytes(), 16);
}
