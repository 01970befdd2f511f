#!/usr/bin/env node
// dist/tether-mcp.js: Tether's tools for any MCP client, over the standard stdio transport.

import { statSync } from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { warmUpCore } from "../core/warmUp";
import { createTetherServer, type TetherServer } from "../core/wasm";
import { TOOL_NAMES } from "../generated/core";
import { serveNdjson, type MessageHandler } from "../node/ndjson";
import { NodeHost } from "../node/nodeHost";
import { warmUpHostWrites } from "../node/warmUpWrites";

const USAGE = `Usage: tether-mcp --root DIR [--mirror DIR] [--allow-outside-root] [--checkpoints DIR] [--verbose]

Serves Tether's tools (${TOOL_NAMES.join(", ")})
to an MCP client over stdio: one JSON-RPC message per line on stdin and stdout. Logs go to stderr.

  --root DIR             the workspace the tools work on (required)
  --mirror DIR           a local folder whose paths are mapped onto the root
  --allow-outside-root   let the tools reach paths outside the root
  --checkpoints DIR      keep the before-image of each file the tools change in DIR (the
                         server's life is one checkpoint)
  --verbose              log every message and its duration to stderr
  -h, --help             show this help

Environment:
  TETHER_RG              the ripgrep binary for Grep and Glob (default: rg on PATH; without
                         one, a slower built-in search is used)
`;

function log(message: string): void {
  process.stderr.write(`tether-mcp: ${message}\n`);
}

function fail(message: string): never {
  log(message);
  process.stderr.write("Run with --help for usage.\n");
  process.exit(2);
}

function parseCommandLine(): { root: string; mirror?: string; allowOutsideRoot: boolean; checkpoints?: string; verbose: boolean } {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        root: { type: "string" },
        mirror: { type: "string" },
        "allow-outside-root": { type: "boolean", default: false },
        checkpoints: { type: "string" },
        verbose: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  if (values.root === undefined || values.root === "") fail("--root DIR is required: the workspace the tools work on.");
  const root = path.resolve(values.root);
  let isDirectory = false;
  try {
    isDirectory = statSync(root).isDirectory();
  } catch {
    fail(`--root ${root} does not exist.`);
  }
  if (!isDirectory) fail(`--root ${root} is not a directory.`);
  return {
    root,
    ...(values.mirror !== undefined ? { mirror: path.resolve(values.mirror) } : {}),
    allowOutsideRoot: values["allow-outside-root"],
    ...(values.checkpoints ? { checkpoints: path.resolve(values.checkpoints) } : {}),
    verbose: values.verbose,
  };
}

/** Wrap the server so every message is logged with its method and duration. */
function verbose(server: TetherServer): MessageHandler {
  return {
    async handle(message: string) {
      const started = Date.now();
      let method = "?";
      try {
        const parsed = JSON.parse(message) as { method?: unknown; params?: { name?: unknown } };
        method = String(parsed.method ?? "(response)");
        if (method === "tools/call") method += ` ${String(parsed.params?.name)}`;
      } catch {
        method = "(unparseable)";
      }
      const response = await server.handle(message);
      log(`${method} ${Date.now() - started} ms`);
      return response;
    },
  };
}

async function main(): Promise<void> {
  const options = parseCommandLine();
  const host = new NodeHost();
  let server: TetherServer;
  try {
    server = createTetherServer(host, {
      root: options.root,
      ...(options.mirror !== undefined ? { mirror: options.mirror } : {}),
      allowOutsideRoot: options.allowOutsideRoot,
      ...(options.checkpoints ? { checkpoints: options.checkpoints } : {}),
    });
  } catch (error) {
    fail((error as Error).message);
  }
  if (options.checkpoints) await server.beginMessage(`tether-mcp-${Date.now()}`);
  // Background shells die with the server, however it ends.
  process.on("exit", () => host.dispose());
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => process.exit(0));
  process.stdout.on("error", (error) => {
    log(`stdout closed (${error.message}); exiting`);
    process.exit(0);
  });
  // Before the first request (it waits in stdin meanwhile), so that a first Edit sent at once
  // runs neither the core nor Node's file writes on code V8 has not compiled yet. Side by side, the
  // writes' file I/O overlaps the core's compiling.
  const warming = performance.now();
  await Promise.all([warmUpCore(), warmUpHostWrites(host)]);
  if (options.verbose) log(`serving ${options.root} over stdio (core and file writes warmed in ${(performance.now() - warming).toFixed(1)} ms)`);

  await serveNdjson(options.verbose ? verbose(server) : server, { input: process.stdin, output: process.stdout, log });
  // The server's life was one message: its before-images go to the checkpoint folder now.
  if (options.checkpoints) await server.flushCheckpoints().catch((error: unknown) => log(`checkpoints: ${String(error)}`));
  // stdin ended and every request is answered: flush and leave.
  process.stdout.write("", () => process.exit(0));
}

main().catch((error: unknown) => {
  log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
