// Running `dist/tether-cli.js run` with a real ACP agent, as cli.test.mjs and tools.test.mjs do:
// the agent's launch from agents.mjs turned into tether-cli flags, the run bounded in time and
// ended by its process group.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "./bridge-host.mjs";

const CLI = join(REPO, "dist", "tether-cli.js");
export const RUN_LIMIT_MS = 150_000;
const live = new Set();

/** End every run still going (for `after`). */
export function killRuns() {
  for (const child of live) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }
}

/** Fail with the reason when build.sh did not install the agent. */
export function requireAgent(spec) {
  for (const name of [spec.entryEnv, ...spec.extraEnv]) {
    const path = process.env[name];
    assert.ok(path && existsSync(path), `${name} is not set to an installed file (./build.sh test installs the ACP agents)`);
  }
}

/** `tether-cli run` with `args`; resolves to {code, events, stderr}. */
export function runCli(args, env, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "run", ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    live.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c) => (stderr += c));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
      reject(new Error(`tether-cli ran over ${RUN_LIMIT_MS} ms:\n${stderr.slice(-3000)}`));
    }, RUN_LIMIT_MS);
    child.on("exit", (code) => {
      clearTimeout(timer);
      live.delete(child);
      const events = stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
      resolve({ code, events, stderr });
    });
  });
}

/** The agent's flags and environment for tether-cli (its launch from agents.mjs). */
export function agentFlags(spec, name, folders, api, { byCommand }) {
  const launch = spec.launch({ ...folders, api });
  const flags = ["--agent", name];
  if (byCommand) flags.push("--agent-command", launch.command, ...launch.args.flatMap((a) => ["--agent-arg", a]));
  // The profile's own switches come from Tether; the test's launch env carries the fake API.
  for (const [key, value] of Object.entries(launch.env)) {
    if (!["PATH", "HOME", "TMPDIR"].includes(key) && value !== undefined) flags.push("--agent-env", `${key}=${value}`);
  }
  return flags;
}
