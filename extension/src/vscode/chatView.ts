// The sidebar chat view: one chat page (ChatWebview) while VS Code has the view resolved; it shows
// one open session at a time and switches between them (the page's session strip).

import * as vscode from "vscode";
import type { ExtensionToWebview, ChatEntry } from "../contract/protocol";
import type { ViewPage } from "../chat/views";
import { ChatWebview, type ChatPageHandler } from "./chatWebview";

export const CHAT_VIEW_ID = "tether.chat";

export class ChatViewProvider implements vscode.WebviewViewProvider, ViewPage, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private page: ChatWebview | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly webviewRoot: vscode.Uri,
    private readonly handler: ChatPageHandler & {
      onVisible(): void;
      /** VS Code asked for the view (the log times the way from a click to the page). */
      onResolve?(): void;
    },
    /** Origins the page may frame (an OpenClaw gateway's, for its board widgets). */
    private readonly frameOrigins: () => string[],
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.handler.onResolve?.();
    this.page?.dispose();
    this.view = view;
    const page = new ChatWebview(view.webview, this.webviewRoot, this.frameOrigins, () => view.visible);
    this.page = page;
    page.start(this.handler);
    this.disposables.push(
      view.onDidChangeVisibility(() => {
        if (view.visible) this.handler.onVisible();
      }),
      view.onDidDispose(() => {
        if (this.view !== view) return;
        this.view = undefined;
        this.page = undefined;
        page.dispose();
      }),
    );
  }

  /** Load the page again, under a policy made from the settings as they are now (the view
   * sends the chat again when it is ready). */
  reload(): void {
    this.page?.render();
  }

  /** Show the view (and its container). */
  async reveal(): Promise<void> {
    if (this.view) this.view.show(true);
    else await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  visible(): boolean {
    return this.view?.visible ?? false;
  }

  pushEvents(events: ChatEntry[]): void {
    this.page?.pushEvents(events);
  }

  post(message: ExtensionToWebview): void {
    this.page?.post(message);
  }

  dispose(): void {
    this.page?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
