// tether-cli run for the ACP and hostile suites: the CLI started in its own process group with a
// time limit (ended by PID), its JSON events parsed, and the environment a user's machine gives it.

import { spawn } from "node:child_process";
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { REPO } from "./bridge-host.mjs";
import { makeFolders, newTempEntries, tempEntries } from "./scenario.mjs";

export const CLI = join(REPO, "dist", "tether-cli.js");
export const RUN_LIMIT_MS = 150_000;
const live = new Set();
after(() => {
  for (const child of live) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }
});

const CACHE = process.env.TETHER_CACHE ?? join(homedir(), ".cache", "tether");

/**
 * tether-cli's environment: the agent's HOME and TMPDIR are the run's (under the world-writable
 * system temp folder, with no settings in HOME), Tether's state folder is private and outside it
 * (`XDG_STATE_HOME`, in the suite's cache), as on a user's machine.
 */
export function cliEnv(folders) {
  const state = join(CACHE, "test-state");
  mkdirSync(state, { recursive: true, mode: 0o700 });
  return { PATH: process.env.PATH, HOME: folders.home, TMPDIR: folders.tmp, XDG_STATE_HOME: state, TETHER_CACHE: CACHE };
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

/** Fail with the reason when build.sh did not install the agent. */
export function requireAgent(spec) {
  for (const name of [spec.entryEnv, ...spec.extraEnv]) {
    const path = process.env[name];
    assert.ok(path && existsSync(path), `${name} is not set to an installed file (./build.sh test installs the ACP agents)`);
  }
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

/**
 * `spec` through tether-cli on a remote-style workspace (its cwd a --mirror): `turns(folders)`
 * scripts the model, `how(folders)` gives the run's own flags (a prompt or a script, approvals).
 * Resolves to the run, its folders and fake API, and the laptop's places a marker must not reach.
 */
export async function runOnRemote(spec, name, turns, how, { byCommand = true, extraArgs = [] } = {}) {
  requireAgent(spec);
  const folders = makeFolders();
  const tempBefore = tempEntries();
  const api = await spec.startApi(turns(folders));
  try {
    const args = [
      "--root", folders.workspace, "--mirror", folders.mirror, ...how(folders), "--verbose",
      ...agentFlags(spec, name, folders, api, { byCommand }), ...extraArgs,
    ];
    const result = await runCli(args, cliEnv(folders), folders.base);
    const laptop = [folders.home, folders.tmp, folders.mirror, ...newTempEntries(tempBefore, [folders.base])];
    return { ...result, folders, api, laptop };
  } finally {
    await api.close();
  }
}
