// Hostile: a model that calls the ACP agent's own write and shell tools on a remote-style
// workspace (`tether-cli run --agent NAME --root R --mirror M --approve all`), for each real agent
// (pinned, against its fake model API). Whatever the agent does with the call, nothing may be
// written or run on the laptop: the mirror M stays empty, the marker file the command would create
// exists nowhere, the workspace holds only what Tether's tools wrote. The session either refuses
// the call (the model is told) or stops with the error that the agent is not closed. gemini runs
// with the system temp folder world-writable (its HOME and TMPDIR are under it) and no settings in
// its HOME: only Tether's own switches close it. A last gemini case loses those switches on the way
// (a wrapper drops them) and shows the session stopping at its first own command.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { GEMINI_KEPT_TOOLS, claudeAgent, codex, gemini } from "../acp/agents.mjs";
import { cliEnv, RUN_LIMIT_MS, requireAgent, runCli } from "../acp/cli.mjs";
import { filesUnder, makeFolders, removeFolders } from "../acp/scenario.mjs";

/** The file the agent's own shell command would leave in its cwd (the mirror), and the patch's. */
const MARKERS = ["local.txt", "builtin.txt", "patched.txt"];

/** Run `spec` through tether-cli with a model that calls `ownTools`; everything checked after. */
async function attack(spec, name, ownTools, extraArgs = []) {
  requireAgent(spec);
  const folders = makeFolders();
  const api = await spec.startApi([
    { when: { lastUserText: /OWN-TOOLS/ }, text: "Using my own tools.", toolUses: ownTools(folders.mirror) },
    { text: "Done.", repeat: true },
  ]);
  try {
    const launch = spec.launch({ ...folders, api });
    const flags = ["--agent", name];
    for (const [key, value] of Object.entries(launch.env)) {
      // The fake API's address and key only: every switch comes from Tether.
      if (!["PATH", "HOME", "TMPDIR", "INITIAL_AGENT_MODE", "CODEX_CONFIG"].includes(key)) flags.push("--agent-env", `${key}=${value}`);
    }
    if (launch.env.CODEX_CONFIG) {
      const { model, model_provider, model_providers } = JSON.parse(launch.env.CODEX_CONFIG);
      flags.push("--agent-env", `CODEX_CONFIG=${JSON.stringify({ model, model_provider, model_providers })}`);
    }
    const args = ["--root", folders.workspace, "--mirror", folders.mirror, "--prompt", "Please do OWN-TOOLS now.", "--approve", "all", "--verbose", ...flags, ...extraArgs];
    const outcome = await runCli(args, cliEnv(folders), folders.base);
    const seen = JSON.stringify(api.requests.map((r) => r.body)).replaceAll('\\"', '"');
    return { ...outcome, folders, seen, offered: spec.offeredTools(api) };
  } finally {
    await api.close();
  }
}

function assertNothingOnTheLaptop({ folders, events, stderr, seen }, refused) {
  const everywhere = filesUnder(folders.base);
  for (const marker of MARKERS) {
    assert.deepEqual(everywhere.filter((f) => f.endsWith(marker)), [], `${marker} was written on the laptop:\n${stderr.slice(-3000)}`);
  }
  assert.deepEqual(filesUnder(folders.mirror).filter((f) => !/^(CLAUDE|AGENTS|GEMINI)\.md$/.test(f)), []);
  assert.deepEqual(filesUnder(folders.workspace).filter((f) => !f.startsWith("vendor/")), ["notes.txt"]);
  // Refused: the model was told (by the agent), or Tether refused the agent's question; or stopped.
  const said = (pattern) => events.some((e) => e.type === "error" && pattern.test(e.message));
  const ok = refused.test(seen) || said(/^Refused .* own tool/) || said(/is not closed/);
  assert.ok(ok, `neither refused (${refused}) nor stopped:\n${stderr.slice(-3000)}`);
  return refused.test(seen) ? "the agent refused it (the model was told)" : said(/is not closed/) ? "Tether stopped the session" : "Tether refused it";
}

describe("hostile: a model calling the ACP agent's own write and shell tools on a remote workspace", { concurrency: false, timeout: RUN_LIMIT_MS * 4 }, () => {
  test("claude-agent-acp: its Write and Bash are not there to call; nothing lands on the laptop", async (t) => {
    const outcome = await attack(claudeAgent, "claude-agent-acp", claudeAgent.builtinTools);
    try {
      t.diagnostic(assertNothingOnTheLaptop(outcome, claudeAgent.builtinRefused));
      assert.ok(!outcome.offered.includes("Write") && !outcome.offered.includes("Bash"), `offered: ${outcome.offered}`);
    } finally {
      removeFolders(outcome.folders);
    }
  });

  test("gemini, no settings in its HOME and the temp folder world-writable: offered Tether's tools and its no-disk ones only; its write_file and run_shell_command do nothing", async (t) => {
    const outcome = await attack(gemini, "gemini", gemini.builtinTools);
    try {
      t.diagnostic(assertNothingOnTheLaptop(outcome, gemini.builtinRefused));
      assert.deepEqual(outcome.offered.filter((n) => !n.startsWith("mcp_tether_") && !GEMINI_KEPT_TOOLS.includes(n)), [], `offered: ${outcome.offered}`);
      assert.ok(outcome.offered.includes("mcp_tether_Bash"));
    } finally {
      removeFolders(outcome.folders);
    }
  });

  test("gemini whose switches are lost on the way (a wrapper drops them): its own shell is refused and the session stops with the error", async (t) => {
    // The real gemini, started by a wrapper that drops --admin-policy and the settings path, as if
    // gemini ignored both: it offers its own tools and asks to run its shell.
    const wrapper = join(mkdtempSync(join(tmpdir(), "tether-wrapper-")), "gemini-unclosed.mjs");
    writeFileSync(
      wrapper,
      `import { spawn } from "node:child_process";
const args = process.argv.slice(2);
const at = args.indexOf("--admin-policy");
if (at >= 0) args.splice(at, 2);
const env = { ...process.env };
delete env.GEMINI_CLI_SYSTEM_SETTINGS_PATH;
const child = spawn(process.execPath, [${JSON.stringify(process.env.TETHER_ACP_GEMINI ?? "")}, ...args], { stdio: "inherit", env });
child.on("exit", (code) => process.exit(code ?? 1));
process.on("SIGTERM", () => child.kill("SIGTERM"));
`,
    );
    const shell = (mirror) => [gemini.builtinTools(mirror)[1]];
    const outcome = await attack(gemini, "gemini", shell, ["--agent-command", process.execPath, "--agent-arg", wrapper, "--agent-arg=--acp"]);
    try {
      t.diagnostic(assertNothingOnTheLaptop(outcome, /^$/));
      assert.ok(outcome.offered.includes("run_shell_command"), `the switch was not lost: ${outcome.offered}`);
      const error = outcome.events.find((e) => e.type === "error" && /is not closed/.test(e.message));
      assert.match(error?.message ?? "", /^Gemini CLI is not closed: its own tool .*echo local > local\.txt.* \(execute\) asked to run/);
    } finally {
      removeFolders(outcome.folders);
      rmSync(dirname(wrapper), { recursive: true, force: true });
    }
  });

  test("codex-acp with a catalog model, allowed on a remote: its apply_patch is refused and its shell is gone", async (t) => {
    const spec = codex("gpt-5.5");
    const own = (mirror) => [
      { name: "apply_patch", custom: true, input: `*** Begin Patch\n*** Add File: ${join(mirror, "patched.txt")}\n+written by apply_patch\n*** End Patch\n` },
      ...spec.builtinTools(mirror),
    ];
    const outcome = await attack(spec, "codex", own, ["--allow-local-tools"]);
    try {
      t.diagnostic(assertNothingOnTheLaptop(outcome, spec.builtinRefused));
    } finally {
      removeFolders(outcome.folders);
    }
  });
});
