// Past sessions and export: resume one (from the chat's history panel or a quick pick) from the
// history its backend keeps, and open the chat so far as Markdown or JSONL in a new editor.

import * as vscode from "vscode";
import type { HistorySession } from "../contract/protocol";
import { transcriptToMarkdown } from "../chat/transcript";
import type { Ctx } from "../ctx";

/** The shown session's past sessions, when its backend keeps them in files Tether reads. */
export function historyFiles(ctx: Ctx): Promise<HistorySession[]> {
  const history = ctx.entry(ctx.session.agent.name).backend.history;
  return history.kind === "files" ? history.list(ctx.workspace.agentCwd()) : Promise.resolve([]);
}

/** The past session `sessionId` replaces the chat; the next prompt resumes it. An agent that keeps
 * its own sessions replays it when loading it. */
export async function resumeSession(ctx: Ctx, sessionId: string): Promise<void> {
  const history = ctx.entry(ctx.session.agent.name).backend.history;
  const entries = history.kind === "files" ? await history.entries(ctx.workspace.agentCwd(), sessionId) : [];
  await ctx.session.resume(sessionId, entries);
}

export async function pickSessionToResume(ctx: Ctx): Promise<void> {
  const sessions = await ctx.session.history(() => historyFiles(ctx));
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
  await resumeSession(ctx, picked.id);
}

export async function exportTranscript(ctx: Ctx, format: "markdown" | "jsonl"): Promise<void> {
  const entries = ctx.feed.transcript;
  const content = format === "markdown" ? transcriptToMarkdown(entries) : entries.map((e) => JSON.stringify(e)).join("\n") + "\n";
  const doc = await vscode.workspace.openTextDocument({ language: format === "markdown" ? "markdown" : "jsonl", content });
  await vscode.window.showTextDocument(doc, { preview: false });
}
