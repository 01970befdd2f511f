// What the MCP bridge adds to one tool call: a Read of a small file sent as an agent sends it (one
// NDJSON line to the stdin of dist/tether-mcp-bridge.js, which relays it over a Unix socket / named
// pipe to the host-side server and the wasm TetherServer) against the same call handed straight
// to an in-process TetherServer (what the Claude backend does with an `mcp_message`), and, for
// scale, to the stdio server dist/tether-mcp.js. One run; prints medians, p95 and the ratio;
// asserts nothing. Needs ./build.sh first.
//
//   node tests/bench/acp-bridge.mjs [--calls N]

import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE, MCP, loadBridgeHost, startTetherBridge } from "../acp/bridge-host.mjs";

const callsArg = process.argv.indexOf("--calls");
const CALLS = callsArg >= 0 ? Number(process.argv[callsArg + 1]) : 500;
const WARMUP = 50;

const root = realpathSync(mkdtempSync(join(tmpdir(), "tether-bench-bridge-")));
const file = join(root, "small.txt");
writeFileSync(file, Array.from({ length: 20 }, (_, i) => `line ${i + 1} of a small file`).join("\n") + "\n");
const readLine = (id) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "Read", arguments: { file_path: file } } });

/** Time `call(id)` CALLS times after a warm-up; milliseconds per call. */
async function measure(call) {
  for (let i = 0; i < WARMUP; i++) await call(`w${i}`);
  const samples = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await call(i);
    samples.push(performance.now() - started);
  }
  return samples;
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p95: at(0.95), min: sorted[0] };
}

/** A process speaking NDJSON JSON-RPC on stdio; `call(id)` sends the Read and awaits its answer. */
function stdioPeer(command, args, env) {
  const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "inherit"] });
  const waiting = new Map();
  let buffer = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const message = JSON.parse(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      const done = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error || message.result?.isError) throw new Error(`Read failed: ${JSON.stringify(message)}`);
      done?.();
    }
  });
  return {
    call: (id) =>
      new Promise((resolve) => {
        waiting.set(id, resolve);
        child.stdin.write(readLine(id) + "\n");
      }),
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.stdin.end();
        setTimeout(() => child.kill("SIGKILL"), 5000).unref();
      }),
  };
}

const { createTetherServer, NodeHost } = loadBridgeHost();
const host = new NodeHost();
const inProcess = createTetherServer(host, { root });
const direct = await measure(async (id) => {
  const answer = JSON.parse(await inProcess.handle(readLine(id)));
  if (answer.result?.isError) throw new Error("Read failed");
});

const tether = await startTetherBridge(root);
const bridged = stdioPeer(process.execPath, [BRIDGE], { PATH: process.env.PATH, ...tether.bridge.env });
const viaBridge = await measure(bridged.call);
await bridged.stop();
await tether.close();

const stdio = stdioPeer(process.execPath, [MCP, "--root", root], { PATH: process.env.PATH });
const viaStdio = await measure(stdio.call);
await stdio.stop();
host.dispose();
rmSync(root, { recursive: true, force: true });

const fmt = (ms) => `${ms.toFixed(3)} ms`;
const base = stats(direct);
const rows = [
  ["in-process TetherServer.handle (baseline)", base],
  ["through dist/tether-mcp-bridge.js + socket", stats(viaBridge)],
  ["dist/tether-mcp.js over stdio (for scale)", stats(viaStdio)],
];
console.log(`one Read of a 20-line file, ${CALLS} sequential calls after ${WARMUP} warm-up (${process.platform}, Node ${process.versions.node}):`);
for (const [name, s] of rows) {
  console.log(`  ${name.padEnd(44)} median ${fmt(s.p50)}  p95 ${fmt(s.p95)}  min ${fmt(s.min)}  ${(s.p50 / base.p50).toFixed(2)}× baseline`);
}
const bridge = stats(viaBridge);
console.log(`  the bridge adds ${fmt(bridge.p50 - base.p50)} per call at the median (ratio ${(bridge.p50 / base.p50).toFixed(2)}; the issue's budget: ≤ 2 ms)`);
