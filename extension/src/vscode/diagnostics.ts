// Benchmarks and tests timed inside the extension host: a command through one tier of the remote
// executor (or "direct": child_process here), a VS Code command's round trip, a Grep through the
// core, and VS Code's bundled rg spawned directly (the baseline for Grep).

import * as os from "node:os";
import * as vscode from "vscode";
import type { ExecOutput, TetherHost } from "../core/host";
import { createTetherServer } from "../core/wasm";
import { NodeHost } from "../node/nodeHost";
import type { ExecutorTier, RemoteExecutor } from "../remote/executor";
import { selectExecutor } from "../remote/select";
import { VscodeHost } from "./vscodeHost";
import { bundledRipgrep, workspaceFolder } from "./workspace";

export type DiagnosticsTier = ExecutorTier | "direct";

export interface ExecTimesArgs {
  tier: DiagnosticsTier;
  command: string;
  runs: number;
  timeoutMs?: number;
  afterCommand?: { command: string; argument?: unknown };
}

export class Diagnostics implements vscode.Disposable {
  /** Executors of a forced tier, kept for the next run. */
  private readonly tierExecutors = new Map<ExecutorTier, Promise<RemoteExecutor>>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: (message: string) => void,
    /** Loads the wasm core (once). */
    private readonly loadCore: () => void,
  ) {}

  /** `afterCommand`: a VS Code command executed, untimed, before each timed run. Executing one
   * sends the workbench an activation event and a telemetry event, whose traffic then lands while
   * the next command runs: the helper tier's floor on an emulated remote. */
  async execTimes(args: ExecTimesArgs) {
    const runner = await this.hostFor(args.tier);
    const samples: number[] = [];
    let last: ExecOutput | undefined;
    for (let i = 0; i < Math.max(1, args.runs); i++) {
      if (args.afterCommand) await vscode.commands.executeCommand(args.afterCommand.command, args.afterCommand.argument);
      const started = performance.now();
      last = await runner.host.run({ command: args.command, cwd: runner.root, env: [], timeoutMs: args.timeoutMs ?? 30_000, maxOutputBytes: 1 << 20 });
      samples.push(performance.now() - started);
    }
    return { tier: args.tier, samples, output: last };
  }

  /** A VS Code command's round trip from this extension host, timed: with a call that Tether
   * Remote refuses at once, the floor of every helper call (VS Code's dispatch, no work). */
  async commandTimes(args: { command: string; argument?: unknown; runs: number }) {
    const samples: number[] = [];
    for (let i = 0; i < Math.max(1, args.runs); i++) {
      const started = performance.now();
      await vscode.commands.executeCommand(args.command, args.argument);
      samples.push(performance.now() - started);
    }
    return { samples };
  }

  async ripgrepTimes(args: { args: string[]; runs: number }) {
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
  async grepTimes(args: { tier: DiagnosticsTier; pattern: string; runs: number }) {
    this.loadCore();
    const runner = await this.hostFor(args.tier);
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

  /** The same Edits of the workspace file `file` (a path from the root) with checkpoints on and
   * off, interleaved, each in one user message (`first`: a fresh copy of the file per Edit, so each
   * takes its before-image), and the time the turn's end then takes to write them. The
   * checkpoints go to `.tether/checkpoints/` and are removed after. */
  async editTimes(args: { file: string; from: string; to: string; runs: number; first?: boolean }) {
    this.loadCore();
    const runner = await this.hostFor("helper");
    const dir = `${runner.root}/.tether/checkpoints/bench-${Date.now()}`;
    const servers = { off: createTetherServer(runner.host, { root: runner.root }), on: createTetherServer(runner.host, { root: runner.root, checkpoints: dir }) };
    await servers.on.beginMessage("bench");
    const source = `${runner.root}/${args.file}`;
    const bytes = await runner.host.readFile(source);
    const samples: Record<"off" | "on", number[]> = { off: [], on: [] };
    let id = 0;
    let flushMs = 0;
    const edit = async (kind: "off" | "on", path: string, from: string, to: string) => {
      const request = JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "Edit", arguments: { file_path: path, old_string: from, new_string: to } } });
      const started = performance.now();
      const response = (await servers[kind].handle(request)) ?? "";
      const elapsed = performance.now() - started;
      if (response.includes('"isError":true')) throw new Error(`Edit failed: ${response.slice(0, 500)}`);
      return elapsed;
    };
    try {
      for (const kind of ["off", "on"] as const) await runner.host.writeFile(`${source}.${kind}`, bytes);
      for (let i = 0; i < Math.max(2, args.runs) + 2; i++) {
        const forward = i % 2 === 0;
        for (const kind of forward ? (["off", "on"] as const) : (["on", "off"] as const)) {
          let path = `${source}.${kind}`;
          if (args.first) {
            path = `${source}.${kind}.${i}`;
            await runner.host.writeFile(path, bytes);
          }
          const [from, to] = forward || args.first ? [args.from, args.to] : [args.to, args.from];
          const elapsed = await edit(kind, path, from, to);
          // The first two rounds warm up.
          if (i >= 2) samples[kind].push(elapsed);
        }
      }
      // What the turn's end then writes (the before-images taken, and the journal).
      const started = performance.now();
      await servers.on.flushCheckpoints();
      flushMs = performance.now() - started;
    } finally {
      servers.off.free();
      servers.on.free();
      await runner.host.remove(dir, true).catch(() => undefined);
    }
    return { ...samples, flushMs };
  }

  dispose(): void {
    for (const executor of this.tierExecutors.values()) void executor.then((e) => e.dispose(), () => undefined);
  }

  /** A host for one forced tier (or this machine's). */
  private async hostFor(tier: DiagnosticsTier): Promise<{ host: TetherHost; root: string }> {
    const folder = workspaceFolder();
    if (!folder) throw new Error("open a folder first");
    if (tier === "direct") {
      const root = folder.uri.scheme === "file" ? folder.uri.fsPath : folder.uri.path;
      return { host: new NodeHost({ ripgrepPath: bundledRipgrep() ?? null }), root };
    }
    if (folder.uri.scheme === "file") throw new Error("the workspace is local: there is no remote executor to measure");
    let executor = this.tierExecutors.get(tier);
    if (!executor) {
      executor = selectExecutor(folder.uri, this.extensionUri, tier, this.log);
      this.tierExecutors.set(tier, executor);
      // A tier that is not available now may be later (the helper installed meanwhile, say).
      executor.catch(() => this.tierExecutors.delete(tier));
    }
    const host = new VscodeHost(folder.uri, { executor: await executor });
    return { host, root: host.root };
  }
}
