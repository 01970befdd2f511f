// Runs dist/tether-cli.js (and through it the real Claude Code CLI) against the scripted fake
// Messages API, in throwaway directories: a workspace, a HOME and a mirror folder (the CLI's cwd).
// Every process is bounded in time and killed by PID.

import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(here, "../..");
export const TETHER_CLI = path.join(REPO, "dist/tether-cli.js");
const CACHE = process.env.TETHER_CACHE ?? path.join(os.homedir(), ".cache/tether");
export const CLAUDE =
  process.env.TETHER_CLAUDE_PATH ?? path.join(CACHE, "claude-2.1.330/node_modules/@anthropic-ai/claude-code/bin/claude.exe");
const RUN_LIMIT_MS = 90_000;

if (!fs.existsSync(CLAUDE)) {
  throw new Error(`Claude Code not found at ${CLAUDE}: run ./build.sh test (it installs it) or set TETHER_CLAUDE_PATH`);
}
if (!fs.existsSync(TETHER_CLI)) throw new Error(`${TETHER_CLI} is missing: run ./build.sh first`);

/** Temp workspace (with `files`), HOME and mirror. Paths are real paths (macOS /tmp is a link). */
export function makeDirs(files = {}) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tether-it-")));
  const dirs = { base, root: path.join(base, "workspace"), home: path.join(base, "home"), mirror: path.join(base, "mirror") };
  for (const dir of [dirs.root, dirs.home, dirs.mirror]) fs.mkdirSync(dir);
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dirs.root, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  return { ...dirs, cleanup: () => fs.rmSync(base, { recursive: true, force: true }) };
}

/**
 * One `tether-cli run` against a fake API running `script` (or an `api` already started).
 * `onEvent(event, run)` sees each event as it arrives; `run.claudePid` is the CLI's PID.
 * `claudePath` replaces the CLI (a shim that execs it, say).
 * Resolves to {code, signal, events, stderr, api, requests}; the API is closed unless given.
 */
export async function runTether({ dirs, script, api: givenApi, args = [], onEvent, onStderr, limitMs = RUN_LIMIT_MS, claudePath = CLAUDE }) {
  const api = givenApi ?? (await startFakeApi(script));
  const argv = [TETHER_CLI, "run", "--root", dirs.root, "--mirror", dirs.mirror, "--verbose", ...args];
  const child = spawn(process.execPath, argv, {
    cwd: dirs.base,
    env: {
      PATH: process.env.PATH,
      HOME: dirs.home,
      TETHER_CLAUDE_PATH: claudePath,
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: "dummy",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      ...(process.env.TETHER_RG ? { TETHER_RG: process.env.TETHER_RG } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const run = { events: [], stderr: "", claudePid: undefined, child };
  let buffer = "";
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const event = JSON.parse(line);
      run.events.push(event);
      onEvent?.(event, run);
    }
  });
  child.stderr.on("data", (chunk) => {
    run.stderr += chunk;
    const pid = run.stderr.match(/claude pid (\d+)/);
    if (pid && run.claudePid === undefined) run.claudePid = Number(pid[1]);
    onStderr?.(String(chunk), run);
  });
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  const timer = setTimeout(() => {
    run.stderr += `\n[harness] time limit of ${limitMs} ms reached: killing tether-cli (pid ${child.pid}) and claude (pid ${run.claudePid})\n`;
    killPid(run.claudePid);
    killPid(child.pid);
  }, limitMs);
  const { code, signal } = await exited;
  clearTimeout(timer);
  // tether-cli kills the CLI when it stops; make sure of it whatever happened.
  killPid(run.claudePid);
  if (!givenApi) await api.close();
  return { code, signal, events: run.events, stderr: run.stderr, api, requests: api.messageRequests() };
}

export function killPid(pid) {
  if (pid === undefined) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Events of one type. */
export const ofType = (events, type) => events.filter((e) => e.type === type);

/** The last `done` event; fails the test with the run's stderr when there is none. */
export function lastDone(result) {
  const done = ofType(result.events, "done").at(-1);
  if (!done) throw new Error(`no done event (exit ${result.code}); stderr:\n${result.stderr}`);
  return done;
}

/** Every tool_result the model was sent, across the recorded requests (latest last). */
export function toolResults(requests) {
  const seen = new Map();
  for (const request of requests) {
    for (const message of request.body?.messages ?? []) {
      if (message.role !== "user" || !Array.isArray(message.content)) continue;
      for (const block of message.content) {
        if (block?.type !== "tool_result") continue;
        const text = typeof block.content === "string" ? block.content : (block.content ?? []).map((c) => c.text ?? "").join("");
        seen.set(block.tool_use_id, { id: block.tool_use_id, isError: block.is_error === true, text });
      }
    }
  }
  return [...seen.values()];
}

/** Files under `dir` (relative path → sha256 of the content, or "dir"), skipping `skip(rel)`. */
export function snapshot(dir, skip = () => false) {
  const out = new Map();
  const walk = (sub) => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (skip(rel)) continue;
      if (entry.isDirectory()) {
        out.set(rel, "dir");
        walk(rel);
      } else {
        const full = path.join(dir, rel);
        out.set(rel, entry.isFile() ? crypto.createHash("sha256").update(fs.readFileSync(full)).digest("hex") : `link:${fs.readlinkSync(full)}`);
      }
    }
  };
  walk("");
  return out;
}

/** Paths added, removed or changed between two snapshots. */
export function changes(before, after) {
  const changed = [];
  for (const [rel, hash] of after) if (before.get(rel) !== hash) changed.push(rel);
  for (const rel of before.keys()) if (!after.has(rel)) changed.push(rel);
  return changed.sort();
}

/** The CLI's own state in HOME: ~/.claude, ~/.claude.json and its backups, and its log cache
 * ~/.cache/claude-cli-nodejs (MCP server logs per project). */
export const isCliState = (rel) =>
  rel === ".claude" ||
  rel.startsWith(".claude/") ||
  rel.startsWith(".claude.json") ||
  rel === ".cache" ||
  rel === ".cache/claude-cli-nodejs" ||
  rel.startsWith(".cache/claude-cli-nodejs/");
