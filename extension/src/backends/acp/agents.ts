// The ACP agents Tether can start: the ones the core knows (ACP_AGENTS: claude-agent-acp, gemini,
// codex, with their force-local switches) and the user's own in `tether.agents`, Zed's
// `agent_servers` shape:
//   "tether.agents": { "opencode": { "command": "opencode", "args": ["acp"], "env": {} } }
// An entry named like a known agent (or whose command is one) gets that agent's switches; an
// entry may name them with `"profile"`, and `"allowLocalTools": true` lets an agent that cannot be
// closed run on a remote workspace. No vscode import.

import { existsSync, readdirSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ACP_AGENTS } from "../../generated/core";
import type { AgentSetting } from "../../settings";

/** An ACP agent over stdio, as its registry entry describes it. */
export interface AcpAgent {
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

export function builtInAgents(): AcpAgent[] {
  return ACP_AGENTS.map((agent) => ({
    name: agent.name,
    displayName: agent.displayName,
    command: agent.command,
    args: [...agent.args],
    env: {},
    profile: agent.name,
    builtIn: true,
  }));
}

/** The known agent an entry is: named by `profile`, by its name, or by its command's name. */
export function profileFor(name: string, setting: AgentSetting): string | undefined {
  if (setting.profile) return ACP_AGENTS.some((a) => a.name === setting.profile) ? setting.profile : undefined;
  const byName = ACP_AGENTS.find((a) => a.name === name);
  if (byName) return byName.name;
  const base = setting.command ? path.basename(setting.command).replace(/\.(cmd|exe|js)$/i, "") : undefined;
  return ACP_AGENTS.find((a) => a.command === base)?.name;
}

/** Every ACP agent: the built-in ones, each overridden by a user entry of its name, then the user's. */
export function acpAgents(settings: Record<string, AgentSetting> = {}): AcpAgent[] {
  const entries = builtInAgents().map((entry): AcpAgent => {
    const setting = settings[entry.name];
    if (!setting) return entry;
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

/** Where Tether's build keeps the agents it installs (build.sh, `ensure_acp_agents`). */
function cacheDir(env: NodeJS.ProcessEnv): string {
  return env["TETHER_CACHE"] ?? path.join(env["HOME"] ?? os.homedir(), ".cache", "tether");
}

/**
 * The program and arguments that start an ACP entry: its command as a path, else found on PATH,
 * else in Tether's build cache (`<cache>/<folder>/node_modules/.bin/<command>`). On Windows a
 * `.cmd` shim runs through cmd.exe. Throws a message saying where it looked and how to install it.
 */
export function resolveCommand(entry: AcpAgent, env: NodeJS.ProcessEnv = process.env): { command: string; args: string[] } {
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
