// The extension while it is active: the log, the settings, the chat view and what it shows, the
// session with the agent, the permission broker and the diff reviews, the workspace, the status
// bar. Ctx builds them, wires them together, and disposes of them. Commands (commands.ts) and the
// chat view's messages (messages.ts) are small functions over it.

import * as vscode from "vscode";
import { PERMISSION_MODE_INFO } from "./contract/modes";
import type { ChatEntry, UiState, WebviewToExtension } from "./contract/protocol";
import type { UiEvent } from "./generated/core";
import type { AgentEntry, LaunchPlace } from "./backends/backend";
import { agentEntries, BACKENDS, findAgent } from "./backends";
import type { ChatFeed } from "./chat/feed";
import type { PermissionBroker } from "./chat/permissionBroker";
import type { AgentSession, AgentStart, ChatAgent, ChatSession } from "./chat/session";
import { SessionManager, type OpenSession } from "./chat/sessions";
import type { ChatView } from "./chat/views";
import { openSession } from "./session/open";
import { startProjectServers } from "./vscode/projectServers";
import { checkpointsConfig, findCheckpointKey, noteSession, prepareCheckpoints } from "./chat/checkpointStore";
import { AuditLog } from "./chat/auditLog";
import { loadTetherCore } from "./core/wasm";
import { warmUpCore } from "./core/warmUp";
import { handleMessage } from "./messages";
import { readSettings, type TetherSettings } from "./settings";
import { ChatViewProvider, CHAT_VIEW_ID } from "./vscode/chatView";
import { Diagnostics } from "./vscode/diagnostics";
import { FirstRun } from "./vscode/firstRun";
import { IdeTools } from "./vscode/ideTools";
import { networkEnv } from "./network";
import { readNetworkSettings } from "./vscode/network";
import { DiffReviews } from "./vscode/diffReview";
import { PlanDocuments } from "./vscode/planDocuments";
import { StatusBar } from "./vscode/statusBar";
import { Surfaces } from "./vscode/surfaces";
import { whereItRuns, Workspace, workspaceLabel, workspaceRootPath } from "./vscode/workspace";
import { IdeState } from "./vscode/ideSources";

/** How long after the wasm loads the core is warmed (see loadWasm). */
const WARM_UP_DELAY_MS = 1000;

export class Ctx implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  readonly view: ChatViewProvider;
  readonly reviews: DiffReviews;
  readonly plans: PlanDocuments;
  readonly sessions: SessionManager;
  /** The sidebar and the editor tabs the sessions show in, and the session index. */
  readonly surfaces: Surfaces;
  readonly workspace: Workspace;
  readonly diagnostics: Diagnostics;
  /** The IDE tools' MCP server, one for the window's agents. */
  readonly ideTools: IdeTools;
  private readonly firstRun: FirstRun;
  /** Every session's audit log (Tether's metadata, on this machine). */
  readonly audit: AuditLog;
  /** Terminals and the Problems list for the composer's @-mentions. */
  readonly ide = new IdeState();
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
    this.audit = new AuditLog(auditDir(extension), (message) => this.log.warn(message));
    const webviewRoot = vscode.Uri.joinPath(extension.extensionUri, "dist", "webview");
    this.plans = new PlanDocuments();
    this.view = new ChatViewProvider(
      webviewRoot,
      {
        onReady: () => {
          this.log.info("chat page ready");
          this.surfaces.ready(this.surfaces.sidebar);
        },
        onResolve: () => this.log.info("chat view resolved"),
        log: (message) => this.log.info(message),
        onMessage: (message) => void this.onMessage(this.surfaces.sidebar, message),
        onVisible: () => this.sessions.focus(this.surfaces.sidebar),
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
        await Promise.all(this.sessions.list().map((open) => open.session.context.changed()));
      },
      fail: (what, error) => this.fail(what, error),
    });
    const place: LaunchPlace = { storageDir: extension.globalStorageUri.fsPath, secrets: extension.secrets };
    this.sessions = new SessionManager({
      reviews: this.reviews.book,
      plans: this.plans,
      initialState: (agent, previous) => ({
        mode: previous?.mode ?? this.current.defaultMode,
        model: previous ? "" : this.current.model,
        models: [],
        modes: [...PERMISSION_MODE_INFO],
        ...this.agentState(agent.name),
        sendWith: this.current.sendWith,
        where,
        workspaceLabel: workspaceLabel(),
        ...(workspaceRootPath() ? { workspaceRoot: workspaceRootPath()! } : {}),
        connected: true,
        busy: false,
      }),
      onState: (state) => this.statusBar.update(state, this.workspace.executor),
      onChange: () => this.surfaces?.changed(),
      // An agent the registry lacks (a stale `tether.agent`) is told by its start, with the names there are.
      agent: (name) => {
        const entry = findAgent(this.agents(), name);
        return entry ? chatAgent(entry) : { name, displayName: name, history: "agent" };
      },
      workspace: (folder) => {
        this.loadWasm();
        return this.workspace.source(folder);
      },
      startAgent: (start) => this.startAgent(start, place),
      remedy: (agent, methodId) => this.firstRun.remedy(agent, methodId),
      defaultMode: () => this.current.defaultMode,
      checkpoints: {
        keyFor: async (conversation) => {
          const source = await this.workspace.source();
          return findCheckpointKey(source.host, source.root, conversation);
        },
        note: async (key, conversation) => {
          const source = await this.workspace.source();
          await noteSession(source.host, source.root, key, this.current.checkpoints.keepSessions, conversation);
        },
      },
      ide: this.ide,
      fail: (what, error) => this.fail(what, error),
      log: (message) => this.log.info(message),
    });
    this.surfaces = new Surfaces({
      extension,
      sessions: this.sessions,
      sidebarPage: this.view,
      webviewRoot,
      frameOrigins: () => this.frameSources(),
      defaultAgent: () => this.current.agent,
      entries: (agent, sessionId) => this.historyEntries(agent, sessionId),
      pageReady: (view) => this.pageReady(view),
      onMessage: (view, message) => void this.onMessage(view, message),
      log: (message) => this.log.info(message),
    });
    this.surfaces.restore();
    this.diagnostics = new Diagnostics(extension.extensionUri, (message) => this.log.info(message), () => this.loadWasm());
    this.firstRun = new FirstRun(extension, (message) => this.log.info(message));
    this.ideTools = new IdeTools(extension.extensionUri, () => this.workspace.source(), (message) => this.log.info(message));
    this.statusBar.update(this.feed.state, undefined);

    this.subscribe(
      this.log,
      this.view,
      this.surfaces,
      this.reviews,
      this.plans,
      this.statusBar,
      this.workspace,
      this.diagnostics,
      this.ideTools,
      this.ide,
      vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, this.view, { webviewOptions: { retainContextWhenHidden: true } }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration("tether")) return;
        const frames = this.frameSources().join(" ");
        this.current = this.readSettings();
        // The picker lists the agents as configured now; the running session keeps its agent.
        if (e.affectsConfiguration("tether.agents")) {
          const entries = this.agents();
          for (const open of [...this.sessions.list()]) {
            // A session whose agent is gone from the settings ends, unless a view shows it.
            if (!findAgent(entries, open.session.agent.name) && open.views.size === 0) void this.sessions.close(open, "Its agent was removed from tether.agents.");
            else open.session.feed.setState(this.agentState(open.session.agent.name));
          }
        }
        if (e.affectsConfiguration("tether.sendWith")) {
          for (const open of this.sessions.list()) open.session.feed.setState({ sendWith: this.current.sendWith });
        }
        // The page's policy names the origins it may frame (a gateway's widgets).
        if (this.frameSources().join(" ") !== frames) {
          this.view.reload();
          this.surfaces.panels.reload();
        }
      }),
    );
    this.log.info(`Tether ${extension.extension.packageJSON.version} activated (${where}, ${vscode.env.remoteName ?? "local"})`);
    const configured = Object.keys(this.current.agents);
    this.log.info(`agent ${this.current.agent}${configured.length ? `; tether.agents: ${configured.join(", ")}` : ""}`);
  }

  get settings(): TetherSettings {
    return this.current;
  }

  /** The open session the user is in (the last view they used): commands act on it. */
  get open(): OpenSession {
    const open = this.sessions.focused;
    if (!open) throw new Error("no open session");
    return open;
  }

  /** The focused session. */
  get session(): ChatSession {
    return this.open.session;
  }

  /** What the focused view shows. */
  get feed(): ChatFeed {
    return this.open.session.feed;
  }

  /** The focused session's permission questions. */
  get broker(): PermissionBroker {
    return this.open.session.broker;
  }

  /** A past conversation's entries, from the files its backend keeps (an agent that keeps its
   * own sessions replays them when loading). */
  private async historyEntries(agent: string, sessionId: string): Promise<ChatEntry[]> {
    const history = findAgent(this.agents(), agent)?.backend.history;
    return history?.kind === "files" ? history.entries(this.workspace.agentCwd(), sessionId) : [];
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
    const checkpoints = this.current.checkpoints.enabled ? checkpointsConfig(source.root, start.checkpointKey, this.current.checkpoints.keepMessages) : undefined;
    // The folder's .gitignore and the index are written aside: the core makes the folder itself
    // at its first write, and the first prompt need not wait for the remote.
    if (checkpoints) void prepareCheckpoints(source.host, source.root, start.checkpointKey, this.current.checkpoints, start.fork ? undefined : start.resume).catch((e: unknown) => this.log.info(`checkpoints: ${e instanceof Error ? e.message : String(e)}`));
    const entry = this.entry(start.agent);
    // A remedy may have changed a setting (the program's path).
    if (await this.firstRun.ensure(entry, this.current)) this.current = this.readSettings();
    const agentRunsThem = !setup.mirror && entry.backend.readsProjectMcpLocally === true;
    const projectServers = agentRunsThem ? undefined : await startProjectServers({
      source,
      executor: this.workspace.executor,
      onEvent: start.onEvent,
      ...(start.onProjectSetup ? { onInfo: start.onProjectSetup } : {}),
      ...(start.onSettingsWritten ? { onWrite: start.onSettingsWritten } : {}),
      log: (message) => this.log.info(message),
    });
    const session = await openSession(
      entry,
      {
        host: source.host,
        root: source.root,
        ...(setup.mirror ? { mirror: setup.mirror } : {}),
        ...(setup.remote ? { remote: setup.remote } : {}),
        ...(setup.memory ? { memory: setup.memory } : {}),
        ...(setup.agentFiles?.length ? { agentFiles: setup.agentFiles } : {}),
        ...(setup.additionalFolders?.length ? { additionalFolders: setup.additionalFolders } : {}),
        ...(setup.pluginDirs?.length ? { pluginDirs: setup.pluginDirs } : {}),
        ...(setup.outputStyle ? { outputStyle: setup.outputStyle } : {}),
        ...(setup.projectSettings ? { projectSettings: setup.projectSettings } : {}),
        ...(start.resume ? { resume: start.resume } : {}),
        ...(start.replay ? { replay: true } : {}),
        ...(start.fork ? { fork: start.fork } : {}),
        ...(checkpoints ? { checkpoints } : {}),
        ...(projectServers ? { projectServers } : {}),
        mcpServers: await this.ideTools.servers().catch((error: unknown) => {
          this.log.warn(`IDE tools unavailable: ${error instanceof Error ? error.message : String(error)}`);
          return [];
        }),
        networkEnv: this.networkEnv(),
        settings: this.current,
        place,
        log: (message) => this.log.info(message),
      },
      {
        mode: start.mode,
        ...(start.model ? { model: start.model } : {}),
        onEvent: start.onEvent,
        onPermission: start.onPermission,
        onAudit: (record) => this.audit.append(start.checkpointKey, record, { agent: start.agent, root: source.root }),
        ...(start.onSettingsWritten ? { onSettingsWritten: start.onSettingsWritten } : {}),
      },
    );
    if (!vscode.workspace.isTrusted) start.onEvent(UNTRUSTED_NOTICE);
    return session;
  }

  /** The agents' network environment from VS Code's settings; which variables, in the log. */
  private networkEnv(): Record<string, string> {
    const env = networkEnv(readNetworkSettings());
    const names = Object.keys(env).filter((name) => name === name.toUpperCase());
    if (names.length > 0) this.log.info(`network: ${names.join(", ")} from VS Code's settings`);
    return env;
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
  private agentState(agent: string): Pick<UiState, "agent" | "agents" | "agentLabel" | "messageActions"> {
    const entries = this.agents();
    const picked = findAgent(entries, agent);
    return {
      agent,
      agents: entries.map((e) => ({ id: e.name, label: e.displayName })),
      agentLabel: picked?.chatName ?? picked?.displayName ?? agent,
      messageActions: { rewind: this.current.checkpoints.enabled, fork: picked?.backend.forkAt !== undefined },
    };
  }

  /** Load the wasm core once; the first prompt or diagnostics need it. */
  loadWasm(): void {
    if (this.wasmReady) return;
    const started = performance.now();
    loadTetherCore();
    this.wasmReady = true;
    this.log.info(`wasm core loaded in ${(performance.now() - started).toFixed(1)} ms`);
    // Its ~10 ms on this thread once the agent it was loaded for has started (the CLI reaches its
    // first model request in ~300 ms), long before the agent's first tool call.
    setTimeout(() => void warmUpCore(), WARM_UP_DELAY_MS);
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
    // First: the index keeps the sessions as they were (their turns cut), not as they end now.
    this.surfaces.dispose();
    void this.sessions.disposeAll("VS Code is closing.");
    for (const d of this.disposables) d.dispose();
  }

  /** A chat page (re)loaded. */
  private pageReady(view: ChatView): void {
    // The chat is open (its page rendered and said ready, so typing waits for nothing here), and
    // a prompt may follow: start the shown session's agent now (the wasm core loads with it)
    // rather than on the first prompt, after the page's messages are on their way. A failure is
    // told by that prompt.
    setImmediate(() => (view.shown as OpenSession | undefined)?.session.warm());
  }

  private async onMessage(view: ChatView, message: WebviewToExtension): Promise<void> {
    try {
      await handleMessage(this, view, message);
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

/** What the chat says when the workspace is not trusted: the host refuses every write and command. */
const UNTRUSTED_NOTICE: UiEvent = {
  type: "error",
  kind: "other",
  severity: "notice",
  message: "This workspace is not trusted: the agent can read and search, but Tether refuses every file write and command.",
  hint: "To let it change files and run commands, trust the folder (Manage Workspace Trust).",
};

/** An agent of the registry as a chat session needs it. */
function chatAgent(entry: AgentEntry): ChatAgent {
  return { name: entry.name, displayName: entry.displayName, history: entry.backend.history.kind };
}

/** Where the audit logs go: this workspace's storage on this machine (Tether's metadata). */
function auditDir(extension: vscode.ExtensionContext): string {
  return vscode.Uri.joinPath(extension.storageUri ?? extension.globalStorageUri, "audit").fsPath;
}
