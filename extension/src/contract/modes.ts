// Claude Code's permission modes as the UI shows them: one entry per generated mode, in the
// pickers' order. The extension (status bar, quick pick, the modes it sends) and the webview
// (header, its fallback list) both read this table.

import { PERMISSION_MODES, type PermissionMode } from "@tether/core";
import type { ModeInfo } from "./protocol";

interface ModeLook {
  label: string;
  /** On the header's picker button. */
  short: string;
  /** A codicon. */
  icon: string;
  description: string;
}

const LOOKS: Record<PermissionMode, ModeLook> = {
  default: { label: "Ask", short: "Ask", icon: "shield", description: "Ask before edits and commands" },
  acceptEdits: {
    label: "Accept edits",
    short: "Auto-edit",
    icon: "edit",
    description: "Apply edits without asking; ask for commands",
  },
  plan: { label: "Plan", short: "Plan", icon: "list-ordered", description: "Read and plan only; no edits, no commands" },
  dontAsk: { label: "Don't ask", short: "Don't ask", icon: "circle-slash", description: "Refuse anything no rule allows" },
  bypassPermissions: { label: "Bypass", short: "Bypass", icon: "warning", description: "Allow everything (dangerous)" },
};

/** The permission modes for the pickers. */
export const PERMISSION_MODE_INFO: readonly ModeInfo[] = PERMISSION_MODES.map((id) => ({
  id,
  label: LOOKS[id].label,
  description: LOOKS[id].description,
}));

export function isPermissionMode(value: string): value is PermissionMode {
  return (PERMISSION_MODES as readonly string[]).includes(value);
}

/** The look of a mode; undefined for a mode that is not Claude Code's (another agent's own). */
export function modeLook(mode: string): ModeLook | undefined {
  return isPermissionMode(mode) ? LOOKS[mode] : undefined;
}
