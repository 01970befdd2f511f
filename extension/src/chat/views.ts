// A chat view bound to one open session at a time: the sidebar (which switches between sessions)
// or an editor tab (one session for its life). Its page keeps the chat of every session it has
// shown, so showing one again sends only the entries it missed (switching stays cheap however long
// the chat). No vscode import: the page is a port.

import type { ChatEntry, ExtensionToWebview } from "../contract/protocol";
import type { ChatViewPort } from "./feed";
import type { ChatSession } from "./session";

export type Surface = "sidebar" | "editor";

/** The webview page a view renders into (vscode/chatWebview.ts in VS Code). */
export interface ViewPage extends ChatViewPort {
  /** Whether the user can see the page now. */
  visible(): boolean;
}

/** What a view needs of the open session it shows. */
export interface ShownSession {
  readonly key: string;
  readonly session: ChatSession;
  /** The views showing it: their pages get its feed's entries and messages. */
  readonly views: Set<ChatView>;
}

/** How far a page's copy of a session it no longer shows goes. */
interface Kept {
  generation: number;
  count: number;
}

export class ChatView {
  private current: ShownSession | undefined;
  private readonly kept = new Map<string, Kept>();

  constructor(
    readonly page: ViewPage,
    readonly surface: Surface,
  ) {}

  /** The open session the view shows. */
  get shown(): ShownSession | undefined {
    return this.current;
  }

  /** Show `open` (its entries follow, as far as the page lacks them). */
  show(open: ShownSession): void {
    if (this.current === open) return;
    this.leave();
    this.current = open;
    open.views.add(this);
    this.paint();
  }

  /** The page (re)loaded with nothing kept: the shown session, from the start. */
  ready(): void {
    this.kept.clear();
    if (this.current) this.paint();
  }

  /** The session `key` was closed: the page may drop it. */
  forget(key: string): void {
    this.kept.delete(key);
    this.page.post({ type: "forgetSession", key });
  }

  /** The view goes away (its tab closed). */
  detach(): void {
    this.leave();
    this.current = undefined;
  }

  private leave(): void {
    const previous = this.current;
    if (!previous) return;
    previous.views.delete(this);
    const feed = previous.session.feed;
    this.kept.set(previous.key, { generation: feed.generation, count: feed.transcript.length });
  }

  private paint(): void {
    const open = this.current!;
    const feed = open.session.feed;
    const kept = this.kept.get(open.key);
    this.kept.delete(open.key);
    const messages: ExtensionToWebview[] = [
      { type: "showSession", key: open.key, surface: this.surface },
      { type: "init", state: feed.state },
    ];
    const entries: readonly ChatEntry[] = feed.transcript;
    if (kept && kept.generation === feed.generation) {
      if (entries.length > kept.count) messages.push({ type: "events", events: entries.slice(kept.count) });
    } else if (entries.length) messages.push({ type: "replay", events: [...entries] });
    else if (kept) messages.push({ type: "clear" });
    for (const message of messages) this.page.post(message);
  }
}
