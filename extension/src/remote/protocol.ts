// The private commands of the remote helper (extension/helper, extensionKind ["workspace"]) that
// the main extension calls through VS Code's cross-host command routing. Shared by both sides; no
// vscode import.
//
// Every command answers with a Reply envelope instead of throwing: an Error crossing hosts loses
// its `code`, and the core needs the code (ENOENT, ETIMEDOUT…) to tell the model what happened.
//
// Every command takes one argument, a Call: the pairing secret and the command's own arguments.
// Who may call (the threat model, also in docs/ARCHITECTURE.md, "Tether Remote's pairing"):
// any code that can run a VS Code command can call these ids — every extension in any of the
// window's extension hosts (a sandboxed web-worker extension included: routing crosses hosts), and
// a `command:` link in content the user clicks. Without a check, all of them could run processes
// on the remote through `_tether.remote.run`. So the main extension makes a random secret for its
// window (in memory only, never on disk) and pairs with the helper at the first `hello`; the
// helper then serves only calls that carry that secret, and refuses a second pairing, which the
// main extension reports. The secret cannot be derived from anything the helper could read: any
// file on the remote is readable by every extension through vscode.workspace.fs, and everything
// else both sides see (env, extension manifests, machine ids) is public to extensions. What the
// pairing does not stop, and cannot: an extension that registers these command ids before the
// helper, or pairs before Tether does (Tether then refuses to use the helper and says so), or
// patches the shared Node runtime of the extension host. Such an extension can already write any
// remote file through vscode.workspace.fs (a ~/.bashrc, a task), so the helper gives it nothing
// new; the secret keeps the helper from being an escalation for code that can only invoke
// commands. And in an untrusted workspace the helper runs nothing at all.

import { randomBytes, timingSafeEqual } from "node:crypto";
import type { BackgroundStatus, ExecOutput, ExecRequest, FileStat } from "../core/host";

export const HELPER_ID = "tether.tether-remote";
/** Bumped when a command or its arguments change; the main extension reinstalls an older helper. */
export const HELPER_PROTOCOL = 4;

export const HelperCommand = {
  /** Pairs the caller's secret with the helper (the first one wins) and says who the helper is. */
  hello: "_tether.remote.hello",
  run: "_tether.remote.run",
  spawn: "_tether.remote.spawn",
  /** Long poll: answers when the process wrote something or exited, or after `waitMs`. */
  read: "_tether.remote.read",
  kill: "_tether.remote.kill",
  ripgrep: "_tether.remote.ripgrep",
  statMany: "_tether.remote.statMany",
  realPath: "_tether.remote.realPath",
  /** One rename(2) on the remote: the target replaced in one step (a write's temp file moved over it). */
  rename: "_tether.remote.rename",
  /** A long-lived process with a conversation on stdin/stdout (a project's stdio MCP server). */
  processStart: "_tether.remote.processStart",
  processWrite: "_tether.remote.processWrite",
  /** Long poll: its stdout since the last read, or its exit. */
  processRead: "_tether.remote.processRead",
  processKill: "_tether.remote.processKill",
} as const;

/** Why the helper refused a call (the `code` of a failed Reply). */
export const Refusal = {
  /** The workspace is not trusted: the helper runs nothing. */
  untrusted: "Untrusted",
  /** The call carries no secret, or not the paired one. */
  badSecret: "EACCES",
  /** The helper has not been paired yet (it restarted with the remote's extension host). */
  unpaired: "EUNPAIRED",
  /** `hello` with another secret than the one the helper is paired with. */
  pairedElsewhere: "EPAIRED",
} as const;

/** Bytes of randomness in a window's secret. */
const SECRET_BYTES = 32;

/** A fresh secret for one window (one activation of the main extension). */
export function newHelperSecret(): string {
  return randomBytes(SECRET_BYTES).toString("base64url");
}

/** Whether `given` is a well-formed secret equal to `paired`, compared in constant time. */
export function secretMatches(given: unknown, paired: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(paired);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether `secret` has the shape newHelperSecret makes (refuses weak ones at pairing). */
export function isWellFormedSecret(secret: unknown): secret is string {
  return typeof secret === "string" && /^[A-Za-z0-9_-]{43}$/.test(secret);
}

/** The one argument of every command. */
export interface Call<A> {
  secret: string;
  args: A;
}

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
export interface ProcessWriteArgs {
  id: string;
  data: string;
}
export interface RenameArgs {
  from: string;
  to: string;
}
export interface RipgrepArgs {
  args: string[];
  cwd: string;
  timeoutMs: number;
}

/** One entry per path: its stat, or why it failed. */
export type StatResult = { ok: true; stat: FileStat } | { ok: false; code: string; message: string };

export type { BackgroundStatus, ExecOutput, ExecRequest };
