// The project's MCP servers for one session, the servers Tether runs (the launch decides whether
// Tether runs them or the agent's own program reads `.mcp.json`: this is the one function for the
// first). Reads `.mcp.json` and the settings through the host, asks the user about a server no
// setting decides (as Claude Code asks) and keeps the answer where Claude Code keeps it, starts
// each approved stdio server where the files are and gives the agent a bridge entry for it, and
// an HTTP or SSE one as it is (reached from the laptop). What does not run is listed with the
// reason, and a server that fails or stops is told in the chat. No vscode import.

import { loadTetherCore } from "../core/wasm";
import type { TetherHost } from "../core/host";
import type { ProjectServerInfo, ProjectSetupInfo } from "../contract/protocol";
import type { McpChoice, McpServerEntry, OffItem } from "../generated/core";
import type { BridgeServer } from "../mcpBridge/server";
import type { ProcessSpec, StdioProcess } from "../node/stdioProcess";
import { ServerRelay } from "./relay";

/** Where the project's stdio servers start, or why they cannot. */
export type ProcessLauncher = { start(spec: ProcessSpec): Promise<StdioProcess> } | { unavailable: string };

export interface ProjectServersDeps {
  host: TetherHost;
  /** The workspace root, in the host's namespace (POSIX or Windows). */
  root: string;
  launcher: ProcessLauncher;
  /** The text of the user's ~/.claude/settings.json, when there is one. */
  userSettings?: string;
  /** Ask the user about a server before its first start; undefined: not answered. */
  ask(server: McpServerEntry): Promise<McpChoice | undefined>;
  /** How the agent starts the bridge to a server (the command, arguments and environment). */
  bridgeCommand(bridge: BridgeServer): { command: string; args: string[]; env: Record<string, string> };
  /** A notice in the chat. */
  notice(message: string): void;
  /** The info changed (a server stopped). */
  changed(info: ProjectSetupInfo): void;
  /** A settings file Tether wrote (the user's answer, kept), with the text written. */
  written?(path: string, text: string): void;
  log(message: string): void;
}

const LOCAL_SETTINGS = ".claude/settings.local.json";

function join(root: string, rel: string): string {
  const windows = /^[A-Za-z]:\\/.test(root) || (root.includes("\\") && !root.includes("/"));
  const sep = windows ? "\\" : "/";
  return root.endsWith(sep) ? root + rel.split("/").join(sep) : root + sep + rel.split("/").join(sep);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function readText(host: TetherHost, file: string): Promise<string | undefined> {
  try {
    return Buffer.from(await host.readFile(file)).toString("utf8");
  } catch {
    return undefined;
  }
}

async function exists(host: TetherHost, file: string): Promise<boolean> {
  return host.stat(file).then(
    () => true,
    () => false,
  );
}

export class ProjectServers {
  /** The entries for the agent's config (`mcpServers`). */
  readonly entries: McpServerEntry[] = [];
  private readonly servers: ProjectServerInfo[] = [];
  private readonly off: OffItem[] = [];
  private readonly running: { relay: ServerRelay; bridge: BridgeServer }[] = [];
  private closing = false;

  private constructor(private readonly deps: ProjectServersDeps) {}

  /** Plan, ask, start. Never throws: what cannot run is off, with the reason, and told. */
  static async start(deps: ProjectServersDeps): Promise<ProjectServers> {
    const servers = new ProjectServers(deps);
    await servers.startAll();
    return servers;
  }

  info(): ProjectSetupInfo {
    return { servers: this.servers.map((s) => ({ ...s })), off: [...this.off] };
  }

  /** The session is over: every server stops and its endpoint goes. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.running.map(async ({ relay, bridge }) => Promise.all([relay.process.kill().catch(() => undefined), bridge.close()])));
  }

  private async startAll(): Promise<void> {
    const { host, root } = this.deps;
    const [mcpJson, project, local] = await Promise.all([
      readText(host, join(root, ".mcp.json")),
      readText(host, join(root, ".claude/settings.json")),
      readText(host, join(root, LOCAL_SETTINGS)),
    ]);
    const settings: [string, string][] = [];
    if (this.deps.userSettings !== undefined) settings.push(["~/.claude/settings.json", this.deps.userSettings]);
    if (project !== undefined) settings.push([".claude/settings.json", project]);
    if (local !== undefined) settings.push([LOCAL_SETTINGS, local]);
    const core = loadTetherCore();
    const folders: string[] = [];
    for (const folder of core.projectOffFolders()) if (await exists(host, join(root, folder))) folders.push(folder);
    this.off.push(...core.projectOffItems(settings, folders));
    const plan = core.projectMcpPlan(mcpJson ?? null, settings);
    for (const problem of plan.problems) {
      this.deps.notice(problem);
      this.off.push({ what: ".mcp.json", reason: problem });
    }
    let approveAll = false;
    for (const { server, decision } of plan.servers) {
      let approved: string | undefined;
      if (decision.decision === "approved") approved = `approved (${decision.reason})`;
      else if (decision.decision === "denied") {
        this.setOff(server, `denied (${decision.reason})`);
        continue;
      } else if (approveAll) approved = "approved (all of the project's servers)";
      else {
        const choice = await this.deps.ask(server).catch(() => undefined);
        if (choice === undefined) {
          this.setOff(server, "not approved yet: Tether asks again when the session starts again");
          continue;
        }
        await this.record(server.name, choice);
        if (choice === "deny") {
          this.setOff(server, "denied by you");
          continue;
        }
        approveAll = choice === "approveAll";
        approved = "approved by you";
      }
      await this.run(server, approved);
    }
  }

  private setOff(server: McpServerEntry, reason: string): void {
    this.servers.push({ name: server.name, transport: server.type, running: false, detail: reason });
    this.off.push({ what: `MCP server "${server.name}" (.mcp.json)`, reason });
  }

  /** Keep the user's choice in the workspace's settings.local.json, as Claude Code does. */
  private async record(name: string, choice: McpChoice): Promise<void> {
    const file = join(this.deps.root, LOCAL_SETTINGS);
    try {
      const text = loadTetherCore().recordMcpChoice((await readText(this.deps.host, file)) ?? null, name, choice);
      await this.deps.host.mkdir(join(this.deps.root, ".claude")).catch(() => undefined);
      // Told before the write lands: the context watcher may hear of it first.
      this.deps.written?.(file, text);
      await this.deps.host.writeFile(file, Buffer.from(text, "utf8"));
    } catch (error) {
      this.deps.notice(`Your choice for the MCP server "${name}" holds for this session only: ${LOCAL_SETTINGS} could not take it (${messageOf(error)}).`);
    }
  }

  private async run(server: McpServerEntry, approved: string): Promise<void> {
    if (server.type !== "stdio") {
      this.entries.push(server);
      this.servers.push({ name: server.name, transport: server.type, running: true, detail: `${approved}; reached from this computer at ${server.url}` });
      return;
    }
    const launcher = this.deps.launcher;
    if ("unavailable" in launcher) {
      this.failed(server, launcher.unavailable);
      return;
    }
    let process: StdioProcess;
    try {
      process = await launcher.start({ command: server.command, args: server.args, env: server.env, cwd: this.deps.root });
    } catch (error) {
      this.failed(server, `it could not start on the workspace: ${messageOf(error)}`);
      return;
    }
    const started = await ServerRelay.start(server.name, process, this.deps.log);
    this.running.push(started);
    this.entries.push({ type: "stdio", name: server.name, ...this.deps.bridgeCommand(started.bridge) });
    const info: ProjectServerInfo = { name: server.name, transport: "stdio", running: true, detail: `${approved}; runs on the workspace` };
    this.servers.push(info);
    this.deps.log(`project MCP server ${server.name} started on the workspace${process.pid ? ` (pid ${process.pid})` : ""}`);
    void process.exited.then((exit) => {
      if (this.closing) return;
      const how = exit.signal ? `was stopped by ${exit.signal}` : exit.code === null ? "is out of reach" : `exited with code ${exit.code}`;
      const tail = process.stderrTail().trim();
      const reason = `it ${how}${tail ? `. Its last output: ${tail}` : ""}`;
      info.running = false;
      info.detail = `stopped: ${reason}`;
      this.off.push({ what: `MCP server "${server.name}" (.mcp.json)`, reason: `stopped: ${reason}` });
      this.deps.notice(`The project's MCP server "${server.name}" stopped: ${reason}`);
      this.deps.changed(this.info());
    });
  }

  private failed(server: McpServerEntry, why: string): void {
    this.servers.push({ name: server.name, transport: server.type, running: false, detail: `failed: ${why}` });
    this.off.push({ what: `MCP server "${server.name}" (.mcp.json)`, reason: `failed: ${why}` });
    this.deps.notice(`The project's MCP server "${server.name}" is off: ${why}`);
  }
}
