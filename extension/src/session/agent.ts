// The TypeScript side of the TetherAgent contract (Rust in crate/src/agent.rs and
// crate/src/wasm/agent.rs): the wasm class that runs one agent session — the backend the config
// names, Tether's tools and the permission gate. Its types are generated from the Rust ones
// (src/generated/core.ts).

import type { TetherHost } from "../core/host";
import { loadTetherCore } from "../core/wasm";
import type { AgentConfig, AgentOutput, PermissionMode } from "../generated/core";

export type { AgentConfig, AgentOutput, PermissionAnswer, PermissionMode } from "../generated/core";
export { PERMISSION_MODES } from "../generated/core";

type Glue = typeof import("tether-core-wasm");
export type TetherAgent = import("tether-core-wasm").TetherAgent;

/** A TetherAgent on `host`. Throws an Error with a clear message on a bad config. */
export function createTetherAgent(host: TetherHost, config: AgentConfig): TetherAgent {
  const { TetherAgent } = loadTetherCore() as Glue;
  return new TetherAgent(host, config);
}

/** One session operation, as the driver and the chat hand it on. The wasm TetherAgent takes each
 * as a method today; `operate` is the one place that knows which. */
export type SessionOp =
  | { type: "newSession" }
  | { type: "loadSession"; id: string }
  | { type: "listSessions" }
  | { type: "interrupt" }
  | { type: "setMode"; mode: PermissionMode }
  | { type: "setConfigOption"; option: string; value: string | null }
  | { type: "authenticate"; method: string }
  | { type: "command"; name: string; args: unknown };

/** Run `op` on `agent`; throws what the agent throws (an operation it does not support, by name). */
export function operate(agent: TetherAgent, op: SessionOp): AgentOutput[] {
  switch (op.type) {
    case "newSession":
      return agent.newSession();
    case "loadSession":
      return agent.loadSession(op.id);
    case "listSessions":
      return agent.listSessions();
    case "interrupt":
      return agent.interrupt();
    case "setMode":
      return agent.setMode(op.mode);
    case "setConfigOption":
      return agent.setConfigOption(op.option, op.value);
    case "authenticate":
      return agent.authenticate(op.method);
    case "command":
      return agent.command(op.name, op.args);
  }
}
