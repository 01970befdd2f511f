// The project's MCP servers for a session in VS Code: where their processes start (a local folder:
// here; a remote one: through Tether Remote), the question before a server's first start (Claude
// Code's three answers), and how the agent starts the bridge to each.

import { readFile } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { ProjectSource } from "../chat/contextSync";
import type { ProjectSetupInfo } from "../contract/protocol";
import type { McpChoice, McpServerEntry, UiEvent } from "../generated/core";
import type { BridgeServer } from "../mcpBridge/server";
import { startLocalProcess } from "../node/stdioProcess";
import { ProjectServers, type ProcessLauncher } from "../projectMcp";
import type { RemoteExecutor } from "../remote/executor";
import { TIER_LABELS } from "../remote/executor";

const CHOICES: [string, McpChoice][] = [
  ["Use this and all future MCP servers in this project", "approveAll"],
  ["Use this MCP server", "approve"],
  ["Continue without using this MCP server", "deny"],
];

function describe(server: McpServerEntry): string {
  if (server.type === "stdio") return `runs \`${[server.command, ...server.args].join(" ")}\` on the workspace`;
  return `${server.type.toUpperCase()} at ${server.url}, reached from this computer`;
}

/** Ask before a server's first start; undefined when the notification is dismissed. */
export async function askAboutServer(server: McpServerEntry): Promise<McpChoice | undefined> {
  const picked = await vscode.window.showInformationMessage(
    `Tether: new MCP server found in .mcp.json: "${server.name}" (${describe(server)}). MCP servers may execute code or access system resources. Use it?`,
    ...CHOICES.map(([label]) => label),
  );
  return CHOICES.find(([label]) => label === picked)?.[1];
}

function launcherFor(source: ProjectSource, executor: RemoteExecutor | undefined): ProcessLauncher {
  if (!source.remote) return { start: startLocalProcess };
  if (executor?.startProcess) {
    const remote = executor;
    return { start: (spec) => remote.startProcess!(spec) };
  }
  const how = executor ? `this window reaches the remote through the ${TIER_LABELS[executor.tier]}` : "no remote executor is available";
  return { unavailable: `stdio MCP servers run on the remote through Tether Remote, and ${how}` };
}

/** This Node (Electron's, run as Node) and the bridge script next to this bundle, told where to
 * connect by a private file: Claude Code takes its MCP servers on its command line, where the
 * token must not be. */
function bridgeCommand(bridge: BridgeServer): { command: string; args: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {};
  if (process.versions["electron"]) env["ELECTRON_RUN_AS_NODE"] = "1";
  return { command: process.execPath, args: [path.join(__dirname, "tether-mcp-bridge.js"), "--connection", bridge.connectionFile()], env };
}

export interface ProjectServersPorts {
  source: ProjectSource;
  executor: RemoteExecutor | undefined;
  onEvent(event: UiEvent): void;
  onInfo?(info: ProjectSetupInfo): void;
  /** A settings file written with the user's answer. */
  onWrite?(path: string, text: string): void;
  log(message: string): void;
}

/** The servers Tether runs for a session of this project (asked about, started, listed). */
export async function startProjectServers(ports: ProjectServersPorts): Promise<ProjectServers> {
  const userSettings = await readFile(path.join(os.homedir(), ".claude", "settings.json"), "utf8").catch(() => undefined);
  const servers = await ProjectServers.start({
    host: ports.source.host,
    root: ports.source.root,
    launcher: launcherFor(ports.source, ports.executor),
    ...(userSettings !== undefined ? { userSettings } : {}),
    ask: askAboutServer,
    bridgeCommand,
    notice: (message) => ports.onEvent({ type: "error", kind: "other", severity: "notice", message, hint: null }),
    changed: (info) => ports.onInfo?.(info),
    ...(ports.onWrite ? { written: ports.onWrite } : {}),
    log: ports.log,
  });
  ports.onInfo?.(servers.info());
  return servers;
}
