// The real Claude Code CLI through tether-cli: sessions across runs, modes, interrupts, crashes.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { killPid, lastDone, makeDirs, ofType, runTether, toolResults } from "./harness.mjs";

const requestText = (request) => JSON.stringify(request.body?.messages ?? []);

/** Whether the CLI's transcript of `sessionId` (under HOME/.claude/projects) contains `text`. */
function transcriptHas(home, sessionId, text) {
  const projects = path.join(home, ".claude/projects");
  if (!fs.existsSync(projects)) return false;
  return fs.readdirSync(projects).some((dir) => {
    const file = path.join(projects, dir, `${sessionId}.jsonl`);
    return fs.existsSync(file) && fs.readFileSync(file, "utf8").includes(text);
  });
}

test("always allow is saved to the workspace's .claude/settings.local.json and honoured by the next session", async () => {
  const dirs = makeDirs();
  try {
    const touch = { name: "mcp__tether__Bash", input: { command: "touch made.txt", description: "Make a file" } };
    const script = (marker) => [
      { when: { lastUserText: marker }, toolUse: touch },
      { text: `${marker} done.` },
    ];
    const first = await runTether({ dirs, script: script("SCENARIO always one"), args: ["--prompt", "SCENARIO always one", "--approve", "always:Bash"] });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(ofType(first.events, "permissionRequest").length, 1);
    assert.ok(fs.existsSync(path.join(dirs.root, "made.txt")));
    const settingsFile = path.join(dirs.root, ".claude/settings.local.json");
    const settings = JSON.parse(fs.readFileSync(settingsFile, "utf8"));
    assert.ok(settings.permissions.allow.some((rule) => rule.startsWith("Bash(")), JSON.stringify(settings));
    assert.ok(!fs.existsSync(path.join(dirs.mirror, ".claude")), "nothing saved in the local mirror");

    fs.rmSync(path.join(dirs.root, "made.txt"));
    const second = await runTether({ dirs, script: script("SCENARIO always two"), args: ["--prompt", "SCENARIO always two", "--approve", "none"] });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(ofType(second.events, "permissionRequest").length, 0, "no prompt the second time");
    assert.ok(fs.existsSync(path.join(dirs.root, "made.txt")), "the command ran");
    assert.equal(toolResults(second.requests).at(-1).isError, false);
  } finally {
    dirs.cleanup();
  }
});

test("resume: a second run with --resume sees the earlier conversation", async () => {
  const dirs = makeDirs();
  try {
    const first = await runTether({
      dirs,
      script: [{ when: { lastUserText: "MARKER-ONE" }, text: "Noted: MARKER-ONE." }],
      args: ["--prompt", "Remember MARKER-ONE please"],
    });
    assert.equal(first.code, 0, first.stderr);
    const sessionId = lastDone(first).sessionId;
    assert.ok(sessionId);
    const second = await runTether({
      dirs,
      script: [{ when: { lastUserText: "What did I ask" }, text: "You asked me to remember MARKER-ONE." }],
      args: ["--prompt", "What did I ask you to remember?", "--resume", sessionId],
    });
    assert.equal(second.code, 0, second.stderr);
    const request = second.requests.at(-1);
    assert.match(requestText(request), /Remember MARKER-ONE please/);
    assert.match(requestText(request), /Noted: MARKER-ONE\./);
    assert.equal(lastDone(second).sessionId, sessionId);
  } finally {
    dirs.cleanup();
  }
});

test("the CLI killed mid-turn: a crash error with the session id, and the session resumes", async () => {
  const dirs = makeDirs();
  const api = await startFakeApi([{ when: { lastUserText: "SCENARIO crash" }, delayMs: 15_000, text: "Too late." }]);
  try {
    let killed = false;
    const seen = {};
    const watcher = setInterval(() => {
      // Mid-turn: the CLI waits on the model, and has saved the prompt (it writes its transcript
      // asynchronously; killed before that, there is nothing to resume).
      if (killed || !seen.claudePid || !seen.sessionId || api.messageRequests().length === 0) return;
      if (!transcriptHas(dirs.home, seen.sessionId, "SCENARIO crash")) return;
      killed = true;
      killPid(seen.claudePid);
    }, 50);
    const first = await runTether({
      dirs,
      api,
      args: ["--prompt", "SCENARIO crash: a long answer"],
      onEvent: (event) => {
        if (event.type === "sessionInit") seen.sessionId = event.sessionId;
      },
      onStderr: (_, run) => (seen.claudePid = run.claudePid),
    });
    clearInterval(watcher);
    assert.ok(killed, `the CLI was killed mid-turn\n${first.stderr}`);
    assert.notEqual(first.code, 0);
    const crash = ofType(first.events, "error").find((e) => e.kind === "crash");
    assert.ok(crash, `a crash error event: ${JSON.stringify(first.events.slice(-3))}`);
    assert.equal(crash.severity, "error");
    assert.equal(crash.retryable, true);
    assert.match(crash.message, /Claude Code was killed by SIGKILL unexpectedly/);
    const sessionId = crash.sessionId;
    assert.ok(sessionId, "the crash names the session to resume");
    assert.equal(sessionId, ofType(first.events, "sessionInit").at(-1)?.sessionId);
    assert.match(first.stderr, /tether-cli: the turn failed: Claude Code was killed/);
    assert.match(first.stderr, new RegExp(`resume ${sessionId}`));

    const second = await runTether({
      dirs,
      script: [{ when: { lastUserText: "SCENARIO after crash" }, text: "Back again." }],
      args: ["--prompt", "SCENARIO after crash", "--resume", sessionId],
    });
    assert.equal(second.code, 0, second.stderr);
    assert.match(requestText(second.requests.at(-1)), /SCENARIO crash: a long answer/);
  } finally {
    await api.close();
    dirs.cleanup();
  }
});

test("interrupt while a permission prompt is open: the prompt is withdrawn, the turn ends and the next prompt works", async () => {
  const dirs = makeDirs();
  try {
    const scriptFile = path.join(dirs.base, "steps.json");
    fs.writeFileSync(
      scriptFile,
      JSON.stringify([{ prompt: "SCENARIO interrupt", interrupt: "onPermission" }, { prompt: "SCENARIO after interrupt" }]),
    );
    const target = path.join(dirs.root, "never.txt");
    const result = await runTether({
      dirs,
      script: [
        { when: { lastUserText: "SCENARIO interrupt" }, toolUse: { name: "mcp__tether__Write", input: { file_path: target, content: "no\n" } } },
        { when: { lastUserText: "SCENARIO after interrupt" }, text: "Still here." },
      ],
      args: ["--script", scriptFile, "--approve", "all"],
    });
    assert.equal(result.code, 0, result.stderr);
    const [request] = ofType(result.events, "permissionRequest");
    assert.equal(request?.toolName, "Write");
    assert.ok(ofType(result.events, "permissionCancelled").some((e) => e.id === request.id), "the prompt was withdrawn");
    const dones = ofType(result.events, "done");
    assert.equal(dones.length, 2);
    assert.equal(dones[0].isError, true);
    assert.equal(dones[1].isError, false);
    assert.equal(dones[1].result, "Still here.");
    assert.ok(!fs.existsSync(target), "the withdrawn write did not happen");
  } finally {
    dirs.cleanup();
  }
});

test("plan mode: reads go on, ExitPlanMode is asked, and once approved the edit is made", async () => {
  const dirs = makeDirs({ "a.txt": "alpha\nbeta\n" });
  try {
    const file = path.join(dirs.root, "a.txt");
    const result = await runTether({
      dirs,
      script: [
        { when: { lastUserText: "SCENARIO plan" }, toolUse: { name: "mcp__tether__Read", input: { file_path: file } } },
        { when: { lastToolResult: "beta" }, toolUse: { name: "ExitPlanMode", input: { plan: "Replace beta with gamma in a.txt." } } },
        { when: { lastToolResult: "User has approved" }, toolUse: { name: "mcp__tether__Edit", input: { file_path: file, old_string: "beta", new_string: "gamma" } } },
        { when: { lastToolResult: "has been updated" }, text: "Plan carried out." },
      ],
      args: ["--prompt", "SCENARIO plan", "--mode", "plan", "--approve", "ExitPlanMode,Edit"],
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(ofType(result.events, "sessionInit")[0]?.permissionMode, "plan");
    const asked = ofType(result.events, "permissionRequest").map((e) => e.toolName);
    assert.deepEqual(asked, ["ExitPlanMode", "Edit"]);
    assert.ok(ofType(result.events, "plan").length > 0, "a plan event");
    assert.ok(ofType(result.events, "modeChanged").some((e) => e.mode === "default"), "the mode left plan");
    assert.equal(fs.readFileSync(file, "utf8"), "alpha\ngamma\n");
    assert.equal(lastDone(result).result, "Plan carried out.");
  } finally {
    dirs.cleanup();
  }
});

test("plan mode: a write and a command are refused without a question, even with --approve all", async () => {
  const dirs = makeDirs({ "a.txt": "alpha\n" });
  try {
    const planned = path.join(dirs.root, "planned.txt");
    const result = await runTether({
      dirs,
      script: [
        { when: { lastUserText: "SCENARIO plan-refusal" }, toolUse: { name: "mcp__tether__Write", input: { file_path: planned, content: "x\n" } } },
        { when: { lastToolResult: "while in plan mode" }, toolUse: { name: "mcp__tether__Bash", input: { command: "touch made.txt" } } },
        { when: { lastToolResult: "Cannot call Bash" }, toolUse: { name: "mcp__tether__Bash", input: { command: "ls" } } },
        { when: { lastToolResult: "a.txt" }, text: "Here is my plan." },
      ],
      args: ["--prompt", "SCENARIO plan-refusal", "--mode", "plan", "--approve", "all"],
    });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(ofType(result.events, "permissionRequest"), [], "nobody was asked");
    assert.equal(fs.existsSync(planned), false);
    assert.equal(fs.existsSync(path.join(dirs.root, "made.txt")), false);
    const [write, touch, ls] = toolResults(result.requests);
    assert.equal(write.isError, true);
    assert.match(write.text, new RegExp(`^Cannot write to ${planned} while in plan mode\\. .*present your plan`));
    assert.equal(touch.isError, true);
    assert.match(touch.text, /^Cannot call Bash while in plan mode\. .*present your plan/);
    assert.equal(ls.isError, false, "a read-only command runs");
    assert.equal(lastDone(result).result, "Here is my plan.");
  } finally {
    dirs.cleanup();
  }
});
