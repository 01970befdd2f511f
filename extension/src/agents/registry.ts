// The agents Tether can start, by name: one list the chat's agent picker, the chat's launcher and
// `tether-cli run --agent` share. Built in: Claude Code (Tether's own backend) and the ACP agents
// the core knows (ACP_AGENTS: claude-agent-acp, gemini, codex, with their force-local switches).
// The user adds or overrides agents in `tether.agents`, Zed's `agent_servers` shape:
//   "tether.agents": { "opencode": { "command": "opencode", "args": ["acp"], "env": {} } }
// An entry named like a known agent (or whose command is one) gets that agent's switches; an
// entry may name them with `"profile"`, and `"allowLocalTools": true` lets an agent that cannot be
// closed run on a remote workspace. No vscode import.
//
// Adding a kind of agent: a member of `AgentEntry` with its own `kind` and fields, one line in
// `builtInEntries` (or an entry it reads from its own setting), and its starter in chat/launch.ts's
// table of launchers by kind. The picker lists every entry as it comes; nothing else changes. The
// OpenClaw gateway is such a kind: its URL and token are settings of their own
// (`tether.openclaw.gatewayUrl`, the token in SecretStorage), read by its launcher.

import { existsSync, readdirSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ACP_AGENTS } from "../generated/core";

/** Claude Code through its CLI: Tether's first backend. */
export interface ClaudeEntry {
  kind: "claude";
  name: "claude";
  displayName: string;
}

/** An ACP agent over stdio. */
export interface AcpEntry {
  kind: "acp";
  name: string;
  displayName: string;
  /** A path, or a command found on PATH (or in Tether's build cache). */
  command: string;
  args: string[];
  env: Record<string, string>;
  /** The known agent whose switches apply (ACP_AGENTS), if any. */
  profile?: string;
  allowLocalTools?: boolean;
  /** Known by Tether (not from the user's settings). */
  builtIn: boolean;
}

/** An OpenClaw gateway's agent, over the gateway's WebSocket (no program to start). */
export interface OpenClawEntry {
  kind: "openclaw";
  name: "openclaw";
  displayName: string;
}

export type AgentEntry = ClaudeEntry | AcpEntry | OpenClawEntry;

/** One `tether.agents` entry as the user writes it. */
export interface AgentSetting {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  displayName?: string;
  profile?: string;
  allowLocalTools?: boolean;
}

/** The name of the agent sessions start with when none is picked. */
export const DEFAULT_AGENT = "claude";

export function builtInEntries(): AgentEntry[] {
  return [
    { kind: "claude", name: "claude", displayName: "Claude Code" },
    ...ACP_AGENTS.map(
      (agent): AcpEntry => ({
        kind: "acp",
        name: agent.name,
        displayName: agent.displayName,
        command: agent.command,
        args: [...agent.args],
        env: {},
        profile: agent.name,
        builtIn: true,
      }),
    ),
    { kind: "openclaw", name: "openclaw", displayName: "OpenClaw" },
  ];
}

/** `tether.agents` read leniently: bad entries are left out and reported. */
export function readAgentSettings(value: unknown): { agents: Record<string, AgentSetting>; problems: string[] } {
  const agents: Record<string, AgentSetting> = {};
  const problems: string[] = [];
  if (value === undefined || value === null) return { agents, problems };
  if (typeof value !== "object" || Array.isArray(value)) {
    return { agents, problems: ["tether.agents must be an object of agent name → {command, args, env}"] };
  }
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    const bad = (why: string) => problems.push(`tether.agents.${name} ${why}; left out`);
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
      bad("must be an object");
      continue;
    }
    const entry = raw as Record<string, unknown>;
    if (entry["command"] !== undefined && typeof entry["command"] !== "string") {
      bad("has a command that is not a string");
      continue;
    }
    if (entry["args"] !== undefined && !strings(entry["args"])) {
      bad("has args that are not a list of strings");
      continue;
    }
    const env = entry["env"];
    if (env !== undefined && (typeof env !== "object" || env === null || Array.isArray(env) || !Object.values(env).every((v) => typeof v === "string"))) {
      bad("has an env that is not an object of strings");
      continue;
    }
    const setting: AgentSetting = {};
    if (typeof entry["command"] === "string") setting.command = entry["command"];
    if (strings(entry["args"])) setting.args = entry["args"];
    if (env) setting.env = env as Record<string, string>;
    if (typeof entry["displayName"] === "string") setting.displayName = entry["displayName"];
    if (typeof entry["profile"] === "string") setting.profile = entry["profile"];
    if (entry["allowLocalTools"] === true) setting.allowLocalTools = true;
    agents[name] = setting;
  }
  return { agents, problems };
}

/** The known agent an entry is: named by `profile`, by its name, or by its command's name. */
export function profileFor(name: string, setting: AgentSetting): string | undefined {
  if (setting.profile) return ACP_AGENTS.some((a) => a.name === setting.profile) ? setting.profile : undefined;
  const byName = ACP_AGENTS.find((a) => a.name === name);
  if (byName) return byName.name;
  const base = setting.command ? path.basename(setting.command).replace(/\.(cmd|exe|js)$/i, "") : undefined;
  return ACP_AGENTS.find((a) => a.command === base)?.name;
}

/** Every agent: the built-in ones, each overridden by a user entry of its name, then the user's. */
export function agentEntries(settings: Record<string, AgentSetting> = {}): AgentEntry[] {
  const entries = builtInEntries().map((entry): AgentEntry => {
    const setting = settings[entry.name];
    if (!setting || entry.kind !== "acp") return entry;
    return {
      ...entry,
      command: setting.command ?? entry.command,
      args: setting.args ?? entry.args,
      env: { ...entry.env, ...setting.env },
      displayName: setting.displayName ?? entry.displayName,
      ...(setting.allowLocalTools ? { allowLocalTools: true } : {}),
      builtIn: setting.command === undefined,
    };
  });
  for (const [name, setting] of Object.entries(settings)) {
    if (entries.some((e) => e.name === name) || !setting.command) continue;
    const profile = profileFor(name, setting);
    entries.push({
      kind: "acp",
      name,
      displayName: setting.displayName ?? name,
      command: setting.command,
      args: setting.args ?? [],
      env: setting.env ?? {},
      ...(profile ? { profile } : {}),
      ...(setting.allowLocalTools ? { allowLocalTools: true } : {}),
      builtIn: false,
    });
  }
  return entries;
}

export function findAgent(entries: AgentEntry[], name: string): AgentEntry | undefined {
  return entries.find((e) => e.name === name);
}

/** Where Tether's build keeps the agents it installs (build.sh, `ensure_acp_agents`). */
function cacheDir(env: NodeJS.ProcessEnv): string {
  return env["TETHER_CACHE"] ?? path.join(env["HOME"] ?? os.homedir(), ".cache", "tether");
}

/**
 * The program and arguments that start an ACP entry: its command as a path, else found on PATH,
 * else in Tether's build cache (`<cache>/<folder>/node_modules/.bin/<command>`). On Windows a
 * `.cmd` shim runs through cmd.exe. Throws a message saying where it looked and how to install it.
 */
export function resolveCommand(entry: AcpEntry, env: NodeJS.ProcessEnv = process.env): { command: string; args: string[] } {
  const isWindows = process.platform === "win32";
  const shim = (file: string) =>
    isWindows && /\.(cmd|bat)$/i.test(file)
      ? { command: env["ComSpec"] ?? "cmd.exe", args: ["/d", "/s", "/c", file, ...entry.args] }
      : { command: file, args: entry.args };
  if (path.isAbsolute(entry.command) || entry.command.includes("/") || entry.command.includes("\\")) {
    const file = path.resolve(entry.command);
    if (!existsSync(file)) throw new Error(`${entry.displayName}: ${file} does not exist`);
    return shim(file);
  }
  const names = isWindows ? [`${entry.command}.cmd`, `${entry.command}.exe`, entry.command] : [entry.command];
  const dirs = (env["PATH"] ?? "").split(path.delimiter).filter(Boolean);
  const cache = cacheDir(env);
  const cached = existsSync(cache) ? readdirSync(cache).map((folder) => path.join(cache, folder, "node_modules", ".bin")) : [];
  for (const dir of [...dirs, ...cached]) {
    for (const name of names) {
      const file = path.join(dir, name);
      if (existsSync(file)) return shim(file);
    }
  }
  const known = ACP_AGENTS.find((a) => a.name === entry.profile);
  const install = known ? ` Install it with \`npm install -g ${known.package}\`, or` : "";
  throw new Error(
    `${entry.displayName} (${entry.command}) was not found on PATH or in ${cache}.${install} give its path in tether.agents.${entry.name}.command.`,
  );
}
