import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { acpBackend } from "../src/backends/acp";
import { resolveCommand, type AcpAgent } from "../src/backends/acp/agents";
import { agentEntries as registryEntries, findAgent } from "../src/backends";
import { readAgentSettings, readSettings, type AgentSetting } from "../src/settings";

/** The registry's agents under these `tether.agents`. */
const agentEntries = (agents: Record<string, AgentSetting> = {}) => registryEntries({ ...readSettings(() => undefined).settings, agents });

const acp = (entry: ReturnType<typeof findAgent>): AcpAgent => {
  assert.ok(entry && entry.backend === acpBackend, "an ACP entry");
  return entry.spec as AcpAgent;
};

test("the built-in agents are Claude Code, the three ACP agents Tether closes, each with its switches, and the OpenClaw gateway", () => {
  const entries = agentEntries();
  assert.deepEqual(
    entries.map((e) => e.name),
    ["claude", "claude-agent-acp", "gemini", "codex", "openclaw"],
  );
  assert.equal(findAgent(entries, "openclaw")?.displayName, "OpenClaw");
  const gemini = acp(findAgent(entries, "gemini"));
  assert.deepEqual([gemini.command, gemini.args, gemini.profile, gemini.builtIn], ["gemini", ["--acp"], "gemini", true]);
  assert.equal(acp(findAgent(entries, "codex")).allowLocalTools, undefined, "codex is refused on a remote unless overridden");
});

test("codex on a remote workspace is allowed only by its own tether.agents entry's allowLocalTools", () => {
  const { agents, problems } = readAgentSettings({ codex: { allowLocalTools: true }, gemini: { allowLocalTools: "yes" } });
  assert.deepEqual(problems, []);
  const entries = agentEntries(agents);
  const codex = acp(findAgent(entries, "codex"));
  assert.equal(codex.allowLocalTools, true);
  assert.equal(codex.command, "codex-acp", "the built-in command stays");
  assert.equal(codex.builtIn, true);
  assert.equal(acp(findAgent(entries, "gemini")).allowLocalTools, undefined, "only `true` overrides");
  assert.equal(acp(findAgent(entries, "claude-agent-acp")).allowLocalTools, undefined);
});

test("a user's agent gets a known agent's switches by its profile or its command's name, none otherwise", () => {
  const { agents } = readAgentSettings({
    "my-codex": { command: "/opt/bin/codex-acp" },
    "named": { command: "/opt/agent.js", profile: "gemini" },
    "opencode": { command: "opencode", args: ["acp"], env: { A: "1" } },
  });
  const entries = agentEntries(agents);
  assert.equal(acp(findAgent(entries, "my-codex")).profile, "codex");
  assert.equal(acp(findAgent(entries, "named")).profile, "gemini");
  const opencode = acp(findAgent(entries, "opencode"));
  assert.equal(opencode.profile, undefined);
  assert.deepEqual([opencode.args, opencode.env, opencode.builtIn], [["acp"], { A: "1" }, false]);
});

test("bad tether.agents entries are left out with the reason", () => {
  const { agents, problems } = readAgentSettings({ a: "x", b: { command: 1 }, c: { args: "acp" }, d: { env: { K: 1 } }, e: { command: "ok" } });
  assert.deepEqual(Object.keys(agents), ["e"]);
  assert.equal(problems.length, 4);
  assert.match(problems.join("\n"), /tether\.agents\.b has a command that is not a string; left out/);
  assert.deepEqual(readAgentSettings([]).problems, ["tether.agents must be an object of agent name → {command, args, env}"]);
});

test("an agent's command is found on PATH, else in Tether's build cache, else the error says how to install it", { skip: process.platform === "win32" && "POSIX paths" }, () => {
  const base = mkdtempSync(path.join(os.tmpdir(), "tether-agents-"));
  try {
    const bin = path.join(base, "cache", "gemini-cli-0.61.0", "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, "gemini"), "#!/bin/sh\n");
    chmodSync(path.join(bin, "gemini"), 0o755);
    const gemini = acp(findAgent(agentEntries(), "gemini"));
    const env = { PATH: path.join(base, "empty"), TETHER_CACHE: path.join(base, "cache") };
    assert.deepEqual(resolveCommand(gemini, env), { command: path.join(bin, "gemini"), args: ["--acp"] });
    const codex = acp(findAgent(agentEntries(), "codex"));
    assert.throws(() => resolveCommand(codex, env), /Codex \(codex-acp\) was not found on PATH.*npm install -g @agentclientprotocol\/codex-acp/);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
