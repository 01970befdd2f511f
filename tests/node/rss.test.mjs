// A bound, not a benchmark: 10,000 tool calls (Read, Edit, Grep, Glob, Bash) in one
// dist/tether-mcp.js session keep the server's resident memory at most 150 MB, and flat (±10%)
// after the first 2,000 calls. The server's RSS is read from /proc/<pid>/status every 500 calls;
// the curve is printed (TETHER_RSS_CURVE=path also writes it as JSON).
//
// V8 doubles its young generation, a scratch space it keeps once grown, from 16 to 32 MB under
// allocation pressure: here always around the 2,000th call (heap-probe.cjs reads its size in the
// server). The RSS steps up once with it, so "flat" is measured from the 2,000th call or, when that
// growth comes later, from the sample after it; the young generation must not grow again, and the
// flat stretch must be at least 6,000 calls long. A leak cannot hide in that space: whatever
// survives is promoted out of it.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const MCP = join(REPO, "dist", "tether-mcp.js");
const PROBE = join(dirname(fileURLToPath(import.meta.url)), "heap-probe.cjs");
const CALLS = 10_000;
const SAMPLE_EVERY = 500;
const WARM_UP = 2_000;
const MAX_RSS_BYTES = 150 * 1024 * 1024;
const FLAT = 0.1;
/** The flat stretch must cover at least this many calls. */
const MIN_FLAT_CALLS = 6_000;
/** Calls in flight at once: enough to keep the server busy, few enough to stay a session's pace. */
const IN_FLIGHT = 4;

assert.ok(existsSync(MCP), `${MCP} is missing: run ./build.sh first`);

const root = realpathSync(mkdtempSync(join(tmpdir(), "tether-rss-")));
let server;
after(() => {
  if (server && server.child.exitCode === null) server.child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

/** A small project: 40 source files in 4 folders, and one file the Edits flip back and forth. */
function makeProject() {
  for (let i = 0; i < 40; i++) {
    const dir = join(root, `pkg${i % 4}`, "src");
    mkdirSync(dir, { recursive: true });
    const lines = Array.from({ length: 60 }, (_, n) => `export const value${n} = ${i * 100 + n}; // needle-${n % 7}`);
    writeFileSync(join(dir, `mod${i}.ts`), lines.join("\n") + "\n");
  }
  writeFileSync(join(root, "counter.txt"), "state: even\n" + "filler line\n".repeat(50));
}

function rssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  assert.ok(kb > 0, `VmRSS of ${pid}`);
  return kb * 1024;
}

/** The NDJSON JSON-RPC client: one pending promise per id. */
function startServer() {
  const child = spawn(process.execPath, ["-r", PROBE, MCP, "--root", root], { stdio: ["pipe", "pipe", "pipe"] });
  const pending = new Map();
  let buffer = "";
  let stderr = "";
  const probes = [];
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    for (const match of chunk.matchAll(/^tether-heap-probe (.*)$/gm)) probes.shift()?.(JSON.parse(match[1]));
  });
  /** V8's young generation now, in bytes (heap-probe.cjs answers SIGUSR2). */
  const youngGeneration = () =>
    new Promise((resolve) => {
      probes.push((probe) => resolve(probe.young));
      child.kill("SIGUSR2");
    });
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const message = JSON.parse(line);
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    }
  });
  child.on("exit", (code, signal) => {
    for (const resolve of pending.values()) resolve({ error: { message: `the server exited (${code ?? signal}): ${stderr}` } });
    pending.clear();
  });
  let nextId = 1;
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  return { child, request, youngGeneration };
}

/** The i-th call of the mix: per 10 calls, 3 Reads, 2 Edits, 2 Greps, 2 Globs, 1 Bash. */
function callFor(i, state) {
  const file = join(root, `pkg${i % 4}`, "src", `mod${i % 40}.ts`);
  switch (i % 10) {
    case 0:
    case 3:
      return ["Read", { file_path: file }];
    case 6:
      return ["Read", { file_path: file, offset: 10, limit: 20 }];
    case 1:
    case 7: {
      const [from, to] = state.even ? ["state: even", "state: odd"] : ["state: odd", "state: even"];
      state.even = !state.even;
      return ["Edit", { file_path: join(root, "counter.txt"), old_string: from, new_string: to }];
    }
    case 2:
      return ["Grep", { pattern: `needle-${i % 7}`, output_mode: "files_with_matches" }];
    case 8:
      return ["Grep", { pattern: "value1[0-9]", output_mode: "content", "-n": true, head_limit: 50 }];
    case 4:
      return ["Glob", { pattern: "**/*.ts" }];
    case 9:
      return ["Glob", { pattern: `pkg${i % 4}/**/mod*.ts` }];
    default:
      return ["Bash", { command: `echo call-${i} && wc -l < ${JSON.stringify(file)}` }];
  }
}

test("10,000 tool calls keep the server's RSS at most 150 MB, and flat (±10%) after the first 2,000 (and V8's young generation grown)", { timeout: 240_000 }, async () => {
  makeProject();
  server = startServer();
  const { child, request, youngGeneration } = server;
  const init = await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "rss", version: "1" } });
  assert.ok(init.result, JSON.stringify(init));
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  // The Edits need the file read first (read-before-edit).
  const first = await request("tools/call", { name: "Read", arguments: { file_path: join(root, "counter.txt") } });
  assert.equal(first.result?.isError, false, JSON.stringify(first));

  const state = { even: true };
  const samples = [];
  const sample = async (calls) => {
    const rss = rssBytes(child.pid);
    samples.push({ calls, rssMb: rss / 2 ** 20, youngMb: (await youngGeneration()) / 2 ** 20 });
  };
  await sample(0);
  const failures = [];
  const started = Date.now();
  let issued = 0;
  // The Edits are kept in order (each flips the file the previous one left): they run one at a
  // time, the other calls around them in parallel.
  let editChain = Promise.resolve();
  const worker = async () => {
    while (issued < CALLS) {
      const i = issued++;
      const [name, args] = callFor(i, state);
      const call = () => request("tools/call", { name, arguments: args });
      const answer = name === "Edit" ? await (editChain = editChain.then(call)) : await call();
      if (answer.error || answer.result?.isError) failures.push(`${i} ${name}: ${JSON.stringify(answer.error ?? answer.result.content)}`);
      if ((i + 1) % SAMPLE_EVERY === 0) await sample(i + 1);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (Date.now() - started) / 1000;
  samples.sort((a, b) => a.calls - b.calls);
  const curve = samples;

  const line = (key) => curve.map((p) => `${p.calls}:${p[key].toFixed(1)}`).join(" ");
  const youngFinal = curve.at(-1).youngMb;
  // The first sample from WARM_UP on whose predecessor already had the final young generation.
  const baseIndex = curve.findIndex((p, i) => p.calls >= WARM_UP && i > 0 && curve[i - 1].youngMb === youngFinal);
  const base = curve[baseIndex];
  console.log(`# RSS (calls:MB) ${line("rssMb")}`);
  console.log(`# V8 young generation (calls:MB) ${line("youngMb")}`);
  console.log(`# flat from ${base?.calls} calls: ${base?.rssMb.toFixed(1)} MB -> ${curve.at(-1).rssMb.toFixed(1)} MB at ${CALLS}`);
  console.log(`# ${CALLS} calls in ${seconds.toFixed(1)} s (${(CALLS / seconds) | 0} calls/s), ${failures.length} failed`);
  if (process.env.TETHER_RSS_CURVE) writeFileSync(process.env.TETHER_RSS_CURVE, JSON.stringify({ curve, flatFrom: base?.calls, seconds }, null, 2));

  assert.deepEqual(failures.slice(0, 5), [], `every call answered without error (${failures.length} failed)`);
  assert.equal(readFileSync(join(root, "counter.txt"), "utf8").split("\n")[0], state.even ? "state: even" : "state: odd");
  const peak = Math.max(...curve.map((p) => p.rssMb));
  assert.ok(peak * 2 ** 20 <= MAX_RSS_BYTES, `peak RSS ${peak.toFixed(1)} MB is over 150 MB: ${line("rssMb")}`);
  assert.ok(base && CALLS - base.calls >= MIN_FLAT_CALLS, `V8's young generation settled too late (${line("youngMb")})`);
  for (const p of curve.slice(baseIndex)) {
    assert.equal(p.youngMb, youngFinal, `the young generation grew again at ${p.calls} calls: ${line("youngMb")}`);
    assert.ok(
      Math.abs(p.rssMb - base.rssMb) <= base.rssMb * FLAT,
      `RSS at ${p.calls} calls (${p.rssMb.toFixed(1)} MB) is not within ±10% of ${base.rssMb.toFixed(1)} MB at ${base.calls}: ${line("rssMb")}`,
    );
  }
});
