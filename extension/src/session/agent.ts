// The TypeScript side of the TetherAgent contract (Rust in crate/src/agent.rs and
// crate/src/wasm.rs): the wasm class that runs a Claude Code session's protocol, tools and
// permission engine. Its types are generated from the Rust ones (src/generated/core.ts).

import type { TetherHost } from "../core/host";
import { loadTetherCore } from "../core/wasm";
import type { AgentConfig } from "../generated/core";

export type { AgentConfig, AgentOutput, PermissionAnswer, PermissionMode } from "../generated/core";
export { PERMISSION_MODES } from "../generated/core";

type Glue = typeof import("tether-core-wasm");
export type TetherAgent = import("tether-core-wasm").TetherAgent;

/** A TetherAgent on `host`. Throws an Error with a clear message on a bad config. */
export function createTetherAgent(host: TetherHost, config: AgentConfig): TetherAgent {
  const { TetherAgent } = loadTetherCore() as Glue;
  return new TetherAgent(host, config);
}
