// Chat sessions in editor tabs: a WebviewPanel per tab rendering the same chat page, bound to one
// open session for its life. The tab's title is the session's, with its badge in front (a question
// waiting, a finished turn not seen yet). Tabs come back after a reload through VS Code's
// serializer: the page keeps its session's key in its state.

import * as vscode from "vscode";
import type { PersistedWebviewState } from "../contract/protocol";
import type { ChatView } from "../chat/views";
import type { OpenSession } from "../chat/sessions";
import { ChatWebview, type ChatPageHandler } from "./chatWebview";

export const CHAT_PANEL_TYPE = "tether.chatPanel";

/** The badge in front of a tab's title. */
export function tabTitle(open: OpenSession): string {
  const badge = open.waiting ? "◆ " : open.unread ? "● " : "";
  return `${badge}${open.title}`;
}

export interface PanelHost {
  /** A view for the tab's page (the manager's). */
  addView(page: ChatWebview): ChatView;
  /** The tab closed: its view goes, and its session unless another view shows it. */
  closed(view: ChatView): void;
  /** The user is in the tab. */
  focused(view: ChatView): void;
  /** The tab's page hands its messages and readiness here. */
  handler(view: ChatView): ChatPageHandler;
  /** The open session a restored tab showed (made again when the index lost it). */
  sessionFor(key: string | undefined): OpenSession;
  show(view: ChatView, open: OpenSession): void;
}

interface Tab {
  panel: vscode.WebviewPanel;
  view: ChatView;
}

export class ChatPanels implements vscode.WebviewPanelSerializer<PersistedWebviewState> {
  private readonly tabs: Tab[] = [];

  constructor(
    private readonly webviewRoot: vscode.Uri,
    private readonly iconPath: vscode.Uri,
    private readonly frameOrigins: () => string[],
    private readonly host: PanelHost,
  ) {}

  /** A new editor tab showing `open`. */
  open(open: OpenSession): void {
    const existing = this.tabs.find((t) => t.view.shown === open);
    if (existing) {
      existing.panel.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel(CHAT_PANEL_TYPE, tabTitle(open), vscode.ViewColumn.Active, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [this.webviewRoot],
    });
    this.bind(panel, open);
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: PersistedWebviewState | undefined): Promise<void> {
    this.bind(panel, this.host.sessionFor(typeof state?.session === "string" ? state.session : undefined));
  }

  /** The session's title or badges changed: its tabs say so. */
  refresh(): void {
    for (const { panel, view } of this.tabs) {
      const open = view.shown as OpenSession | undefined;
      if (open && panel.title !== tabTitle(open)) panel.title = tabTitle(open);
    }
  }

  /** The tabs that show `open` close (it was closed). */
  closeTabsOf(open: OpenSession): void {
    for (const tab of this.tabs.filter((t) => t.view.shown === open)) tab.panel.dispose();
  }

  /** Load every tab's page again (the frame policy changed). */
  reload(): void {
    for (const { view } of this.tabs) (view.page as ChatWebview).render();
  }

  /** The keys of the sessions shown in tabs. */
  keys(): string[] {
    return this.tabs.flatMap((t) => (t.view.shown ? [t.view.shown.key] : []));
  }

  private bind(panel: vscode.WebviewPanel, open: OpenSession): void {
    panel.iconPath = this.iconPath;
    const page = new ChatWebview(panel.webview, this.webviewRoot, this.frameOrigins, () => panel.visible);
    const view = this.host.addView(page);
    const tab = { panel, view };
    this.tabs.push(tab);
    this.host.show(view, open);
    panel.title = tabTitle(open);
    page.start(this.host.handler(view));
    panel.onDidChangeViewState(() => {
      if (panel.active) this.host.focused(view);
    });
    panel.onDidDispose(() => {
      this.tabs.splice(this.tabs.indexOf(tab), 1);
      page.dispose();
      this.host.closed(view);
    });
  }
}
