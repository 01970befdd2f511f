#!/usr/bin/env node
// Start-up cost of Tether: from spawning to the CLI's first request to the (fake) Messages API.
//   bare    the claude binary alone with Tether's launch flags, stream-json, no MCP server and no
//           initialize: the prompt is written at once
//   tether  node dist/tether-cli.js run: Node, the wasm core, the settings read through the host,
//           initialize with Tether's MCP server, then the prompt
// Both in the same run, interleaved, N times each (TETHER_BENCH_RUNS, default 7); prints medians.
//
//   node tests/bench/cli-start.mjs

import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
const cache = process.env.TETHER_CACHE ?? path.join(os.homedir(), ".cache/tether");
const claude = process.env.TETHER_CLAUDE_PATH ?? path.join(cache, "claude-2.1.330/node_modules/@anthropic-ai/claude-code/bin/claude.exe");
const tetherCli = path.join(repo, "dist/tether-cli.js");
const runs = Number(process.env.TETHER_BENCH_RUNS ?? 7);
const RUN_LIMIT_MS = 60_000;

if (!fs.existsSync(claude) || !fs.existsSync(tetherCli)) {
  console.log(`cli-start: skipped (needs ${claude} and ${tetherCli}; run ./build.sh test once)`);
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

/** Spawn, feed stdin, and measure spawn → first API request; the process is then stopped. */
async function measure(file, args, options, input) {
  firstRequestAt.length = 0;
  const started = performance.now();
  const child = spawn(file, args, { ...options, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  child.stdout.on("data", () => undefined);
  child.stdin.on("error", () => undefined);
  if (input) child.stdin.write(input);
  else child.stdin.end();
  const exited = new Promise((resolve) => child.on("close", resolve));
  const limit = setTimeout(() => child.kill("SIGKILL"), RUN_LIMIT_MS);
  while (firstRequestAt.length === 0) {
    const done = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 5))]);
    if (done && firstRequestAt.length === 0) throw new Error(`${path.basename(file)} exited before any API request:\n${stderr}`);
  }
  const ms = firstRequestAt[0] - started;
  child.stdin.end();
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  try {
    process.kill(child.pid, "SIGKILL");
  } catch {
    // Already gone.
  }
  clearTimeout(limit);
  return { ms, stderr };
}

const userLine = JSON.stringify({ type: "user", session_id: "", message: { role: "user", content: [{ type: "text", text: "hi" }] }, parent_tool_use_id: null }) + "\n";
const tetherArgs = [tetherCli, "run", "--root", root, "--mirror", mirror, "--prompt", "hi", "--verbose"];

// Warm-up (first-run files in HOME, page cache), and Tether's exact launch flags for the bare runs.
const warm = await measure(process.execPath, tetherArgs, { cwd: base, env });
const spawnLine = warm.stderr.split("\n").find((l) => l.startsWith("tether-cli: spawning "));
if (!spawnLine) throw new Error(`no launch line in tether-cli's log:\n${warm.stderr}`);
const launchArgs = spawnLine.slice(spawnLine.indexOf(" --") + 1, spawnLine.lastIndexOf(" in ")).split(" ");
await measure(claude, launchArgs, { cwd: mirror, env }, userLine);

/** Spawn → exit of a Node process that does nothing: what tether-cli pays before any Tether code
 *  runs, and what the extension never pays (its extension host is already running). */
async function nodeStart() {
  const started = performance.now();
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  await new Promise((resolve) => child.on("close", resolve));
  return performance.now() - started;
}

const bare = [];
const tether = [];
const node = [];
for (let i = 0; i < runs; i++) {
  bare.push((await measure(claude, launchArgs, { cwd: mirror, env }, userLine)).ms);
  tether.push((await measure(process.execPath, tetherArgs, { cwd: base, env })).ms);
  node.push(await nodeStart());
}
await api.close();
fs.rmSync(base, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (xs) => xs.map((x) => x.toFixed(0)).join(", ");
const mb = median(bare);
const mt = median(tether);
const version = execFileSync(claude, ["--version"], { encoding: "utf8" }).trim();
console.log(`cli-start: spawn → first API request, ${runs} runs each (${version})`);
console.log(`  bare claude (no MCP, no initialize)   median ${mb.toFixed(0)} ms   [${fmt(bare)}]`);
console.log(`  through tether-cli (MCP + initialize) median ${mt.toFixed(0)} ms   [${fmt(tether)}]`);
const mn = median(node);
console.log(`  node -e 0 (spawn → exit)              median ${mn.toFixed(0)} ms   [${fmt(node)}]`);
console.log(`  Tether adds ${(mt - mb).toFixed(0)} ms (${((mt / mb - 1) * 100).toFixed(0)}%) through tether-cli;`);
console.log(`  ${(mt - mb - mn).toFixed(0)} ms without Node's own start (the extension's case: its host is already running)`);
