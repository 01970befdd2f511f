// The commands on open sessions: a new one in the sidebar or in an editor tab, the focused one
// opened in a tab, renamed, or closed.

import * as vscode from "vscode";
import { needsFolderPick, type FolderInfo } from "../chat/folders";
import type { OpenSession } from "../chat/sessions";
import type { Ctx } from "../ctx";
import { configuredFolder } from "./workspace";

/** Ask for a new name for `open` (an empty one returns to the agent's title or the first prompt). */
export async function renameOpenSession(ctx: Ctx, open: OpenSession): Promise<void> {
  const title = await vscode.window.showInputBox({ title: "Tether: rename the session", value: open.title, prompt: "An empty name returns to the agent's title." });
  if (title === undefined) return;
  open.userTitle = title.trim() || undefined;
  const sessionId = open.session.feed.state.sessionId;
  if (sessionId) await ctx.surfaces.index.rename(sessionId, title);
  ctx.surfaces.changed();
}

export async function newSessionInSidebar(ctx: Ctx): Promise<void> {
  const folder = await pickSessionFolder();
  if (folder === null) return;
  await ctx.view.reveal();
  const open = ctx.sessions.newSession(ctx.surfaces.sidebar);
  if (folder) open.session.folder = folder;
}

export async function newSessionInEditor(ctx: Ctx): Promise<void> {
  const folder = await pickSessionFolder();
  if (folder === null) return;
  const open = ctx.sessions.create(ctx.session.agent.name, ctx.open);
  if (folder) open.session.folder = folder;
  ctx.surfaces.panels.open(open);
}

/** A new session's folder: asked when the workspace has several and `tether.folder` names none.
 * Undefined: the default one; null: the user cancelled. */
export async function pickSessionFolder(): Promise<string | undefined | null> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (!needsFolderPick(folders.map(folderInfo), configuredFolder())) return undefined;
  const picked = await vscode.window.showQuickPick(
    folders.map((f) => ({ label: f.name, description: f.uri.scheme === "file" ? f.uri.fsPath : f.uri.path })),
    { title: "Tether: the new session's folder", placeHolder: "The session works in this folder; the others are additional directories." },
  );
  return picked ? picked.label : null;
}

/** `tether.chooseFolder`: the folder new sessions work in, kept in `tether.folder` for this workspace. */
export async function chooseSessionFolder(): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length < 2) {
    void vscode.window.showInformationMessage("Tether: this workspace has one folder; sessions work in it.");
    return;
  }
  const current = configuredFolder() || folders[0]!.name;
  const picked = await vscode.window.showQuickPick(
    folders.map((f) => ({ label: f.name, description: f.name === current ? "current" : f.uri.scheme === "file" ? f.uri.fsPath : f.uri.path })),
    { title: "Tether: the folder new sessions work in" },
  );
  if (!picked) return;
  await vscode.workspace.getConfiguration("tether").update("folder", picked.label, vscode.ConfigurationTarget.Workspace);
  void vscode.window.showInformationMessage(`Tether: new sessions work in ${picked.label}; the other folders are additional directories.`);
}

function folderInfo(folder: vscode.WorkspaceFolder): FolderInfo {
  return { name: folder.name, scheme: folder.uri.scheme, authority: folder.uri.authority };
}

export function openInEditor(ctx: Ctx): void {
  ctx.surfaces.panels.open(ctx.open);
}

export async function closeSession(ctx: Ctx): Promise<void> {
  await ctx.surfaces.close(ctx.open);
}
