// The TypeScript side of the TetherAgent contract (/work/agent-contract.md; Rust in
// crate/src/agent.rs and crate/src/wasm.rs): the wasm class that runs a Claude Code session's
// protocol, tools and permission engine. Its types come from the wasm-bindgen output.

import type { TetherHost } from "../core/host";
import { loadTetherCore } from "../core/wasm";

type Glue = typeof import("tether-core-wasm");
export type TetherAgent = import("tether-core-wasm").TetherAgent;
export type AgentConfig = import("tether-core-wasm").AgentConfig;
export type AgentOutput = import("tether-core-wasm").AgentOutput;
export type PermissionAnswer = import("tether-core-wasm").PermissionAnswer;
export type PermissionModeName = import("tether-core-wasm").PermissionModeName;

export const PERMISSION_MODES: readonly PermissionModeName[] = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"];

/** A TetherAgent on `host`. Throws an Error with a clear message on a bad config. */
export function createTetherAgent(host: TetherHost, config: AgentConfig): TetherAgent {
  const { TetherAgent } = loadTetherCore() as Glue;
  return new TetherAgent(host, config);
}
