// Where the open sessions show: the sidebar (one at a time, with the session strip) and editor
// tabs (one each), and what survives a reload: the session index in the workspace's state, the
// tabs through their serializer, every session's transcript from its agent's own store.

import * as vscode from "vscode";
import type { ChatEntry, WebviewToExtension } from "../contract/protocol";
import { SessionIndex } from "../chat/sessionIndex";
import type { OpenSession, SessionManager } from "../chat/sessions";
import type { ChatView } from "../chat/views";
import { ChatPanels, CHAT_PANEL_TYPE } from "./chatPanels";
import type { ChatViewProvider } from "./chatView";
import type { ChatWebview } from "./chatWebview";

export interface SurfacesDeps {
  extension: vscode.ExtensionContext;
  sessions: SessionManager;
  sidebarPage: ChatViewProvider;
  webviewRoot: vscode.Uri;
  frameOrigins(): string[];
  /** The agent new sessions start with (`tether.agent`). */
  defaultAgent(): string;
  /** A past conversation's entries, where its backend keeps them in files Tether reads. */
  entries(agent: string, sessionId: string): Promise<ChatEntry[]>;
  /** A page became ready (the core may load ahead of the first prompt). */
  pageReady(view: ChatView): void;
  onMessage(view: ChatView, message: WebviewToExtension): void;
  log(message: string): void;
}

export class Surfaces implements vscode.Disposable {
  readonly sidebar: ChatView;
  readonly panels: ChatPanels;
  readonly index: SessionIndex;
  /** VS Code is closing: the index keeps what it had (the tabs going away are not the user's doing). */
  private closing = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly deps: SurfacesDeps) {
    const { sessions } = deps;
    this.index = new SessionIndex(deps.extension.workspaceState);
    this.sidebar = sessions.addView(deps.sidebarPage, "sidebar");
    this.panels = new ChatPanels(deps.webviewRoot, vscode.Uri.joinPath(deps.extension.extensionUri, "media", "tether.svg"), deps.frameOrigins, {
      addView: (page: ChatWebview) => sessions.addView(page, "editor"),
      closed: (view) => {
        const open = view.shown as OpenSession | undefined;
        sessions.removeView(view);
        // A tab the user closed ends its session, unless the sidebar shows it too.
        if (open && !this.closing && open.views.size === 0 && this.sidebar.shown !== open) void sessions.close(open);
      },
      focused: (view) => sessions.focus(view),
      handler: (view) => ({ onReady: () => this.ready(view), onMessage: (message) => deps.onMessage(view, message), log: deps.log }),
      sessionFor: (key) => (key ? sessions.find(key) : undefined) ?? sessions.create(deps.defaultAgent()),
      show: (view, open) => sessions.show(view, open),
    });
    this.disposables.push(vscode.window.registerWebviewPanelSerializer(CHAT_PANEL_TYPE, this.panels));
  }

  /** The sessions the index kept come back (their tabs follow through the serializer); without
   * any, one new session of the default agent for the sidebar. */
  restore(): void {
    const layout = this.index.load();
    const { sessions } = this.deps;
    for (const record of layout.sessions) {
      const { loaded } = sessions.restore(record, (agent, id) => this.deps.entries(agent, id));
      void loaded.catch((error: unknown) => this.deps.log(`restoring a session: ${error instanceof Error ? error.message : String(error)}`));
    }
    if (layout.sessions.length) this.deps.log(`restored ${layout.sessions.length} open session(s)`);
    const editors = new Set(layout.editors ?? []);
    const sidebar = (layout.sidebar ? sessions.find(layout.sidebar) : undefined) ?? sessions.list().find((o) => !editors.has(o.key)) ?? sessions.create(this.deps.defaultAgent());
    sessions.show(this.sidebar, sidebar);
  }

  /** The open sessions changed: tab titles, the sidebar's strip, the index. */
  changed(): void {
    this.panels.refresh();
    const { sessions } = this.deps;
    this.deps.sidebarPage.post({ type: "openSessions", sessions: sessions.list().map((o) => o.info()) });
    if (this.closing) return;
    this.index.save({
      sessions: sessions.records(),
      ...(this.sidebar.shown ? { sidebar: this.sidebar.shown.key } : {}),
      editors: this.panels.keys(),
    });
  }

  /** A page loaded: it gets its session's chat, and the sidebar the strip. */
  ready(view: ChatView): void {
    view.ready();
    if (view === this.sidebar) this.deps.sidebarPage.post({ type: "openSessions", sessions: this.deps.sessions.list().map((o) => o.info()) });
    this.deps.pageReady(view);
  }

  /** The session a view shows. */
  sessionOf(view: ChatView): OpenSession {
    const open = view.shown as OpenSession | undefined;
    if (!open) throw new Error("the view shows no session");
    return open;
  }

  /** Close `open`: its tabs close, the sidebar moves on. */
  async close(open: OpenSession): Promise<void> {
    this.panels.closeTabsOf(open);
    await this.deps.sessions.close(open);
  }

  dispose(): void {
    this.closing = true;
    for (const d of this.disposables) d.dispose();
  }
}
