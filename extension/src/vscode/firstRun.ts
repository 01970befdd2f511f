// The first run in VS Code: before an agent starts, its module's setup check (a missing program, no
// login) and the remedies offered as buttons — the program bundled with another extension, an
// install with progress, the login in a terminal, or an API key kept in SecretStorage.

import { spawn } from "node:child_process";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentEntry, SetupProblem } from "../backends/backend";
import type { TetherSettings } from "../settings";

export const USE_BUNDLED = "Use the Bundled One";
export const INSTALL = "Install It";
export const LOG_IN = "Log In in a Terminal";
export const ENTER_API_KEY = "Enter an API Key";

export class FirstRun {
  /** Agents whose check passed in this window: not asked again. */
  private readonly ready = new Set<string>();

  constructor(
    private readonly extension: vscode.ExtensionContext,
    private readonly log: (message: string) => void,
  ) {}

  /** Resolves when `entry` may start, true after a remedy; throws saying why not. */
  async ensure(entry: AgentEntry, settings: TetherSettings): Promise<boolean> {
    const setup = entry.backend.setup;
    if (!setup || this.ready.has(entry.name)) return false;
    // Where extensions are installed: the official extension sits beside this one.
    const extensionDirs = [path.dirname(this.extension.extensionPath)];
    const problem = await setup.check({ settings, extensionDirs, secrets: this.extension.secrets });
    if (problem) await this.remedy(entry, problem);
    this.ready.add(entry.name);
    return problem !== undefined;
  }

  private async remedy(entry: AgentEntry, problem: SetupProblem): Promise<void> {
    this.log(`first run: ${entry.displayName}: ${problem.message}`);
    if (problem.kind === "missing") {
      const offers = [...(problem.bundled ? [USE_BUNDLED] : []), ...(problem.install ? [INSTALL] : [])];
      const where = problem.bundled ? ` It is bundled with an installed extension: ${problem.bundled}.` : "";
      const choice = await vscode.window.showWarningMessage(`Tether: ${problem.message.replace(/\.?$/, ".")}${where}`, ...offers);
      if (choice === USE_BUNDLED && problem.bundled) {
        await vscode.workspace.getConfiguration("tether").update(problem.pathSetting, problem.bundled, vscode.ConfigurationTarget.Global);
        return;
      }
      if (choice === INSTALL && problem.install) {
        await install(entry.displayName, problem.install, this.log);
        return;
      }
      throw new Error(problem.message);
    }
    const choice = await vscode.window.showWarningMessage(`Tether: ${problem.message}`, LOG_IN, ENTER_API_KEY);
    if (choice === LOG_IN) {
      const terminal = vscode.window.createTerminal({ name: `${entry.displayName} login`, shellPath: problem.login.command, shellArgs: problem.login.args });
      terminal.show();
      throw new Error(`Log in to ${entry.displayName} in the terminal that opened, then send your message again.`);
    }
    if (choice === ENTER_API_KEY) {
      const key = await vscode.window.showInputBox({ title: `${entry.displayName} API key`, prompt: "Kept in VS Code's SecretStorage and given to the agent.", password: true, ignoreFocusOut: true });
      if (key?.trim()) {
        await this.extension.secrets.store(problem.apiKeySecret, key.trim());
        return;
      }
    }
    throw new Error(problem.message);
  }
}

/** Run the install with a progress notification showing its last line of output. */
function install(displayName: string, command: { command: string; args: string[] }, log: (message: string) => void): Promise<void> {
  return Promise.resolve(
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Installing ${displayName}`, cancellable: true }, (progress, token) =>
      new Promise<void>((resolve, reject) => {
        log(`first run: ${command.command} ${command.args.join(" ")}`);
        const child = spawn(command.command, command.args, { shell: process.platform === "win32" });
        token.onCancellationRequested(() => child.kill());
        const report = (chunk: Buffer): void => {
          const line = chunk.toString("utf8").trim().split("\n").pop();
          if (line) progress.report({ message: line.slice(0, 120) });
          log(chunk.toString("utf8").trimEnd());
        };
        child.stdout.on("data", report);
        child.stderr.on("data", report);
        child.on("error", (error) => reject(new Error(`${command.command} could not start: ${error.message}`)));
        child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${command.command} ${command.args.join(" ")} failed (exit ${code ?? "killed"}); see the Tether log.`))));
      }),
    ),
  );
}
