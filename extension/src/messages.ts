// What a chat view asks for, one small function per message type. Each message acts on the open
// session of the view it came from.

import * as vscode from "vscode";
import type { WebviewToExtension } from "./contract/protocol";
import type { Ctx } from "./ctx";
import type { OpenSession } from "./chat/sessions";
import type { ChatView } from "./chat/views";
import { deleteHistorySession, historyFor, openFromHistory, renameHistorySession } from "./vscode/history";
import { pickSessionFolder, renameOpenSession } from "./vscode/sessionCommands";
import { messageAction, rewindConfirm } from "./vscode/checkpoints";

/** Where a message came from: its view and the open session the view shows. */
interface From {
  view: ChatView;
  open: OpenSession;
}

type Handlers = { [T in WebviewToExtension["type"]]: (ctx: Ctx, message: Extract<WebviewToExtension, { type: T }>, from: From) => unknown };

const HANDLERS: Handlers = {
  ready: () => undefined,
  sendPrompt: (_ctx, m, { open }) => open.session.send(m.text, m.attachments ?? []),
  stop: (_ctx, _m, { open }) => open.session.interrupt(),
  newSession: async (ctx, m, { view }) => {
    const folder = await pickSessionFolder();
    if (folder === null) return;
    const open = m.where === "editor" ? ctx.sessions.create(view.shown ? (view.shown as OpenSession).session.agent.name : ctx.settings.agent) : ctx.sessions.newSession(view);
    if (folder) open.session.folder = folder;
    if (m.where === "editor") ctx.surfaces.panels.open(open);
    else open.session.warm();
  },
  resume: (ctx, m, { view }) => openFromHistory(ctx, view, m.sessionId),
  forkSession: (_ctx, m, { open }) => open.session.forkSession(m.sessionId),
  closeSession: (_ctx, _m, { open }) => open.session.closeSession(),
  requestHistory: async (ctx, _m, { view, open }) => view.page.post({ type: "history", ...(await historyFor(ctx, open)) }),
  setMode: (_ctx, m, { open }) => open.session.setMode(m.mode),
  setModel: (_ctx, m, { open }) => open.session.setModel(m.model),
  setAgent: async (ctx, m, { view, open }) => {
    if (m.agent !== open.session.agent.name) ctx.sessions.newSession(view, m.agent);
    await vscode.workspace.getConfiguration("tether").update("agent", m.agent, vscode.ConfigurationTarget.Global);
  },
  setAgentOption: (_ctx, m, { open }) => open.session.setAgentOption(m.id, m.value),
  authenticate: (_ctx, m, { open }) => open.session.authenticate(m.methodId),
  permission: (_ctx, m, { open }) =>
    open.session.broker.answer(m.requestId, m.decision, m.reason, m.answers, {
      ...(m.destination ? { destination: m.destination } : {}),
      ...(m.acceptedHunks ? { acceptedHunks: m.acceptedHunks } : {}),
    }),
  openFile: (ctx, m) => ctx.workspace.openFile(m.path, m.line),
  openDiff: (_ctx, m, { open }) => open.session.broker.openReview(m.requestId),
  suggestFiles: async (ctx, m, { view }) =>
    view.page.post({ type: "fileSuggestions", requestId: m.requestId, items: [...ctx.ide.suggestions(m.query), ...(await ctx.workspace.suggestFiles(m.query))] }),
  retry: (_ctx, _m, { open }) => open.session.retry(),
  canvasAction: (_ctx, m, { open }) => backendCommand(open, "the canvas action", "canvasAction", m.action),
  canvasRefresh: (_ctx, _m, { open }) => backendCommand(open, "the canvas refresh", "canvasRefresh"),
  // VS Code asks the user before it opens a link to a domain they have not trusted.
  openExternal: (_ctx, m) => /^https?:\/\//i.test(m.url) && vscode.env.openExternal(vscode.Uri.parse(m.url, true)),
  loadOlder: (_ctx, _m, { open }) => backendCommand(open, "the request for earlier messages", "historyOlder"),
  selectSession: (ctx, m, { view }) => {
    const target = ctx.sessions.find(m.key);
    if (target) ctx.sessions.show(view, target);
  },
  dismissSession: async (ctx, m) => {
    const target = ctx.sessions.find(m.key);
    if (target) await ctx.surfaces.close(target);
  },
  openInEditor: (ctx, _m, { open }) => ctx.surfaces.panels.open(open),
  renameSession: async (ctx, m, { view, open }) => {
    const target = m.key ? ctx.sessions.find(m.key) : undefined;
    if (target) return renameOpenSession(ctx, target);
    if (m.sessionId) {
      await renameHistorySession(ctx, m.sessionId);
      view.page.post({ type: "history", ...(await historyFor(ctx, open)) });
    }
  },
  deleteSession: async (ctx, m, { view, open }) => {
    if (await deleteHistorySession(ctx, open, m.sessionId)) view.page.post({ type: "history", ...(await historyFor(ctx, open)) });
  },
  editQueued: (_ctx, m, { open }) => open.session.editQueued(m.id, m.text),
  removeQueued: (_ctx, m, { open }) => open.session.removeQueued(m.id),
  sendNow: (_ctx, m, { open }) => open.session.sendNow(m.id),
  stopTask: (_ctx, m, { open }) => open.session.stopTask(m.taskId),
  messageAction: (ctx, m, { view, open }) => messageAction(ctx, view, open, m.messageId, m.action),
  rewindConfirm: (ctx, m, { view, open }) => rewindConfirm(ctx, view, open, m.messageId, m.fork),
  permissionRules: () => vscode.commands.executeCommand("tether.permissionRules"),
};

/** A command of the session's backend (a gateway's canvas or history), told when it cannot go. */
function backendCommand(open: OpenSession, what: string, name: string, args?: unknown): void {
  let done = false;
  let why = "no agent session that takes it is running";
  try {
    done = open.session.agentCommand(name, args);
  } catch (error) {
    why = error instanceof Error ? error.message : String(error);
  }
  if (!done) void vscode.window.showInformationMessage(`Tether: ${what} was not sent: ${why}.`);
}

export async function handleMessage(ctx: Ctx, view: ChatView, message: WebviewToExtension): Promise<void> {
  const handler = HANDLERS[message.type] as ((ctx: Ctx, message: WebviewToExtension, from: From) => unknown) | undefined;
  const open = view.shown as OpenSession | undefined;
  if (!handler || !open) return;
  ctx.sessions.focus(view);
  await handler(ctx, message, { view, open });
}
