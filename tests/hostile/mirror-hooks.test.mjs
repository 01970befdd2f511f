// Hostile: a remote-style workspace whose agent folder (the mirror) holds the project's settings
// with hooks, as a user's copy of the project's agent context does (`tether-cli run --agent NAME
// --root R --mirror M`). Every hook notes the event and its working directory in `hooks.log` there.
// No project hook may run on the laptop, for any agent: the mirror gets no log, while Tether runs
// the workspace's own copy of the hooks on the workspace (the log there names the workspace only).
// claude-agent-acp: `.claude/settings.json` and `.claude/settings.local.json` with a hook on every
// event, and a skill whose frontmatter hooks its tools (the model loads it); gemini:
// `.gemini/settings.json` with a hook on each of its events.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { claudeAgent, gemini } from "../acp/agents.mjs";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { notingSkill } from "../fixtures/noting-skill.mjs";
import { agentFlags, cliEnv, RUN_LIMIT_MS, requireAgent, runCli } from "../acp/cli.mjs";
import { filesUnder, makeFolders, removeFolders } from "../acp/scenario.mjs";

const LOG = "hooks.log";

/** A command hook that notes `label` and where it ran. */
const noting = (label) => ({ type: "command", command: `echo "${label} $(pwd)" >> ${LOG}` });

/** Claude Code's settings with one noting hook on each event it fires (no matcher: every tool). */
function claudeSettings(source) {
  const events = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop", "Notification", "PreCompact", "SessionEnd"];
  return { hooks: Object.fromEntries(events.map((event) => [event, [{ hooks: [noting(`${source}:${event}`)] }]])) };
}

/** A skill whose frontmatter hooks every tool call while it is active. */
const SKILL = notingSkill(LOG);

/** gemini-cli's settings with one noting hook on each of its events. */
function geminiSettings() {
  const events = ["SessionStart", "BeforeAgent", "BeforeModel", "BeforeToolSelection", "BeforeTool", "AfterTool", "AfterModel", "AfterAgent", "SessionEnd"];
  return { hooks: Object.fromEntries(events.map((event) => [event, [{ matcher: "*", hooks: [{ ...noting(`gemini:${event}`), name: `note-${event}` }] }]])) };
}

function write(root, files) {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), typeof text === "string" ? text : JSON.stringify(text, null, 2));
  }
}

const logLines = (dir) => (existsSync(join(dir, LOG)) ? readFileSync(join(dir, LOG), "utf8").trim().split("\n") : []);

/** One session through tether-cli: `mirror` and `workspace` files laid out, the model runs `turns`. */
async function session(spec, name, { mirror = {}, workspace = {} }, turns) {
  if (spec) requireAgent(spec);
  const folders = makeFolders();
  write(folders.mirror, mirror);
  write(folders.workspace, workspace);
  const api = await (spec?.startApi ?? startFakeApi)([...turns(folders), { text: "Done.", repeat: true }]);
  try {
    const env = cliEnv(folders);
    const flags = spec ? agentFlags(spec, name, folders, api, { byCommand: false }) : ["--agent", name];
    if (!spec) Object.assign(env, { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", TETHER_CLAUDE_PATH: process.env.TETHER_CLAUDE_PATH });
    const args = ["--root", folders.workspace, "--mirror", folders.mirror, "--prompt", "Please CHECK the notes.", "--approve", "all", "--verbose", ...flags];
    if (name === "claude-agent-acp") args.push("--agent-option", "mode=default");
    const outcome = await runCli(args, env, folders.base);
    return { ...outcome, folders, api };
  } finally {
    await api.close();
  }
}

/** No hook ran anywhere on the laptop: no log outside the workspace. */
function assertNoHookOnTheLaptop({ folders }) {
  const laptop = logLines(folders.mirror);
  assert.deepEqual(laptop, [], `project hooks ran on the laptop, in the mirror:\n${laptop.join("\n")}`);
  assert.deepEqual(filesUnder(folders.base).filter((f) => f.endsWith(LOG) && !f.startsWith("workspace/")), []);
}

/** Tether ran the workspace's own hooks of `events`, each on the workspace. */
function assertHooksRanOnTheWorkspace({ folders }, events) {
  const remote = logLines(folders.workspace);
  for (const event of events) assert.ok(remote.includes(`project:${event} ${folders.workspace}`), `${event} on the workspace:\n${remote.join("\n")}`);
  assert.ok(remote.every((line) => line.endsWith(` ${folders.workspace}`)), remote.join("\n"));
  return remote.length;
}

/** The agent was not started: the clear error names the file, and no model request was made. */
function assertRefused({ folders, code, stderr, api }, rel) {
  assert.notEqual(code, 0, "tether-cli failed");
  assert.match(stderr, new RegExp(`would act on ${join(folders.mirror, rel).replaceAll(".", "\\.")}.*Tether does not start`));
  assert.equal(api.requests.filter((r) => r.path !== "/").length, 0, "the agent never reached its model");
  assertNoHookOnTheLaptop({ folders });
}

const readTheNotes = (spec) => ({ mirror }) => [
  { when: { lastUserText: /CHECK/ }, toolUse: spec.tetherTool("Read", { file_path: join(mirror, "notes.txt") }) },
  { when: { lastToolResult: /hello world/ }, text: "The notes are fine." },
];

const CLAUDE_SETTINGS = { ".claude/settings.json": claudeSettings("project"), ".claude/settings.local.json": claudeSettings("local") };

describe("hostile: the project's hooks in the agent's mirror never run on the laptop", { concurrency: false, timeout: RUN_LIMIT_MS * 5 }, () => {
  test("claude-agent-acp in a mirror as Tether syncs it (a skill whose frontmatter hooks every tool, no settings): no hook runs there; Tether runs the workspace's", async (t) => {
    const skill = { ".claude/skills/probe/SKILL.md": SKILL };
    const outcome = await session(claudeAgent, "claude-agent-acp", { mirror: skill, workspace: { ...CLAUDE_SETTINGS, ...skill } }, ({ mirror }) => [
      { when: { lastUserText: /CHECK/ }, toolUse: { name: "Skill", input: { skill: "probe" } } },
      ...readTheNotes(claudeAgent)({ mirror }).map((turn, i) => (i === 0 ? { ...turn, when: { lastToolResult: /probe/i } } : turn)),
    ]);
    try {
      assert.equal(outcome.code, 0, outcome.stderr.slice(-3000));
      assertNoHookOnTheLaptop(outcome);
      const requests = JSON.stringify(outcome.api.requests.map((r) => r.body));
      assert.match(requests, /Launching skill: probe/, "the skill was loaded");
      assert.match(requests, /hello world/, "the model read the notes through Tether");
      t.diagnostic(`hooks run on the workspace: ${assertHooksRanOnTheWorkspace(outcome, ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"])}`);
    } finally {
      removeFolders(outcome.folders);
    }
  });

  test("claude-agent-acp in a mirror holding the project's settings (a user's copy): not started, with the reason", async () => {
    const outcome = await session(claudeAgent, "claude-agent-acp", { mirror: CLAUDE_SETTINGS, workspace: CLAUDE_SETTINGS }, readTheNotes(claudeAgent));
    try {
      assertRefused(outcome, ".claude/settings.json");
      assert.match(outcome.stderr, /settings\.local\.json/, "every file found is named");
    } finally {
      removeFolders(outcome.folders);
    }
  });

  test("gemini in a mirror holding .gemini/settings.json with hooks on every event: not started, with the reason", async () => {
    const outcome = await session(gemini, "gemini", { mirror: { ".gemini/settings.json": geminiSettings() } }, readTheNotes(gemini));
    try {
      assertRefused(outcome, ".gemini");
    } finally {
      removeFolders(outcome.folders);
    }
  });

  test("Claude Code in a mirror holding the project's settings: it reads none of them, and Tether's hook callbacks still run the workspace's", async (t) => {
    assert.ok(process.env.TETHER_CLAUDE_PATH, "TETHER_CLAUDE_PATH is not set (./build.sh test installs Claude Code)");
    const spec = { tetherTool: claudeAgent.tetherTool };
    const outcome = await session(undefined, "claude", { mirror: CLAUDE_SETTINGS, workspace: CLAUDE_SETTINGS }, readTheNotes(spec));
    try {
      assert.equal(outcome.code, 0, outcome.stderr.slice(-3000));
      assertNoHookOnTheLaptop(outcome);
      assert.match(JSON.stringify(outcome.api.requests.map((r) => r.body)), /hello world/, "the model read the notes through Tether");
      t.diagnostic(`hooks run on the workspace: ${assertHooksRanOnTheWorkspace(outcome, ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"])}`);
    } finally {
      removeFolders(outcome.folders);
    }
  });
});
