#!/usr/bin/env node
// dist/tether-mcp-bridge.js: the stdio MCP server an ACP agent spawns (from `session/new`'s
// mcpServers) to reach Tether's tools in the extension host, through a private local socket or
// named pipe — never a TCP port.

import { readFileSync } from "node:fs";
import { relay } from "../mcpBridge/client";
import { BRIDGE_ENDPOINT_ENV, BRIDGE_TOKEN_ENV } from "../mcpBridge/protocol";

const USAGE = `Usage: tether-mcp-bridge [--connection FILE] [--server NAME]

Relays MCP JSON-RPC lines between stdio and Tether's extension host. Started by an agent with
the environment Tether gives it, or with --connection: a file, readable by this user only, that
holds {"endpoint", "token"} (for agents whose MCP config is on a command line). --server names
which of the host's servers to reach when its endpoint serves several (the IDE tools).

Environment:
  ${BRIDGE_ENDPOINT_ENV}   the host's socket path or pipe name
  ${BRIDGE_TOKEN_ENV}      the token the host expects
`;

function log(message: string): void {
  process.stderr.write(`tether-mcp-bridge: ${message}\n`);
}

async function main(): Promise<number> {
  if (process.argv.includes("-h") || process.argv.includes("--help")) {
    process.stdout.write(USAGE);
    return 0;
  }
  const file = process.argv.indexOf("--connection");
  let endpoint = process.env[BRIDGE_ENDPOINT_ENV];
  let token = process.env[BRIDGE_TOKEN_ENV];
  if (file !== -1) {
    try {
      const connection = JSON.parse(readFileSync(process.argv[file + 1] ?? "", "utf8")) as { endpoint?: unknown; token?: unknown };
      if (typeof connection.endpoint === "string") endpoint = connection.endpoint;
      if (typeof connection.token === "string") token = connection.token;
    } catch (error) {
      log(`cannot read the connection file: ${error instanceof Error ? error.message : String(error)}`);
      return 2;
    }
  }
  const serverFlag = process.argv.indexOf("--server");
  const server = serverFlag === -1 ? undefined : process.argv[serverFlag + 1];
  if (serverFlag !== -1 && !server) {
    log("--server needs a name");
    return 2;
  }
  if (!endpoint || !token) {
    log(`${BRIDGE_ENDPOINT_ENV} and ${BRIDGE_TOKEN_ENV} must be set (Tether sets them when it starts an agent).`);
    return 2;
  }
  // Nothing this process starts should inherit the token.
  delete process.env[BRIDGE_TOKEN_ENV];
  return relay({ endpoint, token, ...(server ? { server } : {}), input: process.stdin, output: process.stdout, log });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
