// Where a remote workspace's commands run. Three tiers, best first (see select.ts):
//   helper            Tether Remote, the workspace-side helper extension, through command routing
//   shellIntegration  a hidden terminal on the remote with VS Code's shell integration
//   terminal          a hidden terminal that writes exit codes and output to files, woken by a
//                     file watcher (for shells without shell integration)
// No vscode import here: the host (vscodeHost.ts) and tests see only this interface.

import type { BackgroundStatus, ExecOutput, ExecRequest, FileStat } from "../core/host";
import type { ProcessSpec, StdioProcess } from "../node/stdioProcess";

export type ExecutorTier = "helper" | "shellIntegration" | "terminal";

export const TIER_LABELS: Record<ExecutorTier, string> = {
  helper: "Tether Remote helper",
  shellIntegration: "terminal shell integration",
  terminal: "hidden terminal",
};

/** What the model is told about the machine the workspace is on. */
export interface RemoteFacts {
  os?: string;
  shell?: string;
}

export interface RemoteExecutor {
  readonly tier: ExecutorTier;
  /** One line for the status bar tooltip and the log. */
  readonly description: string;
  facts(): RemoteFacts;
  run(request: ExecRequest): Promise<ExecOutput>;
  spawnBackground(request: ExecRequest): Promise<string>;
  readBackground(id: string): Promise<BackgroundStatus>;
  killBackground(id: string): Promise<boolean>;
  /** readBackground after waiting up to `waitMs` for output or the end, where the tier can wait. */
  waitBackground?(id: string, waitMs: number): Promise<BackgroundStatus>;
  /** null when the remote has no ripgrep (the core then searches through the file system). */
  ripgrep(args: string[], cwd: string, timeoutMs: number): Promise<ExecOutput | null>;
  /** Only the helper tier can stat in batches and resolve symlinks on the remote. */
  statMany?(paths: string[]): Promise<({ ok: true; stat: FileStat } | { ok: false; code: string; message: string })[]>;
  realPath?(path: string): Promise<string>;
  /** Only the helper tier can move a file over another in one step on the remote (rename(2));
   * VS Code's rename with overwrite deletes the target first, then renames, in separate calls. */
  rename?(from: string, to: string): Promise<void>;
  /** Only the helper tier can keep a process with a conversation on stdin/stdout (a project's
   * stdio MCP server) running on the remote. */
  startProcess?(spec: ProcessSpec): Promise<StdioProcess>;
  dispose(): void;
}
