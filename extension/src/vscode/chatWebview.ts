// One chat page in a webview (the sidebar's or an editor tab's): renders the page (strict CSP,
// fresh nonce), batches the chat's entries to it (one postMessage per ~30 ms instead of one per
// token) and hands every message from it to its handler.

import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import type { ChatEntry, ExtensionToWebview, WebviewToExtension } from "../contract/protocol";
import { renderWebviewHtml } from "../contract/html";
import type { ViewPage } from "../chat/views";

/** How long events wait to be sent together. */
const BATCH_MS = 30;
/** How long a page the user sees may take to say it is ready before it is loaded again, per try:
 * a webview host can lose a load (in code-server a restored editor tab sometimes stayed blank
 * after a window reload, never running the page's script), and a page that loads again costs
 * nothing (it keeps no state; the view sends the whole chat on ready). */
const READY_WAITS_MS = [8_000, 15_000, 30_000];

export interface ChatPageHandler {
  /** The page (re)loaded: it keeps nothing yet. */
  onReady(): void;
  onMessage(message: WebviewToExtension): void;
  log?(message: string): void;
}

export class ChatWebview implements ViewPage, vscode.Disposable {
  private ready = false;
  private queue: ChatEntry[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private handler: ChatPageHandler | undefined;
  private readyWatch: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly webview: vscode.Webview,
    private readonly webviewRoot: vscode.Uri,
    /** Origins the page may frame (an OpenClaw gateway's, for its board widgets). */
    private readonly frameOrigins: () => string[],
    /** Whether the user sees the page now. */
    private readonly isVisible: () => boolean,
  ) {
    webview.options = { enableScripts: true, localResourceRoots: [webviewRoot] };
    this.disposables.push(
      webview.onDidReceiveMessage((message: WebviewToExtension) => {
        if (message?.type === "ready") {
          this.ready = true;
          clearTimeout(this.readyWatch);
          this.queue = [];
          this.handler?.onReady();
          return;
        }
        this.handler?.onMessage(message);
      }),
    );
  }

  /** Who hears the page; then the page loads. */
  start(handler: ChatPageHandler): void {
    this.handler = handler;
    this.render();
  }

  visible(): boolean {
    return this.isVisible();
  }

  /** Load the page again, under a policy made from the settings as they are now. */
  render(): void {
    this.load();
    this.watchReady(0);
  }

  /** Load the page again if it has not said it is ready `READY_WAITS_MS[attempt]` from now
   * (waiting on while it is hidden: a hidden page need not load). */
  private watchReady(attempt: number): void {
    clearTimeout(this.readyWatch);
    const wait = READY_WAITS_MS[attempt];
    if (wait === undefined) return;
    this.readyWatch = setTimeout(() => {
      if (this.ready) return;
      if (!this.isVisible()) return this.watchReady(attempt);
      this.handler?.log?.(`chat page not ready ${wait / 1000} s after it was loaded: loading it again`);
      this.load();
      this.watchReady(attempt + 1);
    }, wait);
  }

  private load(): void {
    this.ready = false;
    const asset = (name: string) => this.webview.asWebviewUri(vscode.Uri.joinPath(this.webviewRoot, name)).toString();
    this.webview.html = renderWebviewHtml({
      cspSource: this.webview.cspSource,
      nonce: randomBytes(16).toString("base64url"),
      scriptUri: asset("main.js"),
      styleUri: asset("main.css"),
      codiconUri: asset("codicon.css"),
      title: "Tether",
      frameOrigins: this.frameOrigins(),
    });
  }

  /** Queue entries; they go out together within BATCH_MS. Dropped while no page is loaded (the
   * view sends the whole chat on ready). */
  pushEvents(events: ChatEntry[]): void {
    if (!this.ready || events.length === 0) return;
    this.queue.push(...events);
    this.timer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  /** Send a message now, after any queued events (so the order is kept). */
  post(message: ExtensionToWebview): void {
    if (!this.ready) return;
    this.flush();
    void this.webview.postMessage(message);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0) return;
    const events = this.queue;
    this.queue = [];
    void this.webview.postMessage({ type: "events", events } satisfies ExtensionToWebview);
  }

  dispose(): void {
    this.ready = false;
    clearTimeout(this.readyWatch);
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}
