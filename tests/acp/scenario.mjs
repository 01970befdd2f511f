// One force-local session of a real ACP agent, as tests/acp/agents.test.mjs runs it: a "remote"
// workspace (a temp folder the agent never sees) with a marker file far from anything the
// conversation reads, the agent's own folders (a mirror as its cwd, a HOME, a TMPDIR), Tether's
// tools on the workspace behind the MCP bridge, the agent's fake model API scripted to read, try
// its own write and shell tools, edit, write and run a command through Tether, and the agent
// driven over raw ACP.

import { randomUUID } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { BRIDGE, startTetherBridge } from "./bridge-host.mjs";
import { spawnAgent } from "./client.mjs";

export const NOTES = "hello world\nsecond line\n";

/** The folders of one run; `marker` is in the workspace only, in a file nothing reads. */
export function makeFolders() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "tether-acp-")));
  const folders = {
    base,
    workspace: join(base, "workspace"),
    mirror: join(base, "mirror"),
    home: join(base, "home"),
    tmp: join(base, "tmp"),
    marker: `TETHER-MARKER-${randomUUID()}`,
  };
  for (const dir of [folders.workspace, folders.mirror, folders.home, folders.tmp]) mkdirSync(dir);
  writeFileSync(join(folders.workspace, "notes.txt"), NOTES);
  const far = join(folders.workspace, "vendor", "deep", "far", "away");
  mkdirSync(far, { recursive: true });
  writeFileSync(join(far, "secret.txt"), `never read in the conversation: ${folders.marker}\n`);
  return folders;
}

/** The model's side of the scenario, in the agent's own tool naming. */
export function script(spec, { mirror }) {
  return [
    { when: { lastUserText: /update the notes/ }, text: "I will read the notes first.", toolUse: spec.tetherTool("Read", { file_path: join(mirror, "notes.txt") }) },
    { when: { lastToolResult: /hello world/ }, toolUses: spec.builtinTools(mirror) },
    {
      when: { lastToolResult: spec.builtinRefused },
      toolUse: spec.tetherTool("Edit", { file_path: join(mirror, "notes.txt"), old_string: "hello", new_string: "goodbye" }),
    },
    {
      when: { lastToolResult: /notes\.txt has been updated successfully/ },
      toolUse: spec.tetherTool("Write", { file_path: join(mirror, "created.txt"), content: "created through Tether\n" }),
    },
    {
      when: { lastToolResult: /File created successfully/ },
      toolUse: spec.tetherTool("Bash", { command: 'echo ran > ran.txt && echo "bash ran in $(pwd)"' }),
    },
    { when: { lastToolResult: /bash ran in/ }, text: "All done: notes updated, a file created, a command run." },
  ];
}

/** The MCP server entry for Tether's tools: the bridge, its endpoint and token in the environment. */
export function tetherServer(bridge) {
  return { name: "tether", command: process.execPath, args: [BRIDGE], env: Object.entries(bridge.env).map(([name, value]) => ({ name, value })) };
}

/**
 * Start the pieces of a run: Tether's bridge on the workspace (mapping the mirror onto it), the
 * fake API with `turns`, and a way to start the agent (any number of times: load/resume runs a
 * new process). `stop()` ends them all.
 */
export async function startRun(spec, folders, turns) {
  const hostLog = [];
  const tether = await startTetherBridge(folders.workspace, { mirror: folders.mirror, log: (m) => hostLog.push(m) });
  const api = await spec.startApi(turns);
  const agents = [];
  const permissions = [];
  return {
    api,
    tether,
    hostLog,
    agents,
    permissions,
    mcpServers: [tetherServer(tether.bridge)],
    /** A new agent process, initialized; its permission requests answered by `spec.answerPermission`. */
    async startAgent() {
      // gemini's admin policy, in a private folder of the run (as Tether's state folder).
      const launch = spec.launch({ ...folders, api, policyDir: join(folders.base, "gemini-policy") });
      const agent = spawnAgent({ ...launch, cwd: folders.mirror });
      agents.push(agent);
      agent.onRequest = async (method, params) => {
        if (method !== "session/request_permission") throw { code: -32601, message: `Method not found: ${method}` };
        permissions.push(params);
        const optionId = spec.answerPermission(params);
        return optionId ? { outcome: { outcome: "selected", optionId } } : { outcome: { outcome: "cancelled" } };
      };
      agent.initialize = await agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: spec.clientCapabilities,
        clientInfo: { name: "tether-tests", version: "0.0.0" },
      });
      return agent;
    },
    async stop() {
      for (const agent of agents) await agent.close();
      await tether.close();
      await api.close();
    },
  };
}

/** Files (relative paths) under `dir`. */
export function filesUnder(dir) {
  const out = [];
  const walk = (d) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

/** Files under `dirs` whose bytes contain `marker` (symlinks not followed, files over 64 MB skipped). */
export function filesContaining(dirs, marker) {
  const needle = Buffer.from(marker);
  const hits = [];
  const walk = (p) => {
    let stat;
    try {
      stat = lstatSync(p);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      let names = [];
      try {
        names = readdirSync(p);
      } catch {
        return;
      }
      for (const name of names) walk(join(p, name));
    } else if (stat.isFile() && stat.size <= 64 * 1024 * 1024) {
      try {
        if (readFileSync(p).includes(needle)) hits.push(p);
      } catch {
        // Unreadable: a socket directory, a file gone meanwhile.
      }
    }
  };
  for (const dir of dirs) walk(dir);
  return hits;
}

/** Entries of the system temp folder now, to tell which a run added. */
export function tempEntries() {
  return new Set(readdirSync(tmpdir()));
}

/** The system temp folder's entries added since `before`, but `except` (full paths). */
export function newTempEntries(before, except = []) {
  return [...tempEntries()].filter((name) => !before.has(name)).map((name) => join(tmpdir(), name)).filter((p) => !except.includes(p));
}

export function removeFolders(folders) {
  rmSync(folders.base, { recursive: true, force: true });
}
