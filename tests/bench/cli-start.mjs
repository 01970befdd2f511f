#!/usr/bin/env node
// Start-up cost of Tether: from spawning to the CLI's first request to the (fake) Messages API.
//   bare        the claude binary alone with Tether's launch (flags and environment), stream-json,
//               no MCP server and no initialize: the prompt is written at once
//   initialize  the same, with Tether's own initialize line written at once before the prompt and
//               no Tether code running: what the CLI itself spends on Tether's MCP server, hooks
//               and agents, the floor for any host that declares them
//   in-process  the VS Code extension's case: this process runs the SessionDriver on a NodeHost,
//               with the wasm core already loaded (the extension loads it when the chat view
//               opens); timed from `openSession` (the user pressed Enter) through start()
//               and prompt(). In-process minus initialize is Tether's own code.
//   tether-cli  node dist/tether-cli.js run: Node's start, the wasm load, then as in-process
// All in the same run, interleaved, N times each (TETHER_BENCH_RUNS, default 7); prints medians
// and each variant's difference to bare.
//
//   node tests/bench/cli-start.mjs            the figures
//   node tests/bench/cli-start.mjs --trace    one run of each, line by line: every line the CLI
//                                             writes and every line Tether writes, from the spawn

import { execFileSync, spawn } from "node:child_process";
import childProcess from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { claude, esbuildPackage, loadExtensionModules, repo, wasmFile } from "./sources.mjs";
import { record } from "./record.mjs";

const tetherCli = path.join(repo, "dist/tether-cli.js");
const runs = Number(process.env.TETHER_BENCH_RUNS ?? 7);
const trace = process.argv.includes("--trace");
const RUN_LIMIT_MS = 60_000;

if (![claude, tetherCli, wasmFile, esbuildPackage].every((f) => fs.existsSync(f))) {
  console.log(`cli-start: skipped (needs ${claude}, ${tetherCli}, ${wasmFile} and ${esbuildPackage}; run ./build.sh once)`);
  process.exit(0);
}

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tether-bench-")));
const home = path.join(base, "home");
const root = path.join(base, "workspace");
const mirror = path.join(base, "mirror");
for (const dir of [home, root, mirror]) fs.mkdirSync(dir);

const firstRequestAt = [];
const api = await startFakeApi([{ text: "ok", repeat: true }], {
  log: (record) => {
    if (record.path === "/v1/messages") firstRequestAt.push(performance.now());
  },
});
const env = {
  PATH: process.env.PATH,
  HOME: home,
  TETHER_CLAUDE_PATH: claude,
  ANTHROPIC_BASE_URL: api.url,
  ANTHROPIC_API_KEY: "dummy",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
};
// The in-process driver hands the CLI its own process's environment, as the extension does: make
// it the same one the spawned variants get.
for (const name of Object.keys(process.env)) if (name !== "TETHER_BENCH_RESULTS") delete process.env[name]; // record() reads it
Object.assign(process.env, env);

/** openSession (the SessionDriver with a backend module's connector), NodeHost and wasm loader, bundled from the sources as build.sh bundles
 * dist/tether-cli.js, with the wasm beside the bundle (the glue loads it from __dirname). */
function loadDriverModule() {
  return loadExtensionModules(path.join(base, "driver"), "driver", [
    'export { openSession } from "./extension/src/session/open";',
    'export { agentEntries, findAgent } from "./extension/src/backends";',
    'export { readSettings } from "./extension/src/settings";',
    'export { NodeHost } from "./extension/src/node/nodeHost";',
    'export { loadTetherCore } from "./extension/src/core/wasm";',
  ]);
}

/** Resolves once the fake API saw the first /v1/messages request (or throws once `exited` did
 *  first); returns its time. */
async function firstRequest(exited, what) {
  while (firstRequestAt.length === 0) {
    const done = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 2))]);
    if (done && firstRequestAt.length === 0) throw new Error(`${what} exited before any API request`);
  }
  return firstRequestAt[0];
}

/** A timeline of one run: the offset of each step from `started`. */
class Timeline {
  constructor(started) {
    this.started = started;
    this.entries = [];
  }
  mark(what) {
    this.entries.push({ at: performance.now() - this.started, what });
  }
  print(title) {
    console.log(`\n${title}`);
    for (const { at, what } of this.entries.sort((a, b) => a.at - b.at)) console.log(`  [${at.toFixed(1).padStart(7)} ms] ${what}`);
  }
}

/** One protocol line, shortened to its gist: type, subtype, request id, MCP method. */
function gist(line) {
  try {
    const m = JSON.parse(line);
    const request = m.request ?? m.response ?? {};
    const parts = [m.type, m.subtype, request.subtype, request.message?.method, request.request_id ?? m.request_id].filter(Boolean);
    return `${parts.join(" ")} (${line.length} bytes)`;
  } catch {
    return `${line.slice(0, 80)} (${line.length} bytes)`;
  }
}

/** Watch a child's stdout lines and stdin writes into `timeline`. */
function traceChild(child, timeline) {
  timeline.mark(`spawned pid ${child.pid}`);
  let partial = "";
  child.stdout.on("data", (chunk) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop();
    for (const line of lines) if (line.trim()) timeline.mark(`<< claude ${gist(line)}`);
  });
  const write = child.stdin.write.bind(child.stdin);
  child.stdin.write = (data, ...rest) => {
    for (const line of String(data).split("\n")) if (line.trim()) timeline.mark(`>> tether ${gist(line)}`);
    return write(data, ...rest);
  };
}

/** Spawn, feed stdin, and measure spawn → first API request; the process is then stopped. */
async function measure(file, args, options, input, timeline) {
  firstRequestAt.length = 0;
  const started = performance.now();
  const child = spawn(file, args, { ...options, stdio: ["pipe", "pipe", "pipe"] });
  if (timeline) {
    timeline.started = started;
    traceChild(child, timeline);
  }
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
    if (timeline) for (const line of String(d).split("\n")) if (line.trim()) timeline.mark(`stderr ${line.slice(0, 160)}`);
  });
  // The last lines it wrote, for the error when it exits before any request. Hook callbacks (Tether's
  // initialize registers them) get the empty answer, "go on", that Tether gives with no project hooks.
  let stdoutTail = "";
  let partial = "";
  child.stdout.on("data", (d) => {
    stdoutTail = (stdoutTail + d).slice(-4000);
    const lines = (partial + d).split("\n");
    partial = lines.pop();
    for (const line of lines) {
      if (!line.includes('"hook_callback"')) continue;
      const { request_id } = JSON.parse(line);
      child.stdin.write(JSON.stringify({ type: "control_response", response: { subtype: "success", request_id, response: {} } }) + "\n");
    }
  });
  child.stdin.on("error", () => undefined);
  if (input) child.stdin.write(input);
  else child.stdin.end();
  const exited = new Promise((resolve) => child.on("close", resolve));
  const limit = setTimeout(() => child.kill("SIGKILL"), RUN_LIMIT_MS);
  let at;
  try {
    at = await firstRequest(exited, path.basename(file));
  } catch (error) {
    error.message += `:\nstderr: ${stderr}\nlast stdout: ${stdoutTail}`;
    throw error;
  }
  timeline?.mark("first /v1/messages request");
  child.stdin.end();
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  try {
    process.kill(child.pid, "SIGKILL");
  } catch {
    // Already gone.
  }
  clearTimeout(limit);
  return { ms: at - started, stderr };
}

const { openSession, agentEntries, findAgent, readSettings, NodeHost, loadTetherCore } = loadDriverModule();
const wasmStarted = performance.now();
loadTetherCore();
const wasmLoadMs = performance.now() - wasmStarted;
const host = new NodeHost();

/** The extension's case, in this process: openSession (driver and start()), prompt(); spawn → first API
 *  request is timed from the moment the driver is made. With a timeline, every line is marked on
 *  it; with `capture`, the driver's launch (argv, env) and the lines it writes are kept there. */
async function measureInProcess(timeline, capture) {
  firstRequestAt.length = 0;
  const spawnFunction = childProcess.spawn;
  if (timeline || capture) {
    // The driver's child, to watch its lines (the bundle calls child_process.spawn at run time).
    childProcess.spawn = (file, args, options) => {
      const child = spawnFunction(file, args, options);
      if (timeline) traceChild(child, timeline);
      if (capture) {
        capture.launch = { args, env: options.env };
        const write = child.stdin.write.bind(child.stdin);
        child.stdin.write = (data, ...rest) => {
          capture.written.push(String(data));
          return write(data, ...rest);
        };
      }
      return child;
    };
  }
  const started = performance.now();
  if (timeline) timeline.started = started;
  let exitedResolve;
  const exited = new Promise((resolve) => (exitedResolve = resolve));
  const settings = { ...readSettings(() => undefined).settings, claudePath: claude };
  let driver;
  try {
    driver = await openSession(
      findAgent(agentEntries(settings), "claude"),
      {
        host,
        root,
        mirror,
        // As the extension hands them over (read before the start): the workspace has no settings files.
        projectSettings: [],
        settings,
        place: { storageDir: base, secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined } },
        log: timeline ? (message) => timeline.mark(`driver: ${message.slice(0, 160)}`) : () => undefined,
      },
      {
        onEvent: (event) => {
          timeline?.mark(`event ${event.type}`);
          if (event.type === "error" && event.kind === "crash") exitedResolve();
        },
        onPermission: async () => ({ decision: "deny", reason: "benchmark" }),
      },
    );
  } finally {
    childProcess.spawn = spawnFunction;
  }
  timeline?.mark("start() resolved");
  void driver.prompt("hi");
  timeline?.mark("prompt() returned");
  const at = await firstRequest(exited, "claude (in-process driver)");
  timeline?.mark("first /v1/messages request");
  await driver.stop();
  return at - started;
}

const userLine = JSON.stringify({ type: "user", session_id: "", message: { role: "user", content: [{ type: "text", text: "hi" }] }, parent_tool_use_id: null }) + "\n";
const tetherArgs = [tetherCli, "run", "--root", root, "--mirror", mirror, "--prompt", "hi", "--verbose"];

// Warm-up: first-run files in HOME and the page cache, through tether-cli (a process of its own).
await measure(process.execPath, tetherArgs, { cwd: base, env });
// The first session in this process is the extension's first one (the driver's and the wasm's code
// not JIT-compiled yet); it gives Tether's exact launch (argv and environment) for the bare runs,
// and Tether's own initialize line.
const capture = { launch: undefined, written: [] };
const firstInProcessMs = await measureInProcess(undefined, capture);
if (!capture.launch) throw new Error("the driver spawned nothing");
const launchArgs = capture.launch.args;
const launchOptions = { cwd: mirror, env: capture.launch.env };
await measure(claude, launchArgs, launchOptions, userLine);
// Written to a bare claude at once: what the CLI itself spends on Tether's MCP server, hooks and
// agents, with no Tether code running.
const initializeLine = capture.written.join("").split("\n").find((line) => line.includes('"subtype":"initialize"'));
if (!initializeLine) throw new Error("the driver wrote no initialize line");
const initializeInput = initializeLine + "\n" + userLine;

if (trace) {
  const bareTimeline = new Timeline(0);
  await measure(claude, launchArgs, launchOptions, userLine, bareTimeline);
  bareTimeline.print("bare claude, one run (offsets from spawn()):");
  const rawTimeline = new Timeline(0);
  await measure(claude, launchArgs, launchOptions, initializeInput, rawTimeline);
  rawTimeline.print("claude with Tether's initialize line written at spawn, no Tether code running, one run:");
  const inProcessTimeline = new Timeline(0);
  await measureInProcess(inProcessTimeline);
  inProcessTimeline.print("in-process SessionDriver, one run (offsets from openSession):");
  const cliTimeline = new Timeline(0);
  await measure(process.execPath, tetherArgs, { cwd: base, env }, undefined, cliTimeline);
  cliTimeline.print("tether-cli, one run (offsets from spawning node; claude's own lines are not visible here):");
  console.log(`\nwasm load in this process: ${wasmLoadMs.toFixed(1)} ms (before the runs; the extension loads it when the chat view opens)`);
  await finish();
  process.exit(0);
}

/** Spawn → exit of a Node process that does nothing: what tether-cli pays before any Tether code
 *  runs, and what the extension never pays (its extension host is already running). */
async function nodeStart() {
  const started = performance.now();
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  await new Promise((resolve) => child.on("close", resolve));
  return performance.now() - started;
}

const bare = [];
const raw = [];
const inProcess = [];
const cli = [];
const node = [];
for (let i = 0; i < runs; i++) {
  bare.push((await measure(claude, launchArgs, launchOptions, userLine)).ms);
  raw.push((await measure(claude, launchArgs, launchOptions, initializeInput)).ms);
  inProcess.push(await measureInProcess());
  cli.push((await measure(process.execPath, tetherArgs, { cwd: base, env })).ms);
  node.push(await nodeStart());
}
await finish();

async function finish() {
  host.dispose();
  await api.close();
  fs.rmSync(base, { recursive: true, force: true });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (xs) => xs.map((x) => x.toFixed(0)).join(", ");
const mb = median(bare);
const version = execFileSync(claude, ["--version"], { encoding: "utf8" }).trim();
const delta = (m) => `${m - mb >= 0 ? "+" : ""}${(m - mb).toFixed(0)} ms (${((m / mb - 1) * 100).toFixed(0)}%)`;
/** The median of the per-round differences to bare (each round runs every variant once). */
const pairedDelta = (xs) => median(xs.map((x, i) => x - bare[i]));
const width = 44;
console.log(`cli-start: spawn → first API request, ${runs} runs each, interleaved (${version})`);
console.log(`  ${"bare claude (no MCP, no initialize)".padEnd(width)} median ${mb.toFixed(0).padStart(5)} ms   [${fmt(bare)}]`);
for (const [label, xs] of [
  ["claude + Tether's initialize, no Tether code", raw],
  ["in-process driver (the extension's case)", inProcess],
  ["tether-cli (Node start + wasm + driver)", cli],
]) {
  const m = median(xs);
  console.log(`  ${label.padEnd(width)} median ${m.toFixed(0).padStart(5)} ms   [${fmt(xs)}]`);
  console.log(`  ${"".padEnd(width)} vs bare ${delta(m)}; median of per-round differences ${pairedDelta(xs).toFixed(0)} ms`);
}
record("cli-first-request", {
  ratio: median(inProcess) / mb, ratioMin: Math.min(...inProcess) / Math.min(...bare),
  value: pairedDelta(inProcess), valueMin: Math.min(...inProcess) - Math.min(...bare), goal: 25, unit: "+ms",
  what: "CLI spawn → first model request with the in-process driver, added to the bare CLI's",
});
console.log(`  ${"node -e 0 (spawn → exit)".padEnd(width)} median ${median(node).toFixed(0).padStart(5)} ms   [${fmt(node)}]`);
console.log(`  in-process, first session (code not JIT-compiled yet): ${firstInProcessMs.toFixed(0)} ms; wasm load before it: ${wasmLoadMs.toFixed(0)} ms`);
console.log(`  Tether's own code in the extension's case (in-process − initialize-only, per round): ${median(inProcess.map((x, i) => x - raw[i])).toFixed(0)} ms`);
