#!/usr/bin/env node
// Send → first model request, as the chat does it (the extension's SessionManager and ChatSession
// over the real SessionDriver, a NodeHost and the real claude CLI against the fake Messages API),
// in this process, with the wasm core loaded as the extension has it by then:
//   warm   the chat view showed the session, so its agent was started ahead (ChatSession.warm);
//          the user types for a while (TYPING_MS), then sends
//   cold   the same prompt sent to a session whose agent is not running (the baseline: every
//          first prompt before; still the case for a session the view never showed)
//   bare   the floor: the claude binary alone with Tether's launch (argv, environment, cwd) and
//          an initialize that declares nothing (no MCP server, no hooks, no agents), no Tether
//          code, started as long ahead; the prompt's line written to its stdin. What the CLI
//          itself takes from a prompt to its request. (Without any initialize the CLI does its
//          set-up on the first prompt instead, ~60 ms more, so that is no floor.)
// Timed from ChatSession.send (what the view's sendPrompt message calls), or the bare line's
// write, to the fake API seeing the first /v1/messages request; runs interleaved,
// TETHER_BENCH_RUNS (default 7) each. Also checks that an agent started ahead and never prompted leaves no conversation behind
// (the history lists nothing new).
//
//   node tests/bench/first-request.mjs           the figures
//   node tests/bench/first-request.mjs --trace   one warm run, line by line: what the CLI writes
//                                                and what Tether writes, from the warm start

import childProcess from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { claude, esbuildPackage, loadExtensionModules, wasmFile } from "./sources.mjs";
import { median, min, record } from "./record.mjs";

const runs = Number(process.env.TETHER_BENCH_RUNS ?? 7);
/** How long the user takes to type the first prompt after the view shows the session. */
const TYPING_MS = Number(process.env.TETHER_BENCH_TYPING_MS ?? 3000);
const GOAL_MS = 150;
const LIMIT_MS = 60_000;

if (![claude, wasmFile, esbuildPackage].every((f) => fs.existsSync(f))) {
  console.log(`first-request: skipped (needs ${claude}, ${wasmFile} and ${esbuildPackage}; run ./build.sh once)`);
  process.exit(0);
}

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tether-bench-send-")));
const home = path.join(base, "home");
const root = path.join(base, "workspace");
for (const dir of [home, root]) fs.mkdirSync(dir);
fs.writeFileSync(path.join(root, "hello.txt"), "hello\n");

let requests = [];
const api = await startFakeApi([{ text: "ok", repeat: true }], {
  log: (entry) => {
    if (entry.path === "/v1/messages") requests.push(performance.now());
  },
});
// The driver hands the CLI this process's environment, as the extension host does.
// (TETHER_BENCH_RESULTS stays: record() reads it.)
for (const name of Object.keys(process.env)) if (name !== "PATH" && name !== "TETHER_BENCH_RESULTS") delete process.env[name];
Object.assign(process.env, { HOME: home, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" });

/** The chat's session manager, the driver, the Node host and the wasm loader, bundled from the
 * sources as build.sh bundles the extension, with the wasm beside the bundle. */
function loadChatModule() {
  return loadExtensionModules(path.join(base, "chat"), "chat", [
    'export { SessionManager } from "./extension/src/chat/sessions";',
    'export { openSession } from "./extension/src/session/open";',
    'export { agentEntries, findAgent } from "./extension/src/backends";',
    'export { readSettings } from "./extension/src/settings";',
    'export { NodeHost } from "./extension/src/node/nodeHost";',
    'export { loadTetherCore } from "./extension/src/core/wasm";',
  ]);
}

const { SessionManager, openSession, agentEntries, findAgent, readSettings, NodeHost, loadTetherCore } = loadChatModule();
loadTetherCore();
const host = new NodeHost();
const settings = { ...readSettings(() => undefined).settings, claudePath: claude };
const entry = findAgent(agentEntries(settings), "claude");
const place = { storageDir: base, secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined } };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A chat as the extension makes it (ctx.ts), with one open session, its views and reviews going nowhere. */
function chat() {
  const manager = new SessionManager({
    reviews: { open: async () => undefined, answeredElsewhere: async () => undefined, cancel: async () => undefined },
    initialState: () => ({ mode: "default", model: "", models: [], modes: [], where: "local", workspaceLabel: "", connected: true, busy: false }),
    onState: () => undefined,
    onChange: () => undefined,
    agent: () => ({ name: "claude", displayName: "Claude Code", history: "files" }),
    workspace: async () => ({ host, root }),
    startAgent: ({ source, setup, mode, model, resume, onEvent, onPermission }) =>
      openSession(
        entry,
        { host: source.host, root: source.root, ...setup, ...(resume ? { resume } : {}), settings, place, log: () => undefined },
        { mode, ...(model ? { model } : {}), onEvent, onPermission },
      ),
    defaultMode: () => "default",
    fail: (what, error) => console.error(`${what}: ${error}`),
    log: () => undefined,
  });
  return { manager, session: manager.create("claude").session };
}

/** Send the first prompt; resolves with send → first API request (ms). */
async function firstRequest(session) {
  requests = [];
  const sent = performance.now();
  const turn = session.send("hi", []);
  const deadline = Date.now() + LIMIT_MS;
  while (requests.length === 0) {
    if (Date.now() > deadline) throw new Error("no API request within a minute of the send");
    await sleep(1);
  }
  const at = requests[0] - sent;
  await Promise.race([turn, sleep(10_000)]);
  return at;
}

async function cold() {
  const { manager, session } = chat();
  try {
    return await firstRequest(session);
  } finally {
    await manager.disposeAll("bench");
  }
}

async function warm() {
  const { manager, session } = chat();
  try {
    session.warm();
    await sleep(TYPING_MS);
    if (!session.running) throw new Error(`the agent started ahead is not running ${TYPING_MS} ms later`);
    return await firstRequest(session);
  } finally {
    await manager.disposeAll("bench");
  }
}

/** Transcript files the CLI wrote under HOME. */
function transcripts() {
  const projects = path.join(home, ".claude/projects");
  if (!fs.existsSync(projects)) return [];
  return fs.readdirSync(projects, { recursive: true }).filter((f) => String(f).endsWith(".jsonl"));
}

if (process.argv.includes("--trace")) {
  await cold();
  const started = performance.now();
  const mark = (what) => console.log(`  [${(performance.now() - started).toFixed(0).padStart(6)} ms] ${what}`);
  const spawn = childProcess.spawn;
  childProcess.spawn = (file, args, options) => {
    const child = spawn(file, args, options);
    mark(`spawned ${path.basename(file)}`);
    child.stdout.on("data", (chunk) => String(chunk).split("\n").filter((l) => l.trim()).forEach((l) => mark(`<< ${l.slice(0, 140)}`)));
    const write = child.stdin.write.bind(child.stdin);
    child.stdin.write = (data, ...rest) => {
      String(data).split("\n").filter((l) => l.trim()).forEach((l) => mark(`>> ${l.slice(0, 140)}`));
      return write(data, ...rest);
    };
    return child;
  };
  const { manager, session } = chat();
  session.warm();
  await sleep(TYPING_MS);
  mark("send");
  const at = await firstRequest(session);
  mark(`first /v1/messages request (${at.toFixed(0)} ms after the send)`);
  childProcess.spawn = spawn;
  await manager.disposeAll("bench");
  host.dispose();
  await api.close();
  process.exit(0);
}

/** The bare CLI with Tether's launch (captured from a warm session), started ahead, prompted with
 *  the line a host writes; resolves with write → first API request (ms). */
async function bare(launch) {
  const child = childProcess.spawn(launch.file, launch.args, { cwd: launch.cwd, env: launch.env, stdio: ["pipe", "pipe", "pipe"] });
  child.stdout.on("data", () => undefined);
  child.stderr.on("data", () => undefined);
  child.stdin.on("error", () => undefined);
  child.stdin.write(JSON.stringify({ type: "control_request", request_id: "bench-1", request: { subtype: "initialize" } }) + "\n");
  const exited = new Promise((resolve) => child.on("close", resolve));
  try {
    await sleep(TYPING_MS);
    requests = [];
    const sent = performance.now();
    child.stdin.write(JSON.stringify({ type: "user", session_id: "", message: { role: "user", content: [{ type: "text", text: "hi" }] }, parent_tool_use_id: null }) + "\n");
    const deadline = Date.now() + LIMIT_MS;
    while (requests.length === 0) {
      if (Date.now() > deadline) throw new Error("the bare CLI made no API request within a minute of the prompt");
      if (await Promise.race([exited.then(() => true), sleep(1).then(() => false)])) throw new Error("the bare CLI exited before any API request");
    }
    return requests[0] - sent;
  } finally {
    child.stdin.end();
    await Promise.race([exited, sleep(5_000)]);
    try {
      process.kill(child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

// Warm-up: first-run files in HOME, the page cache, the code JIT-compiled; the warm session's
// launch is kept for the bare runs.
await cold();
let launch;
const spawnFunction = childProcess.spawn;
childProcess.spawn = (file, args, options) => {
  launch ??= { file, args, cwd: options.cwd, env: options.env };
  return spawnFunction(file, args, options);
};
await warm();
childProcess.spawn = spawnFunction;
if (!launch) throw new Error("the warm session spawned nothing");
await bare(launch);

// An agent started ahead and never prompted: no conversation left for the history.
const before = transcripts().length;
const idle = chat();
idle.session.warm();
await sleep(TYPING_MS);
const idleRunning = idle.session.running;
await idle.manager.disposeAll("bench");
await sleep(200);
const leftBehind = transcripts().length - before;

const warmMs = [];
const coldMs = [];
const bareMs = [];
for (let i = 0; i < runs; i++) {
  coldMs.push(await cold());
  warmMs.push(await warm());
  bareMs.push(await bare(launch));
}
host.dispose();
await api.close();
fs.rmSync(base, { recursive: true, force: true });

const fmt = (xs) => xs.map((x) => x.toFixed(0)).join(", ");
console.log(`send → first model request (ChatSession.send → the fake API's first /v1/messages), ${runs} runs each, interleaved:`);
console.log(`  agent started ahead (the view showed the session; sent ${TYPING_MS} ms later): median ${median(warmMs).toFixed(0)} ms, min ${min(warmMs).toFixed(0)} [${fmt(warmMs)}]`);
console.log(`  baseline, agent not running (it starts on the send):                    median ${median(coldMs).toFixed(0)} ms, min ${min(coldMs).toFixed(0)} [${fmt(coldMs)}]`);
console.log(`  floor, the bare CLI started as long ahead (empty initialize, no Tether):  median ${median(bareMs).toFixed(0)} ms, min ${min(bareMs).toFixed(0)} [${fmt(bareMs)}]`);
const added = bareMs.map((b, i) => warmMs[i] - b);
console.log(`  Tether's own share, started ahead minus the floor (paired by round):     median ${median(added).toFixed(0)} ms`);
console.log(`  an agent started ahead and never prompted: ${idleRunning ? "ran" : "did NOT run"}, left ${leftBehind} conversation file(s) behind`);
if (leftBehind !== 0) console.log("  (a conversation file from an unused start shows in the history: not the goal)");
record("send-first-request", {
  ratio: median(warmMs) / median(coldMs), ratioMin: min(warmMs) / min(coldMs),
  value: median(warmMs), valueMin: min(warmMs), goal: GOAL_MS, unit: "ms",
  what: "send → first model request with the agent started ahead (ratio: vs the same send to a session not started)",
});
record("send-first-request-vs-bare", {
  ratio: median(warmMs) / median(bareMs), ratioMin: min(warmMs) / min(bareMs),
  value: median(added), valueMin: min(warmMs) - min(bareMs), goal: 25, unit: "+ms",
  what: "send → first model request, agent started ahead, added to the bare CLI's own prompt → request (same launch, no Tether)",
});
