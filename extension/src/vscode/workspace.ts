// The workspace folder as the extension reaches it: its host (vscode.workspace.fs, and for a remote
// folder the remote executor chosen once), its mirror folder, where the CLI keeps its transcripts,
// the watcher on its agent context, and the file operations the chat asks for (open a file, suggest
// files for an @-mention).

import { existsSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { FileSuggestion, Where } from "../contract/protocol";
import type { ProjectSource } from "../chat/contextSync";
import { chooseFolders, type FolderChoice, type FolderInfo } from "../chat/folders";
import { CONTEXT_WATCH_GLOB, mirrorFolder } from "../remote/context";
import type { RemoteExecutor } from "../remote/executor";
import { remoteFacts } from "../remote/facts";
import { selectExecutor } from "../remote/select";
import type { RemoteExecutorSetting } from "../settings";
import { VscodeHost } from "./vscodeHost";

const FIND_FILES_TIMEOUT_MS = 1500;
/** Editors save in bursts; one resync per burst of context file changes. */
const CONTEXT_SYNC_DEBOUNCE_MS = 300;

export interface WorkspaceDeps {
  extension: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  remoteExecutor(): RemoteExecutorSetting;
  /** The remote executor was chosen (the status bar shows it). */
  executorChosen(executor: RemoteExecutor): void;
  /** A context file changed (debounced). */
  contextChanged(): Promise<void>;
  fail(what: string, error: unknown): void;
}

/** The folder new sessions work in: `tether.folder` (a folder's name), else the first. */
export function workspaceFolder(name = configuredFolder()): vscode.WorkspaceFolder | undefined {
  return chosenFolders(name)?.primary;
}

/** `tether.folder`: the workspace folder new sessions work in; empty: the first. */
export function configuredFolder(): string {
  const value = vscode.workspace.getConfiguration("tether").get<unknown>("folder");
  return typeof value === "string" ? value.trim() : "";
}

/** The session's folder (by name; default `tether.folder`) and the others on the same machine. */
export function chosenFolders(name = configuredFolder()): FolderChoice<vscode.WorkspaceFolder & FolderInfo> | undefined {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => ({ ...folder, scheme: folder.uri.scheme, authority: folder.uri.authority }));
  return chooseFolders(folders, name || undefined);
}

/** Local: the agent and the files on one machine. ui-remote: the agent here, the files over the
 * remote connection. workspace: the agent runs on the remote side, next to the files. */
export function whereItRuns(extension: vscode.ExtensionContext): Where {
  if (extension.extension.extensionKind === vscode.ExtensionKind.Workspace && vscode.env.remoteName) return "workspace";
  const folder = workspaceFolder();
  return folder && folder.uri.scheme !== "file" ? "ui-remote" : "local";
}

export function workspaceLabel(): string {
  const folder = workspaceFolder();
  if (!folder) return "no folder";
  const remote = vscode.env.remoteName;
  return remote ? `${remote}: ${folder.uri.path}` : folder.uri.fsPath;
}

/** The workspace folder's path as the agent's tools name files (a remote folder's own path). */
export function workspaceRootPath(): string | undefined {
  const folder = workspaceFolder();
  if (!folder) return undefined;
  return folder.uri.scheme === "file" ? folder.uri.fsPath : folder.uri.path;
}

/** VS Code ships ripgrep; prefer it to whatever is on PATH. */
export function bundledRipgrep(): string | undefined {
  const candidates = ["node_modules/@vscode/ripgrep/bin/rg", "node_modules.asar.unpacked/@vscode/ripgrep/bin/rg"].map((p) =>
    path.join(vscode.env.appRoot, p + (process.platform === "win32" ? ".exe" : "")),
  );
  return candidates.find((c) => existsSync(c));
}

export class Workspace implements vscode.Disposable {
  /** One host per folder (by URI); a remote's folders share its executor. */
  private readonly hosts = new Map<string, VscodeHost>();
  private executorInUse: RemoteExecutor | undefined;
  private readonly watchers = new Map<string, vscode.FileSystemWatcher>();
  private watchTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: WorkspaceDeps) {}

  /** The remote executor the sessions use, once chosen. */
  get executor(): RemoteExecutor | undefined {
    return this.executorInUse;
  }

  /** The project for a session: its host, root, and for a remote folder the mirror and the
   * remote's facts. Starts watching the project's agent context. */
  async source(folderName?: string): Promise<ProjectSource> {
    const choice = chosenFolders(folderName);
    if (!choice) throw new Error("open a folder first: Tether works on the files of a workspace folder");
    const folder = choice.primary;
    for (const why of choice.leftOut) this.deps.log.warn(`workspace folders: ${why}`);
    const host = await this.hostFor(folder.uri);
    this.watchContext(folder.uri);
    const base = { host, root: host.root, folder: folder.name };
    const remote = folder.uri.scheme !== "file";
    // The other folders come through the same host (same machine); paths name them by their own roots.
    const others = choice.others.map((other) =>
      remote ? { root: other.uri.path, mirror: this.mirrorFor(other.uri) } : { root: other.uri.fsPath },
    );
    const withOthers = others.length ? { ...base, others } : base;
    if (!remote) return withOthers;
    const known = this.executorInUse?.facts() ?? {};
    return { ...withOthers, remote: { mirror: this.mirrorFor(folder.uri), facts: () => remoteFacts(host, host.root, known) } };
  }

  /** The host for a workspace folder; for a remote folder, with the remote executor chosen. */
  async hostFor(folder: vscode.Uri): Promise<VscodeHost> {
    const known = this.hosts.get(folder.toString());
    if (known) return known;
    let executor: RemoteExecutor | undefined;
    if (folder.scheme !== "file" && this.executorInUse) {
      executor = this.executorInUse;
    } else if (folder.scheme !== "file") {
      const started = performance.now();
      try {
        executor = await selectExecutor(folder, this.deps.extension.extensionUri, this.deps.remoteExecutor(), (m) => this.deps.log.info(m));
        this.deps.log.info(`remote executor: ${executor.tier} — ${executor.description} (chosen in ${(performance.now() - started).toFixed(0)} ms)`);
      } catch (error) {
        // Untrusted: Tether Remote refuses, and so does every other tier (VscodeHost); the session
        // still reads and searches through vscode.workspace.fs, and the user learns why.
        if (vscode.workspace.isTrusted) throw error;
        const why = error instanceof Error ? error.message : String(error);
        this.deps.log.warn(`no remote executor: ${why}`);
        void vscode.window.showWarningMessage(`Tether: ${why}`);
      }
    }
    const host = this.hosts.get(folder.toString()) ?? new VscodeHost(folder, { ripgrepPath: bundledRipgrep(), ...(executor ? { executor } : {}) });
    this.hosts.set(folder.toString(), host);
    if (executor && executor !== this.executorInUse) {
      this.executorInUse = executor;
      this.deps.executorChosen(executor);
    }
    return host;
  }

  /** The CLI's cwd for a remote folder. */
  mirrorFor(folder: vscode.Uri): string {
    return mirrorFolder(this.deps.extension.globalStorageUri.fsPath, folder.authority || folder.scheme, folder.path);
  }

  /** Where the CLI keeps this workspace's transcripts: keyed by its cwd (the mirror for a remote). */
  /** The agent's local cwd: the workspace folder, or a remote workspace's mirror. */
  agentCwd(): string {
    const folder = workspaceFolder();
    return folder ? (folder.uri.scheme === "file" ? folder.uri.fsPath : this.mirrorFor(folder.uri)) : process.cwd();
  }

  displayPath(uri: vscode.Uri): string {
    return vscode.workspace.asRelativePath(uri, false);
  }

  async openFile(p: string, line?: number): Promise<void> {
    const uri = resolveWorkspaceUri(p);
    if (!uri) return;
    const position = line && line > 0 ? new vscode.Position(line - 1, 0) : undefined;
    await vscode.window.showTextDocument(uri, {
      preview: true,
      ...(position ? { selection: new vscode.Range(position, position) } : {}),
    });
  }

  /** Files for an @-mention, found by VS Code's file search. */
  async suggestFiles(query: string): Promise<FileSuggestion[]> {
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
      const files = uris.map((uri) => this.displayPath(uri));
      return [...folderSuggestions(files, cleaned), ...files.map((rel): FileSuggestion => ({ path: rel, label: rel }))];
    } finally {
      clearTimeout(timer);
      cancel.dispose();
    }
  }

  dispose(): void {
    clearTimeout(this.watchTimer);
    for (const watcher of this.watchers.values()) watcher.dispose();
    for (const host of this.hosts.values()) host.dispose();
  }

  private watchContext(folder: vscode.Uri): void {
    if (this.watchers.has(folder.toString())) return;
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, CONTEXT_WATCH_GLOB));
    const changed = () => {
      clearTimeout(this.watchTimer);
      this.watchTimer = setTimeout(
        () => void this.deps.contextChanged().catch((e) => this.deps.fail("syncing the project context", e)),
        CONTEXT_SYNC_DEBOUNCE_MS,
      );
    };
    watcher.onDidChange(changed);
    watcher.onDidCreate(changed);
    watcher.onDidDelete(changed);
    this.watchers.set(folder.toString(), watcher);
  }
}

/** The folders of the files found whose own path matches the query (`src` finds `src/`). */
export function folderSuggestions(files: string[], query: string, limit = 10): FileSuggestion[] {
  const q = query.toLowerCase();
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const folder = parts.slice(0, i).join("/");
      if (!q || folder.toLowerCase().includes(q)) folders.add(folder);
    }
  }
  return [...folders].sort((a, b) => a.length - b.length).slice(0, limit).map((folder) => ({ path: `${folder}/`, label: `${folder}/`, kind: "folder" }));
}

function resolveWorkspaceUri(p: string): vscode.Uri | undefined {
  const folder = workspaceFolder();
  if (!folder) return undefined;
  const isAbsolute = p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p);
  if (folder.uri.scheme === "file") return vscode.Uri.file(isAbsolute ? p : path.join(folder.uri.fsPath, p));
  return isAbsolute ? folder.uri.with({ path: p }) : vscode.Uri.joinPath(folder.uri, p);
}
