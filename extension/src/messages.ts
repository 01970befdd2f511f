// What the chat view asks for, one small function per message type.

import * as vscode from "vscode";
import type { WebviewToExtension } from "./contract/protocol";
import type { Ctx } from "./ctx";
import { messageAction, rewindConfirm } from "./vscode/checkpoints";
import { historyFiles, resumeSession } from "./vscode/history";

type Handlers = { [T in WebviewToExtension["type"]]: (ctx: Ctx, message: Extract<WebviewToExtension, { type: T }>) => unknown };

const HANDLERS: Handlers = {
  ready: (ctx) => ctx.viewReady(),
  sendPrompt: (ctx, m) => ctx.session.send(m.text, m.attachments ?? []),
  stop: (ctx) => ctx.session.interrupt(),
  newSession: (ctx) => ctx.session.newSession(),
  resume: (ctx, m) => resumeSession(ctx, m.sessionId),
  forkSession: (ctx, m) => ctx.session.forkSession(m.sessionId),
  closeSession: (ctx) => ctx.session.closeSession(),
  requestHistory: async (ctx) =>
    ctx.view.post({ type: "history", sessions: await ctx.session.history(() => historyFiles(ctx)) }),
  setMode: (ctx, m) => ctx.session.setMode(m.mode),
  setModel: (ctx, m) => ctx.session.setModel(m.model),
  setAgent: async (ctx, m) => {
    ctx.sessions.switchTo(m.agent);
    await vscode.workspace.getConfiguration("tether").update("agent", m.agent, vscode.ConfigurationTarget.Global);
  },
  setAgentOption: (ctx, m) => ctx.session.setAgentOption(m.id, m.value),
  authenticate: (ctx, m) => ctx.session.authenticate(m.methodId),
  permission: (ctx, m) => ctx.broker.answer(m.requestId, m.decision, m.reason),
  openFile: (ctx, m) => ctx.workspace.openFile(m.path, m.line),
  openDiff: (ctx, m) => ctx.broker.openReview(m.requestId),
  suggestFiles: async (ctx, m) =>
    ctx.view.post({ type: "fileSuggestions", requestId: m.requestId, items: await ctx.workspace.suggestFiles(m.query) }),
  retry: (ctx) => ctx.session.retry(),
  canvasAction: (ctx, m) => backendCommand(ctx, "the canvas action", "canvasAction", m.action),
  canvasRefresh: (ctx) => backendCommand(ctx, "the canvas refresh", "canvasRefresh"),
  // VS Code asks the user before it opens a link to a domain they have not trusted.
  openExternal: (_ctx, m) => /^https?:\/\//i.test(m.url) && vscode.env.openExternal(vscode.Uri.parse(m.url, true)),
  loadOlder: (ctx) => backendCommand(ctx, "the request for earlier messages", "historyOlder"),
  messageAction: (ctx, m) => messageAction(ctx, m.messageId, m.action),
  rewindConfirm: (ctx, m) => rewindConfirm(ctx, m.messageId, m.fork),
};

/** A command of the running session's backend (a gateway's canvas or history), told when it cannot go. */
function backendCommand(ctx: Ctx, what: string, name: string, args?: unknown): void {
  let done = false;
  let why = "no agent session that takes it is running";
  try {
    done = ctx.session.agentCommand(name, args);
  } catch (error) {
    why = error instanceof Error ? error.message : String(error);
  }
  if (!done) void vscode.window.showInformationMessage(`Tether: ${what} was not sent: ${why}.`);
}

export async function handleMessage(ctx: Ctx, message: WebviewToExtension): Promise<void> {
  const handler = HANDLERS[message.type] as ((ctx: Ctx, message: WebviewToExtension) => unknown) | undefined;
  await handler?.(ctx, message);
}
