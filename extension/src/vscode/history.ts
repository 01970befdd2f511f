// Past sessions and export: resume one from the CLI's transcripts (from the chat's history panel or
// a quick pick), and open the chat so far as Markdown or JSONL in a new editor.

import { promises as fsp } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { listSessions, transcriptToEntries } from "../chat/history";
import { transcriptToMarkdown } from "../chat/transcript";
import type { Ctx } from "../ctx";

/** The past session `sessionId` replaces the chat; the next prompt resumes it. */
export async function resumeSession(ctx: Ctx, sessionId: string): Promise<void> {
  const file = path.join(ctx.workspace.historyDir(), `${sessionId}.jsonl`);
  // Claude Code's transcript, read here; an ACP agent replays its own session when loading it.
  const text = await fsp.readFile(file, "utf8").catch(() => "");
  await ctx.session.resume(sessionId, transcriptToEntries(text));
}

export async function pickSessionToResume(ctx: Ctx): Promise<void> {
  const sessions = await ctx.session.history(() => listSessions(ctx.workspace.historyDir()));
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
