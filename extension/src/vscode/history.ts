// Past sessions and export: the history list (with the titles the user gave), a past session
// opened again (shown where it is open already, else in the view), renamed (Tether's own index)
// or deleted after asking (the file, where the backend keeps it in files; else by the agent, where it
// offers deletion: ACP `session/delete`, a gateway's `sessions.delete`), and the chat so far as
// Markdown or JSONL in a new editor.

import * as vscode from "vscode";
import type { HistoryActions, HistorySession } from "../contract/protocol";
import { transcriptToMarkdown } from "../chat/transcript";
import type { OpenSession } from "../chat/sessions";
import type { ChatView } from "../chat/views";
import type { Ctx } from "../ctx";

function historyOf(ctx: Ctx, open: OpenSession) {
  return ctx.entry(open.session.agent.name).backend.history;
}

/** The past sessions of the agent `open` runs, titled as the user renamed them. */
export async function historyFor(ctx: Ctx, open: OpenSession): Promise<{ sessions: HistorySession[]; actions: HistoryActions }> {
  const history = historyOf(ctx, open);
  const listed = await open.session.history(() => (history.kind === "files" ? history.list(ctx.workspace.agentCwd()) : Promise.resolve([])));
  const titles = ctx.surfaces.index.titles();
  return {
    sessions: listed.map((s) => (titles[s.id] ? { ...s, title: titles[s.id]! } : s)),
    // An agent that keeps its own list is started by now: its offers are known.
    actions: { rename: true, delete: history.kind === "files" || open.session.canDelete },
  };
}

/** The past session `sessionId`: shown where it is open already; else in `view`, in place of an
 * empty session or as a new one. The next prompt resumes it. */
export async function openFromHistory(ctx: Ctx, view: ChatView, sessionId: string): Promise<void> {
  const already = ctx.sessions.findConversation(sessionId);
  if (already) {
    ctx.sessions.show(view, already);
    return;
  }
  const current = view.shown as OpenSession | undefined;
  const open = current?.empty ? current : ctx.sessions.newSession(view);
  const history = historyOf(ctx, open);
  const entries = history.kind === "files" ? await history.entries(ctx.workspace.agentCwd(), sessionId) : [];
  const title = ctx.surfaces.index.titles()[sessionId];
  if (title) open.userTitle = title;
  await open.session.resume(sessionId, entries);
}

export async function renameHistorySession(ctx: Ctx, sessionId: string): Promise<void> {
  const current = ctx.surfaces.index.titles()[sessionId] ?? "";
  const title = await vscode.window.showInputBox({ title: "Tether: rename the session", value: current, prompt: "An empty name returns to the agent's title." });
  if (title === undefined) return;
  await ctx.surfaces.index.rename(sessionId, title);
  const shown = ctx.sessions.findConversation(sessionId);
  if (shown) {
    shown.userTitle = title.trim() || undefined;
    ctx.surfaces.changed();
  }
}

/** Delete a past session, after asking; false when nothing was deleted. */
export async function deleteHistorySession(ctx: Ctx, open: OpenSession, sessionId: string): Promise<boolean> {
  const history = historyOf(ctx, open);
  if (history.kind !== "files" && !open.session.canDelete) return false;
  if (ctx.sessions.findConversation(sessionId)) {
    void vscode.window.showInformationMessage("Tether: the session is open; close it before deleting it.");
    return false;
  }
  const kept = history.kind === "files" ? "Its transcript is removed for good." : "The agent removes it for good.";
  const choice = await vscode.window.showWarningMessage(`Delete this session of ${open.session.agent.displayName}? ${kept}`, { modal: true }, "Delete");
  if (choice !== "Delete") return false;
  if (history.kind === "files") await history.remove(ctx.workspace.agentCwd(), sessionId);
  else {
    try {
      await open.session.deleteSession(sessionId);
    } catch (error) {
      void vscode.window.showErrorMessage(`Tether: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }
  await ctx.surfaces.index.forget(sessionId);
  return true;
}

export async function pickSessionToResume(ctx: Ctx): Promise<void> {
  const { sessions } = await historyFor(ctx, ctx.open);
  if (sessions.length === 0) {
    void vscode.window.showInformationMessage("Tether: no earlier sessions for this workspace.");
    return;
  }
  const picked = await vscode.window.showQuickPick(
    sessions.map((s) => ({ label: s.title, description: new Date(s.updatedAt).toLocaleString(), detail: `${s.messageCount} messages`, id: s.id })),
    { title: "Tether: resume a session" },
  );
  if (!picked) return;
  await ctx.view.reveal();
  await openFromHistory(ctx, ctx.surfaces.sidebar, picked.id);
}

export async function exportTranscript(ctx: Ctx, format: "markdown" | "jsonl"): Promise<void> {
  const entries = ctx.feed.transcript;
  const content = format === "markdown" ? transcriptToMarkdown(entries) : entries.map((e) => JSON.stringify(e)).join("\n") + "\n";
  const doc = await vscode.workspace.openTextDocument({ language: format === "markdown" ? "markdown" : "jsonl", content });
  await vscode.window.showTextDocument(doc, { preview: false });
}
