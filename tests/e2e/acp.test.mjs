// A real ACP agent (claude-agent-acp 0.101.0, from Tether's build cache, running the pinned Claude
// Code against the fake Messages API) in a real VS Code on the emulated remote (`tetherfake:`):
// the user picks it in the chat header, it reads and edits a file, runs a command and delegates to
// a subagent that edits the file too, all on the remote through Tether's tools (the subagent's
// built-in Write refused), the subagent's calls shown nested in its group; and afterwards nothing of the project is on the laptop's disk
// beyond what DESIGN.md allows: a unique marker in a remote file far from anything the
// conversation reads is searched for in HOME, the temp folder and Tether's storage.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { resultText, startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { ACP_AGENT, filesContaining, launchRemoteVsCode, lazyInput, openTether, sendPrompt, shot, showPickers, waitFor } from "./harness.mjs";

const MARKER = `TETHER-E2E-MARKER-${randomUUID()}`;

let api;
let vs;
let remote;
let tempBefore;

const toolResultTexts = () => api.toolResults().map(resultText);

before(async () => {
  assert.ok(fs.existsSync(ACP_AGENT), `claude-agent-acp is not installed at ${ACP_AGENT} (./build.sh test installs it)`);
  const r = (rel) => () => path.join(remote, rel);
  api = await startFakeApi([
    { when: { lastUserText: /ACP edit/ }, toolUse: { name: "mcp__tether__Read", input: lazyInput({ file_path: r("hello.txt") }) } },
    { when: { lastToolResult: /hello remote/ }, toolUse: { name: "mcp__tether__Edit", input: lazyInput({ file_path: r("hello.txt"), old_string: "hello remote", new_string: "hello from an ACP agent" }) } },
    { when: { lastToolResult: /has been updated/ }, toolUse: { name: "mcp__tether__Bash", input: { command: "echo ran-by-acp > acp-proof.txt; pwd", description: "Where am I" } } },
    { when: { lastToolResult: /tether-e2e-acp/ }, text: "Edited the file and ran the command on the remote." },
    // The next prompt: a subagent, whose built-in Write is refused and Tether's Edit works on the remote.
    {
      when: { lastUserText: /ACP delegate/ },
      toolUse: { name: "Agent", input: { description: "Sign the hello file", prompt: "SUBTASK: sign the hello file", subagent_type: "general-purpose", run_in_background: false } },
    },
    { when: { lastUserText: /SUBTASK/ }, toolUse: { name: "Write", input: lazyInput({ file_path: r("hello.txt"), content: "written by the built-in\n" }) } },
    {
      when: { lastToolResult: /No such tool available: Write/ },
      toolUse: { name: "mcp__tether__Edit", input: lazyInput({ file_path: r("hello.txt"), old_string: "an ACP agent", new_string: "an ACP subagent" }) },
    },
    { when: { lastToolResult: /has been updated/ }, text: "SUBAGENT-DONE: signed." },
    { when: { lastToolResult: /SUBAGENT-DONE/ }, text: "A subagent signed the file on the remote." },
    // The session title and anything else the adapter asks on the side.
    { text: "OK.", repeat: true },
  ]);
  tempBefore = new Set(fs.readdirSync(os.tmpdir()));
  vs = await launchRemoteVsCode({
    name: "acp",
    api,
    remoteFiles: {
      "hello.txt": "hello remote\n",
      "AGENTS.md": "Answer briefly.\n",
      "vendor/deep/far/away/secret.txt": `never read in the conversation: ${MARKER}\n`,
    },
    withAcpAgent: true,
  });
  remote = vs.remote;
  await openTether(vs);
});

after(async () => {
  await vs?.close();
  await api?.close();
});

test("an ACP agent picked in the header edits a file and runs a command on the remote", { timeout: 180_000 }, async () => {
  await showPickers(vs.webview);
  await vs.webview.getByRole("button", { name: /^Agent:/ }).click();
  await vs.webview.getByRole("option", { name: /Claude Agent/ }).click();
  await vs.webview.getByRole("textbox", { name: "Message to Claude Agent" }).waitFor({ timeout: 10_000 });
  await sendPrompt(vs, "ACP edit the hello file");
  await waitFor(async () => fs.existsSync(path.join(remote, "acp-proof.txt")), 120_000, "the command on the remote");
  await waitFor(async () => toolResultTexts().some((t) => t.includes(remote)), 30_000, "the command's output");
  assert.equal(fs.readFileSync(path.join(remote, "hello.txt"), "utf8"), "hello from an ACP agent\n");
  assert.equal(fs.readFileSync(path.join(remote, "acp-proof.txt"), "utf8"), "ran-by-acp\n");
  assert.ok(toolResultTexts().some((t) => t.includes(remote)), "pwd printed the remote folder");
  assert.match(vs.tetherLog(), /starting Claude Agent/);
  // The chat shows the agent's tool calls by Tether's names.
  await vs.webview.locator('.tool[data-tool="Edit"]').first().waitFor({ timeout: 30_000 });
  await shot(vs, "20-acp-remote-edit");
});

test("a subagent edits the file on the remote; its refused Write and its Edit show nested in its group, once", { timeout: 180_000 }, async () => {
  // The agent's own mode: its initial `auto` sends an Agent call to a classifier the fake API
  // cannot be (it blocks the call); Manual runs it (Tether's gate judges the subagent's calls).
  await showPickers(vs.webview);
  await vs.webview.locator(".agent-option-picker").getByRole("button", { name: /^Mode:/ }).click();
  await vs.webview.getByRole("option", { name: /^Manual/ }).click();
  await vs.webview.locator(".agent-option-picker").getByRole("button", { name: /^Mode: Manual/ }).waitFor({ timeout: 10_000 });
  await sendPrompt(vs, "ACP delegate the signing");
  await waitFor(async () => fs.readFileSync(path.join(remote, "hello.txt"), "utf8").includes("subagent"), 120_000, "the subagent's edit on the remote");
  assert.equal(fs.readFileSync(path.join(remote, "hello.txt"), "utf8"), "hello from an ACP subagent\n");
  const group = vs.webview.locator('.tool[data-tool="Agent"]');
  await group.waitFor({ timeout: 60_000 });
  await vs.webview.getByText("A subagent signed the file on the remote.").waitFor({ timeout: 60_000 });
  assert.equal(await group.count(), 1, "one subagent group");
  // A finished group folds away: open it.
  const nested = group.locator('.tool[data-tool="Edit"]');
  if (!(await nested.count())) await group.locator(".tool-toggle").first().click();
  await nested.first().waitFor({ timeout: 10_000 });
  assert.equal(await nested.count(), 1, "the subagent's Edit, once, inside its group");
  assert.equal(await vs.webview.locator('.tool[data-tool="Edit"]').count(), 2, "the main Edit and the subagent's, each shown once");
  const refused = group.locator('.tool[data-tool="Write"]');
  assert.equal(await refused.count(), 1, "the refused built-in Write, inside the group");
  await group.getByText("SUBAGENT-DONE").first().waitFor({ timeout: 10_000 });
  await group.scrollIntoViewIfNeeded();
  await shot(vs, "21-acp-subagent");
});

test("the model was told the remote folder and offered no built-in that touches the disk; the mirror holds only the agent's context", { timeout: 60_000 }, async () => {
  // The agent's own system prompt names its cwd (the mirror); Tether's brief is appended to it
  // (claude-agent-acp takes session/new's systemPrompt). The first request with tools is the
  // turn's: the adapter's title request comes before it.
  const turn = api.messageRequests().find((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);
  const system = JSON.stringify(turn.body.system);
  assert.ok(system.includes("Remote workspace (Tether)") && system.includes(`Working directory: ${remote}`), "the remote working directory");
  const names = turn.body.tools.map((t) => t.name);
  assert.ok(names.includes("Agent") && names.includes("mcp__tether__Edit"), `subagents and Tether's tools: ${names}`);
  for (const builtin of ["Read", "Write", "Edit", "Bash", "Glob", "Grep"]) assert.ok(!names.includes(builtin), `${builtin} offered`);
  const base = path.join(vs.userData, "User/globalStorage/tether.tether/mirrors");
  const mirrors = fs.readdirSync(base).flatMap((h) => fs.readdirSync(path.join(base, h)).map((f) => path.join(base, h, f)));
  assert.equal(mirrors.length, 1);
  assert.deepEqual(fs.readdirSync(mirrors[0]), ["AGENTS.md"]);
  assert.ok(!fs.existsSync(path.join(vs.workspace, "hello.txt")), "nothing written on the local side");
});

test("nothing of the project is on the laptop's disk: the marker is in no file of HOME, temp or Tether's storage", { timeout: 120_000 }, async () => {
  // The search finds the marker where it is.
  assert.equal(filesContaining([remote], MARKER).length, 1);
  const newTemp = fs.readdirSync(os.tmpdir()).filter((name) => !tempBefore.has(name)).map((name) => path.join(os.tmpdir(), name));
  const runDir = vs.runDir;
  const laptop = [
    vs.home,
    vs.userData, // Tether's storage (globalStorage: the mirror, the agent's launch files) and VS Code's own
    ...newTemp.filter((p) => p !== runDir),
    ...fs.readdirSync(runDir).filter((name) => name !== "remote").map((name) => path.join(runDir, name)),
  ];
  assert.deepEqual(filesContaining(laptop, MARKER), []);
});
