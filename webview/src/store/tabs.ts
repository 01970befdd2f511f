// What the view knows besides its session's chat: which surface it is (the sidebar, with its
// session strip, or an editor tab) and the open sessions the strip lists.

import type { OpenSessionInfo } from "@tether/contract/protocol";

type Listener = () => void;

class ViewTabs {
  surface: "sidebar" | "editor" = "sidebar";
  key: string | undefined;
  sessions: OpenSessionInfo[] = [];
  private readonly listeners = new Set<Listener>();

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  shown(key: string, surface: "sidebar" | "editor"): void {
    this.key = key;
    this.surface = surface;
    this.changed();
  }

  list(sessions: OpenSessionInfo[]): void {
    this.sessions = sessions;
    this.changed();
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}

export const tabs = new ViewTabs();
