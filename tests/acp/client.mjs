// A small raw ACP client for tests: NDJSON JSON-RPC 2.0 over an agent process's stdio, with
// every frame recorded. Plain Node, no dependencies.
//
//   const agent = spawnAgent({ command, args, env, cwd });
//   agent.onRequest = async (method, params) => result;   // agent → client requests (throw {code, message})
//   const init = await agent.request("initialize", {...});
//   await agent.waitFor((m) => m.method === "session/update" && …);
//   await agent.close();                                   // stdin closed, then the process group killed
//
// The agent runs in its own process group: close() (and killAll() for a test's leftovers) ends the
// whole tree by its PID — agents spawn helpers (gemini relaunches itself, codex runs an app
// server, every agent spawns its MCP servers), and gemini's wrapper ignores SIGTERM.

import { spawn } from "node:child_process";

const live = new Set();

export function spawnAgent({ command, args = [], env, cwd, requestTimeoutMs = 60_000, stderrLimit = 200_000 }) {
  const child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  live.add(child);
  const frames = [];
  const pending = new Map();
  const waiters = [];
  let nextId = 0;
  let buffer = "";
  let stderr = "";
  let exit = null;
  const exited = new Promise((resolve) =>
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      live.delete(child);
      for (const { reject } of pending.values()) reject(new Error(`agent exited (${code ?? signal}) before answering`));
      pending.clear();
      resolve(exit);
    }),
  );
  child.on("error", (e) => {
    for (const { reject } of pending.values()) reject(e);
    pending.clear();
  });
  child.stdin.on("error", () => {}); // a dead agent: the exit handler reports it
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk) => {
    if (stderr.length < stderrLimit) stderr += chunk;
  });
  child.stdout.setEncoding("utf8");

  const agent = {
    child,
    pid: child.pid,
    frames,
    exited,
    /** Agent → client requests: (method, params) → result, or throw {code, message}. */
    onRequest: async (method) => {
      throw { code: -32601, message: `Method not found: ${method}` };
    },
    get stderr() {
      return stderr;
    },
    get exit() {
      return exit;
    },
    send(message) {
      frames.push({ dir: "out", at: Date.now(), message });
      child.stdin.write(JSON.stringify(message) + "\n");
    },
    request(method, params, { timeoutMs = requestTimeoutMs } = {}) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method} got no answer in ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
        }, timeoutMs);
        pending.set(id, {
          resolve: (v) => (clearTimeout(timer), resolve(v)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
        agent.send({ jsonrpc: "2.0", id, method, params });
      });
    },
    notify(method, params) {
      agent.send({ jsonrpc: "2.0", method, params });
    },
    /** Messages received from the agent (requests, notifications, responses), in order. */
    received: () => frames.filter((f) => f.dir === "in").map((f) => f.message),
    /** Resolves with the first received message (past or future) that matches. */
    waitFor(predicate, { timeoutMs = requestTimeoutMs, after = 0 } = {}) {
      const seen = frames.slice(after).find((f) => f.dir === "in" && predicate(f.message));
      if (seen) return Promise.resolve(seen.message);
      return new Promise((resolve, reject) => {
        const waiter = { predicate, resolve };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no matching message in ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
        }, timeoutMs);
        waiter.resolve = (m) => (clearTimeout(timer), resolve(m));
        waiters.push(waiter);
      });
    },
    /** End stdin, give the agent `graceMs` to leave, then kill its process group. */
    async close({ graceMs = 3000 } = {}) {
      const started = Date.now();
      child.stdin.end();
      const timer = setTimeout(() => killGroup(child), graceMs);
      await exited;
      clearTimeout(timer);
      agent.closedInMs ??= Date.now() - started;
      killGroup(child); // helpers the agent left behind in its group
    },
    /** How long close() took for the agent to be gone (a SIGKILL after graceMs if it stayed). */
    closedInMs: undefined,
  };

  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) receive(line);
    }
  });

  function receive(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      frames.push({ dir: "in", at: Date.now(), message: { unparsed: line } });
      return;
    }
    frames.push({ dir: "in", at: Date.now(), message });
    if (message.method === undefined && message.id !== undefined) {
      const waiting = pending.get(message.id);
      if (waiting) {
        pending.delete(message.id);
        if (message.error) waiting.reject(Object.assign(new Error(message.error.message), { code: message.error.code, data: message.error.data }));
        else waiting.resolve(message.result);
      }
    } else if (message.method !== undefined && message.id !== undefined) {
      Promise.resolve()
        .then(() => agent.onRequest(message.method, message.params))
        .then(
          (result) => agent.send({ jsonrpc: "2.0", id: message.id, result: result ?? {} }),
          (error) =>
            agent.send({
              jsonrpc: "2.0",
              id: message.id,
              error: { code: error?.code ?? -32603, message: error?.message ?? String(error) },
            }),
        );
    }
    for (const waiter of [...waiters]) {
      if (waiter.predicate(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  }

  return agent;
}

function killGroup(child) {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}

/** Kill every agent process group still running (a test's `after`). */
export function killAll() {
  for (const child of live) killGroup(child);
  live.clear();
}

/** The `session/update`s of a session, as their `update` objects. */
export function updatesOf(agent, sessionId, after = 0) {
  return agent.frames
    .slice(after)
    .filter((f) => f.dir === "in" && f.message.method === "session/update" && f.message.params?.sessionId === sessionId)
    .map((f) => f.message.params.update);
}
