// TetherController: owns everything the extension does while active — the log, settings, the chat
// view, the session with the agent, the diff reviews, the status bar and the commands.

import { existsSync, promises as fsp } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type {
  Attachment,
  ModeInfo,
  PermissionDecision,
  UiEvent,
  UiState,
  WebviewToExtension,
  Where,
} from "../../webview/src/protocol";
import type { AgentEvent, AgentPermissionRequest } from "./chat/agentEvents";
import { ChatViewProvider, CHAT_VIEW_ID } from "./chat/chatView";
import { EventAdapter } from "./chat/eventAdapter";
import { listSessions, projectDir, transcriptToEvents } from "./chat/history";
import { buildPrompt } from "./chat/prompt";
import { transcriptToMarkdown } from "./chat/transcript";
import type { ExecOutput, TetherHost } from "./core/host";
import { createTetherServer, loadTetherCore } from "./core/wasm";
import { NodeHost } from "./node/nodeHost";
import {
  agentFiles,
  CONTEXT_WATCH_GLOB,
  contextFingerprint,
  memoryPrompt,
  mirrorFolder,
  readProjectContext,
  syncMirror,
} from "./remote/context";
import { TIER_LABELS, type ExecutorTier, type RemoteExecutor } from "./remote/executor";
import { selectExecutor } from "./remote/select";
import type { PermissionAnswer, PermissionMode } from "./session/agent";
import { findClaude, SessionDriver } from "./session/driver";
import { isPermissionMode, readSettings, type TetherSettings } from "./settings";
import { DiffReviews } from "./vscode/diffReview";
import { VscodeHost } from "./vscode/vscodeHost";

const MODES: ModeInfo[] = [
  { id: "default", label: "Ask", description: "Ask before edits and commands" },
  { id: "acceptEdits", label: "Accept edits", description: "Apply edits without asking; ask for commands" },
  { id: "plan", label: "Plan", description: "Read and plan only; no edits, no commands" },
  { id: "dontAsk", label: "Don't ask", description: "Refuse anything no rule allows" },
  { id: "bypassPermissions", label: "Bypass", description: "Allow everything (dangerous)" },
];
const FIND_FILES_TIMEOUT_MS = 1500;
/** Editors save in bursts; one resync per burst of context file changes. */
const CONTEXT_SYNC_DEBOUNCE_MS = 300;
const REMOTE_FACTS_TIMEOUT_MS = 5000;

/** What a session needs to know about the project before it starts. */
interface ProjectSetup {
  /** The CLI's cwd for a remote folder. */
  mirror?: string;
  memory?: string;
  agentFiles?: { name: string; text: string }[];
  remote?: { os?: string; shell?: string; gitBranch?: string };
}

interface PendingPermission {
  request: AgentPermissionRequest;
  resolve(answer: PermissionAnswer): void;
}

export class TetherController implements vscode.Disposable {
  private readonly log: vscode.LogOutputChannel;
  private readonly view: ChatViewProvider;
  private readonly reviews: DiffReviews;
  private readonly statusBar: vscode.StatusBarItem;
  private readonly adapter = new EventAdapter();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly pending = new Map<string, PendingPermission>();
  private settings: TetherSettings;
  private session: SessionDriver | undefined;
  private starting: Promise<SessionDriver> | undefined;
  private host: VscodeHost | undefined;
  private executor: RemoteExecutor | undefined;
  /** Executors of a forced tier, for the diagnostics commands (benchmarks and tests). */
  private readonly tierExecutors = new Map<ExecutorTier, Promise<RemoteExecutor>>();
  private contextWatcher: vscode.FileSystemWatcher | undefined;
  private contextTimer: NodeJS.Timeout | undefined;
  /** The project context the running session was started with. */
  private contextSeen: string | undefined;
  /** The context changed during a turn: restart once the turn is over. */
  private restartAfterTurn = false;
  /** The memory text the session's system prompt holds (unknown for one resumed from history). */
  private memoryInPrompt: { text: string | undefined } | undefined;
  /** Changed memory for the next prompt: a resumed CLI keeps its first system prompt (measured
   * with 2.1.330: a new initialize's appendSystemPrompt is ignored on --resume). */
  private memoryReminder: string | undefined;
  /** Everything shown in the chat since the last clear: replayed on reload, exported. */
  private transcript: UiEvent[] = [];
  private resumeId: string | undefined;
  private lastPrompt: { text: string; attachments: Attachment[] } | undefined;
  private state: UiState;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly activatedAt: { startMs: number; endMs?: number },
  ) {
    this.log = vscode.window.createOutputChannel("Tether", { log: true });
    this.settings = this.readSettings();
    this.state = {
      mode: this.settings.defaultMode,
      model: this.settings.model,
      models: [],
      modes: MODES,
      where: whereItRuns(context),
      workspaceLabel: workspaceLabel(),
      connected: true,
      busy: false,
    };
    this.view = new ChatViewProvider(vscode.Uri.joinPath(context.extensionUri, "dist", "webview"), {
      onReady: () => this.onViewReady(),
      onMessage: (message) => void this.onMessage(message).catch((error) => this.fail("the chat", error)),
    });
    this.reviews = new DiffReviews((message) => this.log.info(message));
    this.statusBar = vscode.window.createStatusBarItem("tether.status", vscode.StatusBarAlignment.Left, 50);
    this.statusBar.name = "Tether";
    this.statusBar.command = "tether.switchMode";
    this.updateStatusBar();
    this.statusBar.show();

    this.disposables.push(
      this.log,
      this.view,
      this.reviews,
      this.statusBar,
      vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, this.view, { webviewOptions: { retainContextWhenHidden: true } }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("tether")) this.settings = this.readSettings();
      }),
      ...this.registerCommands(),
    );
    this.log.info(`Tether ${context.extension.packageJSON.version} activated (${this.state.where}, ${vscode.env.remoteName ?? "local"})`);
  }

  /** Called by activate() when it returns; the benchmark reads this line from the log. */
  activated(): void {
    const ms = (this.activatedAt.endMs ?? performance.now()) - this.activatedAt.startMs;
    this.log.info(`activate() took ${ms.toFixed(1)} ms`);
  }

  dispose(): void {
    for (const p of this.pending.values()) p.resolve({ decision: "deny", reason: "VS Code is closing." });
    void this.session?.stop();
    clearTimeout(this.contextTimer);
    this.contextWatcher?.dispose();
    this.host?.dispose();
    for (const executor of this.tierExecutors.values()) void executor.then((e) => e.dispose(), () => undefined);
    for (const d of this.disposables) d.dispose();
  }

  // ---------------------------------------------------------------- commands

  private registerCommands(): vscode.Disposable[] {
    const command = (id: string, run: (...args: never[]) => unknown) =>
      vscode.commands.registerCommand(id, async (...args: never[]) => {
        try {
          return await run(...args);
        } catch (error) {
          this.fail(id, error);
          return undefined;
        }
      });
    return [
      command("tether.openChat", () => this.view.reveal()),
      command("tether.newSession", () => this.newSession()),
      command("tether.resumeSession", () => this.pickSessionToResume()),
      command("tether.switchMode", () => this.pickMode()),
      command("tether.stop", () => this.session?.interrupt()),
      command("tether.addFileToContext", (uri?: vscode.Uri) => this.addFile(uri)),
      command("tether.addSelectionToContext", () => this.addSelection()),
      command("tether.runLocally", () => this.moveAgent("ui")),
      command("tether.runOnRemote", () => this.moveAgent("workspace")),
      command("tether.showLogs", () => this.log.show()),
      command("tether.exportMarkdown", () => this.export("markdown")),
      command("tether.exportJsonl", () => this.export("jsonl")),
      command("tether.acceptEdit", (uri?: vscode.Uri) => this.reviews.accept(uri)),
      command("tether.rejectEdit", (uri?: vscode.Uri) => this.reviews.reject(uri, "The user rejected the change.")),
      // For the benchmark and the e2e test: how long activation took, measured inside the host.
      command("tether.reportActivation", () => ({
        activationMs: (this.activatedAt.endMs ?? performance.now()) - this.activatedAt.startMs,
        wasmLoaded: this.wasmLoaded,
      })),
      command("tether.showRemoteExecutor", () => this.showExecutor()),
      // For benchmarks and tests, timed inside the extension host: a command through one tier of
      // the remote executor (or "direct": child_process here), and a Grep through the core.
      command("tether.diagnostics.execTimes", (args: { tier: ExecutorTier | "direct"; command: string; runs: number; timeoutMs?: number }) =>
        this.execTimes(args),
      ),
      command("tether.diagnostics.grepTimes", (args: { tier: ExecutorTier | "direct"; pattern: string; runs: number }) =>
        this.grepTimes(args),
      ),
      command("tether.diagnostics.ripgrepTimes", (args: { args: string[]; runs: number }) => this.ripgrepTimes(args)),
    ];
  }

  private wasmLoaded = false;

  private async pickMode(): Promise<void> {
    const picked = await vscode.window.showQuickPick(
      MODES.map((m) => ({ label: m.label, description: m.id === this.state.mode ? "current" : "", detail: m.description, id: m.id })),
      { title: "Tether: permission mode" },
    );
    if (picked) this.setMode(picked.id);
  }

  private async pickSessionToResume(): Promise<void> {
    const sessions = await listSessions(this.historyDir());
    if (sessions.length === 0) {
      void vscode.window.showInformationMessage("Tether: no earlier sessions for this workspace.");
      return;
    }
    const picked = await vscode.window.showQuickPick(
      sessions.map((s) => ({ label: s.title, description: new Date(s.updatedAt).toLocaleString(), detail: `${s.messageCount} messages`, id: s.id })),
      { title: "Tether: resume a session" },
    );
    if (picked) {
      await this.view.reveal();
      await this.resume(picked.id);
    }
  }

  private async addFile(uri?: vscode.Uri): Promise<void> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target) return;
    await this.view.reveal();
    this.view.post({ type: "addAttachment", attachment: { kind: "file", path: this.displayPath(target) } });
  }

  private async addSelection(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.selection.isEmpty) return;
    const { start, end } = editor.selection;
    await this.view.reveal();
    this.view.post({
      type: "addAttachment",
      attachment: {
        kind: "selection",
        path: this.displayPath(editor.document.uri),
        range: { startLine: start.line + 1, endLine: end.line + 1 },
        text: editor.document.getText(editor.selection),
      },
    });
  }

  /** Where the agent runs is VS Code's own `remote.extensionKind`; it takes effect after a reload. */
  private async moveAgent(kind: "ui" | "workspace"): Promise<void> {
    const id = this.context.extension.id;
    const config = vscode.workspace.getConfiguration("remote");
    const current = config.inspect<Record<string, string[]>>("extensionKind")?.globalValue ?? {};
    await config.update("extensionKind", { ...current, [id]: [kind] }, vscode.ConfigurationTarget.Global);
    const where = kind === "ui" ? "on this machine (UI side)" : "on the remote (workspace side)";
    const choice = await vscode.window.showInformationMessage(`Tether will run ${where} after a reload.`, "Reload Window");
    if (choice === "Reload Window") await vscode.commands.executeCommand("workbench.action.reloadWindow");
  }

  private async export(format: "markdown" | "jsonl"): Promise<void> {
    const content =
      format === "markdown" ? transcriptToMarkdown(this.transcript) : this.transcript.map((e) => JSON.stringify(e)).join("\n") + "\n";
    const doc = await vscode.workspace.openTextDocument({ language: format === "markdown" ? "markdown" : "jsonl", content });
    await vscode.window.showTextDocument(doc, { preview: false });
  }

  // ---------------------------------------------------------------- webview

  private onViewReady(): void {
    this.view.post({ type: "init", state: this.state });
    if (this.transcript.length) this.view.post({ type: "replay", events: this.transcript });
    // The chat is open, so a prompt may follow: load the core now (after activation, while the
    // webview renders) rather than on the first prompt. A failure is reported by that prompt.
    setImmediate(() => {
      try {
        this.loadWasm();
      } catch (error) {
        this.log.warn(`loading the wasm core failed: ${messageOf(error)}`);
      }
    });
  }

  private async onMessage(message: WebviewToExtension): Promise<void> {
    switch (message.type) {
      case "ready":
        return this.onViewReady();
      case "sendPrompt":
        return this.sendPrompt(message.text, message.attachments ?? []);
      case "stop":
        return this.session?.interrupt();
      case "newSession":
        return this.newSession();
      case "resume":
        return this.resume(message.sessionId);
      case "requestHistory":
        return this.view.post({ type: "history", sessions: await listSessions(this.historyDir()) });
      case "setMode":
        return this.setMode(message.mode);
      case "setModel":
        return this.setModel(message.model);
      case "permission":
        return this.answerFromCard(message.requestId, message.decision, message.reason);
      case "openFile":
        return this.openFile(message.path, message.line);
      case "openDiff": {
        const pending = this.pending.get(message.requestId);
        if (pending?.request.review) await this.openReview(pending.request);
        return;
      }
      case "suggestFiles":
        return this.view.post({ type: "fileSuggestions", requestId: message.requestId, items: await this.suggestFiles(message.query) });
      case "retry":
        if (this.lastPrompt) return this.sendPrompt(this.lastPrompt.text, this.lastPrompt.attachments, false);
        return;
    }
  }

  private emit(events: UiEvent[], state?: Partial<UiState>): void {
    if (events.length) {
      this.transcript.push(...events);
      this.view.pushEvents(events);
    }
    if (state && Object.keys(state).length) {
      this.state = { ...this.state, ...state };
      this.view.post({ type: "state", ...state });
      this.updateStatusBar();
    }
  }

  // ---------------------------------------------------------------- session

  private async sendPrompt(text: string, attachments: Attachment[], echo = true): Promise<void> {
    if (!text.trim() && attachments.length === 0) return;
    this.lastPrompt = { text, attachments };
    if (echo) this.emit([{ type: "userMessage", id: `user-${Date.now()}`, text, ...(attachments.length ? { attachments } : {}) }]);
    this.emit([{ type: "status", state: "running" }], { busy: true });
    let session: SessionDriver;
    try {
      session = await this.ensureSession();
    } catch (error) {
      this.emit([{ type: "error", kind: "other", message: `Could not start Claude Code: ${messageOf(error)}`, retryable: true }], {
        busy: false,
      });
      return;
    }
    const prompt = buildPrompt(text, attachments);
    const reminder = this.memoryReminder;
    this.memoryReminder = undefined;
    const promptText = reminder
      ? `<system-reminder>\nThe project's instructions changed during this session; they now read as follows and replace the earlier ones.\n\n${reminder}\n</system-reminder>\n\n${prompt.text}`
      : prompt.text;
    const outcome = await session.prompt(promptText, prompt.images.length ? prompt.images : undefined);
    if (!outcome.ok && !outcome.done && outcome.error) this.log.warn(`turn ended: ${outcome.error.message}`);
    this.emit([], { busy: false });
    if (this.restartAfterTurn) {
      this.restartAfterTurn = false;
      await this.restartForContext("after the turn");
    }
  }

  private loadWasm(): void {
    if (this.wasmLoaded) return;
    const started = performance.now();
    loadTetherCore();
    this.wasmLoaded = true;
    this.log.info(`wasm core loaded in ${(performance.now() - started).toFixed(1)} ms`);
  }

  /** The host for the workspace folder; for a remote folder, with the remote executor chosen. */
  private async workspaceHost(folder: vscode.Uri): Promise<VscodeHost> {
    if (this.host) return this.host;
    let executor: RemoteExecutor | undefined;
    if (folder.scheme !== "file") {
      const started = performance.now();
      executor = await selectExecutor(folder, this.context.extensionUri, this.settings.remoteExecutor, (m) => this.log.info(m));
      this.log.info(`remote executor: ${executor.tier} — ${executor.description} (chosen in ${(performance.now() - started).toFixed(0)} ms)`);
    }
    this.host ??= new VscodeHost(folder, { ripgrepPath: bundledRipgrep(), ...(executor ? { executor } : {}) });
    this.executor = executor;
    this.updateStatusBar();
    return this.host;
  }

  /** The CLI's side of the project: for a remote folder the mirror (with the project's Claude
   * context synced into it) and what the model is told about the remote; the project's memory
   * files for the system prompt; and a watcher that restarts the session when they change. */
  private async prepareProject(folder: vscode.Uri, host: VscodeHost): Promise<ProjectSetup> {
    const context = await readProjectContext(host, host.root);
    this.contextSeen = contextFingerprint(context);
    this.watchContext(folder);
    const memory = memoryPrompt(context, host.root);
    if (this.resumeId && this.memoryInPrompt && memory !== this.memoryInPrompt.text) {
      this.memoryReminder = memory ?? "(The project's CLAUDE.md files were removed: there are no project instructions now.)";
    } else if (!this.resumeId) {
      this.memoryInPrompt = { text: memory };
    }
    const agents = agentFiles(context);
    const common = { ...(memory ? { memory } : {}), ...(agents.length ? { agentFiles: agents } : {}) };
    if (folder.scheme === "file") return common;
    const mirror = this.mirrorFor(folder);
    const changed = await syncMirror(mirror, context);
    if (changed.length) this.log.info(`mirror ${mirror}: synced ${changed.join(", ")}`);
    return { mirror, ...common, remote: await this.remoteFacts(host) };
  }

  private mirrorFor(folder: vscode.Uri): string {
    return mirrorFolder(this.context.globalStorageUri.fsPath, folder.authority || folder.scheme, folder.path);
  }

  /** The remote's OS, shell and git branch for the system prompt: the helper knows the first two;
   * one command asks the remote for what is missing. */
  private async remoteFacts(host: VscodeHost): Promise<{ os?: string; shell?: string; gitBranch?: string }> {
    const known = this.executor?.facts() ?? {};
    const reported = new Map<string, string>();
    try {
      const out = await host.run({
        command: 'echo "os=$(uname -sr 2>/dev/null)"; echo "shell=$SHELL"; echo "branch=$(git rev-parse --abbrev-ref HEAD 2>/dev/null)"',
        cwd: host.root,
        env: [],
        timeoutMs: REMOTE_FACTS_TIMEOUT_MS,
        maxOutputBytes: 4096,
      });
      for (const line of out.stdout.split("\n")) {
        const eq = line.indexOf("=");
        if (eq > 0 && line.slice(eq + 1).trim()) reported.set(line.slice(0, eq), line.slice(eq + 1).trim());
      }
    } catch {
      // Commands not allowed (untrusted) or no executor: the model is told less.
    }
    const os = known.os ?? reported.get("os");
    const shellPath = known.shell ?? reported.get("shell");
    const shell = shellPath ? shellPath.slice(shellPath.lastIndexOf("/") + 1) : undefined;
    const branch = reported.get("branch");
    const gitBranch = branch && branch !== "HEAD" ? branch : undefined;
    return { ...(os ? { os } : {}), ...(shell ? { shell } : {}), ...(gitBranch ? { gitBranch } : {}) };
  }

  private watchContext(folder: vscode.Uri): void {
    if (this.contextWatcher) return;
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, CONTEXT_WATCH_GLOB));
    const changed = () => {
      clearTimeout(this.contextTimer);
      this.contextTimer = setTimeout(() => void this.contextChanged().catch((e) => this.fail("syncing the project context", e)), CONTEXT_SYNC_DEBOUNCE_MS);
    };
    watcher.onDidChange(changed);
    watcher.onDidCreate(changed);
    watcher.onDidDelete(changed);
    this.contextWatcher = watcher;
  }

  /** CLAUDE.md or .claude/* changed: a running session restarts with --resume to pick it up. */
  private async contextChanged(): Promise<void> {
    const host = this.host;
    if (!host || !this.session?.running) return;
    const context = await readProjectContext(host, host.root);
    if (contextFingerprint(context) === this.contextSeen) return;
    if (this.state.busy) {
      this.restartAfterTurn = true;
      this.log.info("project context changed during a turn: restarting the session when it ends");
      return;
    }
    await this.restartForContext("now");
  }

  private async restartForContext(when: string): Promise<void> {
    const id = this.session?.sessionId ?? this.resumeId;
    if (!this.session?.running || !id) return;
    this.log.info(`project context changed: restarting Claude Code with --resume ${id} (${when})`);
    await this.stopSession();
    this.resumeId = id;
    await this.ensureSession();
  }

  private ensureSession(): Promise<SessionDriver> {
    if (this.session?.running) return Promise.resolve(this.session);
    this.starting ??= this.startSession().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async startSession(): Promise<SessionDriver> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error("open a folder first: Tether works on the files of a workspace folder");
    this.loadWasm();
    const host = await this.workspaceHost(folder.uri);
    const project = await this.prepareProject(folder.uri, host);
    const settings = this.settings;
    const session = new SessionDriver({
      host,
      root: host.root,
      ...(project.mirror ? { mirror: project.mirror } : {}),
      ...(project.memory ? { extraSystemPrompt: project.memory } : {}),
      ...(project.agentFiles?.length ? { agentFiles: project.agentFiles } : {}),
      ...(project.remote ? { remote: project.remote } : {}),
      claudePath: findClaude(settings.claudePath || undefined),
      mode: (isPermissionMode(this.state.mode) ? this.state.mode : settings.defaultMode) as PermissionMode,
      ...(this.state.model ? { model: this.state.model } : {}),
      ...(this.resumeId ? { resume: this.resumeId } : {}),
      env: settings.environment,
      allowedTools: settings.allowedTools,
      disallowedTools: settings.disallowedTools,
      onEvent: (event) => this.onAgentEvent(event as unknown as AgentEvent),
      onPermission: (request, signal) => this.onPermission(request as unknown as AgentPermissionRequest, signal),
      log: (message) => this.log.info(message),
    });
    this.log.info(
      `starting Claude Code in ${project.mirror ?? host.root}${project.mirror ? ` (mirror of ${folder.uri.toString()})` : ""}` +
        (this.resumeId ? ` (resume ${this.resumeId})` : ""),
    );
    await session.start();
    this.session = session;
    this.emit([], { connected: true });
    return session;
  }

  private onAgentEvent(event: AgentEvent): void {
    const adapted = this.adapter.adapt(event);
    if (event.type === "done") this.resumeId = event.sessionId;
    if (event.type === "sessionInit") this.resumeId = event.sessionId;
    // The CLI died: the next prompt (or Retry) starts it again, resuming the same session.
    if (event.type === "error" && event.kind === "crash") {
      this.session = undefined;
      if (event.sessionId) this.resumeId = event.sessionId;
    }
    this.emit(adapted.events, adapted.state);
  }

  private onPermission(request: AgentPermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    const adapted = this.adapter.adapt(request);
    this.emit(adapted.events, adapted.state);
    return new Promise<PermissionAnswer>((resolve) => {
      this.pending.set(request.id, { request, resolve });
      signal.addEventListener("abort", () => {
        if (!this.pending.delete(request.id)) return;
        void this.reviews.cancel(request.id);
        this.emit([{ type: "permissionResolved", requestId: request.id, outcome: "cancelled" }]);
      });
      if (request.review) void this.openReview(request).catch((error) => this.fail("opening the diff", error));
    });
  }

  private async openReview(request: AgentPermissionRequest): Promise<void> {
    const review = request.review;
    if (!review) return;
    await this.reviews.open(request.id, review, (answer) => {
      this.resolvePermission(request.id, answer.decision, answer.reason, answer.userContent);
    });
  }

  private async answerFromCard(requestId: string, decision: PermissionDecision, reason?: string): Promise<void> {
    const userContent = await this.reviews.answeredElsewhere(requestId, decision);
    this.resolvePermission(requestId, decision, reason, userContent);
  }

  private resolvePermission(requestId: string, decision: PermissionDecision, reason?: string, userContent?: string): void {
    const pending = this.pending.get(requestId);
    if (!pending) return;
    this.pending.delete(requestId);
    pending.resolve({ decision, ...(reason ? { reason } : {}), ...(userContent !== undefined ? { userContent } : {}) });
    this.emit([
      {
        type: "permissionResolved",
        requestId,
        outcome: decision === "deny" ? "denied" : "allowed",
        ...(decision === "always" ? { always: true } : {}),
        ...(reason ? { reason } : {}),
      },
    ]);
  }

  private setMode(mode: string): void {
    if (!isPermissionMode(mode)) return;
    if (this.session?.running) this.session.setMode(mode);
    // The agent confirms with modeChanged; without a session the mode waits for the next one.
    else this.emit([{ type: "modeChange", mode }], { mode });
  }

  private setModel(model: string): void {
    if (this.session?.running) this.session.setModel(model || null);
    this.emit([], { model });
  }

  private async stopSession(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    for (const [id, p] of this.pending) {
      p.resolve({ decision: "deny", reason: "The session ended." });
      void this.reviews.cancel(id);
    }
    this.pending.clear();
    await session?.stop();
  }

  private async newSession(): Promise<void> {
    await this.stopSession();
    this.resumeId = undefined;
    this.memoryInPrompt = undefined;
    this.memoryReminder = undefined;
    this.transcript = [];
    this.adapter.reset();
    this.view.post({ type: "clear" });
    this.emit([], { sessionId: undefined as unknown as string, busy: false });
  }

  private async resume(sessionId: string): Promise<void> {
    await this.stopSession();
    this.resumeId = sessionId;
    this.memoryInPrompt = undefined;
    this.memoryReminder = undefined;
    this.adapter.reset();
    const file = path.join(this.historyDir(), `${sessionId}.jsonl`);
    const text = await fsp.readFile(file, "utf8").catch(() => "");
    this.transcript = transcriptToEvents(text);
    this.view.post({ type: "replay", events: this.transcript });
    this.emit([], { sessionId, busy: false });
  }

  // ---------------------------------------------------------------- helpers

  /** Where the CLI keeps this workspace's transcripts: keyed by its cwd (the mirror for a remote). */
  private historyDir(): string {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const cwd = folder ? (folder.uri.scheme === "file" ? folder.uri.fsPath : this.mirrorFor(folder.uri)) : process.cwd();
    return projectDir(os.homedir(), cwd);
  }

  private async showExecutor(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme === "file") {
      void vscode.window.showInformationMessage("Tether: the workspace is on this machine; commands run here directly.");
      return;
    }
    const host = await this.workspaceHost(folder.uri);
    void vscode.window.showInformationMessage(`Tether runs commands on ${host.root} through ${this.executor?.description ?? "nothing"}.`);
  }

  /** A host for one forced tier (or this machine's), for the diagnostics commands. */
  private async diagnosticsHost(tier: ExecutorTier | "direct"): Promise<{ host: TetherHost; root: string }> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error("open a folder first");
    if (tier === "direct") {
      const root = folder.uri.scheme === "file" ? folder.uri.fsPath : folder.uri.path;
      return { host: new NodeHost({ ripgrepPath: bundledRipgrep() ?? null }), root };
    }
    if (folder.uri.scheme === "file") throw new Error("the workspace is local: there is no remote executor to measure");
    let executor = this.tierExecutors.get(tier);
    if (!executor) {
      executor = selectExecutor(folder.uri, this.context.extensionUri, tier, (m) => this.log.info(m));
      this.tierExecutors.set(tier, executor);
      // A tier that is not available now may be later (the helper installed meanwhile, say).
      executor.catch(() => this.tierExecutors.delete(tier));
    }
    const host = new VscodeHost(folder.uri, { executor: await executor });
    return { host, root: host.root };
  }

  private async execTimes(args: { tier: ExecutorTier | "direct"; command: string; runs: number; timeoutMs?: number }) {
    const runner = await this.diagnosticsHost(args.tier);
    const samples: number[] = [];
    let last: ExecOutput | undefined;
    for (let i = 0; i < Math.max(1, args.runs); i++) {
      const started = performance.now();
      last = await runner.host.run({ command: args.command, cwd: runner.root, env: [], timeoutMs: args.timeoutMs ?? 30_000, maxOutputBytes: 1 << 20 });
      samples.push(performance.now() - started);
    }
    return { tier: args.tier, samples, output: last };
  }

  /** VS Code's bundled rg spawned directly from this extension host: the baseline for Grep. */
  private async ripgrepTimes(args: { args: string[]; runs: number }) {
    const host = new NodeHost({ ripgrepPath: bundledRipgrep() ?? null });
    const samples: number[] = [];
    for (let i = 0; i < Math.max(1, args.runs); i++) {
      const started = performance.now();
      const out = await host.ripgrep(args.args, os.tmpdir(), 60_000);
      if (!out) throw new Error("no ripgrep in this VS Code");
      samples.push(performance.now() - started);
    }
    return { samples };
  }

  /** The core's Grep tool (tools/call through the wasm MCP server) on the workspace, timed. */
  private async grepTimes(args: { tier: ExecutorTier | "direct"; pattern: string; runs: number }) {
    this.loadWasm();
    const runner = await this.diagnosticsHost(args.tier);
    // Every host call timed, so a slow Grep shows where its time goes.
    const hostCalls: Record<string, { count: number; ms: number }> = {};
    const timedHost = new Proxy(runner.host, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== "function") return value;
        return (...callArgs: unknown[]) => {
          const started = performance.now();
          const result = (value as (...a: unknown[]) => unknown).apply(target, callArgs);
          const record = (hostCalls[String(name)] ??= { count: 0, ms: 0 });
          record.count++;
          if (result instanceof Promise) return result.finally(() => (record.ms += performance.now() - started));
          record.ms += performance.now() - started;
          return result;
        };
      },
    });
    const server = createTetherServer(timedHost, { root: runner.root });
    const samples: number[] = [];
    let text = "";
    try {
      for (let i = 0; i < Math.max(1, args.runs); i++) {
        const request = JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "Grep", arguments: { pattern: args.pattern, path: runner.root, head_limit: 0 } } });
        const started = performance.now();
        const response = await server.handle(request);
        samples.push(performance.now() - started);
        text = response ?? "";
      }
    } finally {
      server.free();
    }
    return { tier: args.tier, samples, hostCalls, response: text.slice(0, 2000) };
  }

  private displayPath(uri: vscode.Uri): string {
    return vscode.workspace.asRelativePath(uri, false);
  }

  private resolveWorkspaceUri(p: string): vscode.Uri | undefined {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) return undefined;
    const isAbsolute = p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p);
    if (folder.uri.scheme === "file") return vscode.Uri.file(isAbsolute ? p : path.join(folder.uri.fsPath, p));
    return isAbsolute ? folder.uri.with({ path: p }) : vscode.Uri.joinPath(folder.uri, p);
  }

  private async openFile(p: string, line?: number): Promise<void> {
    const uri = this.resolveWorkspaceUri(p);
    if (!uri) return;
    const position = line && line > 0 ? new vscode.Position(line - 1, 0) : undefined;
    await vscode.window.showTextDocument(uri, {
      preview: true,
      ...(position ? { selection: new vscode.Range(position, position) } : {}),
    });
  }

  private async suggestFiles(query: string): Promise<{ path: string; label: string }[]> {
    const cleaned = query.replace(/[{}[\]*?]/g, "");
    const pattern = cleaned ? `**/*${cleaned}*` : "**/*";
    const cancel = new vscode.CancellationTokenSource();
    // findFiles on a scheme without a search provider hangs instead of failing.
    const timer = setTimeout(() => cancel.cancel(), FIND_FILES_TIMEOUT_MS);
    try {
      const uris = await Promise.race([
        vscode.workspace.findFiles(pattern, "**/{node_modules,.git}/**", 50, cancel.token),
        new Promise<vscode.Uri[]>((resolve) => cancel.token.onCancellationRequested(() => resolve([]))),
      ]);
      return uris.map((uri) => {
        const rel = this.displayPath(uri);
        return { path: rel, label: rel };
      });
    } finally {
      clearTimeout(timer);
      cancel.dispose();
    }
  }

  private readSettings(): TetherSettings {
    const config = vscode.workspace.getConfiguration("tether");
    const { settings, problems } = readSettings((key) => config.get(key));
    for (const p of problems) this.log?.warn(p.message);
    return settings;
  }

  private updateStatusBar(): void {
    const where = { local: "Local", "ui-remote": "UI↔remote", workspace: "Workspace" }[this.state.where];
    const mode = MODES.find((m) => m.id === this.state.mode)?.label ?? this.state.mode;
    this.statusBar.text = `$(${this.state.busy ? "loading~spin" : "hubot"}) Tether: ${where} · ${mode}`;
    const commands = this.executor
      ? `\nRemote commands: ${TIER_LABELS[this.executor.tier]} (${this.executor.description}).`
      : this.state.where === "ui-remote"
        ? "\nRemote commands: chosen when the first session starts."
        : "";
    this.statusBar.tooltip = `Tether runs ${where === "Local" ? "locally" : where}; permission mode ${mode}.${commands}\nClick to switch the mode.`;
    void vscode.commands.executeCommand("setContext", "tether.busy", this.state.busy);
  }

  private fail(what: string, error: unknown): void {
    this.log.error(`${what}: ${messageOf(error)}`);
    void vscode.window.showErrorMessage(`Tether: ${messageOf(error)}`, "Show Logs").then((choice) => {
      if (choice) this.log.show();
    });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Local: the agent and the files on one machine. ui-remote: the agent here, the files over the
 * remote connection. workspace: the agent runs on the remote side, next to the files. */
function whereItRuns(context: vscode.ExtensionContext): Where {
  if (context.extension.extensionKind === vscode.ExtensionKind.Workspace && vscode.env.remoteName) return "workspace";
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder && folder.uri.scheme !== "file" ? "ui-remote" : "local";
}

function workspaceLabel(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return "no folder";
  const remote = vscode.env.remoteName;
  return remote ? `${remote}: ${folder.uri.path}` : folder.uri.fsPath;
}

/** VS Code ships ripgrep; prefer it to whatever is on PATH. */
function bundledRipgrep(): string | undefined {
  const candidates = ["node_modules/@vscode/ripgrep/bin/rg", "node_modules.asar.unpacked/@vscode/ripgrep/bin/rg"].map((p) =>
    path.join(vscode.env.appRoot, p + (process.platform === "win32" ? ".exe" : "")),
  );
  return candidates.find((c) => existsSync(c));
}
