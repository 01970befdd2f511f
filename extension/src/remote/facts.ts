// What the model is told about a remote workspace's machine: its OS, shell and git branch. The
// remote executor knows the first two when it is the helper; one command asks the remote for what
// is missing. No vscode import.

import type { TetherHost } from "../core/host";
import type { RemoteConfig } from "../generated/core";
import type { RemoteFacts } from "./executor";

const FACTS_TIMEOUT_MS = 5000;
const FACTS_COMMAND = 'echo "os=$(uname -sr 2>/dev/null)"; echo "shell=$SHELL"; echo "branch=$(git rev-parse --abbrev-ref HEAD 2>/dev/null)"';

export async function remoteFacts(host: TetherHost, root: string, known: RemoteFacts): Promise<RemoteConfig> {
  const reported = new Map<string, string>();
  try {
    const out = await host.run({ command: FACTS_COMMAND, cwd: root, env: [], timeoutMs: FACTS_TIMEOUT_MS, maxOutputBytes: 4096 });
    for (const line of out.stdout.split("\n")) {
      const eq = line.indexOf("=");
      if (eq > 0 && line.slice(eq + 1).trim()) reported.set(line.slice(0, eq), line.slice(eq + 1).trim());
    }
  } catch {
    // Commands not allowed (untrusted) or no executor: the model is told less.
  }
  const os = known.os ?? reported.get("os");
  const shellPath = known.shell ?? reported.get("shell");
  const shell = shellPath ? shellPath.slice(shellPath.lastIndexOf("/") + 1) : undefined;
  const branch = reported.get("branch");
  const gitBranch = branch && branch !== "HEAD" ? branch : undefined;
  return { ...(os ? { os } : {}), ...(shell ? { shell } : {}), ...(gitBranch ? { gitBranch } : {}) };
}
