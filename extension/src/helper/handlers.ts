// What the remote helper does for each private command, on the remote machine's own fs and
// child_process (through NodeHost). No vscode import: the entry point (extension.ts) registers
// these, and tests call them directly.
//
// Every command is checked before it runs (see remote/protocol.ts for the threat model): nothing
// runs while the workspace is untrusted, and nothing but `hello` runs without the secret the main
// extension of this window paired with.

import * as os from "node:os";
import { NodeHost } from "../node/nodeHost";
import type { ProcessSpec } from "../node/stdioProcess";
import { ProcessTable } from "./processes";
import {
  HELPER_PROTOCOL,
  HelperCommand,
  Refusal,
  isWellFormedSecret,
  secretMatches,
  type HelperHello,
  type ProcessWriteArgs,
  type ReadArgs,
  type RenameArgs,
  type Reply,
  type RipgrepArgs,
  type RunArgs,
  type StatResult,
} from "../remote/protocol";

/** The longest a read long poll may hold a call open. */
const MAX_READ_WAIT_MS = 30_000;

export interface HelperOptions {
  version: string;
  /** ripgrep on the remote (VS Code server's bundled rg), or null for none. */
  ripgrepPath: string | null;
  /** Workspace Trust of the window (vscode.workspace.isTrusted); checked on every call. */
  isTrusted: () => boolean;
}

type Refused = { ok: false; code: string; message: string };

function errorReply(error: unknown): Refused {
  const code = (error as { code?: unknown } | null)?.code;
  return {
    ok: false,
    code: typeof code === "string" ? code : "Unknown",
    message: error instanceof Error ? error.message : String(error),
  };
}

async function reply<T>(work: () => Promise<T>): Promise<Reply<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return errorReply(error);
  }
}

function userShell(): string {
  if (process.platform === "win32") return process.env["ComSpec"] ?? "cmd.exe";
  return process.env["SHELL"] || "/bin/bash";
}

const UNTRUSTED: Refused = {
  ok: false,
  code: Refusal.untrusted,
  message:
    "Tether Remote runs nothing in an untrusted workspace. Trust the workspace (Workspaces: Manage Workspace Trust) to let Tether run commands and searches on the remote.",
};
const BAD_SECRET: Refused = {
  ok: false,
  code: Refusal.badSecret,
  message: "Tether Remote refused the call: it did not carry the secret of the Tether extension of this window.",
};
const UNPAIRED: Refused = {
  ok: false,
  code: Refusal.unpaired,
  message: "Tether Remote has not been paired with this window yet (it restarted): call hello first.",
};
const PAIRED_ELSEWHERE: Refused = {
  ok: false,
  code: Refusal.pairedElsewhere,
  message:
    "Tether Remote is already paired with another caller in this window, so it refuses Tether's calls. " +
    "Something other than Tether called it first: reload the window (Developer: Reload Window), and if this happens again, check the installed extensions.",
};

export class HelperHandlers {
  readonly host: NodeHost;
  readonly processes = new ProcessTable();
  /** The secret of the main extension this helper serves, set by the first hello. */
  private pairedSecret: string | undefined;

  constructor(private readonly options: HelperOptions) {
    this.host = new NodeHost({ ripgrepPath: options.ripgrepPath });
  }

  /** Command id → handler, for registerCommand. Each takes one Call ({secret, args}). */
  commands(): [string, (call?: unknown) => Promise<unknown>][] {
    return [
      [HelperCommand.hello, (call) => this.hello(call)],
      this.guarded(HelperCommand.run, (args: RunArgs) => this.host.run(args.request)),
      this.guarded(HelperCommand.spawn, (args: RunArgs) => this.host.spawnBackground(args.request)),
      this.guarded(HelperCommand.read, (args: ReadArgs) => this.read(args)),
      this.guarded(HelperCommand.kill, (id: string) => this.host.killBackground(id)),
      this.guarded(HelperCommand.ripgrep, (args: RipgrepArgs) => this.host.ripgrep(args.args, args.cwd, args.timeoutMs)),
      this.guarded(HelperCommand.statMany, (paths: string[]) => this.statMany(paths)),
      this.guarded(HelperCommand.realPath, (p: string) => this.host.realPath(p)),
      this.guarded(HelperCommand.rename, (args: RenameArgs) => this.host.rename(args.from, args.to)),
      this.guarded(HelperCommand.processStart, (spec: ProcessSpec) => this.processes.start(spec)),
      this.guarded(HelperCommand.processWrite, (args: ProcessWriteArgs) => this.processes.write(args.id, args.data)),
      this.guarded(HelperCommand.processRead, (args: ReadArgs) => this.processes.read(args.id, Math.min(Math.max(args.waitMs, 0), MAX_READ_WAIT_MS))),
      this.guarded(HelperCommand.processKill, (id: string) => this.processes.kill(id)),
    ];
  }

  /** Pairs with the first well-formed secret, answers the same secret again, refuses any other. */
  async hello(call?: unknown): Promise<Reply<HelperHello>> {
    if (!this.options.isTrusted()) return UNTRUSTED;
    const secret = (call as { secret?: unknown } | null | undefined)?.secret;
    if (!isWellFormedSecret(secret)) return BAD_SECRET;
    if (this.pairedSecret === undefined) this.pairedSecret = secret;
    else if (!secretMatches(secret, this.pairedSecret)) return PAIRED_ELSEWHERE;
    return {
      ok: true,
      value: {
        protocol: HELPER_PROTOCOL,
        version: this.options.version,
        platform: process.platform,
        osDescription: `${os.type()} ${os.release()}`,
        shell: userShell(),
        home: os.homedir(),
        hostname: os.hostname(),
        ripgrep: this.options.ripgrepPath,
      },
    };
  }

  /** Why a call may not run, or undefined when it may. */
  refusal(call: unknown): Refused | undefined {
    if (!this.options.isTrusted()) return UNTRUSTED;
    if (this.pairedSecret === undefined) return UNPAIRED;
    const secret = (call as { secret?: unknown } | null | undefined)?.secret;
    return secretMatches(secret, this.pairedSecret) ? undefined : BAD_SECRET;
  }

  private guarded<A, T>(id: string, work: (args: A) => Promise<T>): [string, (call?: unknown) => Promise<Reply<T>>] {
    return [
      id,
      async (call) => {
        const refused = this.refusal(call);
        if (refused) return refused;
        return reply(() => work((call as { args: A }).args));
      },
    ];
  }

  private async read(args: ReadArgs) {
    await this.host.waitForBackground(args.id, Math.min(Math.max(args.waitMs, 0), MAX_READ_WAIT_MS));
    return this.host.readBackground(args.id);
  }

  async statMany(paths: string[]): Promise<StatResult[]> {
    return Promise.all(
      paths.map(async (p): Promise<StatResult> => {
        try {
          return { ok: true, stat: await this.host.stat(p) };
        } catch (error) {
          return errorReply(error);
        }
      }),
    );
  }

  dispose(): void {
    this.host.dispose();
    this.processes.dispose();
  }
}
