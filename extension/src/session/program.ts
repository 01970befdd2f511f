// Finding an agent's program on the laptop. What each backend's program is called and where its
// installers put it comes from the core (AGENT_PROGRAMS, generated from crate/src/claude/mod.rs and
// the other backends); this file knows only how to look.

import { existsSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { AGENT_PROGRAMS } from "../generated/core";

/** The backends whose program the driver starts. */
export type ProgramBackend = keyof typeof AGENT_PROGRAMS;
export type AgentProgram = (typeof AGENT_PROGRAMS)[ProgramBackend];

/** The program of `backend`: `explicit`, else the program's path variable, else its command on
 * PATH, else the places its installers use. Throws a message that says where it looked. */
export function findProgram(backend: ProgramBackend, explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const program: AgentProgram = AGENT_PROGRAMS[backend];
  const configured = explicit ?? env[program.pathVariable];
  if (configured) {
    if (!existsSync(configured)) throw new Error(`the ${program.displayName} binary ${configured} does not exist`);
    return configured;
  }
  const isWindows = process.platform === "win32";
  const names = isWindows ? [`${program.command}.exe`, `${program.command}.cmd`, program.command] : [program.command];
  const home = env["HOME"] ?? os.homedir();
  const dirs = [
    ...(env["PATH"] ?? "").split(path.delimiter).filter(Boolean),
    ...program.installDirs.map((dir) => path.join(home, ...dir.replace(/^~\/?/, "").split("/"))),
    // npm's global bin: next to node itself on POSIX installs, %APPDATA%\npm on Windows.
    ...(env["npm_config_prefix"] ? [isWindows ? env["npm_config_prefix"] : path.join(env["npm_config_prefix"], "bin")] : []),
    path.dirname(process.execPath),
    ...(isWindows && env["APPDATA"] ? [path.join(env["APPDATA"], "npm")] : []),
    ...(isWindows ? [] : ["/usr/local/bin", "/opt/homebrew/bin"]),
  ];
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (existsSync(candidate)) return candidate;
    }
  }
  const places = program.installDirs.join(", ");
  throw new Error(
    `${program.displayName} (${program.command}) was not found on PATH, in ${places} or npm's global bin. ` +
      `Install it (${program.installHint}) or give its path (${program.pathVariable}).`,
  );
}
