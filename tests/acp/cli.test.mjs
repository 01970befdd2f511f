// The three real ACP agents from npm (pinned; ./build.sh test installs them) run through
// `dist/tether-cli.js run --agent …` against their fake model APIs, on a "remote" workspace (a
// --mirror folder as the agent's cwd, so its own file and shell tools are switched off and it works
// through Tether's tools over the MCP bridge, behind Tether's permission gate). Each agent reads,
// edits (approved), writes (rejected), runs a command, and is cancelled mid-turn at a permission
// prompt; the workspace changes only as allowed, the agent's cwd stays empty, and a marker from a
// workspace file nothing reads is nowhere on "the laptop" (the agent's HOME, its TMPDIR, the mirror,
// new entries of the system temp folder).

import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { claudeAgent, codex, gemini } from "./agents.mjs";
import { agentFlags, cliEnv, requireAgent, RUN_LIMIT_MS, runCli, runOnRemote } from "./cli.mjs";
import { filesContaining, filesUnder, makeFolders, removeFolders } from "./scenario.mjs";

/** The model's side: read and edit, write (refused by the user), run a command, then a write the
 * user never answers because the turn is stopped. */
function script(spec, { mirror }) {
  const tool = (name, input) => spec.tetherTool(name, input);
  return [
    { when: { lastUserText: /STEP-ONE/ }, toolUse: tool("Read", { file_path: join(mirror, "notes.txt") }) },
    { when: { lastToolResult: /hello world/ }, toolUse: tool("Edit", { file_path: join(mirror, "notes.txt"), old_string: "hello", new_string: "goodbye" }) },
    { when: { lastToolResult: /has been updated/ }, text: "STEP-ONE done." },
    { when: { lastUserText: /STEP-TWO/ }, toolUse: tool("Write", { file_path: join(mirror, "refused.txt"), content: "refused\n" }) },
    { when: { lastToolResult: /refused this tool call/ }, text: "STEP-TWO refused." },
    { when: { lastUserText: /STEP-THREE/ }, toolUse: tool("Bash", { command: 'echo ran > ran.txt && echo "ran in $(pwd)"' }) },
    { when: { lastToolResult: /ran in/ }, text: "STEP-THREE done." },
    { when: { lastUserText: /STEP-FOUR/ }, toolUse: tool("Write", { file_path: join(mirror, "cancelled.txt"), content: "never\n" }) },
    // Title and suggestion requests, and anything after the cancel.
    { text: "OK.", repeat: true },
  ];
}

const STEPS = [
  { prompt: "Please do STEP-ONE: read the notes, then edit them." },
  { prompt: "Please do STEP-TWO: write a file." },
  { prompt: "Please do STEP-THREE: run a command." },
  { prompt: "Please do STEP-FOUR: write another file.", interrupt: "onPermission" },
];

/** The text of every tool result the model was sent. */
function toolResultTexts(api) {
  const texts = [];
  for (const request of api.messageRequests()) {
    for (const message of request.body?.messages ?? []) {
      if (message.role !== "user" || !Array.isArray(message.content)) continue;
      for (const block of message.content) {
        if (block?.type !== "tool_result") continue;
        texts.push(typeof block.content === "string" ? block.content : (block.content ?? []).map((c) => c.text ?? "").join(""));
      }
    }
  }
  return texts;
}

function runAgent(spec, name, options) {
  const steps = (folders) => {
    const scriptFile = join(folders.base, "steps.json");
    writeFileSync(scriptFile, JSON.stringify(STEPS));
    return ["--script", scriptFile, "--approve", "Edit,Bash"];
  };
  return runOnRemote(spec, name, (folders) => script(spec, folders), steps, options);
}

function assertTheSession(outcome, t) {
  const { code, events, stderr, folders } = outcome;
  const read = (file) => (existsSync(join(folders.workspace, file)) ? readFileSync(join(folders.workspace, file), "utf8") : null);
  assert.equal(code, 0, stderr.slice(-4000));
  // Read, then the approved edit, on the workspace.
  assert.equal(read("notes.txt"), "goodbye world\nsecond line\n");
  // The refused write wrote nothing; the command ran in the workspace; the cancelled write never ran.
  assert.equal(read("refused.txt"), null);
  assert.equal(read("ran.txt"), "ran\n");
  assert.equal(read("cancelled.txt"), null);
  const asked = events.filter((e) => e.type === "permissionRequest").map((e) => e.toolName);
  assert.deepEqual(asked, ["Edit", "Write", "Bash", "Write"], "Tether's gate asked for each change");
  assert.equal(events.filter((e) => e.type === "permissionCancelled").length, 1, "the stopped turn withdrew its question");
  const done = events.filter((e) => e.type === "done");
  assert.deepEqual(done.map((d) => d.isError), [false, false, false, false]);
  assert.equal(done.at(-1).stopReason, "cancelled");
  // Every tool call the agent showed was one of Tether's.
  const names = [...new Set(events.filter((e) => e.type === "toolCallStart").map((e) => e.name))];
  for (const name of names) assert.ok(["Read", "Edit", "Write", "Bash"].includes(name), `the agent's own tool ${name} ran`);
  // The agent's cwd holds nothing of the project, and the marker is nowhere on the laptop.
  assert.deepEqual(filesUnder(folders.mirror).filter((f) => !/^(CLAUDE|AGENTS|GEMINI)\.md$/.test(f)), []);
  assert.equal(filesContaining([folders.workspace], folders.marker).length, 1);
  assert.deepEqual(filesContaining(outcome.laptop, folders.marker), []);
  t.diagnostic(`events: ${[...new Set(events.map((e) => e.type))].join(", ")}`);
}

describe("real ACP agents through tether-cli on a remote workspace", { concurrency: false, timeout: RUN_LIMIT_MS * 4 }, () => {
  test("claude-agent-acp reads, edits, is refused a write, runs a command and is stopped mid-turn, all on the workspace", async (t) => {
    const outcome = await runAgent(claudeAgent, "claude-agent-acp");
    try {
      assertTheSession(outcome, t);
    } finally {
      removeFolders(outcome.folders);
    }
  });

  test("gemini (found in Tether's build cache by name) does the same through Tether's tools", async (t) => {
    const outcome = await runAgent(gemini, "gemini", { byCommand: false });
    try {
      assertTheSession(outcome, t);
    } finally {
      removeFolders(outcome.folders);
    }
  });

  test("codex-acp, allowed on a remote with a model outside its catalog, does the same", async (t) => {
    const spec = codex("tether-fake-model");
    const outcome = await runAgent(spec, "codex", { extraArgs: ["--allow-local-tools"] });
    try {
      assertTheSession(outcome, t);
    } finally {
      removeFolders(outcome.folders);
    }
  });

  test("claude-agent-acp forks its session (a SessionOp it offers): the fork is a new session that carries the conversation", async () => {
    requireAgent(claudeAgent);
    const folders = makeFolders();
    const api = await claudeAgent.startApi([
      { when: { lastUserText: /FORK-FIRST/ }, text: "Noted." },
      { when: { lastUserText: /FORK-SECOND/ }, text: "Forked." },
      { text: "OK.", repeat: true },
    ]);
    const scriptFile = join(folders.base, "steps.json");
    writeFileSync(scriptFile, JSON.stringify([{ prompt: "FORK-FIRST: remember PELICAN." }, { forkSession: true }, { prompt: "FORK-SECOND" }]));
    try {
      const args = ["--root", folders.workspace, "--mirror", folders.mirror, "--script", scriptFile,
        ...agentFlags(claudeAgent, "claude-agent-acp", folders, api, { byCommand: true })];
      const { code, stderr, events } = await runCli(args, cliEnv(folders), folders.base);
      assert.equal(code, 0, stderr.slice(-4000));
      const sessions = events.filter((e) => e.type === "sessionInit").map((e) => e.sessionId);
      assert.equal(new Set(sessions).size, 2, `the original and the fork: ${sessions}`);
      const second = api.messageRequests().find((r) => JSON.stringify(r.body?.messages ?? []).includes("FORK-SECOND"));
      assert.ok(second, "the fork was prompted");
      assert.match(JSON.stringify(second.body.messages), /PELICAN/, "the fork carries the conversation before it");
      assert.ok(events.some((e) => e.type === "textDelta" && /Forked/.test(e.text)));
    } finally {
      await api.close();
      removeFolders(folders);
    }
  });

  test("claude-agent-acp in plan mode: a write is refused without a question, even with --approve all", async () => {
    requireAgent(claudeAgent);
    const folders = makeFolders();
    const api = await claudeAgent.startApi([
      { when: { lastUserText: /PLAN-WRITE/ }, toolUse: claudeAgent.tetherTool("Write", { file_path: join(folders.mirror, "planned.txt"), content: "planned\n" }) },
      { when: { lastToolResult: /while in plan mode/ }, text: "PLAN-WRITE refused." },
      { text: "OK.", repeat: true },
    ]);
    try {
      const env = cliEnv(folders);
      const args = ["--root", folders.workspace, "--mirror", folders.mirror, "--prompt", "Please PLAN-WRITE.", "--mode", "plan", "--approve", "all",
        ...agentFlags(claudeAgent, "claude-agent-acp", folders, api, { byCommand: true })];
      const { code, stderr, events } = await runCli(args, env, folders.base);
      assert.equal(code, 0, stderr.slice(-4000));
      assert.deepEqual(events.filter((e) => e.type === "permissionRequest"), [], "nobody was asked");
      assert.equal(existsSync(join(folders.workspace, "planned.txt")), false);
      assert.equal(existsSync(join(folders.mirror, "planned.txt")), false);
      const results = toolResultTexts(api);
      assert.ok(results.some((r) => /Cannot write to \S*planned\.txt while in plan mode\. .*present your plan/.test(r)), results.join("\n"));
      assert.ok(api.messageRequests().some((r) => JSON.stringify(r.body).includes("Plan mode is active")), "the agent itself was in plan mode");
    } finally {
      await api.close();
      removeFolders(folders);
    }
  });

  test("claude-agent-acp's ExitPlanMode, approved, leaves plan mode in both, and the next write goes through the gate", async () => {
    requireAgent(claudeAgent);
    const folders = makeFolders();
    const planned = join(folders.workspace, "planned.txt");
    const api = await claudeAgent.startApi([
      { when: { lastUserText: /PLAN-EXIT/ }, toolUse: { name: "ExitPlanMode", input: { plan: "Write planned.txt." } } },
      { when: { lastToolResult: /User has approved/ }, toolUse: claudeAgent.tetherTool("Write", { file_path: planned, content: "planned\n" }) },
      { when: { lastToolResult: /created successfully/ }, text: "PLAN-EXIT done." },
      { text: "OK.", repeat: true },
    ]);
    try {
      const env = cliEnv(folders);
      // A local folder: the agent keeps its own tools, ExitPlanMode among them.
      const args = ["--root", folders.workspace, "--prompt", "Please PLAN-EXIT.", "--mode", "plan", "--approve", "all",
        ...agentFlags(claudeAgent, "claude-agent-acp", folders, api, { byCommand: true })];
      const { code, stderr, events } = await runCli(args, env, folders.base);
      assert.equal(code, 0, stderr.slice(-4000));
      const asked = events.filter((e) => e.type === "permissionRequest");
      assert.equal(asked.length, 2, JSON.stringify(asked));
      assert.deepEqual(asked[0].options.map((o) => o.optionId), ["exit-plan-default", "exit-plan-auto", "reject"], "the agent's own options");
      assert.equal(asked[1].toolName, "Write", "the write after the plan is asked about as usual");
      assert.ok(events.some((e) => e.type === "modeChanged" && e.mode === "default"), "Tether left plan mode");
      assert.equal(readFileSync(planned, "utf8"), "planned\n");
    } finally {
      await api.close();
      removeFolders(folders);
    }
  });

  test("an agent given only by a command named like codex-acp gets codex's switches: refused on a remote too", async () => {
    const folders = makeFolders();
    try {
      // Never started: the refusal comes before the launch.
      const command = join(folders.base, "codex-acp");
      writeFileSync(command, "#!/bin/sh\nexit 3\n", { mode: 0o755 });
      const env = cliEnv(folders);
      const { code, stderr, events } = await runCli(["--root", folders.workspace, "--mirror", folders.mirror, "--prompt", "hi", "--agent-command", command], env, folders.base);
      assert.equal(code, 1);
      assert.match(stderr, /cannot work on a remote workspace/);
      assert.deepEqual(events, []);
    } finally {
      removeFolders(folders);
    }
  });

  test("codex-acp with a catalog model works on a local folder: its own apply_patch writes the workspace, after Tether asks", async () => {
    const spec = codex("gpt-5.5");
    requireAgent(spec);
    const folders = makeFolders();
    const api = await spec.startApi([
      { when: { lastUserText: /PATCH/ }, toolUse: { name: "apply_patch", custom: true, input: "*** Begin Patch\n*** Add File: patched.txt\n+written by apply_patch\n*** End Patch\n" } },
      { when: { lastToolResult: /Success/ }, text: "Patched." },
      { text: "OK.", repeat: true },
    ]);
    try {
      const env = cliEnv(folders);
      const launch = spec.launch({ ...folders, api });
      const flags = ["--agent", "codex", "--agent-command", launch.command, ...launch.args.flatMap((a) => ["--agent-arg", a])];
      // Not the suite's INITIAL_AGENT_MODE: the mode is Tether's to choose.
      for (const [key, value] of Object.entries(launch.env)) {
        if (!["PATH", "HOME", "TMPDIR", "INITIAL_AGENT_MODE"].includes(key)) flags.push("--agent-env", `${key}=${value}`);
      }
      const { code, stderr, events } = await runCli(["--root", folders.workspace, "--prompt", "PATCH it", "--approve", "all", ...flags], env, folders.base);
      assert.equal(code, 0, stderr.slice(-4000));
      assert.equal(readFileSync(join(folders.workspace, "patched.txt"), "utf8"), "written by apply_patch\n");
      const asked = events.findIndex((e) => e.type === "permissionRequest");
      assert.ok(asked >= 0, "Tether asked before the agent's own edit");
      assert.match(JSON.stringify(events[asked]), /patched\.txt/);
      const applied = events.findIndex((e) => e.type === "toolCallResult" && e.id === events[asked].toolUseId);
      assert.ok(applied > asked, "the question came before the patch was applied");
    } finally {
      await api.close();
      removeFolders(folders);
    }
  });

  test("gemini with Tether's state folder under the world-writable temp folder is not started: the error names the agent, the folder and why", async () => {
    requireAgent(gemini);
    const folders = makeFolders();
    try {
      const env = { ...cliEnv(folders), XDG_STATE_HOME: join(folders.tmp, "state") };
      const { code, stderr, events } = await runCli(["--root", folders.workspace, "--mirror", folders.mirror, "--prompt", "hi", "--agent", "gemini"], env, folders.base);
      assert.notEqual(code, 0, stderr);
      assert.match(stderr, /Gemini CLI cannot be closed: its switches would live in .*\/state\/tether\/cli-/);
      assert.match(stderr, /the folder \/tmp above it is writable by group or others/);
      assert.deepEqual(filesUnder(folders.mirror), []);
      assert.equal(events.filter((e) => e.type === "done" && !e.isError).length, 0);
    } finally {
      removeFolders(folders);
    }
  });

  test("codex-acp is refused on a remote workspace, saying why, before it starts", async () => {
    const spec = codex("gpt-5.5");
    requireAgent(spec);
    const folders = makeFolders();
    try {
      const env = cliEnv(folders);
      const flags = ["--agent", "codex", "--agent-command", process.execPath, "--agent-arg", process.env.TETHER_ACP_CODEX];
      const { code, stderr, events } = await runCli(["--root", folders.workspace, "--mirror", folders.mirror, "--prompt", "hi", ...flags], env, folders.base);
      assert.equal(code, 1);
      assert.match(stderr, /cannot work on a remote workspace/);
      assert.match(stderr, /apply_patch/);
      assert.match(stderr, /allowLocalTools/);
      assert.deepEqual(events, []);
    } finally {
      removeFolders(folders);
    }
  });
});
