import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { API_KEY_SECRET, bundledClaude, claudeSetup, hasKeyInEnv, parseAuthStatus } from "../src/backends/claude/setup";
import type { TetherSettings } from "../src/settings";
import { readSettings } from "../src/settings";

function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), "tether-firstrun-"));
}

function officialExtension(extensions: string, folder: string, binary = "claude"): string {
  const dir = path.join(extensions, folder, "resources", "native-binary");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, binary), "#!/bin/sh\n");
  return path.join(dir, binary);
}

const memorySecrets = (values: Record<string, string> = {}) => ({
  get: async (key: string) => values[key],
  store: async (key: string, value: string) => void (values[key] = value),
  delete: async (key: string) => void delete values[key],
});

const settings = (patch: Partial<TetherSettings> = {}): TetherSettings => ({ ...readSettings(() => undefined).settings, ...patch });

test("the official extension's bundled CLI is found, newest version first, platform suffix or not", () => {
  const dir = tempDir();
  try {
    assert.equal(bundledClaude([dir]), undefined);
    officialExtension(dir, "anthropic.claude-code-2.1.9-linux-x64");
    const newest = officialExtension(dir, "anthropic.claude-code-2.1.10");
    mkdirSync(path.join(dir, "anthropic.claude-code-9.0.0-linux-x64"));
    officialExtension(dir, "someone.claude-code-copy-3.0.0");
    assert.equal(bundledClaude([path.join(dir, "missing"), dir], "linux"), newest);
    const win = officialExtension(dir, "anthropic.claude-code-2.2.0-win32-x64", "claude.exe");
    assert.equal(bundledClaude([dir], "win32"), win);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("claude auth status: logged in or not, and anything else unknown", () => {
  assert.equal(parseAuthStatus('{"loggedIn": false, "authMethod": "none"}'), false);
  assert.equal(parseAuthStatus('{"loggedIn": true, "authMethod": "api_key"}'), true);
  assert.equal(parseAuthStatus("error: unknown command"), undefined);
  assert.equal(hasKeyInEnv({ ANTHROPIC_API_KEY: "k" }), true);
  assert.equal(hasKeyInEnv({ ANTHROPIC_API_KEY: "" }), false);
});

test("a missing claude is reported with the bundled binary and an npm install to offer", async () => {
  const dir = tempDir();
  try {
    const bundled = officialExtension(dir, "anthropic.claude-code-2.1.330-linux-x64");
    const setup = claudeSetup(() => {
      throw new Error("Claude Code (claude) was not found");
    });
    const problem = await setup.check({ settings: settings(), extensionDirs: [dir], secrets: memorySecrets() });
    assert.equal(problem?.kind, "missing");
    assert.ok(problem?.kind === "missing");
    assert.equal(problem.bundled, process.platform === "win32" ? undefined : bundled);
    assert.deepEqual(problem.install, { command: "npm", args: ["install", "-g", "@anthropic-ai/claude-code"] });
    assert.equal(problem.pathSetting, "claudePath");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a CLI that says it is not logged in is reported with its login and the API key's secret", { skip: process.platform === "win32" }, async () => {
  const dir = tempDir();
  try {
    const fake = path.join(dir, "claude");
    writeFileSync(fake, '#!/bin/sh\n[ "$1 $2" = "auth status" ] && echo \'{"loggedIn": false, "authMethod": "none"}\'\n');
    chmodSync(fake, 0o755);
    const setup = claudeSetup(() => fake);
    const env = { ...process.env };
    delete process.env["ANTHROPIC_API_KEY"];
    delete process.env["ANTHROPIC_AUTH_TOKEN"];
    delete process.env["CLAUDE_CODE_OAUTH_TOKEN"];
    try {
      const problem = await setup.check({ settings: settings(), extensionDirs: [], secrets: memorySecrets() });
      assert.deepEqual(problem, { kind: "loggedOut", message: "Claude Code is not logged in.", login: { command: fake, args: ["auth", "login"] }, apiKeySecret: API_KEY_SECRET });
      // A key kept in SecretStorage, or one in tether.environment, is a login: the CLI is not asked.
      assert.equal(await setup.check({ settings: settings(), extensionDirs: [], secrets: memorySecrets({ [API_KEY_SECRET]: "k" }) }), undefined);
      assert.equal(await setup.check({ settings: settings({ environment: { ANTHROPIC_API_KEY: "k" } }), extensionDirs: [], secrets: memorySecrets() }), undefined);
    } finally {
      Object.assign(process.env, env);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
