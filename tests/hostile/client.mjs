// What the hostile-input catalogue shares: a raw NDJSON client of dist/tether-mcp.js (any bytes
// in, every line out, answers found by id), workspace snapshots to prove that no byte was lost or
// half-written, and process clean-up by PID. Needs ./build.sh first.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const MCP = path.join(REPO, "dist", "tether-mcp.js");
export const TETHER_CLI = path.join(REPO, "dist", "tether-cli.js");
assert.ok(fs.existsSync(MCP), `${MCP} is missing: run ./build.sh first`);

/** How long one answer may take before the case fails (a hung server fails here, not by timeout). */
export const ANSWER_MS = 15_000;

const pids = new Set();
const servers = new Set();
const temps = new Set();

/**
 * End what the cases started, by PID: SIGTERM first (a server then ends the processes it started
 * itself), SIGKILL to the whole group after 2 s; and remove the cases' folders.
 */
export async function cleanUp() {
  await Promise.all(
    [...servers].map(async (server) => {
      try {
        process.kill(server.child.pid, "SIGTERM");
      } catch {
        // Gone already.
      }
      const timer = new Promise((resolve) => setTimeout(resolve, 2000));
      await Promise.race([server.exited, timer]);
    }),
  );
  servers.clear();
  for (const pid of pids) killTree(pid);
  pids.clear();
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
  temps.clear();
}

export function killTree(pid) {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}

/**
 * Run `node dist/tether-cli.js ARGS` to its end (killed with its process group after `timeoutMs`):
 * its exit code (or signal), its events (every stdout line must be JSON) and its stderr.
 */
export async function runTetherCli(args, { env, cwd, timeoutMs = 30_000 } = {}) {
  const child = spawn(process.execPath, [TETHER_CLI, ...args], { env, cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
  pids.add(child.pid);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c) => (stderr += c));
  const timer = setTimeout(() => killTree(child.pid), timeoutMs);
  const code = await new Promise((resolve) => child.on("exit", (c, signal) => resolve(c ?? signal)));
  clearTimeout(timer);
  killTree(child.pid);
  const events = stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        assert.fail(`tether-cli wrote a line that is not JSON: ${line.slice(0, 200)}`);
      }
    });
  return { code, events, stderr };
}

/** A fresh workspace with `files` (relative path → string | Buffer). Real path (no /tmp link). */
export function workspace(files = {}) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tether-hostile-")));
  temps.add(root);
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(root, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, content);
  }
  return root;
}

/** Every entry under `root`: relative path → "dir", "link:TARGET", "fifo", "socket", "device" or a sha256. */
export function snapshot(root) {
  const out = new Map();
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const sub = rel ? `${rel}/${entry.name}` : entry.name;
      const full = path.join(root, sub);
      if (entry.isDirectory()) {
        out.set(sub, "dir");
        walk(sub);
      } else if (entry.isSymbolicLink()) out.set(sub, `link:${fs.readlinkSync(full)}`);
      else if (entry.isFIFO()) out.set(sub, "fifo");
      else if (entry.isSocket()) out.set(sub, "socket");
      else if (entry.isFile()) out.set(sub, crypto.createHash("sha256").update(fs.readFileSync(full)).digest("hex"));
      else out.set(sub, "device");
    }
  };
  walk("");
  return out;
}

/** Assert `root` is as `before` was, except for the paths in `changed`; and no temp file is left. */
export function assertIntact(root, before, changed = []) {
  const after = snapshot(root);
  for (const [rel, value] of before) {
    if (changed.includes(rel)) continue;
    assert.equal(after.get(rel), value, `${rel} changed or vanished`);
  }
  for (const rel of after.keys()) {
    assert.ok(!/\.tether-\d+-\d+\.tmp$/.test(rel), `a temp file was left behind: ${rel}`);
    if (!before.has(rel)) assert.ok(changed.includes(rel), `${rel} appeared`);
  }
}

/** Whether this process may drop privileges to `nobody` (root with setpriv). */
export function canDropPrivileges() {
  if (process.getuid?.() !== 0) return "not running as root";
  if (spawnSync("setpriv", ["--version"]).status !== 0) return "setpriv is not installed";
  return undefined;
}

/**
 * A tether-mcp process on `root`. `options.args`: more flags; `options.asNobody`: run as the
 * unprivileged user (uid/gid 65534) through setpriv.
 */
export function startServer(root, options = {}) {
  const argv = [MCP, "--root", root, ...(options.args ?? [])];
  const [command, args] = options.asNobody
    ? ["setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, ...argv]]
    : [process.execPath, argv];
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], detached: true, env: { ...process.env, ...(options.env ?? {}) } });
  pids.add(child.pid);
  const server = new Server(child);
  servers.add(server);
  return server;
}

/**
 * A server on a fresh workspace with `files`, and `done(changed)`: the check every case ends with
 * (the server still answers; no path but `changed` differs from the snapshot taken before).
 */
export function session(files, options = {}) {
  const root = workspace(files);
  options.prepare?.(root);
  const before = snapshot(root);
  const server = startServer(root, options);
  const file = (rel) => path.join(root, rel);
  const done = async (changed = []) => {
    await server.assertAlive();
    assertIntact(root, before, changed);
  };
  return { root, server, file, before, done };
}

/** Whether a process whose command line contains `marker` is still running (read from /proc). */
export function running(marker) {
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").includes(marker)) return true;
    } catch {
      // Gone while we looked.
    }
  }
  return false;
}

/** Wait up to `ms` for `check()` to hold. */
export async function eventually(check, ms = 5000, what = "the condition") {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export class Server {
  constructor(child) {
    this.child = child;
    this.lines = [];
    /** `lines`, parsed, as far as they were looked at. */
    this.parsed = [];
    this.waiters = [];
    this.stderr = "";
    this.nextId = 1000;
    // The unfinished line, in pieces: a 10 MB answer arrives in hundreds of chunks.
    let pending = [];
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      let start = 0;
      let nl;
      while ((nl = chunk.indexOf("\n", start)) >= 0) {
        pending.push(chunk.slice(start, nl));
        this.lines.push(pending.join(""));
        pending = [];
        start = nl + 1;
      }
      if (start < chunk.length) pending.push(chunk.slice(start));
      this.wake();
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => (this.stderr += chunk));
    child.stdin.on("error", () => {});
    this.exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  }

  wake() {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Raw bytes to the server's stdin. */
  send(bytes) {
    this.child.stdin.write(bytes);
  }

  /** One JSON-RPC message as a line. */
  sendMessage(message) {
    this.send(JSON.stringify(message) + "\n");
  }

  /** The first line (parsed) that `match` accepts, waiting for it up to `ms`. */
  async waitFor(match, ms = ANSWER_MS, what = "an answer") {
    const deadline = Date.now() + ms;
    for (;;) {
      for (let i = 0; i < this.lines.length; i++) {
        if (this.parsed.length <= i) {
          try {
            this.parsed.push(JSON.parse(this.lines[i]));
          } catch {
            throw new Error(`the server wrote a line that is not JSON: ${this.lines[i].slice(0, 200)}`);
          }
        }
        if (match(this.parsed[i])) return this.parsed[i];
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${ms} ms; stderr: ${this.stderr.slice(-500)}`);
      let done;
      await new Promise((resolve) => {
        const timer = setTimeout(() => done(), left);
        done = () => {
          clearTimeout(timer);
          resolve();
        };
        this.waiters.push(done);
      });
      this.waiters = this.waiters.filter((w) => w !== done);
    }
  }

  /** The answer to request `id`. */
  answer(id, ms) {
    return this.waitFor((m) => !Array.isArray(m) && m.id === id, ms, `answer to id ${JSON.stringify(id)}`);
  }

  /** Send a request and wait for its answer. */
  async request(method, params, ms) {
    const id = this.nextId++;
    this.sendMessage({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    return this.answer(id, ms);
  }

  /** A tool call: `{isError, text, meta}`. */
  async call(name, args, ms) {
    const reply = await this.request("tools/call", { name, arguments: args }, ms);
    assert.ok(reply.result, `tools/call ${name} got an error response: ${JSON.stringify(reply.error)}`);
    const text = reply.result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
    return { isError: reply.result.isError, text, meta: reply.result._meta?.["tether/toolResult"], content: reply.result.content };
  }

  /** A tool call that must fail; returns its text. */
  async callError(name, args, ms) {
    const result = await this.call(name, args, ms);
    assert.equal(result.isError, true, `${name} should have failed: ${result.text.slice(0, 300)}`);
    return result.text;
  }

  /** A tool call that must succeed; returns its text. */
  async callOk(name, args, ms) {
    const result = await this.call(name, args, ms);
    assert.equal(result.isError, false, `${name} failed: ${result.text.slice(0, 500)}`);
    return result.text;
  }

  /** The server still answers: a ping and a small tool call. */
  async assertAlive() {
    const pong = await this.request("ping");
    assert.deepEqual(pong.result, {}, "ping");
    const listed = await this.request("tools/list");
    assert.equal(listed.result.tools.length, 11, "tools/list");
  }

  async close() {
    this.child.stdin.end();
    const timer = setTimeout(() => killTree(this.child.pid), 5000);
    const exit = await this.exited;
    clearTimeout(timer);
    pids.delete(this.child.pid);
    return exit;
  }
}
