// The extension's entry point: everything lives in TetherController.

import type * as vscode from "vscode";
import { TetherController } from "./controller";

let controller: TetherController | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const activatedAt: { startMs: number; endMs?: number } = { startMs: performance.now() };
  controller = new TetherController(context, activatedAt);
  context.subscriptions.push(controller);
  activatedAt.endMs = performance.now();
  controller.activated();
}

export function deactivate(): void {
  controller = undefined;
}
