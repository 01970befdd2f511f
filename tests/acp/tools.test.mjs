// The tools a closed ACP agent keeps (DESIGN.md: no tool that reads or writes the workspace or
// runs a command runs anywhere but through Tether; everything else stays on), with the real agents
// through `dist/tether-cli.js run --agent …` on a remote-style workspace, against their fake model
// APIs: claude-agent-acp delegates to a subagent that works through Tether's tools (its built-in
// Write refused there too) and still offers todos, plan mode and the rest; gemini-cli and
// codex-acp each run their web search, answered by the fake API.

import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { claudeAgent, codex, gemini } from "./agents.mjs";
import { RUN_LIMIT_MS, runOnRemote } from "./cli.mjs";
import { filesContaining, filesUnder, removeFolders } from "./scenario.mjs";

/** One `tether-cli run --prompt` of `spec` on a remote-style workspace, with every question
 * approved; `turns(folders)` scripts the model. */
function runPrompt(spec, name, prompt, turns, options) {
  return runOnRemote(spec, name, turns, () => ["--prompt", prompt, "--approve", "all"], options);
}

/** What the run left on the laptop: nothing of the project in the mirror, the marker nowhere. */
function assertNothingOnTheLaptop({ folders, laptop }) {
  assert.deepEqual(filesUnder(folders.mirror).filter((f) => !/^(CLAUDE|AGENTS|GEMINI)\.md$/.test(f)), []);
  assert.deepEqual(filesContaining(laptop, folders.marker), []);
}

describe("claude-agent-acp keeps its subagents and the tools that touch no disk", { concurrency: false, timeout: RUN_LIMIT_MS * 2 }, () => {
  let outcome;
  before(async () => {
    outcome = await runPrompt(claudeAgent, "claude-agent-acp", "Please DELEGATE the notes edit to a subagent.", ({ mirror }) => [
      {
        when: { lastUserText: /DELEGATE/ },
        toolUse: { name: "Agent", input: { description: "Edit the notes", prompt: "SUBTASK: change hello to goodbye in notes.txt", subagent_type: "general-purpose", run_in_background: false } },
      },
      // Inside the subagent: its built-in Write first, then Tether's Edit.
      { when: { lastUserText: /SUBTASK/ }, toolUse: { name: "Write", input: { file_path: join(mirror, "notes.txt"), content: "written by the built-in\n" } } },
      { when: { lastToolResult: /No such tool available: Write/ }, toolUse: claudeAgent.tetherTool("Edit", { file_path: join(mirror, "notes.txt"), old_string: "hello", new_string: "goodbye" }) },
      { when: { lastToolResult: /has been updated/ }, text: "SUBAGENT-DONE: the notes now say goodbye." },
      { when: { lastToolResult: /SUBAGENT-DONE/ }, text: "The subagent edited the notes." },
      { text: "OK.", repeat: true },
      // The agent's initial mode `auto` drops the allow rule for Agent and asks its classifier,
      // which a fake API cannot be: it blocks the call. Manual runs it.
    ], { extraArgs: ["--agent-option", "mode=default"] });
  });
  after(() => outcome && removeFolders(outcome.folders));

  test("a subagent edits a workspace file through Tether's tools; its built-in Write is refused; nothing lands in the mirror", (t) => {
    const { code, stderr, events, folders, api } = outcome;
    assert.equal(code, 0, stderr.slice(-4000));
    assert.equal(readFileSync(join(folders.workspace, "notes.txt"), "utf8"), "goodbye world\nsecond line\n");
    assert.ok(!existsSync(join(folders.mirror, "notes.txt")));
    assertNothingOnTheLaptop(outcome);
    const starts = events.filter((e) => e.type === "toolCallStart");
    const agent = starts.find((e) => e.name === "Agent");
    assert.ok(agent, `the Agent call shown: ${starts.map((e) => e.name)}`);
    const edit = starts.find((e) => e.name === "Edit");
    assert.ok(edit, "Tether's Edit shown");
    assert.equal(edit.parentToolUseId, agent.id, "the Edit is the subagent's");
    const editResult = events.find((e) => e.type === "toolCallResult" && e.id === edit.id);
    assert.equal(editResult?.isError, false);
    // The subagent's model request: Tether's tools, none of the built-ins that touch the disk.
    // (The CLI interleaves role:"system" messages: the subagent's conversation opens with its prompt.)
    const subagent = api.messageRequests().find((r) => JSON.stringify(r.body.messages.find((m) => m.role === "user")).includes("SUBTASK"));
    const subagentTools = subagent.body.tools.map((tool) => tool.name);
    assert.ok(subagentTools.includes("mcp__tether__Edit"));
    for (const builtin of ["Write", "Edit", "Read", "Bash", "Glob", "Grep"]) assert.ok(!subagentTools.includes(builtin), `${builtin} offered to the subagent`);
    assert.ok(JSON.stringify(api.requests.map((r) => r.body)).includes("No such tool available: Write"), "the built-in Write was refused");
    t.diagnostic(`subagent offered: ${subagentTools.join(", ")}`);
  });

  test("what it keeps on the laptop with a subagent: its own conversation store (the subagent's transcript too), nothing else", (t) => {
    const { folders } = outcome;
    const home = filesUnder(folders.home);
    const allowed = [
      /^\.claude\.json$/,
      /^\.claude\/backups\/\.claude\.json\.backup\.\d+$/,
      /^\.claude\/plugins\/store\/[^/]+\.json$/,
      /^\.claude\/sessions\/\d+\.(json|[0-9a-f.]+\.key)$/,
      /^\.claude\/projects\/[^/]+\/[0-9a-f-]+\.jsonl$/,
      /^\.claude\/projects\/[^/]+\/[0-9a-f-]+\/subagents\/agent-[0-9a-f]+\.(jsonl|meta\.json)$/,
      /^\.cache\/claude-cli-nodejs\/[^/]+\/mcp-logs-tether\/[^/]+\.jsonl$/,
    ];
    assert.deepEqual(home.filter((f) => !allowed.some((pattern) => pattern.test(f))), [], "only the agent's own state under HOME");
    assert.ok(home.some((f) => /\/subagents\/agent-/.test(f)), "the subagent's transcript beside the session's");
    // CLAUDE_CODE_TMPDIR: the subagent's output file (what it answered).
    // The CLI's messaging socket (cc-socks/<pid>.sock) too, left behind when the CLI is ended
    // before it removes it: a socket holds no bytes.
    const cliSocket = (f) => /^cc-socks\/\d+\.sock$/.test(f) && statSync(join(folders.tmp, f)).isSocket();
    // And its file-watch probe, an empty file it removes a moment after making it (seen once in a
    // full run, when the CLI was ended first).
    const watchProbe = (f) => /^claude-\d+\/fswatch-probe-[^/]+\/probe$/.test(f) && statSync(join(folders.tmp, f)).size === 0;
    const tmp = filesUnder(folders.tmp).filter((f) => !f.startsWith("tether-cli-") && !cliSocket(f) && !watchProbe(f));
    assert.deepEqual(tmp.filter((f) => !/^claude-\d+\/[^/]+\/[0-9a-f-]+\/tasks\/[0-9a-f]+\.output$/.test(f)), [], "only subagent output under TMPDIR");
    t.diagnostic(`HOME: ${home.join(", ")}; TMPDIR: ${filesUnder(folders.tmp).join(", ")}`);
  });

  test("the model is offered Agent, its todo list, web search and fetch, plan mode and skills, and no built-in that touches the disk", (t) => {
    const offered = claudeAgent.offeredTools(outcome.api);
    const deferred = JSON.stringify(outcome.api.messageRequests().map((r) => r.body));
    const available = (tool) => offered.includes(tool) || deferred.includes(tool);
    // Offered or deferred (listed for ToolSearch). The todo list is TaskCreate…TaskUpdate under the
    // SDK (no TodoWrite); AskUserQuestion is on because Tether answers form elicitations (the
    // adapter keeps it off for a client that does not).
    for (const tool of ["Agent", "TaskCreate", "TaskUpdate", "WebSearch", "WebFetch", "EnterPlanMode", "ExitPlanMode", "Skill", "AskUserQuestion"]) assert.ok(available(tool), `${tool} available`);
    for (const tool of ["Write", "Edit", "MultiEdit", "NotebookEdit", "Read", "Bash", "Glob", "Grep", "LS", "Monitor", "PowerShell", "EnterWorktree"]) {
      assert.ok(!offered.includes(tool), `${tool} offered`);
    }
    t.diagnostic(`offered: ${offered.join(", ")}`);
  });
});

describe("gemini-cli and codex-acp keep their web search", { concurrency: false, timeout: RUN_LIMIT_MS * 2 }, () => {
  test("gemini-cli's google_web_search runs: its search request goes to the fake API (googleSearch), the answer reaches the model", async (t) => {
    const outcome = await runPrompt(gemini, "gemini", "Please SEARCH the web.", () => [
      { when: { lastUserText: /SEARCH the web/ }, toolUse: { name: "google_web_search", input: { query: "tether fake query" } } },
      // The tool's own request: the search model with the googleSearch tool.
      { when: (facts) => facts.lastUserText === "tether fake query", text: "FAKE-SEARCH-RESULT: Tether is a VS Code extension." },
      { when: { lastToolResult: /FAKE-SEARCH-RESULT/ }, text: "Searched." },
      { text: "OK.", repeat: true },
    ], { byCommand: false });
    try {
      const { code, stderr, events, api } = outcome;
      assert.equal(code, 0, stderr.slice(-4000));
      const search = api.requests.find((r) => JSON.stringify(r.body?.tools ?? []).includes("googleSearch"));
      assert.ok(search, "a request with the googleSearch tool reached the fake API");
      const call = events.find((e) => e.type === "toolCallStart" && e.id.startsWith("google_web_search"));
      assert.ok(call, `the search shown: ${JSON.stringify(events.filter((e) => e.type === "toolCallStart"))}`);
      assert.ok(events.some((e) => e.type === "toolCallResult" && e.id === call.id && !e.isError), "the search succeeded");
      const answered = api.turnRequests().some((r) =>
        (r.body.contents?.at(-1)?.parts ?? []).some((p) => p.functionResponse?.name === "google_web_search" && /FAKE-SEARCH-RESULT/.test(JSON.stringify(p.functionResponse.response))),
      );
      assert.ok(answered, "the search's answer reached the model");
      assertNothingOnTheLaptop(outcome);
      t.diagnostic(`gemini offered: ${gemini.offeredTools(api).join(", ")}`);
    } finally {
      removeFolders(outcome.folders);
    }
  });

  test("codex-acp's web search runs: the model API's own hosted search (a web_search_call item) is shown and the turn goes on", async (t) => {
    const spec = codex("tether-fake-model");
    const outcome = await runPrompt(spec, "codex", "Please SEARCH the web.", () => [
      { when: { lastUserText: /SEARCH the web/ }, webSearch: { query: "tether fake query" }, text: "Searched: FAKE-SEARCH-RESULT." },
      { text: "OK.", repeat: true },
    ], { extraArgs: ["--allow-local-tools"] });
    try {
      const { code, stderr, events, api } = outcome;
      assert.equal(code, 0, stderr.slice(-4000));
      const offered = spec.offeredTools(api);
      assert.ok(offered.includes("web_search"), `web_search offered: ${offered}`);
      const call = events.find((e) => e.type === "toolCallStart" && /search/i.test(`${e.name} ${e.title}`));
      assert.ok(call, `the search shown: ${JSON.stringify(events.filter((e) => e.type.startsWith("toolCall")))}`);
      assertNothingOnTheLaptop(outcome);
      t.diagnostic(`codex offered: ${offered.join(", ")}; search call ${JSON.stringify(call)}`);
    } finally {
      removeFolders(outcome.folders);
    }
  });
});
