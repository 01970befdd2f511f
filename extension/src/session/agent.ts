// The TypeScript side of the TetherAgent contract (/work/agent-contract.md; Rust in
// crate/src/agent.rs and crate/src/wasm.rs): the wasm class that runs a Claude Code session's
// protocol, tools and permission engine, and the JSON shapes that cross the boundary.

import type { TetherHost } from "../core/host";
import { loadTetherCore } from "../core/wasm";
import type { UiEvent } from "./events";

export type PermissionModeName = "default" | "acceptEdits" | "plan" | "dontAsk" | "bypassPermissions";

export const PERMISSION_MODES: readonly PermissionModeName[] = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"];

export interface AgentConfig {
  /** Workspace root (a remote path for a remote workspace). */
  root: string;
  /** The CLI's local cwd; paths under it map to root. */
  mirror?: string;
  /** For ~/ in permission rules. */
  homeDir: string;
  /** Text of the laptop's ~/.claude/settings.json. */
  userSettings?: string;
  mode?: PermissionModeName;
  model?: string;
  resume?: string;
  /** Extra environment for the CLI (not for commands). */
  env?: Record<string, string>;
  remote?: { os?: string; shell?: string; gitBranch?: string };
  extraSystemPrompt?: string;
  allowedTools?: string[];
  disallowedTools?: string[];
}

export type AgentOutput = { type: "write"; line: string } | { type: "event"; event: UiEvent };

export interface PermissionAnswer {
  decision: "allow" | "always" | "deny";
  reason?: string;
  /** Edits only: the content the user left in the review editor. */
  userContent?: string;
}

export interface TetherAgent {
  launch(parentEnv: Record<string, string>): { args: string[]; env: Record<string, string> };
  start(): Promise<AgentOutput[]>;
  prompt(text: string, images?: { mediaType: string; data: string }[]): AgentOutput[];
  onLine(line: string): Promise<AgentOutput[]>;
  answerPermission(requestId: string, answer: PermissionAnswer): Promise<AgentOutput[]>;
  interrupt(): AgentOutput[];
  setMode(mode: PermissionModeName): AgentOutput[];
  setModel(model: string | null): AgentOutput[];
  fileChanged(path: string): Promise<void>;
}

type TetherAgentClass = new (host: TetherHost, config: AgentConfig) => TetherAgent;

/** A TetherAgent on `host`. Throws an Error with a clear message on a bad config, or when the
 * wasm module predates the agent. */
export function createTetherAgent(host: TetherHost, config: AgentConfig): TetherAgent {
  const glue = loadTetherCore() as unknown as { TetherAgent?: TetherAgentClass };
  if (typeof glue.TetherAgent !== "function") {
    throw new Error("this build of the Tether core has no TetherAgent (rebuild with ./build.sh)");
  }
  return new glue.TetherAgent(host, config);
}
