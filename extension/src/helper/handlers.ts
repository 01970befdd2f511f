// What the remote helper does for each private command, on the remote machine's own fs and
// child_process (through NodeHost). No vscode import: the entry point (extension.ts) registers
// these, and tests call them directly.

import * as os from "node:os";
import { NodeHost } from "../node/nodeHost";
import {
  HELPER_PROTOCOL,
  HelperCommand,
  type HelperHello,
  type ReadArgs,
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
}

function errorReply(error: unknown): Reply<never> {
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

export class HelperHandlers {
  readonly host: NodeHost;

  constructor(private readonly options: HelperOptions) {
    this.host = new NodeHost({ ripgrepPath: options.ripgrepPath });
  }

  /** Command id → handler, for registerCommand. */
  commands(): [string, (...args: never[]) => Promise<unknown>][] {
    return [
      [HelperCommand.hello, () => this.hello()],
      [HelperCommand.run, (args: RunArgs) => reply(() => this.host.run(args.request))],
      [HelperCommand.spawn, (args: RunArgs) => reply(() => this.host.spawnBackground(args.request))],
      [HelperCommand.read, (args: ReadArgs) => reply(() => this.read(args))],
      [HelperCommand.kill, (id: string) => reply(() => this.host.killBackground(id))],
      [HelperCommand.ripgrep, (args: RipgrepArgs) => reply(() => this.host.ripgrep(args.args, args.cwd, args.timeoutMs))],
      [HelperCommand.statMany, (paths: string[]) => this.statMany(paths)],
      [HelperCommand.realPath, (p: string) => reply(() => this.host.realPath(p))],
    ];
  }

  async hello(): Promise<HelperHello> {
    return {
      protocol: HELPER_PROTOCOL,
      version: this.options.version,
      platform: process.platform,
      osDescription: `${os.type()} ${os.release()}`,
      shell: userShell(),
      home: os.homedir(),
      hostname: os.hostname(),
      ripgrep: this.options.ripgrepPath,
    };
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
          const failed = errorReply(error) as { ok: false; code: string; message: string };
          return failed;
        }
      }),
    );
  }

  dispose(): void {
    this.host.dispose();
  }
}
