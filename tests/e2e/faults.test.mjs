// Faults on the emulated remote, in a real VS Code (code-server): the window's folder is
// `tetherfake:/…/remote` (tests/e2e/fake-remote), whose file system provider and link to Tether
// Remote fail on demand. Each fault must give the model an error it can act on, lose or half-write
// no file (the remote folder is compared byte for byte), and leave a session that goes on once the
// remote is back. Also here: no Tether process listens on a TCP port during a session, Tether
// Remote refuses calls without this window's secret, the agent process killed mid-turn resumes,
// and a window reloaded while a diff review is open writes nothing and resumes.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { resultText, startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { ARTIFACTS, CLAUDE, launchRemoteVsCode, lazyInput, openTether, runCommand, runTurn, sendPrompt, shot, waitFor } from "./harness.mjs";
import { commandLine, descendants, listeningTcp } from "./procs.mjs";

const BIG = "0123456789abcdef".repeat(4096); // 64 KiB: a write the full disk cuts in half

let api;
let vs;
let remote;


/** The first tool result matching `pattern` among those after the first `since`. */
const findResult = (pattern, since = 0) => api.toolResults().slice(since).find((b) => pattern.test(resultText(b)));

/** Every file under `dir` (relative path → bytes), the mirror's bookkeeping included; Tether's
 * checkpoints (`.tether/`, written at each turn's end and tested in checkpoints.test.mjs) aside. */
function snapshot(dir) {
  const files = new Map();
  const walk = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      if (childRel === ".tether") continue;
      if (e.isDirectory()) walk(path.join(d, e.name), childRel);
      else files.set(childRel, fs.readFileSync(path.join(d, e.name)));
    }
  };
  walk(dir, "");
  return files;
}

/** The remote folder is byte for byte what it was, but for `changed` (relative path → new text). */
function assertIntact(before, changed = {}) {
  const now = snapshot(remote);
  const expected = new Map(before);
  for (const [rel, text] of Object.entries(changed)) expected.set(rel, Buffer.from(text));
  assert.deepEqual([...now.keys()].sort(), [...expected.keys()].sort(), "the same files, no partial or temp file left");
  for (const [rel, bytes] of expected) assert.ok(now.get(rel).equals(bytes), `${rel} is byte for byte as expected`);
}

const strayTemps = () => [...snapshot(remote).keys()].filter((rel) => /\.tether-.*\.tmp$/.test(rel));

const fakeState = () => vs.control("_tetherfake.state");

/** The remote goes away (its files and Tether Remote's link both) or comes back. */
async function remoteGone(gone) {
  await vs.control("_tetherfake.fsFault", gone ? { error: "Unavailable" } : null);
  await vs.control("_tetherfake.link", gone ? "down" : "up");
}

/** The Claude Code process of the session: a descendant of the extension host. */
async function claudePid() {
  const { extensionHostPid } = await fakeState();
  const pid = descendants(extensionHostPid).find((p) => commandLine(p).includes(path.basename(CLAUDE)));
  assert.ok(pid, "Claude Code runs under the extension host");
  return pid;
}

before(async () => {
  const r = (rel) => () => path.join(remote, rel);
  const bash = (command) => ({ name: "mcp__tether__Bash", input: { command, description: "Run it" } });
  api = await startFakeApi([
    { when: { lastUserText: /FAULT tcp/ }, toolUse: bash("sleep 4; echo tcp-check-done") },
    { when: { lastToolResult: /tcp-check-done/ }, text: "TCP-CHECK-DONE" },

    { when: { lastUserText: /FAULT write again/ }, toolUse: { name: "mcp__tether__Edit", input: lazyInput({ file_path: r("notes.txt"), old_string: "notes original", new_string: "notes changed" }) } },
    { when: { lastUserText: /FAULT write/ }, toolUse: { name: "mcp__tether__Read", input: lazyInput({ file_path: r("notes.txt") }) } },
    { when: { lastToolResult: /notes original/ }, toolUse: { name: "mcp__tether__Edit", input: lazyInput({ file_path: r("notes.txt"), old_string: "notes original", new_string: "notes changed" }) } },
    { when: { lastToolResult: /notes\.txt: the remote is unavailable/ }, text: "WRITE-FAILED-NOTED" },
    { when: { lastToolResult: /notes\.txt has been updated/ }, text: "WRITE-OK" },

    { when: { lastUserText: /FAULT disk/ }, toolUse: { name: "mcp__tether__Read", input: lazyInput({ file_path: r("big.txt") }) } },
    {
      when: { lastToolResult: /0123456789abcdef/ },
      toolUses: [
        { name: "mcp__tether__Write", input: lazyInput({ file_path: r("big.txt"), content: "replaced\n" }) },
        { name: "mcp__tether__Write", input: lazyInput({ file_path: r("fresh.txt"), content: BIG }) },
      ],
    },
    { when: { lastToolResult: /no space left/ }, text: "DISK-FULL-NOTED" },

    { when: { lastUserText: /FAULT bash again/ }, toolUse: bash("echo back-again") },
    { when: { lastUserText: /FAULT bash/ }, toolUse: bash("sleep 3; echo landed > late.txt; echo bash-done") },
    { when: { lastToolResult: /lost while running the command/ }, text: "BASH-LOST-NOTED" },
    { when: { lastToolResult: /back-again/ }, text: "BASH-OK" },

    { when: { lastUserText: /FAULT grep again/ }, toolUse: { name: "mcp__tether__Grep", input: { pattern: "needle-[0-9]+", output_mode: "content" } } },
    { when: { lastUserText: /FAULT grep/ }, toolUse: { name: "mcp__tether__Grep", input: { pattern: "needle-[0-9]+", output_mode: "content" } } },
    { when: { lastToolResult: /remote is unavailable|connection to the remote was lost/ }, text: "GREP-LOST-NOTED" },
    { when: { lastToolResult: /needle-42/ }, text: "GREP-OK" },

    { when: { lastUserText: /FAULT crash/ }, delayMs: 20_000, text: "Too late." },
    // The same prompt again: Reconnect sends the killed turn again.
    { when: { lastUserText: /FAULT crash/ }, text: "BACK-AFTER-CRASH" },

    { when: { lastUserText: /FAULT review/ }, toolUse: { name: "mcp__tether__Read", input: lazyInput({ file_path: r("review-me.txt") }) } },
    { when: { lastToolResult: /review original/ }, toolUse: { name: "mcp__tether__Edit", input: lazyInput({ file_path: r("review-me.txt"), old_string: "review original", new_string: "review changed" }) } },
    { when: { lastUserText: /FAULT after reload/ }, text: "RESUMED-AFTER-RELOAD" },
  ]);
  vs = await launchRemoteVsCode({
    name: "faults",
    api,
    remoteFiles: {
      "notes.txt": "notes original\n",
      "big.txt": BIG,
      "review-me.txt": "review original\n",
      "src/deep/haystack.txt": "hay\nneedle-42\nhay\n",
      // An ask rule holds even in bypassPermissions: this edit opens a review.
      ".claude/settings.json": JSON.stringify({ permissions: { ask: ["Edit(/review-me.txt)"] } }),
    },
  });
  remote = vs.remote;
});

const turn = (prompt, done, timeoutMs) => runTurn(vs, prompt, done, timeoutMs);

after(async () => {
  // What the model saw and the emulated remote's state, for a failure's post-mortem.
  if (vs) {
    const state = await fakeState().catch((e) => String(e));
    const requests = api.messageRequests().map((r) => JSON.stringify(r.body.messages.at(-1)).slice(0, 600));
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, "faults-debug.json"), JSON.stringify({ state, requests, tetherLog: vs.tetherLog().slice(-4000) }, null, 2));
    await shot(vs, "29-faults-last").catch(() => undefined);
  }
  await vs?.close();
  await api?.close();
});

test("no Tether process listens on a TCP port during a session", { timeout: 150_000 }, async () => {
  // Before Tether starts: what the extension host (VS Code's, the emulated remote's control port)
  // and its children listen on already.
  const { extensionHostPid } = await fakeState();
  const tree = (root) => [root, ...descendants(root)];
  const before = new Set(tree(extensionHostPid).flatMap((pid) => listeningTcp(pid).map((s) => s.inode)));
  await openTether(vs);
  await sendPrompt(vs, "FAULT tcp");
  // Mid-session and mid-command: Claude Code is up and Tether Remote's bash runs `sleep`.
  await waitFor(async () => tree(extensionHostPid).some((pid) => commandLine(pid) === "sleep 4"), 90_000, "the Bash command to run");
  const during = tree(extensionHostPid);
  const cli = during.find((pid) => commandLine(pid).includes(path.basename(CLAUDE)));
  assert.ok(cli, `Claude Code is among the extension host's children: ${during.map(commandLine).join(" | ")}`);
  const listening = during.flatMap((pid) => listeningTcp(pid).filter((s) => !before.has(s.inode)).map((s) => `${pid} ${commandLine(pid).slice(0, 80)}: ${s.address}`));
  assert.deepEqual(listening, [], "no new listening TCP socket in the extension host or any process under it");
  console.log(`# checked ${during.length} processes (extension host ${extensionHostPid}, Claude Code ${cli}); ${before.size} listening sockets were there before Tether started`);
  await waitFor(async () => findResult(/tcp-check-done/), 30_000, "the Bash result");
  await vs.webview.getByText("TCP-CHECK-DONE", { exact: true }).waitFor({ timeout: 30_000 });
});

test("Tether Remote refuses a call without this window's secret, and a second pairing", { timeout: 60_000 }, async () => {
  const { link } = await fakeState();
  assert.ok(link.helperLinked, "Tether Remote is installed and answering (the Bash ran through it)");
  const marker = path.join(remote, "intruder.txt");
  const request = { command: `touch ${marker}`, cwd: remote, env: [], timeoutMs: 5000, maxOutputBytes: 1000 };
  const forged = "A".repeat(43);
  for (const call of [{ args: { request } }, { secret: forged, args: { request } }, { request }]) {
    const reply = await vs.control("_tether.remote.run", call);
    assert.equal(reply.ok, false, JSON.stringify(reply));
    assert.equal(reply.code, "EACCES");
    assert.match(reply.message, /secret/);
  }
  const hello = await vs.control("_tether.remote.hello", { secret: forged, args: null });
  assert.deepEqual([hello.ok, hello.code], [false, "EPAIRED"], "Tether paired first; nobody else can");
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(fs.existsSync(marker), false, "nothing ran");
});

test("the remote goes away mid-write: a clear error, the file intact, and the edit goes through once it is back", { timeout: 150_000 }, async () => {
  const intact = snapshot(remote);
  // The temp file is written, then the connection drops: Tether Remote's rename of it over the
  // file, and its clean-up, fail.
  await vs.control("_tetherfake.fsFault", { error: "Unavailable", ops: ["delete"] });
  await vs.control("_tetherfake.link", { down: ["_tether.remote.rename"] });
  try {
    await turn("FAULT write", () => api.messageRequests().some((r) => /WRITE-FAILED/.test(JSON.stringify(r.body.messages))) || findResult(/remote is unavailable/));
  } finally {
    await vs.control("_tetherfake.fsFault", null);
    await vs.control("_tetherfake.link", "up");
  }
  const failed = findResult(/remote is unavailable/);
  assert.ok(failed.is_error, "an error result");
  assert.match(resultText(failed), /notes\.txt/);
  assert.match(resultText(failed), /connection to it was lost/);
  assert.match(resultText(failed), /never a part of it: read it again/);
  assert.match(resultText(failed), /Try again once VS Code has reconnected/);
  await vs.webview.getByText("WRITE-FAILED-NOTED", { exact: true }).waitFor({ timeout: 30_000 });
  const temps = strayTemps();
  assert.equal(temps.length, 1, "the temp file the lost connection kept");
  const stray = temps[0];
  intact.set(stray, snapshot(remote).get(stray));
  assertIntact(intact);
  intact.delete(stray);
  // The remote is back: the same edit goes through, and the stray temp file goes away.
  await turn("FAULT write again", () => findResult(/notes\.txt has been updated/));
  await vs.webview.getByText("WRITE-OK", { exact: true }).waitFor({ timeout: 30_000 });
  assertIntact(intact, { "notes.txt": "notes changed\n" });
});

test("the disk fills mid-write: no partial file, the old one whole, a clear error", { timeout: 120_000 }, async () => {
  const intact = snapshot(remote);
  await vs.control("_tetherfake.fsFault", { error: "ENOSPC", ops: ["writeFile"], partial: true });
  try {
    await turn("FAULT disk", () => findResult(/no space left/) && api.toolResults().filter((b) => /no space left/.test(resultText(b))).length >= 2);
  } finally {
    await vs.control("_tetherfake.fsFault", null);
  }
  const failures = api.toolResults().filter((b) => /no space left/.test(resultText(b)));
  for (const f of failures) {
    assert.ok(f.is_error);
    assert.match(resultText(f), /: ENOSPC: no space left on device, write \(write [^)]*\)\./);
    assert.match(resultText(f), /Nothing was written: the file is unchanged/);
  }
  assert.ok(failures.some((f) => /big\.txt/.test(resultText(f))) && failures.some((f) => /fresh\.txt/.test(resultText(f))));
  await vs.webview.getByText("DISK-FULL-NOTED", { exact: true }).waitFor({ timeout: 30_000 });
  assertIntact(intact);
  assert.equal(fs.existsSync(path.join(remote, "fresh.txt")), false, "no partial new file");
});

test("the remote goes away mid-Bash: the model is told the command may have run, and Bash works once it is back", { timeout: 150_000 }, async () => {
  const intact = snapshot(remote);
  const since = api.toolResults().length;
  await sendPrompt(vs, "FAULT bash");
  await waitFor(async () => ((await fakeState()).link.running["_tether.remote.run"] ?? 0) > 0, 90_000, "the command to run on the remote");
  await remoteGone(true);
  try {
    await waitFor(async () => findResult(/lost while running the command/, since), 30_000, "the Bash result");
  } finally {
    await remoteGone(false);
  }
  const lost = findResult(/lost while running the command/, since);
  assert.ok(lost.is_error);
  assert.match(resultText(lost), /connection to the remote was lost while running the command \(Canceled\)/);
  assert.match(resultText(lost), /may or may not have run there/);
  await vs.webview.getByText("BASH-LOST-NOTED", { exact: true }).waitFor({ timeout: 30_000 });
  await vs.webview.getByRole("button", { name: "Send" }).waitFor({ timeout: 30_000 });
  // It did run: the remote kept going without the connection.
  await waitFor(async () => fs.existsSync(path.join(remote, "late.txt")), 15_000, "the command to finish on the remote");
  assertIntact(intact, { "late.txt": "landed\n" });
  await turn("FAULT bash again", () => findResult(/back-again/, since));
  await vs.webview.getByText("BASH-OK", { exact: true }).waitFor({ timeout: 30_000 });
});

test("the remote goes away mid-Grep: a clear error, and Grep works once it is back", { timeout: 150_000 }, async () => {
  const intact = snapshot(remote);
  const since = api.toolResults().length;
  // The call reaches the remote, its answer waits (VS Code reconnecting), then the connection drops.
  await vs.control("_tetherfake.link", "hold");
  try {
    await sendPrompt(vs, "FAULT grep");
    await waitFor(async () => (await fakeState()).link.waiting.length > 0, 90_000, "the search to reach the remote");
    await remoteGone(true);
    await waitFor(async () => findResult(/remote is unavailable|connection to the remote was lost/, since), 30_000, "the Grep result");
  } finally {
    await remoteGone(false);
  }
  const lost = findResult(/remote is unavailable|connection to the remote was lost/, since);
  assert.ok(lost.is_error, `an error, not a search that silently found nothing: ${resultText(lost)}`);
  // ripgrep's lost call makes the core fall back to its walker, which then finds the file system
  // gone too (crate/src/tools/grep.rs: any ripgrep failure falls back).
  assert.match(resultText(lost), /remote is unavailable: VS Code's connection to it was lost.*Try again once VS Code has reconnected/s);
  await vs.webview.getByText("GREP-LOST-NOTED", { exact: true }).waitFor({ timeout: 30_000 });
  await vs.webview.getByRole("button", { name: "Send" }).waitFor({ timeout: 30_000 });
  await turn("FAULT grep again", () => findResult(/needle-42/, since));
  await vs.webview.getByText("GREP-OK", { exact: true }).waitFor({ timeout: 30_000 });
  assertIntact(intact);
});

test("Claude Code killed mid-turn: the chat says so, and Reconnect resumes the conversation", { timeout: 150_000 }, async () => {
  await sendPrompt(vs, "FAULT crash");
  await waitFor(async () => api.messageRequests().some((r) => /FAULT crash/.test(JSON.stringify(r.body.messages.at(-1)))), 60_000, "the model request");
  // The CLI writes its transcript asynchronously: killed before that, there is nothing to resume.
  const projects = path.join(vs.home, ".claude/projects");
  const transcriptHas = (text) => {
    const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).some((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : e.name.endsWith(".jsonl") && fs.readFileSync(path.join(d, e.name), "utf8").includes(text)));
    return fs.existsSync(projects) && walk(projects);
  };
  await waitFor(async () => transcriptHas("FAULT crash"), 30_000, "the transcript");
  const pid = await claudePid();
  process.kill(pid, "SIGKILL");
  await vs.webview.getByText("Claude Code stopped unexpectedly").first().waitFor({ timeout: 30_000 });
  await vs.webview.getByText("Disconnected from Claude Code.").waitFor({ timeout: 30_000 });
  await shot(vs, "20-cli-killed");
  // Reconnect: the killed turn is sent again to a Claude Code that resumes the conversation.
  const before = api.messageRequests().length;
  await vs.webview.getByRole("button", { name: "Reconnect" }).click();
  await vs.webview.getByText("BACK-AFTER-CRASH", { exact: true }).waitFor({ timeout: 60_000 });
  const resumed = JSON.stringify(api.messageRequests().slice(before).at(-1).body.messages);
  assert.match(resumed, /FAULT grep again/, "the resumed session has the turns before the crash");
  assert.notEqual(await claudePid(), pid, "a new Claude Code process");
  await vs.webview.getByRole("button", { name: "Send" }).waitFor({ timeout: 30_000 });
});

test("the window reloads during a pending review: nothing is written, and the session resumes", { timeout: 180_000 }, async () => {
  const intact = snapshot(remote);
  await sendPrompt(vs, "FAULT review");
  await vs.page.locator(".tabs-container .tab", { hasText: "review-me.txt" }).first().waitFor({ timeout: 60_000 });
  await vs.webview.getByRole("button", { name: "Allow", exact: true }).waitFor({ timeout: 30_000 });
  await shot(vs, "21-review-before-reload");
  const cli = await claudePid();
  const oldHost = (await fakeState()).extensionHostPid;
  await runCommand(vs, "Developer: Reload Window");
  await waitFor(async () => (await fakeState().catch(() => ({}))).extensionHostPid !== oldHost, 60_000, "a new extension host");
  await vs.page.locator(".monaco-workbench").waitFor({ timeout: 30_000 });
  // The old session's process went with its extension host, and nothing reached the file.
  await waitFor(async () => !fs.existsSync(`/proc/${cli}`), 20_000, "the old Claude Code process to exit");
  await new Promise((r) => setTimeout(r, 1500));
  assertIntact(intact);
  await shot(vs, "22-after-reload");
  // Resume the session from history and go on. The window may have brought the view back itself
  // (clicking its tab then would close it).
  const box = vs.webview.getByRole("textbox", { name: "Message to Claude" });
  if (!(await box.waitFor({ timeout: 10_000 }).then(() => true, () => false))) await openTether(vs);
  await vs.webview.getByRole("button", { name: "Session history" }).first().click();
  const item = vs.webview.locator(".history-item").first();
  await item.waitFor({ timeout: 15_000 });
  await item.click();
  const before = api.messageRequests().length;
  await turn("FAULT after reload", () => api.messageRequests().length > before && /FAULT after reload/.test(JSON.stringify(api.messageRequests().at(-1).body.messages)));
  await vs.webview.getByText("RESUMED-AFTER-RELOAD", { exact: true }).waitFor({ timeout: 30_000 });
  assert.match(JSON.stringify(api.messageRequests().at(-1).body.messages), /FAULT review/, "the resumed session has the reviewed turn");
  assertIntact(intact);
  await shot(vs, "23-resumed-after-reload");
});
