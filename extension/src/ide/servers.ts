// How the IDE tools reach an agent: one entry per server name (`ide`, `vscode`) in the session
// config's `mcpServers`, the one list every backend takes its MCP servers from. Each entry is a
// bridge process (`tether-mcp-bridge.js --connection FILE --server NAME`) and all of them reach
// the same private endpoint; the bridge's hello names its server, and the host answers each line
// as that server (`ideBridgeHandler`).

import type { McpServerEntry } from "../generated/core";
import type { BridgeHandler } from "../mcpBridge/server";
import { IDE_SERVER_NAMES, type IdeToolsServer } from "./tools";

export interface BridgeLaunch {
  /** The program that runs the bridge script (the extension host's Node or Electron). */
  command: string;
  script: string;
  /** The bridge endpoint's private connection file (`BridgeServer.connectionFile()`). */
  connectionFile: string;
  env: Record<string, string>;
}

export function ideServerEntries(launch: BridgeLaunch): McpServerEntry[] {
  return IDE_SERVER_NAMES.map((name) => ({
    type: "stdio",
    name,
    command: launch.command,
    args: [launch.script, "--connection", launch.connectionFile, "--server", name],
    env: launch.env,
  }));
}

/** Each bridge connection's lines answered by the IDE tools' server its hello named. */
export function ideBridgeHandler(server: () => Promise<IdeToolsServer>): BridgeHandler {
  return { handle: async (line, connection) => (await server()).handle(line, connection.server ?? "") };
}
