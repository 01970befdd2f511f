// Tether's own folder for the files an ACP agent's launch names (gemini-cli's admin policy and
// settings): the switches that close the agent live there, so nobody but this user may change
// them. gemini-cli 0.61.0 silently skips a system settings file when the file or a folder above it
// is writable by group or others (its isFileAndDirectorySecureSync, also requiring root as owner),
// so a folder under the world-writable system temp folder closes nothing. The rule checked here is
// gemini's without the owner part (no user but root could pass it): the folder and every folder
// above it, by the path given and by its real path, is a directory owned by root or by this user
// and writable by neither group nor others; the folder itself is this user's and only theirs (0700).

import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, realpathSync, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** Where Tether keeps per-session state folders: `$XDG_STATE_HOME/tether`, else
 * `~/.local/state/tether` (POSIX), `%LOCALAPPDATA%\tether\state` (Windows). */
export function defaultStateRoot(env: NodeJS.ProcessEnv = process.env, platform = process.platform, home = os.homedir()): string {
  if (platform === "win32") return path.win32.join(env["LOCALAPPDATA"] || path.win32.join(home, "AppData", "Local"), "tether", "state");
  const xdg = env["XDG_STATE_HOME"];
  return path.posix.join(xdg && path.posix.isAbsolute(xdg) ? xdg : path.posix.join(home, ".local", "state"), "tether");
}

/** A fresh path for one run's folder under `root`, not created yet: the backend that needs it
 * creates it (0700) through {@link stateFolderProblem}, so a run that writes no switches leaves
 * nothing behind. */
export function newStateFolderPath(root: string, prefix: string): string {
  return path.join(root, `${prefix}${process.pid}-${randomBytes(6).toString("hex")}`);
}

/** Why `dir` cannot hold an agent's switches (the folder at fault and the reason), or undefined;
 * `dir` is created (0700) when missing. */
export function stateFolderProblem(dir: string, uid = process.getuid?.(), platform = process.platform): string | undefined {
  // Windows folders are protected by ACLs, not mode bits: the per-user profile is not checked here.
  if (platform === "win32" || uid === undefined) return undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    return `it cannot be created (${(error as Error).message})`;
  }
  const own = statSync(dir);
  if (own.uid !== uid) return `it belongs to user ${own.uid}, not to this user (${uid})`;
  if ((own.mode & 0o077) !== 0) return `others can use it (mode ${(own.mode & 0o777).toString(8)}; it must be 700)`;
  let real: string;
  try {
    real = realpathSync(dir);
  } catch (error) {
    return `its real path cannot be read (${(error as Error).message})`;
  }
  for (const start of new Set([path.resolve(dir), real])) {
    for (let folder = start; ; folder = path.dirname(folder)) {
      const problem = folderProblem(folder, uid);
      if (problem) return problem;
      if (path.dirname(folder) === folder) break;
    }
  }
  return undefined;
}

function folderProblem(folder: string, uid: number): string | undefined {
  let stats;
  try {
    stats = statSync(folder);
  } catch (error) {
    return `the folder ${folder} above it cannot be read (${(error as Error).message})`;
  }
  if (!stats.isDirectory()) return `${folder} above it is not a folder`;
  if (stats.uid !== 0 && stats.uid !== uid) return `the folder ${folder} above it belongs to another user (${stats.uid})`;
  if ((stats.mode & 0o022) !== 0) {
    return `the folder ${folder} above it is writable by group or others (mode ${(stats.mode & 0o7777).toString(8)}), so another user could replace the settings and the agent ignores them`;
  }
  // A symlink on the way is followed by the real path's walk; its own owner matters as gemini says.
  const link = lstatSync(folder);
  if (link.isSymbolicLink() && link.uid !== 0 && link.uid !== uid) return `the symlink ${folder} above it belongs to another user (${link.uid})`;
  return undefined;
}
