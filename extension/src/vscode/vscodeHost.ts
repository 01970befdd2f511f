// A TetherHost over VS Code: files through vscode.workspace.fs on the workspace folder's own URIs
// (so a remote folder's files travel over VS Code's remote connection); commands and ripgrep
// through local child_process when the folder is on this machine, else through the remote
// executor (src/remote). Paths are the folder URI's paths.

import * as path from "node:path";
import * as vscode from "vscode";
import {
  hostError,
  mtimesByStat,
  type BackgroundStatus,
  type DirEntry,
  type ExecOutput,
  type ExecRequest,
  type FileKind,
  type FileStat,
  type TetherHost,
} from "../core/host";
import { NodeHost } from "../node/nodeHost";
import type { RemoteExecutor } from "../remote/executor";

/** vscode.FileSystemError codes the core maps (crate/src/wasm.rs); anything else passes as text. */
const KNOWN_FS_CODES = new Set([
  "FileNotFound",
  "FileExists",
  "FileNotADirectory",
  "FileIsADirectory",
  "NoPermissions",
  "Unavailable",
]);

function kindOf(type: vscode.FileType, followLinks: boolean): FileKind {
  if (!followLinks && type & vscode.FileType.SymbolicLink) return "symlink";
  if (type & vscode.FileType.Directory) return "directory";
  if (type & vscode.FileType.File) return "file";
  return "other";
}

const RECONNECT_ADVICE = "Try again once VS Code has reconnected to the remote.";

/** Why a vscode.workspace.fs call failed, in words the model can act on, and what to do. */
function fsReason(error: vscode.FileSystemError): { reason: string; advice?: string } {
  if (error.code === "Unavailable") return { reason: "the remote is unavailable: VS Code's connection to it was lost", advice: RECONNECT_ADVICE };
  // The provider's own message (e.g. "ENOSPC: no space left on device, write"), without the
  // "(FileSystemError)" decoration VS Code adds, after the code when it says something ("Unknown"
  // does not).
  const message = error.message.replace(/\s*\(FileSystemError\)/g, "").trim();
  if (!message || message === error.code || message.startsWith(`${error.code}:`)) return { reason: message || error.code };
  return { reason: error.code === "Unknown" ? message : `${error.code}: ${message}` };
}

/** Rethrow a vscode.workspace.fs failure as an Error with the code the core understands: why (and
 * which operation), what it did to the file (`outcome`) when that is known, and what to do. */
function fsFailure(error: unknown, what: string, outcome?: string): never {
  if (error instanceof vscode.FileSystemError) {
    const code = KNOWN_FS_CODES.has(error.code) ? error.code : "Unknown";
    const { reason, advice } = fsReason(error);
    throw hostError(code, [`${reason} (${what}).`, outcome, advice].filter(Boolean).join(" "));
  }
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as Error)?.message ?? String(error);
  throw hostError(typeof code === "string" ? code : "Unknown", [`${message} (${what}).`, outcome].filter(Boolean).join(" "));
}

/** What a failed write did to the file, by the step that failed. */
const NOTHING_WRITTEN = "Nothing was written: the file is unchanged.";
const WRITE_UNCERTAIN = "The file is either unchanged or holds all of the new content, never a part of it: read it again before changing it.";
const MOVE_INTERRUPTED =
  "The file is unchanged or holds all of the new content, never a part of it; if the connection dropped while VS Code replaced it, " +
  "the file may be missing until Tether moves the new content into place after the next write that gets through: read it again before changing it.";

export interface VscodeHostOptions {
  /** The ripgrep binary for a local folder (VS Code's bundled one when present). */
  ripgrepPath?: string | null;
  /** Writes and commands are refused while this answers false (Workspace Trust). */
  isTrusted?: () => boolean;
  /** Where a remote folder's commands run (required for commands on a non-file folder). */
  executor?: RemoteExecutor;
}

interface PendingStat {
  path: string;
  resolve(stat: FileStat): void;
  reject(error: unknown): void;
}

export class VscodeHost implements TetherHost {
  private readonly local: NodeHost | undefined;
  private readonly isTrusted: () => boolean;
  private readonly executor: RemoteExecutor | undefined;
  private tempCounter = 0;
  /** Temp files of failed writes still to remove (URIs). */
  private readonly strayTemps = new Set<string>();
  /** Temp files VS Code's rename did not move over their target (temp URI → target URI): each
   * may hold the only copy of the new content, so it is never just removed. */
  private readonly interruptedMoves = new Map<string, string>();
  /** Stats asked for in the same tick, sent to the remote helper as one batch. */
  private statBatch: PendingStat[] | undefined;

  constructor(
    private readonly folder: vscode.Uri,
    options: VscodeHostOptions = {},
  ) {
    this.isTrusted = options.isTrusted ?? (() => vscode.workspace.isTrusted);
    // Commands run through child_process only when the files are on this machine.
    this.local = folder.scheme === "file" ? new NodeHost({ ripgrepPath: options.ripgrepPath }) : undefined;
    this.executor = this.local ? undefined : options.executor;
  }

  /** The workspace root in the host's namespace (what the agent calls `root`). */
  get root(): string {
    return this.folder.scheme === "file" ? this.folder.fsPath : this.folder.path;
  }

  uri(p: string): vscode.Uri {
    return this.folder.scheme === "file" ? vscode.Uri.file(p) : this.folder.with({ path: p });
  }

  // ---- FileSystem ----

  async readFile(p: string): Promise<Uint8Array> {
    try {
      return await vscode.workspace.fs.readFile(this.uri(p));
    } catch (error) {
      fsFailure(error, `read ${p}`);
    }
  }

  /** What an open editor holds for `p` when it has unsaved changes. */
  async unsavedText(p: string): Promise<string | null> {
    const uri = this.uri(p).toString();
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri);
    return open?.isDirty ? open.getText() : null;
  }

  async writeFile(p: string, data: Uint8Array): Promise<void> {
    this.requireTrust(`write ${p}`);
    const uri = this.uri(p);
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
    if (open?.isDirty) {
      // Never clobber what the user typed and has not saved.
      throw hostError(
        "EBUSY",
        "the file has unsaved changes in an editor. Ask the user to save or revert it, then read it again before changing it.",
      );
    }
    if (this.local) return this.local.writeFile(p, data);
    // Remote: a sibling temp file moved over the target, so readers never see half a file, and a
    // write cut short (a full disk, a lost connection) leaves the old file whole.
    const temp = uri.with({ path: `${path.posix.dirname(uri.path)}/.${path.posix.basename(uri.path)}.tether-${Date.now()}-${++this.tempCounter}.tmp` });
    try {
      await vscode.workspace.fs.writeFile(temp, data);
    } catch (error) {
      await this.discard(temp);
      fsFailure(error, `write ${p}`, NOTHING_WRITTEN);
    }
    if (this.executor?.rename) await this.moveThroughHelper(this.executor.rename.bind(this.executor), temp, uri, p);
    else await this.moveThroughVscode(temp, uri, p);
    await this.sweepStrayTemps();
  }

  /** One rename(2) on the remote through Tether Remote: the target is replaced whole or not at all,
   * and it takes one round trip where VS Code's rename takes several. */
  private async moveThroughHelper(rename: (from: string, to: string) => Promise<void>, temp: vscode.Uri, uri: vscode.Uri, p: string): Promise<void> {
    try {
      await rename(temp.path, uri.path);
    } catch (error) {
      await this.discard(temp);
      if ((error as { code?: unknown }).code !== "Unavailable") fsFailure(error, `write ${p}`, NOTHING_WRITTEN);
      // The connection may have dropped after the remote renamed: which of the two is not known.
      throw hostError("Unavailable", `the remote is unavailable: VS Code's connection to it was lost (write ${p}). ${WRITE_UNCERTAIN} ${RECONNECT_ADVICE}`);
    }
  }

  /** Without the helper, VS Code's rename with overwrite: its file service deletes the target, then
   * renames, in two calls over the connection. A drop between them leaves no target and the new
   * content only in the temp file, so a failed move keeps the temp file for sweepStrayTemps. */
  private async moveThroughVscode(temp: vscode.Uri, uri: vscode.Uri, p: string): Promise<void> {
    try {
      await vscode.workspace.fs.rename(temp, uri, { overwrite: true });
    } catch (error) {
      this.interruptedMoves.set(temp.toString(), uri.toString());
      fsFailure(error, `write ${p}`, MOVE_INTERRUPTED);
    }
  }

  /** Remove a temp file of a failed write; one that cannot be removed now (the remote is gone) is
   * removed after the next write that gets through. */
  private async discard(temp: vscode.Uri): Promise<void> {
    try {
      await vscode.workspace.fs.delete(temp);
    } catch (error) {
      if (!(error instanceof vscode.FileSystemError && error.code === "FileNotFound")) this.strayTemps.add(temp.toString());
    }
  }

  /** After a write that got through: an interrupted move finishes where its target is missing
   * (VS Code deleted it, then lost the connection), else its temp file goes; then stray temps go. */
  private async sweepStrayTemps(): Promise<void> {
    for (const [temp, target] of [...this.interruptedMoves]) {
      const tempUri = vscode.Uri.parse(temp);
      try {
        if (await this.exists(vscode.Uri.parse(target))) await vscode.workspace.fs.delete(tempUri);
        else await vscode.workspace.fs.rename(tempUri, vscode.Uri.parse(target), { overwrite: false });
        this.interruptedMoves.delete(temp);
      } catch (error) {
        // The temp file is gone (the move had happened after all): nothing left to do.
        if (error instanceof vscode.FileSystemError && error.code === "FileNotFound") this.interruptedMoves.delete(temp);
      }
    }
    for (const temp of [...this.strayTemps]) {
      try {
        await vscode.workspace.fs.delete(vscode.Uri.parse(temp));
        this.strayTemps.delete(temp);
      } catch (error) {
        if (error instanceof vscode.FileSystemError && error.code === "FileNotFound") this.strayTemps.delete(temp);
      }
    }
  }

  private async exists(uri: vscode.Uri): Promise<boolean> {
    try {
      await vscode.workspace.fs.stat(uri);
      return true;
    } catch (error) {
      if (error instanceof vscode.FileSystemError && error.code === "FileNotFound") return false;
      throw error;
    }
  }

  async stat(p: string): Promise<FileStat> {
    if (this.executor?.statMany) return this.batchedStat(p);
    try {
      const s = await vscode.workspace.fs.stat(this.uri(p));
      return { kind: kindOf(s.type, true), size: s.size, mtimeMs: s.mtime };
    } catch (error) {
      fsFailure(error, `stat ${p}`);
    }
  }

  async mtimes(paths: string[]): Promise<Float64Array> {
    if (this.local) return this.local.mtimes(paths);
    // Asked in one tick, the stats go to the helper as one statMany call (batchedStat).
    return mtimesByStat(paths, (p) => this.stat(p));
  }

  async lstat(p: string): Promise<FileStat> {
    if (this.local) return this.local.lstat(p);
    try {
      // vscode.workspace.fs.stat sets the SymbolicLink bit for a link: that is lstat's answer.
      const s = await vscode.workspace.fs.stat(this.uri(p));
      return { kind: kindOf(s.type, false), size: s.size, mtimeMs: s.mtime };
    } catch (error) {
      fsFailure(error, `stat ${p}`);
    }
  }

  async readDir(p: string): Promise<DirEntry[]> {
    try {
      const entries = await vscode.workspace.fs.readDirectory(this.uri(p));
      return entries.map(([name, type]) => ({ name, kind: kindOf(type, false) }));
    } catch (error) {
      fsFailure(error, `list ${p}`);
    }
  }

  async mkdir(p: string): Promise<void> {
    this.requireTrust(`create ${p}`);
    try {
      await vscode.workspace.fs.createDirectory(this.uri(p));
    } catch (error) {
      fsFailure(error, `create ${p}`);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    this.requireTrust(`rename ${from}`);
    try {
      if (this.executor?.rename) return await this.executor.rename(this.uri(from).path, this.uri(to).path);
      await vscode.workspace.fs.rename(this.uri(from), this.uri(to), { overwrite: true });
    } catch (error) {
      fsFailure(error, `rename ${from} to ${to}`);
    }
  }

  async remove(p: string, recursive: boolean): Promise<void> {
    this.requireTrust(`delete ${p}`);
    try {
      await vscode.workspace.fs.delete(this.uri(p), { recursive, useTrash: false });
    } catch (error) {
      fsFailure(error, `delete ${p}`);
    }
  }

  async realPath(p: string): Promise<string> {
    if (this.local) return this.local.realPath(p).catch(() => p);
    // The helper resolves links on the remote; vscode.workspace.fs cannot, and the contract
    // allows the path unchanged then.
    if (this.executor?.realPath) return this.executor.realPath(p).catch(() => p);
    return p;
  }

  /** One helper call for every stat asked in this tick (Grep and Glob stat each match). */
  private batchedStat(p: string): Promise<FileStat> {
    return new Promise((resolve, reject) => {
      if (!this.statBatch) {
        this.statBatch = [];
        queueMicrotask(() => void this.flushStats());
      }
      this.statBatch.push({ path: p, resolve, reject });
    });
  }

  private async flushStats(): Promise<void> {
    const batch = this.statBatch ?? [];
    this.statBatch = undefined;
    try {
      const results = await this.executor!.statMany!(batch.map((b) => b.path));
      batch.forEach((pending, i) => {
        const result = results[i]!;
        if (result.ok) pending.resolve(result.stat);
        else pending.reject(hostError(result.code, `${result.message} (stat ${pending.path})`));
      });
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  }

  // ---- Exec ----

  run(request: ExecRequest): Promise<ExecOutput> {
    return this.commands(request.command).run(request);
  }

  spawnBackground(request: ExecRequest): Promise<string> {
    return this.commands(request.command).spawnBackground(request);
  }

  readBackground(id: string): Promise<BackgroundStatus> {
    return this.commands("").readBackground(id);
  }

  killBackground(id: string): Promise<boolean> {
    return this.commands("").killBackground(id);
  }

  /** A long poll where the runner has one (the local host, the remote helper), else a short
   * pause when there is nothing new, so a reader that loops does not spin. */
  async waitBackground(id: string, waitMs: number): Promise<BackgroundStatus> {
    const runner = this.commands("");
    if (runner.waitBackground) return runner.waitBackground(id, waitMs);
    const status = await runner.readBackground(id);
    if (status.running && !status.stdout && !status.stderr) await new Promise((resolve) => setTimeout(resolve, Math.min(waitMs, 250)));
    return status;
  }

  // ---- Search ----

  async ripgrep(args: string[], cwd: string, timeoutMs: number): Promise<ExecOutput | null> {
    // Without an executor the core searches through the file system instead.
    return (this.local ?? this.executor)?.ripgrep(args, cwd, timeoutMs) ?? null;
  }

  nowMs(): number {
    return Date.now();
  }

  dispose(): void {
    this.local?.dispose();
    this.executor?.dispose();
  }

  private commands(command: string): NodeHost | RemoteExecutor {
    if (command) this.requireTrust(`run ${command}`);
    const runner = this.local ?? this.executor;
    if (!runner) {
      throw hostError(
        "ENOSYS",
        `Commands cannot run on this workspace (${this.folder.scheme}://${this.folder.authority}): no remote executor is available. ` +
          "Use the file tools instead.",
      );
    }
    return runner;
  }

  private requireTrust(what: string): void {
    if (!this.isTrusted()) {
      throw hostError(
        "NoPermissions",
        `The workspace is not trusted, so Tether cannot ${what}. Ask the user to trust the workspace (Manage Workspace Trust).`,
      );
    }
  }
}
