#!/usr/bin/env node
// dist/tether-mcp-bridge.js: the stdio MCP server an ACP agent spawns (from `session/new`'s
// mcpServers) to reach Tether's tools in the extension host, through a private local socket or
// named pipe — never a TCP port.

import { relay } from "../mcpBridge/client";
import { BRIDGE_ENDPOINT_ENV, BRIDGE_TOKEN_ENV } from "../mcpBridge/protocol";

const USAGE = `Usage: tether-mcp-bridge

Relays MCP JSON-RPC lines between stdio and Tether's extension host. Started by an agent with
the environment Tether gives it; takes no arguments.

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
  const endpoint = process.env[BRIDGE_ENDPOINT_ENV];
  const token = process.env[BRIDGE_TOKEN_ENV];
  if (!endpoint || !token) {
    log(`${BRIDGE_ENDPOINT_ENV} and ${BRIDGE_TOKEN_ENV} must be set (Tether sets them when it starts an agent).`);
    return 2;
  }
  // Nothing this process starts should inherit the token.
  delete process.env[BRIDGE_TOKEN_ENV];
  return relay({ endpoint, token, input: process.stdin, output: process.stdout, log });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
