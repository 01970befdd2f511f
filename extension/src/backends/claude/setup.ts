// Claude Code's first run: what is missing before a session can start, and the remedies.
// - No `claude` found: the official Claude Code extension, when installed, bundles the CLI as
//   `<extensions>/anthropic.claude-code-<version>[-<platform>-<arch>]/resources/native-binary/claude`
//   (`claude.exe` on Windows); else an install with npm.
// - Not logged in: `claude auth status` prints `{"loggedIn": false, …}` (2.1.330, measured with an
//   empty HOME; an ANTHROPIC_API_KEY in the environment makes it `true`, "api_key"): the login in a
//   terminal (`claude auth login`), or an API key kept in SecretStorage and given to the CLI.

import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import * as path from "node:path";
import type { BackendSetup, SetupProblem } from "../backend";

/** Where the user's API key is kept (SecretStorage), given to the CLI as ANTHROPIC_API_KEY. */
export const API_KEY_SECRET = "tether.claude.apiKey";
const OFFICIAL_EXTENSION = "anthropic.claude-code";
const AUTH_TIMEOUT_MS = 20_000;

/** The CLI bundled with the newest installed official extension in any of `extensionDirs`. */
export function bundledClaude(extensionDirs: string[], platform: NodeJS.Platform = process.platform): string | undefined {
  const binary = platform === "win32" ? "claude.exe" : "claude";
  const found: { version: number[]; file: string }[] = [];
  for (const dir of extensionDirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = new RegExp(`^${OFFICIAL_EXTENSION.replace(".", "\\.")}-(\\d+(?:\\.\\d+)*)`).exec(name);
      if (!match) continue;
      const file = path.join(dir, name, "resources", "native-binary", binary);
      if (existsSync(file)) found.push({ version: match[1]!.split(".").map(Number), file });
    }
  }
  found.sort((a, b) => compareVersions(b.version, a.version));
  return found[0]?.file;
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** `claude auth status`'s answer: logged in or not; undefined when it is not that JSON. */
export function parseAuthStatus(stdout: string): boolean | undefined {
  try {
    const status = JSON.parse(stdout) as { loggedIn?: unknown };
    return typeof status.loggedIn === "boolean" ? status.loggedIn : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `env` holds a credential the CLI takes as a login (then no need to ask it). */
export function hasKeyInEnv(env: Record<string, string | undefined>): boolean {
  return ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"].some((name) => (env[name] ?? "") !== "") || env["CLAUDE_CODE_USE_BEDROCK"] === "1" || env["CLAUDE_CODE_USE_VERTEX"] === "1";
}

function authStatus(program: string, env: Record<string, string | undefined>): Promise<boolean | undefined> {
  return new Promise((resolve) => {
    execFile(program, ["auth", "status"], { env: env as NodeJS.ProcessEnv, timeout: AUTH_TIMEOUT_MS }, (_error, stdout) => resolve(parseAuthStatus(String(stdout))));
  });
}

/** Claude Code's first-run check, given how the module finds its program. */
export function claudeSetup(find: (explicit?: string) => string): BackendSetup {
  return {
    async check({ settings, extensionDirs, secrets }): Promise<SetupProblem | undefined> {
      let program: string;
      try {
        program = find(settings.claudePath || undefined);
      } catch (error) {
        const bundled = bundledClaude(extensionDirs);
        return {
          kind: "missing",
          message: (error as Error).message,
          ...(bundled ? { bundled } : {}),
          install: { command: "npm", args: ["install", "-g", "@anthropic-ai/claude-code"] },
          pathSetting: "claudePath",
        };
      }
      const env = { ...process.env, ...settings.environment };
      if (hasKeyInEnv(env) || (await secrets.get(API_KEY_SECRET))) return undefined;
      if ((await authStatus(program, env)) !== false) return undefined;
      return {
        kind: "loggedOut",
        message: "Claude Code is not logged in.",
        login: { command: program, args: ["auth", "login"] },
        apiKeySecret: API_KEY_SECRET,
      };
    },
  };
}
