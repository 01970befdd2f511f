// The private commands of the remote helper (extension/helper, extensionKind ["workspace"]) that
// the main extension calls through VS Code's cross-host command routing. Shared by both sides; no
// vscode import.
//
// Every command answers with a Reply envelope instead of throwing: an Error crossing hosts loses
// its `code`, and the core needs the code (ENOENT, ETIMEDOUT…) to tell the model what happened.

import type { BackgroundStatus, ExecOutput, ExecRequest, FileStat } from "../core/host";

export const HELPER_ID = "tether.tether-remote";
/** Bumped when a command or its arguments change; the main extension reinstalls an older helper. */
export const HELPER_PROTOCOL = 1;

export const HelperCommand = {
  hello: "_tether.remote.hello",
  run: "_tether.remote.run",
  spawn: "_tether.remote.spawn",
  /** Long poll: answers when the process wrote something or exited, or after `waitMs`. */
  read: "_tether.remote.read",
  kill: "_tether.remote.kill",
  ripgrep: "_tether.remote.ripgrep",
  statMany: "_tether.remote.statMany",
  realPath: "_tether.remote.realPath",
} as const;

export type Reply<T> = { ok: true; value: T } | { ok: false; code: string; message: string };

export interface HelperHello {
  protocol: number;
  version: string;
  /** process.platform of the remote. */
  platform: string;
  /** e.g. "Linux 6.1.0-18-amd64". */
  osDescription: string;
  /** The shell commands run in. */
  shell: string;
  home: string;
  hostname: string;
  /** The ripgrep the helper uses (VS Code server's bundled one when present), or null. */
  ripgrep: string | null;
}

export interface RunArgs {
  request: ExecRequest;
}
export interface ReadArgs {
  id: string;
  waitMs: number;
}
export interface RipgrepArgs {
  args: string[];
  cwd: string;
  timeoutMs: number;
}

/** One entry per path: its stat, or why it failed. */
export type StatResult = { ok: true; stat: FileStat } | { ok: false; code: string; message: string };

export type { BackgroundStatus, ExecOutput, ExecRequest };
