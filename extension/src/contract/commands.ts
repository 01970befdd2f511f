// The slash commands the composer offers, shared by the extension and the webview.

import type { CommandInfo } from "@tether/core";

/** The agent's own commands, after the project's it does not list (the project's are what the
 * user wrote for this workspace). Internal ones (`__name`) are not offered. */
export function mergeCommands(agent: readonly CommandInfo[], project: readonly CommandInfo[]): CommandInfo[] {
  const known = new Set(agent.map((c) => c.name));
  return [...project.filter((c) => !known.has(c.name)), ...agent].filter((c) => !c.name.startsWith("__"));
}

/** The commands matching what is typed after `/`: names that start with it first, then names
 * that contain it (`deep` finds `sub:deep`). */
export function matchCommands(commands: readonly CommandInfo[], query: string): CommandInfo[] {
  const q = query.toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(q));
  const contains = commands.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q));
  return [...starts, ...contains];
}
