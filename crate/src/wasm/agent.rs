//! `TetherAgent`: one agent session (any backend the config names), bound to one host and
//! workspace. Its outputs are arrays of `{type: "send", message}` / `{type: "event", event}`.

use super::host::{JsHost, WasmHost};
use super::{json_from_js, spawn, value_to_js};
use crate::agent::{Agent, AgentOutput};
use crate::backend::{Backend, ImageInput, SessionOp, TransportEvent};
use crate::config::json::string_map;
use crate::gate::UserAnswer;
use crate::registry::AgentConfig;
use js_sys::Promise;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

// The types are generated from the Rust ones (crate/src/typescript.rs); the bindings' .d.ts lands
// in target/wasm-pkg/, two levels below the repository.
#[wasm_bindgen(typescript_custom_section)]
const AGENT_TYPES: &str = r#"
import type { AgentConfig, AgentOutput, NdjsonFrame, PermissionAnswer, RewindOutcome, RewindPreview, SessionOp, SessionOpKind, TransportEvent } from "../../extension/src/generated/core";
"#;

pub(super) fn outputs_to_js(outputs: Vec<AgentOutput>) -> JsValue {
    value_to_js(&outputs)
}

pub(super) fn error(message: String) -> JsError {
    JsError::new(&message)
}

#[wasm_bindgen]
pub struct TetherAgent {
    pub(super) inner: Rc<Agent<WasmHost, dyn Backend>>,
}

#[wasm_bindgen]
impl TetherAgent {
    /// `config`: the common keys and the backend's (`{backend: "claude", root, homeDir, …}`).
    /// Throws an Error on a bad host object or configuration.
    #[wasm_bindgen(constructor)]
    pub fn new(
        host: JsHost,
        #[wasm_bindgen(unchecked_param_type = "AgentConfig")] config: JsValue,
    ) -> Result<TetherAgent, JsError> {
        let AgentConfig { common, backend } = json_from_js(config)
            .and_then(|json| AgentConfig::from_json(&json))
            .map_err(|e| error(format!("Invalid Tether agent config: {e}.")))?;
        let host = WasmHost::new(host).map_err(error)?;
        // The backend's own refusals (an agent that cannot work here) read best as they are.
        let agent = Agent::new(host, common, |context| backend.create(context)).map_err(error)?;
        Ok(TetherAgent { inner: Rc::new(agent) })
    }

    /// The agent program's arguments (without the binary), its complete environment, files to
    /// write before it starts (`[path, content]`), and paths in its working folder that keep it
    /// from starting (`refusedInCwd`, relative, `/`-separated).
    #[wasm_bindgen(
        unchecked_return_type = "{ args: string[]; env: Record<string, string>; files: [string, string][]; refusedInCwd: string[] }"
    )]
    pub fn launch(
        &self,
        #[wasm_bindgen(js_name = parentEnv, unchecked_param_type = "Record<string, string>")] parent_env: JsValue,
    ) -> Result<JsValue, JsError> {
        let parent_env = json_from_js(parent_env)
            .and_then(|json| string_map(&json, "parentEnv"))
            .map_err(|e| error(format!("launch(parentEnv): expected Record<string, string>: {e}")))?;
        let launch = self.inner.launch(parent_env);
        Ok(value_to_js(&serde_json::json!({
            "args": launch.args,
            "env": launch.env,
            "files": self.inner.launch_files(),
            "refusedInCwd": self.inner.refused_in_cwd(),
        })))
    }

    /// The first messages, without waiting for the settings: send them right after the spawn.
    /// `start()` then leaves them out.
    #[wasm_bindgen(unchecked_return_type = "AgentOutput[]")]
    pub fn initialize(&self) -> JsValue {
        outputs_to_js(self.inner.initialize())
    }

    /// Loads the workspace's permission settings; resolves to the outputs with the first
    /// messages (unless `initialize()` took them). Send the first prompt after this: the settings
    /// may switch the mode.
    #[wasm_bindgen(unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn start(&self) -> Promise {
        let agent = self.inner.clone();
        spawn(Box::pin(async move { outputs_to_js(agent.start().await) }))
    }

    /// A user turn: text and optional images `{mediaType, data}` (base64). Resolves once the
    /// project's UserPromptSubmit hooks ran (for an agent that does not run them itself).
    #[wasm_bindgen(unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn prompt(
        &self,
        text: String,
        #[wasm_bindgen(unchecked_param_type = "{ mediaType: string; data: string }[] | undefined")] images: JsValue,
    ) -> Result<JsValue, JsError> {
        let images = if images.is_undefined() || images.is_null() {
            Vec::new()
        } else {
            json_from_js(images)
                .and_then(|json| ImageInput::list_from_json(&json))
                .map_err(|e| {
                    error(format!(
                        "prompt(images): expected {{mediaType: string, data: string}}[]: {e}"
                    ))
                })?
        };
        let agent = self.inner.clone();
        Ok(spawn(Box::pin(
            async move { outputs_to_js(agent.submit(&text, &images).await) },
        ))
        .into())
    }

    /// The user message `messageId` starts a turn (call before `prompt`): the files Tether
    /// changes from now on are checkpointed under it.
    #[wasm_bindgen(js_name = beginMessage, unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn begin_message(&self, #[wasm_bindgen(js_name = messageId)] message_id: String) -> Promise {
        let agent = self.inner.clone();
        spawn(Box::pin(async move {
            outputs_to_js(agent.begin_message(&message_id).await)
        }))
    }

    /// What rewinding the files to before the user message `messageId` would do.
    #[wasm_bindgen(js_name = rewindPreview, unchecked_return_type = "Promise<RewindPreview>")]
    pub fn rewind_preview(&self, #[wasm_bindgen(js_name = messageId)] message_id: String) -> Promise {
        let agent = self.inner.clone();
        super::spawn_fallible(Box::pin(async move {
            match agent.rewind_preview(&message_id).await {
                Ok(preview) => Ok(value_to_js(&preview)),
                Err(e) => Err(error(e).into()),
            }
        }))
    }

    /// Rewind the files to before `messageId`; rejects (nothing written) with a message naming
    /// the file when one changed since Tether last wrote it.
    #[wasm_bindgen(unchecked_return_type = "Promise<RewindOutcome>")]
    pub fn rewind(&self, #[wasm_bindgen(js_name = messageId)] message_id: String) -> Promise {
        let agent = self.inner.clone();
        super::spawn_fallible(Box::pin(async move {
            match agent.rewind(&message_id).await {
                Ok(outcome) => Ok(value_to_js(&outcome)),
                Err(e) => Err(error(e).into()),
            }
        }))
    }

    /// One MCP message from the agent's MCP client on the bridge connection `connection`: replies
    /// come out as `{type: "mcpReply", connection, message}`.
    #[wasm_bindgen(js_name = onMcpMessage, unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn on_mcp_message(&self, connection: u32, message: String) -> Promise {
        let agent = self.inner.clone();
        spawn(Box::pin(async move {
            outputs_to_js(agent.on_mcp_message(connection, &message).await)
        }))
    }

    /// One message from the agent. Calls may overlap: each runs as its own task.
    #[wasm_bindgen(js_name = onMessage, unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn on_message(&self, message: String) -> Promise {
        let agent = self.inner.clone();
        spawn(Box::pin(async move { outputs_to_js(agent.on_message(&message).await) }))
    }

    /// The user's answer to a `permissionRequest` event: `{optionId}` (one of its options) or
    /// `{decision: "allow" | "always" | "deny"}`, with `reason?` and `userContent?`. Rejects an
    /// answer that picks none of the request's options.
    #[wasm_bindgen(js_name = answerPermission, unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn answer_permission(
        &self,
        #[wasm_bindgen(js_name = requestId)] request_id: String,
        #[wasm_bindgen(unchecked_param_type = "PermissionAnswer")] answer: JsValue,
    ) -> Promise {
        let answer = match json_from_js(answer).and_then(|json| UserAnswer::from_json(&json)) {
            Ok(answer) => answer,
            Err(e) => return Promise::reject(&error(format!("answerPermission: {e}")).into()),
        };
        let agent = self.inner.clone();
        super::spawn_fallible(Box::pin(async move {
            match agent.answer_permission(&request_id, answer).await {
                Ok(outputs) => Ok(outputs_to_js(outputs)),
                Err(e) => Err(error(format!("answerPermission: {e}")).into()),
            }
        }))
    }

    /// A connection the backend steers (a gateway's socket) opened, brought a frame, closed, or
    /// was signed for.
    #[wasm_bindgen(js_name = onTransport, unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn on_transport(&self, #[wasm_bindgen(unchecked_param_type = "TransportEvent")] event: JsValue) -> Promise {
        let event = match json_from_js(event).and_then(|event| TransportEvent::from_json(&event)) {
            Ok(event) => event,
            Err(e) => return Promise::reject(&error(format!("onTransport: {e}")).into()),
        };
        let agent = self.inner.clone();
        spawn(Box::pin(async move { outputs_to_js(agent.on_transport(event).await) }))
    }

    /// The time the backend asked for (`wakeAt`) came.
    #[wasm_bindgen(unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn wake(&self) -> Promise {
        let agent = self.inner.clone();
        spawn(Box::pin(async move { outputs_to_js(agent.wake().await) }))
    }

    /// Read the background shells' new output for their panels (when a `watchShells` output
    /// asked for it); asks again while one runs.
    #[wasm_bindgen(js_name = watchShells, unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn watch_shells(&self) -> Promise {
        let agent = self.inner.clone();
        spawn(Box::pin(async move { outputs_to_js(agent.watch_shells().await) }))
    }

    /// The session ends: kill the background shells still running.
    #[wasm_bindgen(js_name = endShells, unchecked_return_type = "Promise<AgentOutput[]>")]
    pub fn end_shells(&self) -> Promise {
        let agent = self.inner.clone();
        spawn(Box::pin(async move { outputs_to_js(agent.end_shells().await) }))
    }

    /// One operation on the session (`{op: "load", id}`, `{op: "setMode", mode}`, …). Throws
    /// for a malformed operation and for one the agent does not offer (saying so, with its name).
    #[wasm_bindgen(unchecked_return_type = "AgentOutput[]")]
    pub fn operate(&self, #[wasm_bindgen(unchecked_param_type = "SessionOp")] op: JsValue) -> Result<JsValue, JsError> {
        let op = json_from_js(op)
            .and_then(|json| SessionOp::from_json(&json))
            .map_err(|e| error(format!("operate: {e}")))?;
        let outputs = self.inner.operate(op).map_err(|e| error(e.to_string()))?;
        Ok(outputs_to_js(outputs))
    }

    /// The operations the agent offers now (it may learn more from its agent's handshake).
    #[wasm_bindgen(unchecked_return_type = "SessionOpKind[]")]
    pub fn offers(&self) -> JsValue {
        value_to_js(&self.inner.offers())
    }

    /// A file watcher saw a workspace path change.
    #[wasm_bindgen(js_name = fileChanged, unchecked_return_type = "Promise<void>")]
    pub fn file_changed(&self, path: String) -> Promise {
        let agent = self.inner.clone();
        spawn(Box::pin(async move {
            agent.file_changed(&path).await;
            JsValue::UNDEFINED
        }))
    }
}
