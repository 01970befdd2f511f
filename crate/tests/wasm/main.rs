//! The core compiled to wasm and run in Node, against real temporary directories through the real
//! Node host (extension/src/node/nodeHost.ts, bundled by build.sh). `./build.sh test` runs it; by
//! hand, after `./build.sh`:
//! `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=~/.cache/tether/wasm-bindgen-cli-<version>/bin/wasm-bindgen-test-runner
//!  cargo test --target wasm32-unknown-unknown -p tether-core --test wasm`
#![cfg(target_arch = "wasm32")]

mod agent;
mod framing;
mod host_imports;
mod server;
mod support;
mod tools;
