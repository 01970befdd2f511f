//! The wasm-bindgen boundary.
