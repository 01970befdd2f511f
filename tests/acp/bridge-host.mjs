// The extension host's side of the MCP bridge, loaded outside VS Code for tests and benchmarks:
// extension/src/mcpBridge/server.ts with the wasm TetherServer and the Node host, bundled on the
// fly with the extension's esbuild into target/acp-tests/ (the wasm glue loads its .wasm from
// beside the bundle, so the built one is copied there). Needs ./build.sh first (dist/ and the wasm).

import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BRIDGE = join(REPO, "dist", "tether-mcp-bridge.js");
export const MCP = join(REPO, "dist", "tether-mcp.js");
const OUT = join(REPO, "target", "acp-tests");
const WASM = join(REPO, "dist", "tether_core_bg.wasm");

let loaded;

/** { BridgeServer, createTetherServer, createTetherAgent, NodeHost, createEndpoint }. */
export function loadBridgeHost() {
  if (loaded) return loaded;
  for (const file of [BRIDGE, WASM]) if (!existsSync(file)) throw new Error(`${file} is missing: run ./build.sh first`);
  const requireFromExtension = createRequire(join(REPO, "extension", "package.json"));
  const esbuild = requireFromExtension("esbuild");
  mkdirSync(OUT, { recursive: true });
  const outfile = join(OUT, "bridge-host.cjs");
  esbuild.buildSync({
    stdin: {
      contents: [
        'export { BridgeServer } from "./extension/src/mcpBridge/server";',
        'export { createTetherServer } from "./extension/src/core/wasm";',
        'export { createTetherAgent } from "./extension/src/session/agent";',
        'export { NodeHost } from "./extension/src/node/nodeHost";',
        'export { createEndpoint } from "./extension/src/mcpBridge/endpoint";',
      ].join("\n"),
      resolveDir: REPO,
      loader: "ts",
      sourcefile: "bridge-host.ts",
    },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    tsconfig: join(REPO, "extension", "tsconfig.json"),
    outfile,
    logLevel: "warning",
  });
  copyFileSync(WASM, join(OUT, "tether_core_bg.wasm"));
  loaded = createRequire(import.meta.url)(outfile);
  return loaded;
}

/**
 * A bridge server whose handler is a wasm TetherServer on `root` (the ACP backend puts the same
 * server behind its permission gate), mapping the agent's `mirror` folder onto it when given.
 * Returns { bridge, server, host, close }.
 */
export async function startTetherBridge(root, { mirror, log } = {}) {
  const { BridgeServer, createTetherServer, NodeHost } = loadBridgeHost();
  const host = new NodeHost();
  const server = createTetherServer(host, mirror ? { root, mirror } : { root });
  const handle = (line) => server.handle(line);
  const bridge = await BridgeServer.start({ handler: { handle }, log });
  return {
    bridge,
    server,
    host,
    close: async () => {
      await bridge.close();
      host.dispose();
    },
  };
}
