// The helper tier: every call is one private command of Tether Remote, routed by VS Code to the
// extension host on the remote (extension/src/helper). `execute` is
// vscode.commands.executeCommand in the extension and a direct call in tests.
//
// Every call carries the window's secret (protocol.ts). The connection to the remote can fail
// under a call: VS Code rejects it ("Canceled" when the remote extension host went away) or holds
// it while it reconnects. Either way the model gets an error that says what may have happened and
// what to do, never a hung tool call: each call has a deadline (a command's own timeout plus a
// grace). A helper that restarted with the remote's extension host answers "unpaired"; the
// executor pairs again with the same secret and retries once.

import { hostError, type BackgroundStatus, type ExecOutput, type ExecRequest } from "../core/host";
import type { ProcessSpec, StdioProcess } from "../node/stdioProcess";
import type { RemoteExecutor, RemoteFacts } from "./executor";
import { startHelperProcess } from "./helperProcess";
import { HELPER_PROTOCOL, HelperCommand, Refusal, type HelperHello, type Reply, type StatResult } from "./protocol";

export type CommandExecutor = (command: string, ...args: unknown[]) => Thenable<unknown> | Promise<unknown>;

/** How long past a call's own time limit the remote may take to answer before the call fails. */
export const DEFAULT_ANSWER_GRACE_MS = 30_000;

const NO_ANSWER = "it may have been disabled or uninstalled on the remote.";

/** What `hello` found. */
export type HelloAnswer =
  | { kind: "paired"; hello: HelperHello }
  /** The helper answered but refused: untrusted workspace, or paired with someone else. */
  | { kind: "refused"; code: string; message: string }
  /** An older helper (it speaks another protocol): reinstall it. */
  | { kind: "outdated"; protocol: number }
  /** No helper answered (not installed, disabled, or no answer in time). */
  | { kind: "absent" };

/** Pair with the helper: `hello` with the window's secret, read whatever answers. */
export async function pairHelper(execute: CommandExecutor, secret: string, timeoutMs: number): Promise<HelloAnswer> {
  let answer: unknown;
  try {
    answer = await withDeadline(Promise.resolve(execute(HelperCommand.hello, { secret, args: null })), timeoutMs, () => undefined);
  } catch {
    return { kind: "absent" }; // "command not found": the helper is not installed (or disabled)
  }
  if (!answer || typeof answer !== "object") return { kind: "absent" };
  const reply = answer as Partial<Reply<HelperHello>> & { protocol?: unknown };
  // Protocol 1 answered hello with the HelperHello itself, no envelope.
  if (typeof reply.protocol === "number") return { kind: "outdated", protocol: reply.protocol };
  if (reply.ok === false) return { kind: "refused", code: String(reply.code), message: String(reply.message) };
  if (reply.ok === true && reply.value && typeof reply.value.protocol === "number") {
    return reply.value.protocol === HELPER_PROTOCOL ? { kind: "paired", hello: reply.value } : { kind: "outdated", protocol: reply.value.protocol };
  }
  return { kind: "absent" };
}

/** The error the main extension shows for a refused pairing. */
export function refusedError(answer: { code: string; message: string }): Error {
  return hostError(answer.code === Refusal.untrusted ? "NoPermissions" : answer.code, answer.message);
}

/** Resolves like `work`, or with `onTimeout()` after `ms`. */
function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error);
      }
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** What a lost connection means for one kind of call, for the model. */
interface CallKind {
  /** "running the command", … */
  doing: string;
  /** What may have happened on the remote, and what to do about it. */
  advice: string;
}

const SIDE_EFFECT_ADVICE =
  "It may or may not have run there: once VS Code has reconnected to the remote, check its effects before running it again.";
const NO_SIDE_EFFECT_ADVICE = "Nothing was changed on the remote; try again once VS Code has reconnected to the remote.";

export interface HelperExecutorOptions {
  /** Past a call's own time limit, how long to wait for the remote's answer. */
  answerGraceMs?: number;
}

export class HelperExecutor implements RemoteExecutor {
  readonly tier = "helper";
  /** Background processes started through this executor, killed when it is disposed. */
  private readonly spawned = new Set<string>();
  private readonly graceMs: number;

  constructor(
    private readonly execute: CommandExecutor,
    readonly hello: HelperHello,
    private readonly secret: string,
    options: HelperExecutorOptions = {},
  ) {
    this.graceMs = options.answerGraceMs ?? DEFAULT_ANSWER_GRACE_MS;
  }

  get description(): string {
    return `Tether Remote ${this.hello.version} on ${this.hello.hostname} (${this.hello.osDescription}); ripgrep ${this.hello.ripgrep ? "bundled" : "missing"}`;
  }

  facts(): RemoteFacts {
    return { os: this.hello.osDescription, shell: this.hello.shell };
  }

  async run(request: ExecRequest): Promise<ExecOutput> {
    return this.call(HelperCommand.run, { request }, request.timeoutMs, { doing: "running the command", advice: SIDE_EFFECT_ADVICE });
  }

  async spawnBackground(request: ExecRequest): Promise<string> {
    const id = await this.call<string>(HelperCommand.spawn, { request }, 0, {
      doing: "starting the background command",
      advice: SIDE_EFFECT_ADVICE,
    });
    this.spawned.add(id);
    return id;
  }

  /** Returns at once with what is there (the core polls BashOutput itself). */
  async readBackground(id: string): Promise<BackgroundStatus> {
    return this.readBackgroundWhenReady(id, 0);
  }

  waitBackground(id: string, waitMs: number): Promise<BackgroundStatus> {
    return this.readBackgroundWhenReady(id, waitMs);
  }

  /** Long poll: resolves when the process wrote something or exited, or after waitMs. */
  async readBackgroundWhenReady(id: string, waitMs: number): Promise<BackgroundStatus> {
    return this.call(HelperCommand.read, { id, waitMs }, waitMs, {
      doing: "reading the background command's output",
      advice: "The command itself may still be running there; read its output again once VS Code has reconnected to the remote.",
    });
  }

  async killBackground(id: string): Promise<boolean> {
    const killed = await this.call<boolean>(HelperCommand.kill, id, 0, {
      doing: "stopping the background command",
      advice: "It may still be running there; stop it again once VS Code has reconnected to the remote.",
    });
    this.spawned.delete(id);
    return killed;
  }

  async ripgrep(args: string[], cwd: string, timeoutMs: number): Promise<ExecOutput | null> {
    return this.call(HelperCommand.ripgrep, { args, cwd, timeoutMs }, timeoutMs, { doing: "searching", advice: NO_SIDE_EFFECT_ADVICE });
  }

  async statMany(paths: string[]): Promise<StatResult[]> {
    const results = await this.call<StatResult[]>(HelperCommand.statMany, paths, 0, {
      doing: "reading file information",
      advice: NO_SIDE_EFFECT_ADVICE,
    });
    if (!Array.isArray(results) || results.length !== paths.length) {
      throw hostError("Unavailable", `Tether Remote gave no answer to stat; ${NO_ANSWER}`);
    }
    return results;
  }

  async realPath(p: string): Promise<string> {
    return this.call(HelperCommand.realPath, p, 0, { doing: "resolving a path", advice: NO_SIDE_EFFECT_ADVICE });
  }

  /** `from` moved over `to` in one rename(2) on the remote: `to` is replaced whole or not at all. */
  async rename(from: string, to: string): Promise<void> {
    await this.call<null>(HelperCommand.rename, { from, to }, 0, {
      doing: "moving the file into place",
      advice: "The file there is either as it was or replaced whole: read it again once VS Code has reconnected to the remote.",
    });
  }

  /** A long-lived process with a conversation on stdin/stdout, on the remote. */
  startProcess(spec: ProcessSpec): Promise<StdioProcess> {
    return startHelperProcess(
      (command, args, limitMs) =>
        this.call(command, args, limitMs, { doing: "talking to a process on the remote", advice: "The process may still be running there." }),
      spec,
    );
  }

  /** The session is over: its background processes on the remote go with it. */
  dispose(): void {
    for (const id of this.spawned) void Promise.resolve(this.execute(HelperCommand.kill, { secret: this.secret, args: id })).catch(() => undefined);
    this.spawned.clear();
  }

  /** One command with the secret; pairs again and retries once when the helper restarted. */
  private async call<T>(command: string, args: unknown, limitMs: number, kind: CallKind): Promise<T> {
    let reply = await this.send(command, args, limitMs, kind);
    if (isRefusal(reply, Refusal.unpaired)) {
      const paired = await pairHelper(this.execute, this.secret, this.graceMs);
      if (paired.kind === "refused") throw refusedError(paired);
      if (paired.kind !== "paired") throw hostError("Unavailable", `Tether Remote restarted and did not answer again; ${NO_ANSWER}`);
      reply = await this.send(command, args, limitMs, kind);
    }
    return unwrap<T>(reply, command);
  }

  private async send(command: string, args: unknown, limitMs: number, kind: CallKind): Promise<unknown> {
    const deadline = Math.max(0, limitMs) + this.graceMs;
    try {
      return await withDeadline(Promise.resolve(this.execute(command, { secret: this.secret, args })), deadline, () => {
        throw hostError(
          "Unavailable",
          `The remote did not answer within ${Math.round(deadline / 1000)} s while ${kind.doing}: the connection to it may be down. ${kind.advice}`,
        );
      });
    } catch (error) {
      if ((error as { code?: unknown }).code === "Unavailable") throw error;
      const why = error instanceof Error ? error.message : String(error);
      throw hostError("Unavailable", `The connection to the remote was lost while ${kind.doing} (${why}). ${kind.advice}`);
    }
  }
}

function isRefusal(reply: unknown, code: string): boolean {
  const r = reply as { ok?: unknown; code?: unknown } | undefined;
  return !!r && r.ok === false && r.code === code;
}

function unwrap<T>(reply: unknown, command: string): T {
  const r = reply as Reply<T> | undefined;
  if (!r || typeof r !== "object" || typeof r.ok !== "boolean") {
    throw hostError("Unavailable", `Tether Remote gave no answer to ${command.replace("_tether.remote.", "")}; ${NO_ANSWER}`);
  }
  if (!r.ok) {
    if (r.code === Refusal.untrusted) throw hostError("NoPermissions", r.message);
    throw hostError(r.code, r.message);
  }
  return r.value;
}
