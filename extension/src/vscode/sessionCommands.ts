// The commands on open sessions: a new one in the sidebar or in an editor tab, the focused one
// opened in a tab, renamed, or closed.

import * as vscode from "vscode";
import type { OpenSession } from "../chat/sessions";
import type { Ctx } from "../ctx";

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
  await ctx.view.reveal();
  ctx.sessions.newSession(ctx.surfaces.sidebar);
}

export function newSessionInEditor(ctx: Ctx): void {
  ctx.surfaces.panels.open(ctx.sessions.create(ctx.session.agent.name, ctx.open));
}

export function openInEditor(ctx: Ctx): void {
  ctx.surfaces.panels.open(ctx.open);
}

export async function closeSession(ctx: Ctx): Promise<void> {
  await ctx.surfaces.close(ctx.open);
}
