// What an ACP agent's tool call costs over the Claude backend's, in one run:
//   - one Read of a small file as each backend gets it: Claude Code's `mcp_message` control request
//     handed to a TetherAgent in process (the baseline), against an ACP agent's MCP client line sent
//     to dist/tether-mcp-bridge.js, relayed over the private socket to a TetherAgent (acp backend:
//     the gate, then the tool) — the bridge's added cost per call; for scale, the tools alone
//     (TetherServer.handle) and the stdio server dist/tether-mcp.js;
//   - `fs/read_text_file` round trips as an ACP agent times them: the scripted fake agent
//     (tests/acp/fake-agent.mjs) through dist/tether-cli.js (agent stdio, the driver, the core).
// Prints medians, p95 and ratios; asserts nothing. Needs ./build.sh first.
//
//   node tests/bench/acp-bridge.mjs [--calls N]

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BRIDGE, MCP, REPO, loadBridgeHost, startTetherBridge } from "../acp/bridge-host.mjs";
import { record } from "./record.mjs";

const callsArg = process.argv.indexOf("--calls");
const CALLS = callsArg >= 0 ? Number(process.argv[callsArg + 1]) : 500;
const WARMUP = 50;
const FAKE_AGENT = join(dirname(fileURLToPath(import.meta.url)), "..", "acp", "fake-agent.mjs");

const base = realpathSync(mkdtempSync(join(tmpdir(), "tether-bench-bridge-")));
const root = join(base, "workspace");
mkdirSync(root);
const file = join(root, "small.txt");
writeFileSync(file, Array.from({ length: 20 }, (_, i) => `line ${i + 1} of a small file`).join("\n") + "\n");
writeFileSync(join(root, "notes.txt"), "hello world\nsecond line\n");
const readCall = (id) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "Read", arguments: { file_path: file } } });
const readLine = (id) => JSON.stringify(readCall(id));

/** How many rounds the calls are split into: each round times every path in turn (in a rotating
 * order), so a drift in the machine's speed hits all of them alike. */
const ROUNDS = 10;

/** Times each path's `call(id)` CALLS times after a warm-up, interleaved in rounds; milliseconds
 * per call, by path name. */
async function measureInterleaved(paths) {
  const names = Object.keys(paths);
  for (const name of names) for (let i = 0; i < WARMUP; i++) await paths[name](`w${i}`);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      for (let i = 0; i < CALLS / ROUNDS; i++) {
        const started = performance.now();
        await paths[name](`${round}-${i}`);
        samples[name].push(performance.now() - started);
      }
    }
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

const { BridgeServer, createTetherAgent, createTetherServer, NodeHost } = loadBridgeHost();
const host = new NodeHost();
const config = { root, homeDir: base, mode: "default" };

// The tools alone, in process.
const server = createTetherServer(host, { root });
const tools = async (id) => {
  const answer = JSON.parse(await server.handle(readLine(id)));
  if (answer.result?.isError) throw new Error("Read failed");
};

// The Claude backend: the CLI's mcp_message control request, in process.
const claude = createTetherAgent(host, { backend: "claude", ...config });
claude.initialize();
const inClaude = async (id) => {
  const request = { type: "control_request", request_id: `r${id}`, request: { subtype: "mcp_message", server_name: "tether", message: readCall(2) } };
  const outputs = await claude.onMessage(JSON.stringify(request));
  if (!outputs.some((o) => o.type === "send" && o.message.includes('"isError":false'))) throw new Error(`Read failed: ${JSON.stringify(outputs)}`);
};

// An ACP agent: its MCP client's line through the bridge process and socket to a TetherAgent.
const acp = createTetherAgent(host, { backend: "acp", ...config, agentName: "bench" });
const connections = new Map();
const acpBridge = await BridgeServer.start({
  handler: {
    handle: async (message, connection) => {
      connections.set(connection.id, connection);
      for (const output of await acp.onMcpMessage(connection.id, message)) {
        if (output.type === "mcpReply") connections.get(output.connection)?.send(output.message);
      }
      return undefined;
    },
  },
});
const bridgedAgent = stdioPeer(process.execPath, [BRIDGE], { PATH: process.env.PATH, ...acpBridge.env });

// For scale: the bridge to the tools alone, and the stdio server.
const tether = await startTetherBridge(root);
const bridged = stdioPeer(process.execPath, [BRIDGE], { PATH: process.env.PATH, ...tether.bridge.env });
const stdio = stdioPeer(process.execPath, [MCP, "--root", root], { PATH: process.env.PATH });

// The floor of any bridge: the same two hops (a relay process, a local socket) with nothing at
// either end but an answer to each line, so what the bridge row adds over it is Tether's own.
const floorSocket = join(base, "floor.sock");
const floorServer = createServer((socket) => {
  let pending = "";
  socket.setEncoding("utf8").on("data", (chunk) => {
    pending += chunk;
    let newline;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const { id } = JSON.parse(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      socket.write(JSON.stringify({ jsonrpc: "2.0", id, result: { content: [], isError: false } }) + "\n");
    }
  });
});
await new Promise((resolve) => floorServer.listen(floorSocket, resolve));
const BARE_RELAY = "const s = require('net').connect(process.env.FLOOR_SOCKET); process.stdin.pipe(s); s.pipe(process.stdout);";
const bareRelay = stdioPeer(process.execPath, ["-e", BARE_RELAY], { PATH: process.env.PATH, FLOOR_SOCKET: floorSocket });

const samples = await measureInterleaved({
  tools,
  inClaude,
  viaAgentBridge: bridgedAgent.call,
  viaBridge: bridged.call,
  viaStdio: stdio.call,
  viaBareRelay: bareRelay.call,
});
const { inClaude: inClaudeSamples, viaAgentBridge, viaBridge, viaStdio, viaBareRelay } = samples;
for (const peer of [bridgedAgent, bridged, stdio, bareRelay]) await peer.stop();
claude.free();
await acpBridge.close();
acp.free();
await tether.close();
await new Promise((resolve) => floorServer.close(resolve));

/** fs/read_text_file round trips timed by the fake agent, through tether-cli. */
function fsReads() {
  const mirror = join(base, "mirror");
  mkdirSync(mirror, { recursive: true });
  const argv = [
    join(REPO, "dist", "tether-cli.js"), "run", "--root", root, "--mirror", mirror, "--prompt", "bench",
    "--agent-command", process.execPath, "--agent-arg", FAKE_AGENT,
    "--agent-env", "FAKE_ACP_SCENARIO=read-bench", "--agent-env", `FAKE_ACP_READS=${CALLS}`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { env: { PATH: process.env.PATH, HOME: base }, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c));
    child.on("exit", () => {
      const chunk = stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.type === "textDelta" && e.text.startsWith("BENCH "));
      if (!chunk) reject(new Error("the fake agent reported no timings"));
      else resolve(JSON.parse(chunk.text.slice("BENCH ".length)));
    });
  });
}
const fsRoundTrips = await fsReads();
host.dispose();
rmSync(base, { recursive: true, force: true });

const fmt = (ms) => `${ms.toFixed(3)} ms`;
const baseline = stats(inClaudeSamples);
const rows = [
  ["Claude backend, in process (baseline)", baseline],
  ["ACP agent: bridge + socket + TetherAgent", stats(viaAgentBridge)],
  ["tools alone (TetherServer.handle)", stats(samples.tools)],
  ["bridge + socket to the tools alone", stats(viaBridge)],
  ["dist/tether-mcp.js over stdio", stats(viaStdio)],
  ["bare relay + socket, nothing behind (floor)", stats(viaBareRelay)],
];
console.log(`one Read of a 20-line file, ${CALLS} sequential calls after ${WARMUP} warm-up, every path in turn in ${ROUNDS} rounds (${process.platform}, Node ${process.versions.node}):`);
for (const [name, s] of rows) {
  console.log(`  ${name.padEnd(42)} median ${fmt(s.p50)}  p95 ${fmt(s.p95)}  min ${fmt(s.min)}  ${(s.p50 / baseline.p50).toFixed(2)}× baseline`);
}
const added = stats(viaAgentBridge).p50 - baseline.p50;
record("acp-tool-call", {
  ratio: stats(viaAgentBridge).p50 / baseline.p50, ratioMin: stats(viaAgentBridge).min / baseline.min,
  value: added, valueMin: stats(viaAgentBridge).min - baseline.min, goal: 0.3, unit: "+ms",
  what: "an ACP agent's tool call through the bridge, added to the Claude backend's in-process call",
});
console.log(`  an ACP agent's tool call costs ${fmt(added)} more than the Claude backend's at the median (budget ≤ 2 ms)`);
const floor = stats(viaBareRelay).p50;
console.log(`  of that, ${fmt(floor)} is the floor of a relay process and a socket with nothing behind them; Tether's bridge adds ${fmt(added - floor)} over it`);
const reads = stats(fsRoundTrips);
console.log(
  `fs/read_text_file of a 2-line file, ${CALLS} round trips timed by the fake agent through tether-cli: ` +
    `median ${fmt(reads.p50)}  p95 ${fmt(reads.p95)}  min ${fmt(reads.min)}  ${(reads.p50 / baseline.p50).toFixed(2)}× the baseline call`,
);
