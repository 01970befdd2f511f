// A user message's actions from the chat: Rewind code (a preview, then the rewind on the
// workspace), Fork conversation from here (a new session with the conversation up to that
// message, the message itself put back in the composer), or both.

import * as vscode from "vscode";
import type { RewindOutcome } from "../generated/core";
import type { OpenSession } from "../chat/sessions";
import type { ChatView } from "../chat/views";
import type { Ctx } from "../ctx";

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `rewind` and `both` show the rewind's preview first; `fork` forks at once. */
export async function messageAction(ctx: Ctx, view: ChatView, open: OpenSession, messageId: string, action: "rewind" | "fork" | "both"): Promise<void> {
  if (action === "fork") return forkFrom(ctx, view, open, messageId);
  const fork = action === "both";
  try {
    const preview = await open.session.rewindPreview(messageId);
    view.page.post({ type: "rewindPreview", messageId, fork, preview });
  } catch (error) {
    view.page.post({ type: "rewindPreview", messageId, fork, error: `The rewind cannot be previewed: ${messageOf(error)}` });
  }
}

/** Rewind the files (the preview was seen), then fork when asked. */
export async function rewindConfirm(ctx: Ctx, view: ChatView, open: OpenSession, messageId: string, fork: boolean): Promise<void> {
  let outcome: RewindOutcome;
  try {
    outcome = await open.session.rewind(messageId);
  } catch (error) {
    view.page.post({ type: "rewindDone", messageId, ok: false, message: messageOf(error) });
    return;
  }
  view.page.post({ type: "rewindDone", messageId, ok: true, message: describe(outcome) });
  if (fork) await forkFrom(ctx, view, open, messageId);
}

function describe(outcome: RewindOutcome): string {
  const parts = [
    ...(outcome.restored.length ? [`restored ${outcome.restored.join(", ")}`] : []),
    ...(outcome.deleted.length ? [`deleted ${outcome.deleted.join(", ")}`] : []),
  ];
  return parts.length ? `Rewound: ${parts.join("; ")}.` : "Nothing to rewind: Tether changed no files from this message on.";
}

/** A new session in `view` from `open`'s conversation up to the user message `messageId`. */
export async function forkFrom(ctx: Ctx, view: ChatView, open: OpenSession, messageId: string): Promise<void> {
  const from = open.session;
  const forkAt = ctx.entry(from.agent.name).backend.forkAt;
  const entries = from.feed.transcript;
  const index = entries.findIndex((e) => e.type === "userMessage" && e.id === messageId);
  const message = entries[index];
  if (!forkAt || !message || message.type !== "userMessage") {
    void vscode.window.showInformationMessage(`Tether: ${from.agent.displayName} cannot fork the conversation at this message.`);
    return;
  }
  const conversation = from.conversationId;
  let resumeAt: string | undefined;
  try {
    resumeAt = conversation ? (await forkAt.point(ctx.workspace.agentCwd(), conversation, messageId)).resumeAt : undefined;
  } catch (error) {
    void vscode.window.showWarningMessage(`Tether: the conversation was not forked: ${messageOf(error)}.`);
    return;
  }
  // Nothing before the message: the fork is a new conversation.
  const before = resumeAt ? entries.slice(0, index) : [];
  ctx.sessions.openFork(view, open, (session) => session.startFork(resumeAt ? conversation : undefined, resumeAt, before));
  view.page.post({ type: "prefill", text: message.text });
}
