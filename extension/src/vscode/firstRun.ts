// The first run in VS Code: before an agent starts, its module's setup check (a missing program, no
// login) and the remedies offered as buttons — the program bundled with another extension, an
// install with progress, the login in a terminal, or an API key kept in SecretStorage.

import { spawn } from "node:child_process";
import * as path from "node:path";
import * as vscode from "vscode";
import { NotLoggedInError, type AgentEntry, type SetupProblem } from "../backends/backend";
import type { TetherSettings } from "../settings";

export const USE_BUNDLED = "Use the Bundled One";
export const INSTALL = "Install It";
export const LOG_IN = "Log In in a Terminal";
export const ENTER_API_KEY = "Enter an API Key";

/** The logged-out remedies, as the chat's login buttons (`authenticate` methods). */
const REMEDY_LOGIN = "tether.firstRun.login";
const REMEDY_API_KEY = "tether.firstRun.apiKey";

/** A remedy may lead to the next problem (the bundled program, then its login): checked again. */
const MAX_CHECKS = 3;

type LoggedOut = Extract<SetupProblem, { kind: "loggedOut" }>;

export class FirstRun {
  /** Agents whose check passed in this window: not asked again. */
  private readonly ready = new Set<string>();
  /** The login problem each agent last had, for the chat's remedy buttons. */
  private readonly loggedOut = new Map<string, { entry: AgentEntry; problem: LoggedOut }>();

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
    let remedied = false;
    for (let checks = 0; ; checks++) {
      const problem = await setup.check({ settings, extensionDirs, secrets: this.extension.secrets });
      if (!problem) break;
      this.log(`first run: ${entry.displayName}: ${problem.message}`);
      if (problem.kind === "loggedOut") {
        // Told in the chat, with the remedies as buttons (`remedy`) and Retry.
        this.loggedOut.set(entry.name, { entry, problem });
        const login = [problem.login.command, ...problem.login.args].map((a) => path.basename(a)).join(" ");
        throw new NotLoggedInError(problem.message, `Log in in a terminal (${login}), or enter an API key.`, [
          { id: REMEDY_LOGIN, name: LOG_IN, description: "Opens a terminal running the login" },
          { id: REMEDY_API_KEY, name: ENTER_API_KEY, description: "Kept in VS Code's SecretStorage and given to the agent" },
        ]);
      }
      if (checks + 1 >= MAX_CHECKS) throw new Error(problem.message);
      settings = await this.remedyMissing(entry, problem, settings);
      remedied = true;
    }
    this.ready.add(entry.name);
    this.loggedOut.delete(entry.name);
    return remedied;
  }

  /** A login remedy the chat's button names for `agent`: whether it is done (the terminal opened,
   * the key stored); undefined when `methodId` is none of them (an agent's own login method). */
  async remedy(agent: string, methodId: string): Promise<{ done: boolean } | undefined> {
    if (methodId !== REMEDY_LOGIN && methodId !== REMEDY_API_KEY) return undefined;
    const found = this.loggedOut.get(agent);
    if (!found) return { done: false };
    const { entry, problem } = found;
    if (methodId === REMEDY_LOGIN) {
      const terminal = vscode.window.createTerminal({ name: `${entry.displayName} login`, shellPath: problem.login.command, shellArgs: problem.login.args });
      terminal.show();
      return { done: true };
    }
    const key = await vscode.window.showInputBox({ title: `${entry.displayName} API key`, prompt: "Kept in VS Code's SecretStorage and given to the agent.", password: true, ignoreFocusOut: true });
    if (!key?.trim()) return { done: false };
    await this.extension.secrets.store(problem.apiKeySecret, key.trim());
    this.log(`first run: ${entry.displayName}: an API key was stored`);
    return { done: true };
  }

  /** The program offered and taken; the settings as the remedy left them (the path it wrote). */
  private async remedyMissing(entry: AgentEntry, problem: Extract<SetupProblem, { kind: "missing" }>, settings: TetherSettings): Promise<TetherSettings> {
    const offers = [...(problem.bundled ? [USE_BUNDLED] : []), ...(problem.install ? [INSTALL] : [])];
    const where = problem.bundled ? ` It is bundled with an installed extension: ${problem.bundled}.` : "";
    const choice = await vscode.window.showWarningMessage(`Tether: ${problem.message.replace(/\.?$/, ".")}${where}`, ...offers);
    if (choice === USE_BUNDLED && problem.bundled) {
      await vscode.workspace.getConfiguration("tether").update(problem.pathSetting, problem.bundled, vscode.ConfigurationTarget.Global);
      return { ...settings, [problem.pathSetting]: problem.bundled };
    }
    if (choice === INSTALL && problem.install) {
      await install(entry.displayName, problem.install, this.log);
      return settings;
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
