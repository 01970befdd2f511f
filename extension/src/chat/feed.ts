// What the chat view shows: the entries since the last clear (the core's events as they come, the
// user's turns, the answers to permission requests) and the header state. It posts both to the
// view, replays them when the view reloads, and keeps them for export. No vscode import.

import type { UiEvent } from "../generated/core";
import { modelOption } from "../contract/options";
import type { ChatEntry, ExtensionToWebview, UiState } from "../contract/protocol";

/** The chat view as the feed uses it (vscode/chatView.ts in VS Code). */
export interface ChatViewPort {
  /** Entries go out in batches; dropped while no page is loaded (ready() replays them). */
  pushEvents(entries: ChatEntry[]): void;
  /** A message, sent after the entries queued before it. */
  post(message: ExtensionToWebview): void;
}

/** The header state an agent event changes, if any. */
export function stateFromEvent(event: UiEvent): Partial<UiState> | undefined {
  switch (event.type) {
    case "sessionInit":
      return {
        sessionId: event.sessionId,
        ...(event.model ? { model: event.model } : {}),
        ...(event.permissionMode ? { mode: event.permissionMode } : {}),
      };
    case "sessionReady": {
      const models = event.models.map((m) => ({ id: m.value, label: m.displayName || m.value }));
      const patch = {
        ...(models.length ? { models } : {}),
        ...(event.commands.length ? { commands: event.commands } : {}),
        ...(event.permissionMode ? { mode: event.permissionMode } : {}),
      };
      return Object.keys(patch).length ? patch : undefined;
    }
    case "permissionRequest":
      return { busy: true };
    case "modeChanged":
      return { mode: event.mode };
    case "modelChanged":
      return { model: event.model ?? "" };
    case "status":
      return { busy: event.state !== "idle" };
    case "done":
      return { busy: false, sessionId: event.sessionId };
    case "error":
      // The agent's process is gone: the view shows it disconnected until the next start.
      return event.kind === "crash" ? { connected: false, busy: false } : undefined;
    case "agentOptions": {
      // The agent's model option drives the model picker; the others get pickers of their own.
      const model = modelOption(event.options);
      const models = model ? model.choices.map((c) => ({ id: c.value, label: c.displayName || c.value })) : undefined;
      return { agentOptions: event.options, ...(model ? { model: model.value, models: models! } : {}) };
    }
    case "commands":
      return { commands: event.commands };
    case "authMethods":
      return { authMethods: event.methods };
    case "contextUsage":
      return {
        context: {
          used: event.used,
          size: event.size,
          ...(event.cost !== null ? { cost: event.cost } : {}),
          ...(event.currency ? { currency: event.currency } : {}),
          ...(event.breakdown.length ? { breakdown: event.breakdown } : {}),
        },
      };
    case "sessionInfo":
      return event.title ? { title: event.title } : undefined;
    case "connectionState":
      // The operator's connection is the chat's; the node's shows in the log.
      return event.channel === "gateway" ? { gateway: { state: event.state, ...(event.message ? { message: event.message } : {}) } } : undefined;
    default:
      return undefined;
  }
}

export class ChatFeed {
  private entries: ChatEntry[] = [];
  /** Bumped when the entries are replaced (clear, replay): a page that kept the old ones must
   * take them all again. */
  private epoch = 0;

  constructor(
    private readonly view: ChatViewPort,
    private current: UiState,
    /** Told after every state change (the status bar). */
    private readonly onState: (state: UiState) => void = () => undefined,
  ) {}

  get state(): UiState {
    return this.current;
  }

  get generation(): number {
    return this.epoch;
  }

  /** Everything shown since the last clear, in order. */
  get transcript(): readonly ChatEntry[] {
    return this.entries;
  }

  /** An agent event: shown as it is, and the header state it changes. */
  event(event: UiEvent): void {
    this.show([event]);
    const patch = stateFromEvent(event);
    if (patch) this.setState(patch);
  }

  show(entries: ChatEntry[]): void {
    if (entries.length === 0) return;
    this.entries.push(...entries);
    this.view.pushEvents(entries);
  }

  setState(patch: Partial<UiState>): void {
    if (Object.keys(patch).length === 0) return;
    this.current = { ...this.current, ...patch };
    this.view.post({ type: "state", ...patch });
    this.onState(this.current);
  }

  /** A new session: an empty chat. */
  clear(): void {
    this.entries = [];
    this.epoch++;
    this.view.post({ type: "clear" });
  }

  /** A resumed session: its past entries replace the chat. */
  replay(entries: ChatEntry[]): void {
    this.entries = [...entries];
    this.epoch++;
    this.view.post({ type: "replay", events: this.entries });
  }

  /** The view (re)loaded: its state, and the chat so far. */
  ready(): void {
    this.view.post({ type: "init", state: this.current });
    if (this.entries.length) this.view.post({ type: "replay", events: this.entries });
  }
}
