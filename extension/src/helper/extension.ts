// Tether Remote: the workspace-side helper. It runs on the machine with the files (the Remote-SSH
// server) and gives the main Tether extension, which runs on the laptop, commands, ripgrep and
// batched stats there. It ships inside the Tether VSIX and Tether installs it; it has no UI and
// needs no internet.

import { existsSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { findOnPath } from "../node/nodeHost";
import { HelperHandlers } from "./handlers";

let handlers: HelperHandlers | undefined;

export function activate(context: vscode.ExtensionContext): void {
  handlers = new HelperHandlers({
    version: String(context.extension.packageJSON.version),
    ripgrepPath: bundledRipgrep(),
    isTrusted: () => vscode.workspace.isTrusted,
  });
  // All or nothing: an id something else registered first (it would receive Tether's calls and
  // secret) leaves the helper unregistered, and Tether then reports that the helper does not answer.
  const registered: vscode.Disposable[] = [];
  try {
    for (const [id, run] of handlers.commands()) registered.push(vscode.commands.registerCommand(id, run));
  } catch (error) {
    for (const d of registered) d.dispose();
    throw new Error(`Tether Remote could not register its commands: ${error instanceof Error ? error.message : String(error)}`);
  }
  context.subscriptions.push(...registered);
}

export function deactivate(): void {
  handlers?.dispose();
  handlers = undefined;
}

/** The VS Code server ships ripgrep (a server without internet may have no other); else rg on PATH. */
function bundledRipgrep(): string | null {
  const exe = process.platform === "win32" ? "rg.exe" : "rg";
  const candidates = [
    path.join(vscode.env.appRoot, "node_modules/@vscode/ripgrep/bin", exe),
    path.join(vscode.env.appRoot, "node_modules.asar.unpacked/@vscode/ripgrep/bin", exe),
  ];
  return candidates.find((c) => existsSync(c)) ?? findOnPath("rg") ?? null;
}
