// What the session driver adds for an ACP agent: the agent as its registry entry gives it, the MCP
// bridge that brings Tether's tools to the agent's own MCP client (a private socket or pipe, its
// handler the session's TetherAgent, so every tool call meets the permission gate), the files its
// launch names, and gemini-cli's rule that a session cannot be loaded in the minute it started.

import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { ACP_AGENTS, type AgentOutput } from "../../generated/core";
import { BridgeServer, type BridgeConnection } from "../../mcpBridge/server";

/** The config keys the core's ACP backend reads, besides the common ones. */
export interface AcpConfigPart {
  agentName: string;
  agentArgs: string[];
  profile?: string;
  bridge: { command: string; args: string[]; env: Record<string, string> };
  stateDir: string;
  allowLocalTools?: boolean;
  replay?: boolean;
}

/** The bridge an agent's MCP client runs: this Node (Electron's, run as Node) and the script
 * next to this bundle. */
export function bridgeCommand(bridge: BridgeServer, script = path.join(__dirname, "tether-mcp-bridge.js")): AcpConfigPart["bridge"] {
  const env = { ...bridge.env };
  if (process.versions["electron"]) env["ELECTRON_RUN_AS_NODE"] = "1";
  return { command: process.execPath, args: [script], env };
}

/** The session's bridge: each MCP line goes to `handle` (the TetherAgent), whose replies come
 * back as `mcpReply` outputs and are written by `reply`. */
export class SessionBridge {
  private readonly connections = new Map<number, BridgeConnection>();

  private constructor(readonly server: BridgeServer) {}

  static async start(handle: (connection: number, message: string) => void, log: (message: string) => void): Promise<SessionBridge> {
    let bridge: SessionBridge | undefined;
    const server = await BridgeServer.start({
      handler: {
        handle: async (message, connection) => {
          bridge?.connections.set(connection.id, connection);
          handle(connection.id, message);
          // The answer goes out when the agent gives it (after the user's, for a gated call).
          return undefined;
        },
      },
      log,
    });
    bridge = new SessionBridge(server);
    return bridge;
  }

  /** Write an `mcpReply` output to its connection (dropped when the bridge is gone). */
  reply(output: Extract<AgentOutput, { type: "mcpReply" }>): void {
    this.connections.get(output.connection)?.send(output.message);
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

/** Write the files the agent's launch names (settings it reads), in Tether's own folder. */
export function writeLaunchFiles(files: [string, string][]): void {
  for (const [file, content] of files) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

/** When each session was first seen, to keep gemini-cli from loading one in its first minute. */
const sessionStarts = new Map<string, number>();

export function sessionStarted(id: string, nowMs = Date.now()): void {
  if (!sessionStarts.has(id)) sessionStarts.set(id, nowMs);
}

/** How long to wait before loading session `id` with the agent `profile`: gemini-cli fails (and
 * erases the session) when it is loaded in the wall-clock minute it started (gemini-cli#28775). */
export function loadDelayMs(profile: string | undefined, id: string, nowMs = Date.now()): number {
  const agent = ACP_AGENTS.find((a) => a.name === profile);
  const started = sessionStarts.get(id);
  if (!agent?.loadInALaterMinute || started === undefined) return 0;
  const minute = (ms: number) => Math.floor(ms / 60_000);
  if (minute(nowMs) !== minute(started)) return 0;
  // A second into the next minute, clear of clock skew between here and the agent.
  return (minute(nowMs) + 1) * 60_000 - nowMs + 1000;
}
