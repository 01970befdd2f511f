// The TypeScript side of the TetherAgent contract (Rust in crate/src/agent.rs and
// crate/src/wasm/agent.rs): the wasm class that runs one agent session — the backend the config
// names, Tether's tools and the permission gate. Its types are generated from the Rust ones
// (src/generated/core.ts).

import type { TetherHost } from "../core/host";
import { loadTetherCore } from "../core/wasm";
import type { AgentConfig } from "../generated/core";

export type { AgentConfig, AgentOutput, PermissionAnswer, PermissionMode, SessionOp, SessionOpKind } from "../generated/core";
export { PERMISSION_MODES } from "../generated/core";

type Glue = typeof import("tether-core-wasm");
export type TetherAgent = import("tether-core-wasm").TetherAgent;

/** A TetherAgent on `host`. Throws an Error with a clear message on a bad config. */
export function createTetherAgent(host: TetherHost, config: AgentConfig): TetherAgent {
  const { TetherAgent } = loadTetherCore() as Glue;
  return new TetherAgent(host, config);
}
