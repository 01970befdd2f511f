// The extension's entry point: the context owns everything while the extension is active; the
// commands are registered from their table.

import type * as vscode from "vscode";
import { registerCommands } from "./commands";
import { Ctx } from "./ctx";

export function activate(context: vscode.ExtensionContext): void {
  const ctx = new Ctx(context, performance.now());
  context.subscriptions.push(ctx);
  ctx.subscribe(...registerCommands(ctx));
  ctx.activated();
}
