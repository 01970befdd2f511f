// Permissions on the emulated remote (tests/e2e/fake-remote, as checkpoints.test.mjs sets it up),
// with the real CLI against the fake API, in one code-server: a question shows once (its card,
// no second copy in the chat, the diff in the editor only); "Always allow" saved to the file the
// user picks and removed again from the rules view; per-hunk acceptance writing only the accepted
// hunks, and the model's next Edit working without a fresh Read; the session's audit log.

import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { ARTIFACTS, launchRemoteVsCode, lazyInput, openTether, runCommand, sendPrompt, waitFor } from "./harness.mjs";

const MARKER = `TETHER-AUDIT-MARKER-${randomUUID()}`;
const NOTES = Array.from({ length: 40 }, (_, i) => (i === 9 ? `${MARKER}\n` : `line ${i + 1}\n`)).join("");
const PROPOSED = NOTES.replace("line 2\n", "line two\n").replace("line 20\n", "line twenty\n").replace("line 38\n", "line thirty-eight\n");
const SHARED_SETTINGS = { spinnerTipsEnabled: false, permissions: { deny: ["WebFetch"] } };

let api;
let vs;
let remote;

const read = (rel) => fs.readFileSync(path.join(remote, rel), "utf8");
const toolResultTexts = () =>
  api.requests
    .filter((r) => r.path === "/v1/messages" && Array.isArray(r.body?.messages))
    .flatMap((r) => r.body.messages.at(-1)?.content ?? [])
    .filter((b) => b?.type === "tool_result")
    .map((b) => (typeof b.content === "string" ? b.content : (b.content ?? []).map((c) => c.text ?? "").join("")));

before(async () => {
  const at = (rel) => () => path.join(remote, rel);
  api = await startFakeApi([
    { when: { lastUserText: /PR bash/ }, toolUse: { name: "mcp__tether__Bash", input: { command: "touch rules-ok.txt" } } },
    { when: { lastToolResult: /completed with no output/ }, text: "Ran it." },
    { when: { lastUserText: /PR hunks/ }, toolUse: { name: "mcp__tether__Read", input: lazyInput({ file_path: at("notes.txt") }) } },
    { when: { lastToolResult: /left out/ }, toolUse: { name: "mcp__tether__Edit", input: lazyInput({ file_path: at("notes.txt"), old_string: "line thirty-eight", new_string: "line 38 again" }) } },
    { when: { lastToolResult: /line 40/ }, toolUse: { name: "mcp__tether__Write", input: lazyInput({ file_path: at("notes.txt"), content: PROPOSED }) } },
    { when: { lastToolResult: /updated successfully/ }, text: "Hunks done." },
  ]);
  vs = await launchRemoteVsCode({
    name: "permissions",
    api,
    remoteFiles: { "notes.txt": NOTES, ".claude/settings.json": `${JSON.stringify(SHARED_SETTINGS, null, 2)}\n` },
    settings: { "tether.defaultMode": "default" },
  });
  remote = vs.remote;
  await openTether(vs);
});

after(async () => {
  await vs?.close();
  await api?.close();
});

/** The chat view alone (the sidebar), for the eye. */
async function sidebarShot(name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await vs.page.locator(".part.sidebar").screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

async function turnEnded(text) {
  await vs.webview.getByText(text).waitFor({ timeout: 60_000 });
  await vs.webview.getByRole("button", { name: "Send" }).waitFor({ timeout: 30_000 });
}

test("the question shows once; Always allow saves the rule to the chosen file; the rules view removes it", { timeout: 150_000 }, async () => {
  await sendPrompt(vs, "PR bash");
  const card = vs.webview.locator(".perm-card");
  await card.waitFor({ timeout: 60_000 });
  assert.equal(await card.count(), 1, "one card");
  assert.equal(await vs.webview.locator(".perm-line").count(), 0, "no second copy of the question in the chat");
  await card.locator(".perm-always").click();
  const rule = (await card.locator(".perm-rule-text code").innerText()).trim();
  assert.match(rule, /^Bash\(touch/);
  await sidebarShot("permissions-01-always-where");
  await card.locator('[data-destination="projectSettings"]').click();
  await turnEnded("Ran it.");
  const saved = JSON.parse(read(".claude/settings.json"));
  assert.deepEqual(saved, { ...SHARED_SETTINGS, permissions: { deny: ["WebFetch"], allow: [rule] } }, "the rule added, the rest kept");
  assert.equal(fs.existsSync(path.join(remote, ".claude/settings.local.json")), false, "the local file untouched");
  const line = vs.webview.locator(".perm-line").first();
  assert.match(await line.innerText(), /Always allowed Bash[\s\S]*saved in \.claude\/settings\.json/);

  await runCommand(vs, "Tether: Permission Rules");
  const row = vs.page.locator(".quick-input-widget .monaco-list-row", { hasText: rule });
  await row.waitFor({ timeout: 30_000 });
  assert.ok(await vs.page.locator(".quick-input-widget .monaco-list-row", { hasText: "WebFetch" }).count(), "the deny rule is listed too");
  await row.hover();
  await vs.page.screenshot({ path: path.join(ARTIFACTS, "permissions-02-rules-view.png") });
  await row.locator(".codicon-trash").click();
  await waitFor(async () => !read(".claude/settings.json").includes(rule), 30_000, "the rule out of .claude/settings.json");
  assert.deepEqual(JSON.parse(read(".claude/settings.json")), { ...SHARED_SETTINGS, permissions: { deny: ["WebFetch"], allow: [] } });
  await waitFor(async () => (await row.count()) === 0, 10_000, "the rule gone from the list");
  await vs.page.keyboard.press("Escape");
  // The session holds what its gate wrote: the context watcher's notice of those writes restarts nothing.
  await waitFor(async () => vs.tetherLog().includes("changed by the session's own write"), 30_000, "the watcher's notice of the writes");
  assert.doesNotMatch(vs.tetherLog(), /restarting Claude Code/);
  assert.equal([...vs.tetherLog().matchAll(/\bclaude pid \d+/g)].length, 1, "one CLI for the whole test");
});

test("accepting some hunks writes only those, names the others, and the next Edit needs no Read", { timeout: 150_000 }, async () => {
  await sendPrompt(vs, "PR hunks");
  const card = vs.webview.locator(".perm-card");
  await card.locator(".perm-hunk").first().waitFor({ timeout: 60_000 });
  assert.equal(await card.locator(".perm-hunk").count(), 3);
  assert.equal(await card.locator(".dl").count(), 0, "the card shows no copy of the diff");
  // The diff is in the editor: the tool row shows none while it waits.
  await vs.page.locator(".tabs-container .tab", { hasText: "notes.txt" }).first().waitFor({ timeout: 15_000 });
  assert.equal(await vs.webview.locator('.tool[data-status="awaiting"] .dl').count(), 0);
  await card.locator('[data-hunk="1"]').uncheck();
  await sidebarShot("permissions-03-hunks");
  await card.getByRole("button", { name: /^Allow \(2 of 3 hunks\)/ }).click();
  await waitFor(async () => read("notes.txt") !== NOTES, 30_000, "notes.txt written");
  const expected = NOTES.replace("line 2\n", "line two\n").replace("line 38\n", "line thirty-eight\n");
  assert.equal(read("notes.txt"), expected, "only hunks 1 and 3");
  // The model's next Edit (of a line only the accepted hunk brought) asks, and works.
  const edit = vs.webview.locator(".perm-card");
  await edit.getByRole("button", { name: "Allow", exact: true }).click({ timeout: 60_000 });
  await turnEnded("Hunks done.");
  assert.equal(read("notes.txt"), expected.replace("line thirty-eight\n", "line 38 again\n"));
  const results = toolResultTexts();
  assert.ok(results.some((t) => /hunk 2 \(lines 17-23\) was left out/.test(t)), `the Write's result names the hunk: ${results.join(" | ")}`);
  assert.ok(results.some((t) => /updated successfully/.test(t) && !/left out/.test(t)), "the Edit succeeded");
  await sidebarShot("permissions-04-hunks-done");
});

test("the session's audit log has the turn's tool calls, decisions with who made them, and writes, never contents", { timeout: 60_000 }, async () => {
  const records = await vs.control("tether.auditRecords");
  const kinds = new Set(records.map((r) => r.kind));
  for (const kind of ["session", "toolCall", "permission", "write", "ruleRemoved"]) assert.ok(kinds.has(kind), `a ${kind} record in ${JSON.stringify(records)}`);
  const always = records.find((r) => r.kind === "permission" && r.by === "user" && r.scope === "projectSettings");
  assert.ok(always, "the always-allow decision, by the user, with where it saved");
  assert.match(always.savedRules[0], /^Bash\(touch/);
  assert.ok(records.some((r) => r.kind === "permission" && r.by === "user" && JSON.stringify(r.acceptedHunks) === "[0,2]"), "the per-hunk decision");
  assert.ok(records.some((r) => r.kind === "permission" && r.decision === "ask"), "the questions put to the user");
  assert.ok(records.some((r) => r.kind === "toolCall" && r.tool === "Bash" && r.command === "touch rules-ok.txt" && r.ok));
  const final = read("notes.txt");
  const sha = createHash("sha256").update(final).digest("hex");
  assert.ok(
    records.some((r) => r.kind === "write" && r.path.endsWith("notes.txt") && r.sha256 === sha && r.bytes === Buffer.byteLength(final)),
    "the last write of notes.txt with its size and hash",
  );
  assert.ok(records.every((r) => typeof r.time === "string"));
  const text = JSON.stringify(records);
  assert.ok(!text.includes(MARKER) && !text.includes("line thirty-eight"), "no file contents in the audit log");
  await runCommand(vs, "Tether: Open the Session's Audit Log");
  await vs.page.locator(".tabs-container .tab", { hasText: ".jsonl" }).first().waitFor({ timeout: 15_000 });
});
