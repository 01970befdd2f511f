// The sidebar chat view: renders the webview page (strict CSP, fresh nonce), batches the chat's
// entries to it (one postMessage per ~30 ms instead of one per token) and hands every message from
// it to the extension.

import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import type { ChatEntry, ExtensionToWebview, WebviewToExtension } from "../contract/protocol";
import { renderWebviewHtml } from "../contract/html";
import type { ChatViewPort } from "../chat/feed";

export const CHAT_VIEW_ID = "tether.chat";
/** How long events wait to be sent together. */
const BATCH_MS = 30;

export interface ChatViewHandler {
  /** The webview (re)loaded: send init and the transcript so far. */
  onReady(): void;
  onMessage(message: WebviewToExtension): void;
  /** VS Code asked for the view (the log times the way from a click to the page). */
  onResolve?(): void;
}

export class ChatViewProvider implements vscode.WebviewViewProvider, ChatViewPort, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private queue: ChatEntry[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly webviewRoot: vscode.Uri,
    private readonly handler: ChatViewHandler,
    /** Origins the page may frame (an OpenClaw gateway's, for its board widgets). */
    private readonly frameOrigins: () => string[],
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.handler.onResolve?.();
    this.view = view;
    view.webview.options = { enableScripts: true, localResourceRoots: [this.webviewRoot] };
    this.render(view);
    this.disposables.push(
      view.webview.onDidReceiveMessage((message: WebviewToExtension) => {
        if (message?.type === "ready") {
          this.ready = true;
          this.queue = [];
          this.handler.onReady();
          return;
        }
        this.handler.onMessage(message);
      }),
      view.onDidDispose(() => {
        if (this.view === view) {
          this.view = undefined;
          this.ready = false;
        }
      }),
    );
  }

  /** Load the page again, under a policy made from the settings as they are now (the handler's
   * onReady replays the transcript). */
  reload(): void {
    if (this.view) this.render(this.view);
  }

  private render(view: vscode.WebviewView): void {
    this.ready = false;
    const asset = (name: string) => view.webview.asWebviewUri(vscode.Uri.joinPath(this.webviewRoot, name)).toString();
    view.webview.html = renderWebviewHtml({
      cspSource: view.webview.cspSource,
      nonce: randomBytes(16).toString("base64url"),
      scriptUri: asset("main.js"),
      styleUri: asset("main.css"),
      codiconUri: asset("codicon.css"),
      title: "Tether",
      frameOrigins: this.frameOrigins(),
    });
  }

  /** Show the view (and its container). */
  async reveal(): Promise<void> {
    if (this.view) this.view.show(true);
    else await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  /** Queue entries; they go out together within BATCH_MS. Dropped while no page is loaded (the
   * feed replays the transcript on ready). */
  pushEvents(events: ChatEntry[]): void {
    if (!this.ready || events.length === 0) return;
    this.queue.push(...events);
    this.timer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  /** Send a message now, after any queued events (so the order is kept). */
  post(message: ExtensionToWebview): void {
    if (!this.view || !this.ready) return;
    this.flush();
    void this.view.webview.postMessage(message);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.view || this.queue.length === 0) return;
    const events = this.queue;
    this.queue = [];
    void this.view.webview.postMessage({ type: "events", events } satisfies ExtensionToWebview);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}
