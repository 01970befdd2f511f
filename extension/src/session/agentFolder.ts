// What an agent's working folder must not hold: configuration the agent would read there and act
// on, on the laptop (a remote project's hooks, local servers, environment), named by the core per
// backend (`refusedInCwd` of the launch). The mirror Tether syncs never holds any; a folder the
// user gives (`tether-cli --mirror`) might, and then the agent is not started.

import { existsSync } from "node:fs";
import * as path from "node:path";

/** Why the agent `displayName` may not start in `cwd`, or undefined. */
export function agentFolderProblem(displayName: string, cwd: string, refused: readonly string[]): string | undefined {
  const found = refused.filter((rel) => existsSync(path.join(cwd, ...rel.split("/"))));
  if (found.length === 0) return undefined;
  const names = found.map((rel) => path.join(cwd, ...rel.split("/"))).join(", ");
  return (
    `${displayName} would act on ${names} on this machine (hooks, commands, local servers or environment of the project), ` +
    `and its folder stands for a remote workspace where those belong. Remove ${found.length > 1 ? "them" : "it"} from ${cwd}, ` +
    `or use an empty folder: Tether brings the project's agent context there itself. Tether does not start ${displayName}.`
  );
}
