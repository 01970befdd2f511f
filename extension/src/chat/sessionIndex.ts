// What Tether keeps on the laptop about its sessions (DESIGN.md "What may live on the laptop"):
// the open sessions' metadata — their ids, agent, titles, mode, model, queued texts, a summary of
// a pending question (tool and path), whether a turn was running — and the titles the user gave
// past sessions. Never file contents: the transcript comes back from the agent's own store. Kept in
// the workspace's state (a Memento in VS Code). No vscode import.

/** A message queued to be sent when the turn ends. */
export interface QueuedText {
  id: string;
  text: string;
}

/** What a pending permission question was about. */
export interface PendingQuestion {
  tool: string;
  path?: string;
}

/** One open session, as the index keeps it. */
export interface SessionRecord {
  /** Tether's own id of the open session. */
  key: string;
  agent: string;
  /** The agent's conversation, once it has one. */
  sessionId?: string;
  /** The agent's title. */
  title?: string;
  /** The user's title (renamed). */
  userTitle?: string;
  /** The first prompt, cut to a title. */
  firstPrompt?: string;
  /** The last prompt (Retry sends it again after a cut turn). */
  lastPrompt?: string;
  mode: string;
  model?: string;
  queued?: QueuedText[];
  /** The question that was waiting. */
  pending?: PendingQuestion;
  /** A turn was running. */
  busy?: boolean;
  unread?: boolean;
}

/** The open sessions and where they were shown. */
export interface SessionLayout {
  sessions: SessionRecord[];
  /** The session the sidebar showed. */
  sidebar?: string;
  /** The sessions shown in editor tabs (their tabs come back through VS Code's serializer). */
  editors?: string[];
}

/** The part of a Memento the index uses. */
export interface StateStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

const LAYOUT_KEY = "tether.sessions";
const TITLES_KEY = "tether.sessionTitles";

function isRecord(value: unknown): value is SessionRecord {
  if (!value || typeof value !== "object") return false;
  const r = value as Record<string, unknown>;
  return typeof r.key === "string" && typeof r.agent === "string" && typeof r.mode === "string";
}

export class SessionIndex {
  private saved = "";

  constructor(private readonly store: StateStore) {}

  /** The layout saved last; anything malformed is left out. */
  load(): SessionLayout {
    const raw = this.store.get<Partial<SessionLayout>>(LAYOUT_KEY);
    const sessions = Array.isArray(raw?.sessions) ? raw.sessions.filter(isRecord) : [];
    const keys = new Set(sessions.map((s) => s.key));
    const sidebar = typeof raw?.sidebar === "string" && keys.has(raw.sidebar) ? raw.sidebar : undefined;
    const editors = Array.isArray(raw?.editors) ? raw.editors.filter((k): k is string => typeof k === "string" && keys.has(k)) : [];
    return { sessions, ...(sidebar ? { sidebar } : {}), editors };
  }

  /** Save the layout if it changed. */
  save(layout: SessionLayout): void {
    const text = JSON.stringify(layout);
    if (text === this.saved) return;
    this.saved = text;
    void this.store.update(LAYOUT_KEY, layout);
  }

  /** The titles the user gave past sessions, by the agent's session id. */
  titles(): Record<string, string> {
    const raw = this.store.get<Record<string, unknown>>(TITLES_KEY) ?? {};
    return Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === "string"));
  }

  /** Name the past session `sessionId` (an empty title forgets the name). */
  async rename(sessionId: string, title: string): Promise<void> {
    const titles = this.titles();
    if (title.trim()) titles[sessionId] = title.trim();
    else delete titles[sessionId];
    await this.store.update(TITLES_KEY, titles);
  }

  async forget(sessionId: string): Promise<void> {
    const titles = this.titles();
    if (!(sessionId in titles)) return;
    delete titles[sessionId];
    await this.store.update(TITLES_KEY, titles);
  }
}
