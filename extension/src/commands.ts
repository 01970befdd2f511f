// The commands, one small function each over the extension's context, registered from this table.

import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { BACKENDS } from "./backends";
import type { BackendCommand } from "./backends/backend";
import { PERMISSION_MODE_INFO } from "./contract/modes";
import type { Ctx } from "./ctx";
import type { DiagnosticsTier, ExecTimesArgs } from "./vscode/diagnostics";
import { exportTranscript, pickSessionToResume } from "./vscode/history";
import { exportAuditLog, openAuditLog } from "./vscode/auditCommands";
import { showRulesView } from "./vscode/rulesView";
import { chooseSessionFolder, closeSession, newSessionInEditor, newSessionInSidebar, openInEditor, renameOpenSession } from "./vscode/sessionCommands";

type Command = (ctx: Ctx, ...args: never[]) => unknown;

async function switchMode(ctx: Ctx): Promise<void> {
  const current = ctx.feed.state.mode;
  const picked = await vscode.window.showQuickPick(
    PERMISSION_MODE_INFO.map((m) => ({ label: m.label, description: m.id === current ? "current" : "", detail: m.description, id: m.id })),
    { title: "Tether: permission mode" },
  );
  if (picked) ctx.session.setMode(picked.id);
}

async function addFile(ctx: Ctx, uri?: vscode.Uri): Promise<void> {
  const target = uri ?? vscode.window.activeTextEditor?.document.uri;
  if (!target) return;
  await ctx.view.reveal();
  ctx.view.post({ type: "addAttachment", attachment: { kind: "file", path: ctx.workspace.displayPath(target) } });
}

async function addSelection(ctx: Ctx): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) return;
  const { start, end } = editor.selection;
  await ctx.view.reveal();
  ctx.view.post({
    type: "addAttachment",
    attachment: {
      kind: "selection",
      path: ctx.workspace.displayPath(editor.document.uri),
      range: { startLine: start.line + 1, endLine: end.line + 1 },
      text: editor.document.getText(editor.selection),
    },
  });
}

/** The selection as an @-mention of its lines (`@src/app.js#L10-20`), put in the composer: the
 * lines are read from the workspace when the message is sent. */
async function mentionSelection(ctx: Ctx): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return;
  const { start, end } = editor.selection;
  // A selection ending at a line's first column does not take that line.
  const last = end.character === 0 && end.line > start.line ? end.line : end.line + 1;
  const lines = last > start.line + 1 ? `#L${start.line + 1}-${last}` : `#L${start.line + 1}`;
  await ctx.view.reveal();
  ctx.view.post({ type: "prefill", text: `@${ctx.workspace.displayPath(editor.document.uri)}${lines} ` });
}

/** Where the agent runs is VS Code's own `remote.extensionKind`; it takes effect after a reload. */
async function moveAgent(ctx: Ctx, kind: "ui" | "workspace"): Promise<void> {
  const id = ctx.extension.extension.id;
  const config = vscode.workspace.getConfiguration("remote");
  const current = config.inspect<Record<string, string[]>>("extensionKind")?.globalValue ?? {};
  await config.update("extensionKind", { ...current, [id]: [kind] }, vscode.ConfigurationTarget.Global);
  const where = kind === "ui" ? "on this machine (UI side)" : "on the remote (workspace side)";
  const choice = await vscode.window.showInformationMessage(`Tether will run ${where} after a reload.`, "Reload Window");
  if (choice === "Reload Window") await vscode.commands.executeCommand("workbench.action.reloadWindow");
}

/** The rules view for the session in front; a file's button opens that settings file. */
async function permissionRules(ctx: Ctx): Promise<void> {
  const session = await ctx.session.rulesSession();
  await showRulesView(session, (scope) => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const uri =
      scope === "userSettings"
        ? vscode.Uri.file(path.join(os.homedir(), ".claude", "settings.json"))
        : folder && scope !== "session"
          ? vscode.Uri.joinPath(folder.uri, scope === "projectSettings" ? ".claude/settings.json" : ".claude/settings.local.json")
          : undefined;
    return uri ? vscode.window.showTextDocument(uri, { preview: false }) : undefined;
  });
}

async function showRemoteExecutor(ctx: Ctx): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder || folder.uri.scheme === "file") {
    void vscode.window.showInformationMessage("Tether: the workspace is on this machine; commands run here directly.");
    return;
  }
  const host = await ctx.workspace.hostFor(folder.uri);
  void vscode.window.showInformationMessage(`Tether runs commands on ${host.root} through ${ctx.workspace.executor?.description ?? "nothing"}.`);
}

export const COMMANDS: Record<string, Command> = {
  "tether.openChat": (ctx) => ctx.view.reveal(),
  "tether.newSession": newSessionInSidebar,
  "tether.newSessionInEditor": newSessionInEditor,
  "tether.openInEditor": openInEditor,
  "tether.renameSession": (ctx) => renameOpenSession(ctx, ctx.open),
  "tether.closeSession": closeSession,
  // For the e2e test and benchmarks: the open sessions as the strip shows them.
  "tether.openSessions": (ctx) => ctx.sessions.list().map((o) => ({ ...o.info(), agent: o.session.agent.name, sessionId: o.session.feed.state.sessionId })),
  "tether.resumeSession": pickSessionToResume,
  "tether.chooseFolder": chooseSessionFolder,
  "tether.switchMode": switchMode,
  "tether.stop": (ctx) => ctx.session.interrupt(),
  "tether.addFileToContext": addFile,
  "tether.addSelectionToContext": addSelection,
  "tether.mentionSelection": mentionSelection,
  "tether.runLocally": (ctx) => moveAgent(ctx, "ui"),
  "tether.runOnRemote": (ctx) => moveAgent(ctx, "workspace"),
  "tether.showLogs": (ctx) => ctx.log.show(),
  "tether.exportMarkdown": (ctx) => exportTranscript(ctx, "markdown"),
  "tether.exportJsonl": (ctx) => exportTranscript(ctx, "jsonl"),
  "tether.acceptEdit": (ctx, uri?: vscode.Uri) => ctx.reviews.accept(uri),
  "tether.rejectEdit": (ctx, uri?: vscode.Uri) => ctx.reviews.reject(uri, "The user rejected the change."),
  // For the benchmark and the e2e test: how long activation took, measured inside the host.
  "tether.reportActivation": (ctx) => ({ activationMs: ctx.activationMs(), wasmLoaded: ctx.wasmLoaded }),
  "tether.showRemoteExecutor": showRemoteExecutor,
  "tether.permissionRules": permissionRules,
  "tether.openAuditLog": (ctx) => openAuditLog(ctx.audit, ctx.session.auditKey),
  "tether.exportAuditLog": (ctx) => exportAuditLog(ctx.audit, ctx.session.auditKey),
  // For the e2e test: the session in front's audit records.
  "tether.auditRecords": (ctx) => ctx.audit.read(ctx.session.auditKey),
  // For benchmarks and tests, timed inside the extension host: a command through one tier of the
  // remote executor (or "direct": child_process here), a VS Code command, a Grep through the core,
  // VS Code's rg.
  "tether.diagnostics.execTimes": (ctx, args: ExecTimesArgs) => ctx.diagnostics.execTimes(args),
  "tether.diagnostics.commandTimes": (ctx, args: { command: string; argument?: unknown; runs: number }) => ctx.diagnostics.commandTimes(args),
  "tether.diagnostics.grepTimes": (ctx, args: { tier: DiagnosticsTier; pattern: string; runs: number }) => ctx.diagnostics.grepTimes(args),
  "tether.diagnostics.ripgrepTimes": (ctx, args: { args: string[]; runs: number }) => ctx.diagnostics.ripgrepTimes(args),
  "tether.diagnostics.editTimes": (ctx, args: { file: string; from: string; to: string; runs: number; first?: boolean }) => ctx.diagnostics.editTimes(args),
};

/** Registers every command; a failure is logged and shown, never thrown at VS Code. */
export function registerCommands(ctx: Ctx): vscode.Disposable[] {
  const backendCommands = BACKENDS.flatMap((backend) => backend.commands ?? []).map((command): [string, Command] => [command.id, (c) => runBackendCommand(c, command)]);
  return [...Object.entries(COMMANDS), ...backendCommands].map(([id, run]) =>
    vscode.commands.registerCommand(id, async (...args: never[]) => {
      try {
        return await run(ctx, ...args);
      } catch (error) {
        ctx.fail(id, error);
        return undefined;
      }
    }),
  );
}

/** A backend's own command, through VS Code's secrets, input box and messages. */
function runBackendCommand(ctx: Ctx, command: BackendCommand): Promise<void> | void {
  return command.run({
    secrets: ctx.extension.secrets,
    askSecret: async (title, prompt) => vscode.window.showInputBox({ title, prompt, password: true, ignoreFocusOut: true }),
    inform: (message) => void vscode.window.showInformationMessage(message),
    sessionCommand: (name, args) => ctx.session.agentCommand(name, args),
  });
}
