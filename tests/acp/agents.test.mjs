// The three real ACP agents from npm (pinned; ./build.sh test installs them), each offline against
// its scripted fake model API, with Tether's tools on the workspace as their MCP server through
// dist/tether-mcp-bridge.js and their own file and shell tools switched off (force-local). Each
// session reads, edits, writes and runs a command; the test checks the workspace changed through
// Tether only, the agent's own tools were refused, nothing landed in the agent's cwd (the mirror),
// and a marker from a workspace file nothing reads appears nowhere on "the laptop" (the agent's
// HOME, its TMPDIR, the mirror, new entries of the system temp folder). Findings: README.md.
//
// Set TETHER_ACP_RECORD=DIR to save each run's ACP frames as DIR/<agent>.ndjson, one
// {process, dir: "in"|"out", message} per line (crate/tests/acp_frames.rs reads the committed
// ones in tests/acp/frames/).

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { CLAUDE_DENIED_TOOLS, CLAUDE_KEPT_TOOLS, GEMINI_KEPT_TOOLS, claudeAgent, codex, gemini } from "./agents.mjs";
import { killAll, updatesOf } from "./client.mjs";
import { filesContaining, filesUnder, makeFolders, newTempEntries, removeFolders, script, startRun, tempEntries } from "./scenario.mjs";

const TIMEOUT_MS = 180_000;
const PROMPT_TIMEOUT_MS = 120_000;

after(killAll);

/** Fail with the reason when build.sh did not install the agent. */
function requireAgent(spec) {
  for (const name of [spec.entryEnv, ...spec.extraEnv]) {
    const path = process.env[name];
    assert.ok(path && existsSync(path), `${name} is not set to an installed file (./build.sh test installs the ACP agents)`);
  }
}

function record(spec, agents) {
  const dir = process.env.TETHER_ACP_RECORD;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const slug = spec.name.replace(/[^a-z0-9.]+/gi, "-").replace(/-$/, "");
  // `process` tells the agent processes of one run apart (each numbers its requests from 0).
  const lines = agents.flatMap((agent, process) =>
    agent.frames.map((f) =>
      JSON.stringify({ process, dir: f.dir, message: f.message }).replace(/("name":"TETHER_BRIDGE_TOKEN","value":")[0-9a-f]{64}"/g, '$1(redacted)"'),
    ),
  );
  writeFileSync(join(dir, `${slug}.ndjson`), lines.join("\n") + "\n");
}

/** Everything the model was sent, as one string (quotes unescaped, for matching tool results). */
function toolResultsSeen(api) {
  return JSON.stringify(api.requests.map((r) => r.body)).replaceAll('\\"', '"');
}

/** `assert.match` without quoting a megabyte of request bodies when it fails. */
function assertSeen(api, pattern, what) {
  assert.ok(pattern.test(toolResultsSeen(api)), `${what}: ${pattern} not in what the model was sent`);
}

/** Run the scenario on a new session; everything stopped before it returns. */
async function forceLocalSession(spec, turns) {
  requireAgent(spec);
  const folders = makeFolders();
  const tempBefore = tempEntries();
  const run = await startRun(spec, folders, turns ?? script(spec, folders));
  let session;
  let result;
  let agent;
  try {
    agent = await run.startAgent();
    session = await agent.request("session/new", {
      cwd: folders.mirror,
      mcpServers: run.mcpServers,
      ...(spec.sessionMeta ? { _meta: spec.sessionMeta } : {}),
    });
    await spec.afterSession(agent, session.sessionId);
    result = await agent.request(
      "session/prompt",
      { sessionId: session.sessionId, prompt: [{ type: "text", text: "Please update the notes, then create a file and run a command." }] },
      { timeoutMs: PROMPT_TIMEOUT_MS },
    );
  } finally {
    await run.stop();
    record(spec, run.agents);
  }
  const laptop = [folders.home, folders.tmp, folders.mirror, ...newTempEntries(tempBefore, [folders.base])];
  return { folders, run, agent, session, result, updates: updatesOf(agent, session.sessionId), laptop };
}

/** What every force-local session must show. */
function assertWorkedThroughTether(spec, outcome, t) {
  const { folders, run, result, updates } = outcome;
  const read = (name) => readFileSync(join(folders.workspace, name), "utf8");
  assert.equal(result.stopReason, "end_turn");
  assertSeen(run.api, /bash ran in/, "the script ran to its end");
  // The workspace changed, through Tether's tools (the agent's cwd is the mirror; Tether maps it).
  assert.equal(read("notes.txt"), "goodbye world\nsecond line\n");
  assert.equal(read("created.txt"), "created through Tether\n");
  assert.equal(read("ran.txt"), "ran\n");
  assert.ok(toolResultsSeen(run.api).includes(`bash ran in ${folders.workspace}`), "the command ran in the workspace");
  // The agent's own tools were refused, and its cwd holds nothing of the project.
  assertSeen(run.api, spec.builtinRefused, "the agent's own tools refused");
  assert.deepEqual(filesUnder(folders.mirror), []);
  // Every tool call that completed was one of Tether's.
  const completed = new Map();
  for (const update of updates) {
    if (update.sessionUpdate !== "tool_call" && update.sessionUpdate !== "tool_call_update") continue;
    const call = { ...completed.get(update.toolCallId), ...update, _meta: { ...completed.get(update.toolCallId)?._meta, ...update._meta } };
    completed.set(update.toolCallId, call);
  }
  for (const permission of run.permissions) {
    const id = permission.toolCall.toolCallId;
    completed.set(id, { ...permission.toolCall, ...completed.get(id) });
  }
  const done = [...completed.values()].filter((c) => c.status === "completed");
  assert.ok(done.length >= 4, `completed tool calls: ${done.length}`);
  for (const call of done) assert.ok(spec.isTetherCall(call), `not one of Tether's tools: ${JSON.stringify(call).slice(0, 300)}`);
  // Nothing of the project beyond what the conversation showed is on "the laptop" (the search
  // does find the marker where it is).
  assert.equal(filesContaining([folders.workspace], folders.marker).length, 1);
  assert.deepEqual(filesContaining(outcome.laptop, folders.marker), []);
  t.diagnostic(`${spec.name}: offered ${spec.offeredTools(run.api).join(", ")}`);
  t.diagnostic(`${spec.name}: wrote under HOME ${filesUnder(folders.home).filter((f) => !f.includes("skills/.system")).join(", ")}`);
  t.diagnostic(`${spec.name}: wrote under TMPDIR ${filesUnder(folders.tmp).join(", ") || "nothing"}`);
  t.diagnostic(`${spec.name}: after stdin closed, exited ${JSON.stringify(outcome.agent.exit)} in ${outcome.agent.closedInMs} ms`);
}

describe("real ACP agents, force-local, against fake model APIs", { timeout: TIMEOUT_MS, concurrency: false }, () => {
  test("claude-agent-acp with only its no-disk built-ins kept offers no file or shell built-in and works on the workspace through Tether's", async (t) => {
    const outcome = await forceLocalSession(claudeAgent);
    try {
      assertWorkedThroughTether(claudeAgent, outcome, t);
      const offered = claudeAgent.offeredTools(outcome.run.api);
      assert.deepEqual(offered.filter((name) => CLAUDE_DENIED_TOOLS.includes(name)), []);
      assert.ok(offered.includes("Agent"), "subagents kept");
    } finally {
      removeFolders(outcome.folders);
    }
  });

  test("claude-agent-acp forgets the switch on resume (its built-ins come back) and keeps it when load sends it again", async () => {
    requireAgent(claudeAgent);
    const folders = makeFolders();
    const run = await startRun(claudeAgent, folders, [{ text: "Hello.", repeat: true }]);
    const prompt = (agent, sessionId, text) => agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, { timeoutMs: PROMPT_TIMEOUT_MS });
    // The tools of the model requests whose last user message is `text` (the CLI interleaves
    // role:"system" messages, and history repeats earlier prompts).
    const toolsAsked = (text) =>
      run.api
        .messageRequests()
        .filter((r) => JSON.stringify(r.body.messages.findLast((m) => m.role === "user")).includes(text) && (r.body.tools ?? []).length)
        .flatMap((r) => r.body.tools.map((tool) => tool.name));
    try {
      const first = await run.startAgent();
      const { sessionId } = await first.request("session/new", { cwd: folders.mirror, mcpServers: run.mcpServers, _meta: claudeAgent.sessionMeta });
      await claudeAgent.afterSession(first, sessionId);
      await prompt(first, sessionId, "first prompt");
      await first.close();

      // Load (with the _meta) before the resume without it: once a resume has given the built-ins
      // back, a load with a non-empty `tools` list does not take them away again (measured).
      const loaded = await run.startAgent();
      await loaded.request("session/load", { sessionId, cwd: folders.mirror, mcpServers: run.mcpServers, _meta: claudeAgent.sessionMeta });
      await claudeAgent.afterSession(loaded, sessionId);
      await prompt(loaded, sessionId, "third prompt");
      await loaded.close();

      const resumed = await run.startAgent();
      assert.ok(resumed.initialize.agentCapabilities.sessionCapabilities.resume);
      await resumed.request("session/resume", { sessionId, cwd: folders.mirror, mcpServers: run.mcpServers });
      await claudeAgent.afterSession(resumed, sessionId);
      await prompt(resumed, sessionId, "second prompt");

      const isTether = (name) => name.startsWith("mcp__tether__") || name === "DeferredToolPlaceholder" || CLAUDE_KEPT_TOOLS.includes(name);
      assert.deepEqual(toolsAsked("first prompt").filter((n) => !isTether(n)), []);
      assert.ok(toolsAsked("second prompt").includes("Write") && toolsAsked("second prompt").includes("Bash"), "resume without the _meta: built-ins back");
      assert.deepEqual(toolsAsked("third prompt").filter((n) => !isTether(n)), [], "load with the _meta: Tether's tools and the kept built-ins only");
      assert.ok(toolsAsked("third prompt").includes("mcp__tether__Edit"));
    } finally {
      await run.stop();
      record({ name: "claude-agent-acp-load-resume" }, run.agents);
      removeFolders(folders);
    }
  });

  test("gemini-cli with an admin policy allowing Tether's tools and its no-disk ones (and --skip-trust) offers nothing else and works through Tether's", async (t) => {
    const outcome = await forceLocalSession(gemini);
    try {
      assertWorkedThroughTether(gemini, outcome, t);
      const offered = gemini.offeredTools(outcome.run.api);
      assert.deepEqual(offered.filter((n) => !n.startsWith("mcp_tether_") && !GEMINI_KEPT_TOOLS.includes(n)), []);
      assert.ok(offered.includes("google_web_search"), "its web search kept");
      assert.ok(gemini.offeredTools(outcome.run.api).includes("mcp_tether_Bash"));
    } finally {
      removeFolders(outcome.folders);
    }
  });

  test("codex-acp with its shell off and a model outside its catalog has no local tool of its own left and works through Tether's", async (t) => {
    const spec = codex("tether-fake-model");
    const outcome = await forceLocalSession(spec);
    try {
      assertWorkedThroughTether(spec, outcome, t);
      const offered = spec.offeredTools(outcome.run.api);
      for (const own of ["exec_command", "shell", "apply_patch", "write_stdin", "view_image"]) assert.ok(!offered.includes(own), `${own} offered`);
      assert.ok(offered.includes("web_search"), "its web search (the API's own) kept");
    } finally {
      removeFolders(outcome.folders);
    }
  });

  test("codex-acp with a catalog model keeps apply_patch: rejecting it cancels the turn, allowing it writes the laptop's mirror", async (t) => {
    const spec = codex("gpt-5.5");
    requireAgent(spec);
    const patch = (name) => ({ name: "apply_patch", custom: true, input: `*** Begin Patch\n*** Add File: ${name}\n+written by apply_patch\n*** End Patch\n` });
    const folders = makeFolders();
    const run = await startRun(spec, folders, [
      { when: { lastUserText: /first/ }, toolUse: patch("rejected.txt") },
      { when: { lastUserText: /second/ }, toolUse: patch("allowed.txt") },
      { when: { lastToolResult: /Success/ }, text: "Patched." },
    ]);
    let decision = "reject_once";
    // codex offers allow_once, allow_for_session and cancel (reject_once) for apply_patch.
    spec.answerPermission = (params) => params.options.find((o) => o.kind === decision)?.optionId;
    try {
      const agent = await run.startAgent();
      const { sessionId } = await agent.request("session/new", { cwd: folders.mirror, mcpServers: run.mcpServers });
      const prompt = (text) => agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, { timeoutMs: PROMPT_TIMEOUT_MS });
      const rejected = await prompt("first: patch it");
      assert.equal(rejected.stopReason, "cancelled", "codex's only way to refuse apply_patch ends the turn");
      assert.deepEqual(filesUnder(folders.mirror), []);
      decision = "allow_once";
      assert.equal((await prompt("second: patch it")).stopReason, "end_turn");
      assert.ok(spec.offeredTools(run.api).includes("apply_patch"));
      assert.equal(run.permissions.length, 2);
      assert.ok(run.permissions.every((p) => p.toolCall.kind === "edit"));
      assert.deepEqual(filesUnder(folders.mirror), ["allowed.txt"], "the allowed patch wrote the agent's cwd: the laptop");
      assert.deepEqual(filesUnder(folders.workspace).filter((f) => !f.startsWith("vendor/")), ["notes.txt"], "the workspace never saw it");
      t.diagnostic(`codex-acp (gpt-5.5): offered ${spec.offeredTools(run.api).join(", ")}`);
    } finally {
      await run.stop();
      record(spec, run.agents);
      removeFolders(folders);
    }
  });
});
