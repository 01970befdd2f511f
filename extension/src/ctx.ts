// The extension while it is active: the log, the settings, the chat view and what it shows, the
// session with the agent, the permission broker and the diff reviews, the workspace, the status
// bar. Ctx builds them, wires them together, and disposes of them. Commands (commands.ts) and the
// chat view's messages (messages.ts) are small functions over it.

import * as vscode from "vscode";
import { PERMISSION_MODE_INFO } from "./contract/modes";
import type { UiState, WebviewToExtension } from "./contract/protocol";
import type { AgentEntry, LaunchPlace } from "./backends/backend";
import { agentEntries, BACKENDS, findAgent } from "./backends";
import type { ChatFeed } from "./chat/feed";
import type { PermissionBroker } from "./chat/permissionBroker";
import type { AgentSession, AgentStart, ChatAgent, ChatSession } from "./chat/session";
import { SessionManager } from "./chat/sessions";
import { openSession } from "./session/open";
import { loadTetherCore } from "./core/wasm";
import { handleMessage } from "./messages";
import { readSettings, type TetherSettings } from "./settings";
import { ChatViewProvider, CHAT_VIEW_ID } from "./vscode/chatView";
import { Diagnostics } from "./vscode/diagnostics";
import { DiffReviews } from "./vscode/diffReview";
import { StatusBar } from "./vscode/statusBar";
import { whereItRuns, Workspace, workspaceLabel } from "./vscode/workspace";

export class Ctx implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  readonly view: ChatViewProvider;
  readonly reviews: DiffReviews;
  readonly sessions: SessionManager;
  readonly workspace: Workspace;
  readonly diagnostics: Diagnostics;
  private readonly statusBar: StatusBar;
  private readonly disposables: vscode.Disposable[] = [];
  private current: TetherSettings;
  private wasmReady = false;
  /** When activate() returned. */
  private activationEnd: number | undefined;

  constructor(
    readonly extension: vscode.ExtensionContext,
    /** When activate() started, for the timing it reports. */
    private readonly activationStart: number,
  ) {
    this.log = vscode.window.createOutputChannel("Tether", { log: true });
    this.current = this.readSettings();
    this.statusBar = new StatusBar();
    this.reviews = new DiffReviews((message) => this.log.info(message));
    this.view = new ChatViewProvider(
      vscode.Uri.joinPath(extension.extensionUri, "dist", "webview"),
      {
        onReady: () => {
          this.log.info("chat page ready");
          this.viewReady();
        },
        onResolve: () => this.log.info("chat view resolved"),
        onMessage: (message) => void this.onMessage(message),
      },
      () => this.frameSources(),
    );
    const where = whereItRuns(extension);
    this.workspace = new Workspace({
      extension,
      log: this.log,
      remoteExecutor: () => this.current.remoteExecutor,
      executorChosen: (executor) => this.statusBar.update(this.feed.state, executor),
      contextChanged: async () => {
        await Promise.all(this.sessions.list().map((session) => session.context.changed()));
      },
      fail: (what, error) => this.fail(what, error),
    });
    const place: LaunchPlace = { storageDir: extension.globalStorageUri.fsPath, secrets: extension.secrets };
    this.sessions = new SessionManager({
      view: this.view,
      reviews: this.reviews.book,
      initialState: (agent, previous) => ({
        mode: previous?.mode ?? this.current.defaultMode,
        model: previous ? "" : this.current.model,
        models: [],
        modes: [...PERMISSION_MODE_INFO],
        ...this.agentState(agent.name),
        where,
        workspaceLabel: workspaceLabel(),
        connected: true,
        busy: false,
      }),
      onState: (state) => this.statusBar.update(state, this.workspace.executor),
      // An agent the registry lacks (a stale `tether.agent`) is told by its start, with the names there are.
      agent: (name) => {
        const entry = findAgent(this.agents(), name);
        return entry ? chatAgent(entry) : { name, displayName: name, history: "agent" };
      },
      workspace: () => {
        this.loadWasm();
        return this.workspace.source();
      },
      startAgent: (start) => this.startAgent(start, place),
      defaultMode: () => this.current.defaultMode,
      fail: (what, error) => this.fail(what, error),
      log: (message) => this.log.info(message),
    }, this.current.agent);
    this.diagnostics = new Diagnostics(extension.extensionUri, (message) => this.log.info(message), () => this.loadWasm());
    this.statusBar.update(this.feed.state, undefined);

    this.subscribe(
      this.log,
      this.view,
      this.reviews,
      this.statusBar,
      this.workspace,
      this.diagnostics,
      vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, this.view, { webviewOptions: { retainContextWhenHidden: true } }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration("tether")) return;
        const frames = this.frameSources().join(" ");
        this.current = this.readSettings();
        // The picker lists the agents as configured now; the running session keeps its agent.
        if (e.affectsConfiguration("tether.agents")) {
          const entries = this.agents();
          for (const session of [...this.sessions.list()]) {
            // A session whose agent is gone from the settings ends, unless it is the one shown.
            if (!findAgent(entries, session.agent.name) && session !== this.session) void this.sessions.dispose(session, "Its agent was removed from tether.agents.");
            else session.feed.setState(this.agentState(session.agent.name));
          }
        }
        // The page's policy names the origins it may frame (a gateway's widgets).
        if (this.frameSources().join(" ") !== frames) this.view.reload();
      }),
    );
    this.log.info(`Tether ${extension.extension.packageJSON.version} activated (${where}, ${vscode.env.remoteName ?? "local"})`);
    const configured = Object.keys(this.current.agents);
    this.log.info(`agent ${this.current.agent}${configured.length ? `; tether.agents: ${configured.join(", ")}` : ""}`);
  }

  get settings(): TetherSettings {
    return this.current;
  }

  /** The session the chat view shows. */
  get session(): ChatSession {
    return this.sessions.active;
  }

  /** What the chat view shows. */
  get feed(): ChatFeed {
    return this.sessions.active.feed;
  }

  /** The shown session's permission questions. */
  get broker(): PermissionBroker {
    return this.sessions.active.broker;
  }

  /** The registry's agents, with the user's settings. */
  agents(): AgentEntry[] {
    return agentEntries(this.current);
  }

  /** The agent named `name`; throws naming the ones there are. */
  entry(name: string): AgentEntry {
    const entries = this.agents();
    const entry = findAgent(entries, name);
    if (!entry) throw new Error(`there is no agent named ${name} (tether.agent); the agents are ${entries.map((e) => e.name).join(", ")}`);
    return entry;
  }

  /** Origins the chat page may frame (the backends say which). */
  private frameSources(): string[] {
    return BACKENDS.flatMap((backend) => backend.frameSources?.(this.current) ?? []);
  }

  private async startAgent(start: AgentStart, place: LaunchPlace): Promise<AgentSession> {
    const { source, setup } = start;
    return openSession(
      this.entry(start.agent),
      {
        host: source.host,
        root: source.root,
        ...(setup.mirror ? { mirror: setup.mirror } : {}),
        ...(setup.remote ? { remote: setup.remote } : {}),
        ...(setup.memory ? { memory: setup.memory } : {}),
        ...(setup.agentFiles?.length ? { agentFiles: setup.agentFiles } : {}),
        ...(start.resume ? { resume: start.resume } : {}),
        ...(start.replay ? { replay: true } : {}),
        settings: this.current,
        place,
        log: (message) => this.log.info(message),
      },
      { mode: start.mode, ...(start.model ? { model: start.model } : {}), onEvent: start.onEvent, onPermission: start.onPermission },
    );
  }

  /** Whether the wasm core is loaded (the activation report says). */
  get wasmLoaded(): boolean {
    return this.wasmReady;
  }

  /** activate() returns: the benchmark reads how long it took from the log. */
  activated(): void {
    this.activationEnd = performance.now();
    this.log.info(`activate() took ${this.activationMs().toFixed(1)} ms`);
  }

  /** How long activate() took (until now while it runs). */
  activationMs(): number {
    return (this.activationEnd ?? performance.now()) - this.activationStart;
  }

  subscribe(...disposables: vscode.Disposable[]): void {
    this.disposables.push(...disposables);
  }

  /** The header's agent picker: the registry's agents, `agent` picked. */
  private agentState(agent: string): Pick<UiState, "agent" | "agents" | "agentLabel"> {
    const entries = this.agents();
    const picked = findAgent(entries, agent);
    return {
      agent,
      agents: entries.map((e) => ({ id: e.name, label: e.displayName })),
      agentLabel: picked?.chatName ?? picked?.displayName ?? agent,
    };
  }

  /** Load the wasm core once; the first prompt or diagnostics need it. */
  loadWasm(): void {
    if (this.wasmReady) return;
    const started = performance.now();
    loadTetherCore();
    this.wasmReady = true;
    this.log.info(`wasm core loaded in ${(performance.now() - started).toFixed(1)} ms`);
  }

  /** Logs the failure and tells the user, offering the log. */
  fail(what: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.log.error(`${what}: ${message}`);
    void vscode.window.showErrorMessage(`Tether: ${message}`, "Show Logs").then((choice) => {
      if (choice) this.log.show();
    });
  }

  dispose(): void {
    void this.sessions.disposeAll("VS Code is closing.");
    for (const d of this.disposables) d.dispose();
  }

  /** The chat view (re)loaded: its state and the chat so far. */
  viewReady(): void {
    this.feed.ready();
    // The chat is open (its page rendered and said ready, so typing waits for nothing here), and
    // a prompt may follow: start the agent now (the wasm core loads with it) rather than on the
    // first prompt, after the messages above are on their way. A failure is told by that prompt.
    setImmediate(() => this.session.warm());
  }

  private async onMessage(message: WebviewToExtension): Promise<void> {
    try {
      await handleMessage(this, message);
    } catch (error) {
      this.fail("the chat", error);
    }
  }

  private readSettings(): TetherSettings {
    const config = vscode.workspace.getConfiguration("tether");
    const { settings, problems } = readSettings((key) => config.get(key));
    for (const p of problems) this.log.warn(p.message);
    return settings;
  }
}

/** An agent of the registry as a chat session needs it. */
function chatAgent(entry: AgentEntry): ChatAgent {
  return { name: entry.name, displayName: entry.displayName, history: entry.backend.history.kind };
}
