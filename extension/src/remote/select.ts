// Picks the remote executor for a remote workspace folder: Tether Remote when it answers (installed
// from Tether's own VSIX when missing: the remote needs no internet), else terminal shell
// integration, else the hidden-terminal file protocol. `tether.remoteExecutor` can force a tier.

import * as vscode from "vscode";
import type { ExecutorTier, RemoteExecutor } from "./executor";
import { HelperExecutor, pairHelper, refusedError } from "./helperExecutor";
import { HELPER_ID, HELPER_PROTOCOL, newHelperSecret } from "./protocol";
import { FileProtocolExecutor, ShellIntegrationExecutor } from "./terminalExecutors";

/** The helper's VSIX inside Tether's own package. */
export const HELPER_VSIX = "dist/tether-remote.vsix";
/** An installed helper activates in ~0.15 s (measured); a slow remote gets more. */
const HELPER_INSTALL_WAIT_MS = 20_000;
const HELLO_TIMEOUT_MS = 5000;

export type ExecutorPreference = "auto" | ExecutorTier;

/** This window's pairing secret (protocol.ts): made once per activation, kept in memory only. */
const windowSecret = newHelperSecret();

const execute = (command: string, ...args: unknown[]) => vscode.commands.executeCommand(command, ...args);

const hello = () => pairHelper(execute, windowSecret, HELLO_TIMEOUT_MS);

/** Tether Remote, paired with this window, installed or updated from the bundled VSIX when it does
 * not answer as expected. Undefined when it cannot be had; rejects when it answers but refuses
 * (an untrusted workspace, or paired with something else), with the reason for the user. */
export async function connectHelper(extensionUri: vscode.Uri, log: (message: string) => void): Promise<HelperExecutor | undefined> {
  let answer = await hello();
  if (answer.kind === "paired") return new HelperExecutor(execute, answer.hello, windowSecret);
  if (answer.kind === "refused") throw refusedError(answer);
  const vsix = vscode.Uri.joinPath(extensionUri, HELPER_VSIX);
  log(answer.kind === "outdated" ? `Tether Remote speaks protocol ${answer.protocol}, not ${HELPER_PROTOCOL}: updating it` : "installing Tether Remote on the remote");
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
    if (answer.kind === "paired") {
      log(`Tether Remote ${answer.hello.version} installed and answering after ${Date.now() - started} ms`);
      return new HelperExecutor(execute, answer.hello, windowSecret);
    }
    if (answer.kind === "refused") throw refusedError(answer);
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
