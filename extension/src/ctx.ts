// The extension while it is active: the log, the settings, the chat view and what it shows, the
// session with the agent, the permission broker and the diff reviews, the workspace, the status
// bar. Ctx builds them, wires them together, and disposes of them. Commands (commands.ts) and the
// chat view's messages (messages.ts) are small functions over it.

import * as vscode from "vscode";
import { PERMISSION_MODE_INFO } from "../../webview/src/modes";
import type { UiState, WebviewToExtension } from "../../webview/src/protocol";
import { ChatFeed } from "./chat/feed";
import { agents, startAgent } from "./chat/launch";
import { PermissionBroker } from "./chat/permissionBroker";
import { ChatSession } from "./chat/session";
import { loadTetherCore } from "./core/wasm";
import { handleMessage } from "./messages";
import { gatewayHttpOrigin, readSettings, type TetherSettings } from "./settings";
import { ChatViewProvider, CHAT_VIEW_ID } from "./vscode/chatView";
import { Diagnostics } from "./vscode/diagnostics";
import { DiffReviews } from "./vscode/diffReview";
import { StatusBar } from "./vscode/statusBar";
import { whereItRuns, Workspace, workspaceLabel } from "./vscode/workspace";

export class Ctx implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  readonly view: ChatViewProvider;
  readonly reviews: DiffReviews;
  readonly feed: ChatFeed;
  readonly broker: PermissionBroker;
  readonly session: ChatSession;
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
        onReady: () => this.viewReady(),
        onMessage: (message) => void this.onMessage(message),
      },
      () => [gatewayHttpOrigin(this.current.openclaw.gatewayUrl)].filter((origin) => origin !== undefined),
    );
    const initial: UiState = {
      mode: this.current.defaultMode,
      model: this.current.model,
      models: [],
      modes: [...PERMISSION_MODE_INFO],
      ...this.agentState(this.current.agent),
      where: whereItRuns(extension),
      workspaceLabel: workspaceLabel(),
      connected: true,
      busy: false,
    };
    this.feed = new ChatFeed(this.view, initial, (state) => this.statusBar.update(state, this.workspace.executor));
    this.broker = new PermissionBroker({
      reviews: this.reviews.book,
      show: (entries) => this.feed.show(entries),
      fail: (what, error) => this.fail(what, error),
    });
    this.workspace = new Workspace({
      extension,
      log: this.log,
      remoteExecutor: () => this.current.remoteExecutor,
      executorChosen: (executor) => this.statusBar.update(this.feed.state, executor),
      contextChanged: () => this.session.context.changed(),
      fail: (what, error) => this.fail(what, error),
    });
    this.session = new ChatSession({
      feed: this.feed,
      broker: this.broker,
      workspace: () => {
        this.loadWasm();
        return this.workspace.source();
      },
      startAgent: (start) => startAgent(start, this.current, { storageDir: extension.globalStorageUri.fsPath, secrets: extension.secrets }, (message) => this.log.info(message)),
      defaultMode: () => this.current.defaultMode,
      displayName: (agent) => agents(this.current).find((e) => e.name === agent)?.displayName ?? agent,
      historyOf: (agent) => ((agents(this.current).find((e) => e.name === agent)?.kind ?? "claude") === "claude" ? "transcripts" : "agent"),
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
        this.current = this.readSettings();
        // The picker lists the agents as configured now; the running session keeps its agent.
        if (e.affectsConfiguration("tether.agents")) this.feed.setState(this.agentState(this.session.agent));
        // The page's policy names the gateway it may frame widgets from.
        if (e.affectsConfiguration("tether.openclaw.gatewayUrl")) this.view.reload();
      }),
    );
    this.log.info(`Tether ${extension.extension.packageJSON.version} activated (${initial.where}, ${vscode.env.remoteName ?? "local"})`);
    const configured = Object.keys(this.current.agents);
    this.log.info(`agent ${this.current.agent}${configured.length ? `; tether.agents: ${configured.join(", ")}` : ""}`);
  }

  get settings(): TetherSettings {
    return this.current;
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
    const entries = agents(this.current);
    const picked = entries.find((e) => e.name === agent);
    return {
      agent,
      agents: entries.map((e) => ({ id: e.name, label: e.displayName })),
      // Claude Code is "Claude" in the chat's sentences.
      agentLabel: picked?.kind === "claude" ? "Claude" : (picked?.displayName ?? agent),
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
    void this.session.endSession("VS Code is closing.");
    for (const d of this.disposables) d.dispose();
  }

  /** The chat view (re)loaded: its state and the chat so far. */
  viewReady(): void {
    this.feed.ready();
    // The chat is open, so a prompt may follow: load the core now (after activation, while the
    // webview renders) rather than on the first prompt. A failure is reported by that prompt.
    setImmediate(() => {
      try {
        this.loadWasm();
      } catch (error) {
        this.log.warn(`loading the wasm core failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
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
