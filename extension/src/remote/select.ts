// Picks the remote executor for a remote workspace folder: Tether Remote when it answers (installed
// from Tether's own VSIX when missing: the remote needs no internet), else terminal shell
// integration, else the hidden-terminal file protocol. `tether.remoteExecutor` can force a tier.

import * as vscode from "vscode";
import type { ExecutorTier, RemoteExecutor } from "./executor";
import { HelperExecutor } from "./helperExecutor";
import { HELPER_ID, HELPER_PROTOCOL, HelperCommand, type HelperHello } from "./protocol";
import { FileProtocolExecutor, ShellIntegrationExecutor } from "./terminalExecutors";

/** The helper's VSIX inside Tether's own package. */
export const HELPER_VSIX = "dist/tether-remote.vsix";
/** An installed helper activates in ~0.15 s (measured); a slow remote gets more. */
const HELPER_INSTALL_WAIT_MS = 20_000;
const HELLO_TIMEOUT_MS = 5000;

export type ExecutorPreference = "auto" | ExecutorTier;

function withTimeout<T>(work: Thenable<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    Promise.resolve(work).then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

const execute = (command: string, ...args: unknown[]) => vscode.commands.executeCommand(command, ...args);

async function hello(): Promise<HelperHello | undefined> {
  try {
    const answer = await withTimeout(vscode.commands.executeCommand<HelperHello>(HelperCommand.hello), HELLO_TIMEOUT_MS);
    return answer && typeof answer.protocol === "number" ? answer : undefined;
  } catch {
    return undefined; // "command not found": the helper is not installed (or disabled)
  }
}

/** Tether Remote, installed or updated from the bundled VSIX when it does not answer as expected. */
export async function connectHelper(extensionUri: vscode.Uri, log: (message: string) => void): Promise<HelperExecutor | undefined> {
  let answer = await hello();
  if (answer?.protocol === HELPER_PROTOCOL) return new HelperExecutor(execute, answer);
  const vsix = vscode.Uri.joinPath(extensionUri, HELPER_VSIX);
  log(answer ? `Tether Remote speaks protocol ${answer.protocol}, not ${HELPER_PROTOCOL}: updating it` : "installing Tether Remote on the remote");
  const started = Date.now();
  try {
    await vscode.commands.executeCommand("workbench.extensions.installExtension", vsix);
  } catch (error) {
    log(`could not install Tether Remote (${HELPER_ID}) from ${vsix.toString()}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
  // It activates without a reload; wait for its commands to appear.
  const deadline = started + HELPER_INSTALL_WAIT_MS;
  while (Date.now() < deadline) {
    answer = await hello();
    if (answer?.protocol === HELPER_PROTOCOL) {
      log(`Tether Remote ${answer.version} installed and answering after ${Date.now() - started} ms`);
      return new HelperExecutor(execute, answer);
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, 250);
      const listener = vscode.extensions.onDidChange(finish);
      function finish() {
        clearTimeout(timer);
        listener.dispose();
        resolve();
      }
    });
  }
  log(`Tether Remote was installed but did not answer within ${HELPER_INSTALL_WAIT_MS} ms`);
  return undefined;
}

/** The best executor available for `folder` (a non-file workspace folder), or the one forced by
 * `preference`. Rejects with a clear message when none works. */
export async function selectExecutor(
  folder: vscode.Uri,
  extensionUri: vscode.Uri,
  preference: ExecutorPreference,
  log: (message: string) => void,
): Promise<RemoteExecutor> {
  const tried: string[] = [];
  if (preference === "auto" || preference === "helper") {
    const helper = await connectHelper(extensionUri, log);
    if (helper) return helper;
    tried.push("Tether Remote did not answer");
  }
  if (preference === "auto" || preference === "shellIntegration") {
    const shell = await ShellIntegrationExecutor.connect(folder);
    if (shell) return shell;
    tried.push("the remote terminal has no shell integration");
  }
  if (preference === "auto" || preference === "terminal") return new FileProtocolExecutor(folder);
  throw new Error(`the remote executor "${preference}" is not available (${tried.join("; ")}); set tether.remoteExecutor to "auto"`);
}
