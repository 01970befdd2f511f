// The registry of backend modules: one line per backend. Everything else finds a backend through
// an agent entry (`entry.backend`), never by name.

import { acpBackend } from "./acp";
import type { AgentEntry, BackendModule } from "./backend";
import { claudeBackend } from "./claude";
import { openclawBackend } from "./openclaw";
import type { TetherSettings } from "../settings";

export const BACKENDS: readonly BackendModule[] = [
  claudeBackend as BackendModule,
  acpBackend as BackendModule,
  openclawBackend as BackendModule,
];

/** The agent sessions start with when `tether.agent` names none: Tether's first backend's. */
export const DEFAULT_AGENT = "claude";

/** Every agent of `backends`, in their order, with the user's settings; an agent the user added
 * cannot take the name of one Tether knows. */
export function agentEntries(settings: TetherSettings, backends: readonly BackendModule[] = BACKENDS): AgentEntry[] {
  const all = backends.flatMap((backend) => backend.agents(settings));
  const known = new Set(all.filter((e) => !e.userDefined).map((e) => e.name));
  return all.filter((e) => !e.userDefined || !known.has(e.name));
}

export function findAgent(entries: readonly AgentEntry[], name: string): AgentEntry | undefined {
  return entries.find((e) => e.name === name);
}
