// Tether on an emulated remote in a real VS Code (code-server): the window's folder is
// `tetherfake:/…/remote`, served by a FileSystemProvider (tests/e2e/fake-remote), so Tether sees a
// non-file workspace folder exactly as with Remote-SSH. Tether installs its helper from its own
// VSIX, runs Bash, Grep and a subagent's edit on the "remote", reads the remote's CLAUDE.md and
// .claude/settings.json (a deny rule), keeps only the CLAUDE.md and the agents in its local mirror
// (the settings stay on the remote, where Tether reads them), restarts with
// --resume when they change, and every executor tier runs commands in the remote folder.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { resultText, startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { launchRemoteVsCode, lazyInput, listTree, openTether, runTurn, shot, waitFor } from "./harness.mjs";

let api;
let vs;
let remote;


const systemText = (request) => JSON.stringify(request.body?.system ?? "");


function mirrorDir() {
  const base = path.join(vs.userData, "User/globalStorage/tether.tether/mirrors");
  const hosts = fs.existsSync(base) ? fs.readdirSync(base) : [];
  const folders = hosts.flatMap((h) => fs.readdirSync(path.join(base, h)).map((f) => path.join(base, h, f)));
  assert.equal(folders.length, 1, `one mirror folder: ${folders.join(", ")}`);
  return folders[0];
}

before(async () => {
  const r = (rel) => () => path.join(remote, rel);
  api = await startFakeApi([
    { when: { lastUserText: /REMOTE where/ }, toolUse: { name: "mcp__tether__Bash", input: { command: "pwd; echo ran-on-remote > bash-proof.txt", description: "Where am I" } } },
    { when: { lastToolResult: /tether-e2e-remote/ }, text: "The command ran in the remote folder." },
    { when: { lastUserText: /REMOTE edit/ }, toolUse: { name: "mcp__tether__Read", input: lazyInput({ file_path: r("hello.txt") }) } },
    { when: { lastToolResult: /hello remote/ }, toolUse: { name: "mcp__tether__Edit", input: lazyInput({ file_path: r("hello.txt"), old_string: "hello remote", new_string: "hello from the laptop" }) } },
    {
      when: { lastUserText: /REMOTE subagent/ },
      toolUse: { name: "Agent", input: { description: "Edit sub.txt", prompt: "SUBTASK edit sub.txt", subagent_type: "general-purpose", run_in_background: false } },
    },
    { when: { lastUserText: /SUBTASK edit/ }, toolUse: { name: "mcp__tether__Read", input: lazyInput({ file_path: r("sub.txt") }) } },
    { when: { lastToolResult: /sub original/ }, toolUse: { name: "mcp__tether__Edit", input: lazyInput({ file_path: r("sub.txt"), old_string: "original", new_string: "edited by the subagent" }) } },
    { when: { lastToolResult: /SUBDONE/ }, text: "The subagent edited sub.txt." },
    {
      when: { lastUserText: /REMOTE review/ },
      toolUse: { name: "Agent", input: { description: "Review", prompt: "REVIEWTASK look at hello.txt", subagent_type: "reviewer", run_in_background: false } },
    },
    { when: { lastUserText: /REVIEWTASK/ }, text: "REVIEWED: looks fine." },
    { when: { lastToolResult: /REVIEWED/ }, text: "The reviewer is done." },
    { when: { lastUserText: /REMOTE secret/ }, toolUse: { name: "mcp__tether__Read", input: lazyInput({ file_path: r("secret.txt") }) } },
    { when: { lastToolResult: /top secret/ }, toolUse: { name: "mcp__tether__Edit", input: lazyInput({ file_path: r("secret.txt"), old_string: "top secret", new_string: "leaked" }) } },
    { when: { lastUserText: /REMOTE grep/ }, toolUse: { name: "mcp__tether__Grep", input: { pattern: "needle-[0-9]+", output_mode: "content" } } },
    { when: { lastToolResult: /needle-42/ }, text: "Found the needle on the remote." },
    { when: { lastUserText: /REMOTE after/ }, text: "Still here after the restart." },
    { when: { lastToolResult: /has been updated/ }, text: "SUBDONE: edited." },
    { when: { lastToolResult: /denied|deny/i }, text: "The project's settings deny that edit." },
  ]);
  vs = await launchRemoteVsCode({
    name: "remote",
    api,
    remoteFiles: {
      "hello.txt": "hello remote\n",
      "sub.txt": "sub original\n",
      "secret.txt": "top secret\n",
      "src/deep/haystack.txt": "hay\nneedle-42\nhay\n",
      "CLAUDE.md": "REMOTE-MEMORY-ONE: answer briefly.\n",
      ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Edit(/secret.txt)"] } }),
      ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code\n---\nReview the code.\n",
    },
  });
  remote = vs.remote;
  await openTether(vs);
});

const turn = (prompt, done, timeoutMs) => runTurn(vs, prompt, done, timeoutMs);

after(async () => {
  await vs?.close();
  await api?.close();
});

test("Bash runs in the remote folder through Tether Remote, installed from the VSIX on first use", { timeout: 150_000 }, async () => {
  await turn("REMOTE where", () => api.toolResults().some((b) => resultText(b).includes(remote)));
  assert.equal(fs.readFileSync(path.join(remote, "bash-proof.txt"), "utf8"), "ran-on-remote\n");
  const bash = api.toolResults().find((b) => resultText(b).includes(remote));
  assert.ok(bash, `pwd printed the remote folder: ${JSON.stringify(api.toolResults().map(resultText))}`);
  assert.match(vs.tetherLog(), /remote executor: helper/);
  assert.ok(fs.readdirSync(vs.extensionsDir).some((d) => d.startsWith("tether.tether-remote-")), "the helper was installed");
  await shot(vs, "12-remote-bash");
});

test("the model is told the remote folder, OS and shell, and reads the remote's CLAUDE.md", { timeout: 60_000 }, async () => {
  const system = systemText(api.messageRequests()[0]);
  assert.ok(system.includes(remote), "the remote working directory");
  assert.match(system, /REMOTE-MEMORY-ONE/);
  assert.match(system, /Linux \d/, "the remote's OS");
});

test("an edit lands in the remote folder; the mirror holds only the project's Claude context", { timeout: 120_000 }, async () => {
  await turn("REMOTE edit", () => fs.readFileSync(path.join(remote, "hello.txt"), "utf8").includes("laptop"));
  assert.equal(fs.readFileSync(path.join(remote, "hello.txt"), "utf8"), "hello from the laptop\n");
  const mirror = mirrorDir();
  assert.deepEqual(listTree(mirror), [".claude/agents/reviewer.md", "CLAUDE.md"]);
  assert.ok(!fs.existsSync(path.join(vs.workspace, "hello.txt")), "nothing written on the local side");
});

test("a subagent's edit goes to the remote folder too", { timeout: 120_000 }, async () => {
  await turn("REMOTE subagent", () => fs.readFileSync(path.join(remote, "sub.txt"), "utf8").includes("subagent"));
  assert.equal(fs.readFileSync(path.join(remote, "sub.txt"), "utf8"), "sub edited by the subagent\n");
});

test("the remote's .claude/agents subagent is offered to the model and runs with its own prompt", { timeout: 120_000 }, async () => {
  await turn("REMOTE review", () => api.toolResults().some((b) => /REVIEWED/.test(resultText(b))));
  const sub = api.messageRequests().find((r) => /REVIEWTASK/.test(JSON.stringify(r.body.messages)));
  assert.ok(sub, "the subagent ran");
  assert.match(systemText(sub), /Review the code\./, "with the prompt from .claude/agents/reviewer.md");
});

test("a deny rule in the remote's .claude/settings.json blocks an edit", { timeout: 120_000 }, async () => {
  await turn("REMOTE secret", () => api.toolResults().some((b) => b.is_error && /secret/.test(resultText(b))));
  assert.equal(fs.readFileSync(path.join(remote, "secret.txt"), "utf8"), "top secret\n");
  const refused = api.toolResults().find((b) => b.is_error && /secret/.test(resultText(b)));
  assert.match(resultText(refused), /denied|deny/i);
});

test("Grep searches the remote folder with the remote's ripgrep", { timeout: 120_000 }, async () => {
  await turn("REMOTE grep", () => api.toolResults().some((b) => /needle-42/.test(resultText(b))));
  const grep = api.toolResults().find((b) => /needle-42/.test(resultText(b)));
  assert.match(resultText(grep), /haystack\.txt/);
});

test("a change to the remote's CLAUDE.md is synced and the session restarts with --resume", { timeout: 120_000 }, async () => {
  fs.writeFileSync(path.join(remote, "CLAUDE.md"), "REMOTE-MEMORY-TWO: answer in one line.\n");
  await waitFor(async () => /restarting Claude Code with --resume/.test(vs.tetherLog()), 30_000, "the restart");
  await waitFor(async () => fs.readFileSync(path.join(mirrorDir(), "CLAUDE.md"), "utf8").includes("TWO"), 10_000, "the mirror to update");
  const before = api.messageRequests().length;
  await turn("REMOTE after", () => api.messageRequests().length > before);
  const last = JSON.stringify(api.messageRequests().at(-1).body.messages);
  // A resumed CLI keeps its first system prompt, so the new instructions come with the prompt.
  assert.ok(last.includes("REMOTE-MEMORY-TWO"), "the changed CLAUDE.md reaches the model");
  assert.ok(last.includes("REMOTE where"), "the resumed session keeps the conversation");
});

for (const tier of ["helper", "shellIntegration", "terminal"]) {
  test(`the ${tier} tier runs a command in the remote folder with its output and exit code`, { timeout: 90_000 }, async () => {
    const result = await vs.control("tether.diagnostics.execTimes", { tier, command: "pwd; echo to-stdout; echo to-stderr >&2; exit 3", runs: 2 });
    const out = result.output;
    assert.equal(out.exitCode, 3, JSON.stringify(out));
    assert.ok(out.stdout.includes(remote), `pwd is the remote folder: ${JSON.stringify(out)}`);
    assert.match(out.stdout + out.stderr, /to-stdout/);
    assert.match(out.stdout + out.stderr, /to-stderr/);
    assert.equal(out.timedOut, false);
  });
}

test("a command that outlives its timeout is stopped in every tier", { timeout: 120_000 }, async () => {
  for (const tier of ["helper", "shellIntegration", "terminal"]) {
    const started = Date.now();
    const result = await vs.control("tether.diagnostics.execTimes", { tier, command: "sleep 30", runs: 1, timeoutMs: 1500 });
    assert.equal(result.output.timedOut, true, `${tier}: ${JSON.stringify(result.output)}`);
    assert.ok(Date.now() - started < 20_000, `${tier} returned promptly`);
  }
});
