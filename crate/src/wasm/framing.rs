//! `NdjsonSplitter`: the core's NDJSON framing ([`crate::framing`]) for the TypeScript side, so
//! every stdio peer splits lines the same way (the agent's stdout, the MCP server's stdin).

use crate::framing::{Frame, LineSplitter, DEFAULT_MAX_LINE_BYTES};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct NdjsonSplitter {
    inner: LineSplitter,
}

#[wasm_bindgen]
impl NdjsonSplitter {
    /// `maxLineBytes`: lines longer than this are dropped and reported (default 64 MiB).
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(js_name = maxLineBytes)] max_line_bytes: Option<u32>) -> NdjsonSplitter {
        let max = max_line_bytes.map_or(DEFAULT_MAX_LINE_BYTES, |m| m as usize);
        NdjsonSplitter {
            inner: LineSplitter::new(max),
        }
    }

    #[wasm_bindgen(getter, js_name = maxLineBytes)]
    pub fn max_line_bytes(&self) -> u32 {
        u32::try_from(self.inner.max_line_bytes()).unwrap_or(u32::MAX)
    }

    /// Feed a chunk of the stream: the frames it completed.
    #[wasm_bindgen(unchecked_return_type = "NdjsonFrame[]")]
    pub fn push(&mut self, chunk: &[u8]) -> Array {
        self.inner.push(chunk).into_iter().map(frame_to_js).collect()
    }

    /// The stream ended: the last line, if it had no newline.
    #[wasm_bindgen(unchecked_return_type = "NdjsonFrame | undefined")]
    pub fn finish(&mut self) -> JsValue {
        self.inner.finish().map_or(JsValue::UNDEFINED, frame_to_js)
    }
}

/// A frame as its generated TypeScript type (`NdjsonFrame`) has it, built directly: a line can be
/// megabytes, and going through JSON would copy it twice more.
fn frame_to_js(frame: Frame) -> JsValue {
    let object = Object::new();
    let set = |key: &str, value: JsValue| {
        let _ = Reflect::set(&object, &JsValue::from_str(key), &value);
    };
    match frame {
        Frame::Line { line } => {
            set("kind", "line".into());
            set("line", JsValue::from_str(&line));
        }
        Frame::Oversized { bytes } => {
            set("kind", "oversized".into());
            set("bytes", (bytes as f64).into());
        }
        Frame::InvalidUtf8 { bytes, valid_up_to } => {
            set("kind", "invalidUtf8".into());
            set("bytes", (bytes as f64).into());
            set("validUpTo", (valid_up_to as f64).into());
        }
    }
    object.into()
}
