// The helper tier: every call is one private command of Tether Remote, routed by VS Code to the
// extension host on the remote (extension/src/helper). `execute` is
// vscode.commands.executeCommand in the extension and a direct call in tests.

import { hostError, type BackgroundStatus, type ExecOutput, type ExecRequest } from "../core/host";
import type { RemoteExecutor, RemoteFacts } from "./executor";
import { HelperCommand, type HelperHello, type Reply, type StatResult } from "./protocol";

export type CommandExecutor = (command: string, ...args: unknown[]) => Thenable<unknown> | Promise<unknown>;

function unwrap<T>(reply: unknown, what: string): T {
  const r = reply as Reply<T> | undefined;
  if (!r || typeof r !== "object" || typeof r.ok !== "boolean") {
    throw hostError("Unavailable", `Tether Remote gave no answer to ${what}; it may have been disabled or uninstalled on the remote.`);
  }
  if (!r.ok) throw hostError(r.code, r.message);
  return r.value;
}

export class HelperExecutor implements RemoteExecutor {
  readonly tier = "helper";
  /** Background processes started through this executor, killed when it is disposed. */
  private readonly spawned = new Set<string>();

  constructor(
    private readonly execute: CommandExecutor,
    readonly hello: HelperHello,
  ) {}

  get description(): string {
    return `Tether Remote ${this.hello.version} on ${this.hello.hostname} (${this.hello.osDescription}); ripgrep ${this.hello.ripgrep ? "bundled" : "missing"}`;
  }

  facts(): RemoteFacts {
    return { os: this.hello.osDescription, shell: this.hello.shell };
  }

  async run(request: ExecRequest): Promise<ExecOutput> {
    return unwrap(await this.execute(HelperCommand.run, { request }), "run");
  }

  async spawnBackground(request: ExecRequest): Promise<string> {
    const id = unwrap<string>(await this.execute(HelperCommand.spawn, { request }), "spawn");
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
    return unwrap(await this.execute(HelperCommand.read, { id, waitMs }), "read");
  }

  async killBackground(id: string): Promise<boolean> {
    const killed = unwrap<boolean>(await this.execute(HelperCommand.kill, id), "kill");
    this.spawned.delete(id);
    return killed;
  }

  async ripgrep(args: string[], cwd: string, timeoutMs: number): Promise<ExecOutput | null> {
    return unwrap(await this.execute(HelperCommand.ripgrep, { args, cwd, timeoutMs }), "ripgrep");
  }

  async statMany(paths: string[]): Promise<StatResult[]> {
    const results = (await this.execute(HelperCommand.statMany, paths)) as StatResult[] | undefined;
    if (!Array.isArray(results) || results.length !== paths.length) {
      throw hostError("Unavailable", "Tether Remote gave no answer to stat; it may have been disabled or uninstalled on the remote.");
    }
    return results;
  }

  async realPath(p: string): Promise<string> {
    return unwrap(await this.execute(HelperCommand.realPath, p), "realPath");
  }

  /** The session is over: its background processes on the remote go with it. */
  dispose(): void {
    for (const id of this.spawned) void Promise.resolve(this.execute(HelperCommand.kill, id)).catch(() => undefined);
    this.spawned.clear();
  }
}
