// The status bar item: where the agent runs, the permission mode, a spinner while it works, and in
// the tooltip how remote commands run. Clicking it switches the mode. It also keeps the
// `tether.busy` context key (the Stop keybinding's when-clause) in step.

import * as vscode from "vscode";
import type { UiState } from "../contract/protocol";
import { modeLook } from "../contract/modes";
import { TIER_LABELS, type RemoteExecutor } from "../remote/executor";

const WHERE_LABELS: Record<UiState["where"], string> = { local: "Local", "ui-remote": "UI↔remote", workspace: "Workspace" };

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("tether.status", vscode.StatusBarAlignment.Left, 50);

  constructor() {
    this.item.name = "Tether";
    this.item.command = "tether.switchMode";
    this.item.show();
  }

  update(state: UiState, executor: RemoteExecutor | undefined): void {
    const where = WHERE_LABELS[state.where];
    const mode = modeLook(state.mode)?.label ?? state.mode;
    const gateway = state.gateway ? ` · gateway ${state.gateway.state}` : "";
    this.item.text = `$(${state.busy ? "loading~spin" : "hubot"}) Tether: ${where} · ${mode}${gateway}`;
    const commands = executor
      ? `\nRemote commands: ${TIER_LABELS[executor.tier]} (${executor.description}).`
      : state.where === "ui-remote"
        ? "\nRemote commands: chosen when the first session starts."
        : "";
    const gatewayNote = state.gateway ? `\nOpenClaw gateway: ${state.gateway.state}${state.gateway.message ? ` (${state.gateway.message})` : ""}.` : "";
    this.item.tooltip = `Tether runs ${where === "Local" ? "locally" : where}; permission mode ${mode}.${commands}${gatewayNote}\nClick to switch the mode.`;
    void vscode.commands.executeCommand("setContext", "tether.busy", state.busy);
  }

  dispose(): void {
    this.item.dispose();
  }
}
