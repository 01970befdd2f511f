// Many sessions in a real VS Code (code-server) on the emulated remote (`tetherfake:`): Claude Code
// and a real ACP agent (claude-agent-acp 0.101.0, running the pinned Claude Code) each in an editor
// tab, their turns in flight at once against the fake Messages API; the tab waiting for a
// permission wears its badge and the sidebar's strip shows it; the tabs carry titles. Then the
// window reloads: both sessions come back in their tabs with their transcripts (Claude Code's from
// its transcript file, the ACP agent's replayed by session/load), the cut turn stated.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { ACP_AGENT, launchRemoteVsCode, lazyInput, openTether, runCommand, shot, showPickers, waitFor } from "./harness.mjs";

let api;
let vs;
let remote;

const CLAUDE_PROMPT = "SESSIONS claude edit the review file";
const ACP_PROMPT = "SESSIONS acp run the slow command";

/** The open sessions as the extension has them (key, title, badges, busy, the agent's id). */
const openSessions = () => vs.control("tether.openSessions");

/** An editor tab by (part of) its title. */
const tab = (text) => vs.page.locator(".tabs-container .tab", { hasText: text }).first();

/** The chat page of the editor tab in front in the left or right group (its webview's inner
 * frame): of the visible tab pages, the leftmost or the rightmost, once `groups` of them are
 * visible (after a reload each group's page is restored on its own; picking before both are
 * back could take the right group's page for the left). */
async function editorChat(side = "left", groups = 1) {
  const frames = vs.page.locator('iframe.webview.ready[src*="extensionId=tether.tether"]:not([src*="purpose="])');
  const found = await waitFor(async () => {
    const boxes = [];
    for (let i = 0; i < (await frames.count()); i++) {
      const box = (await frames.nth(i).isVisible()) ? await frames.nth(i).boundingBox() : null;
      if (box && box.width > 0) boxes.push({ i, x: box.x });
    }
    if (boxes.length < groups) return undefined;
    boxes.sort((a, b) => a.x - b.x);
    return side === "left" ? boxes[0] : boxes.at(-1);
  }, 20_000, `a chat page in the ${side} editor group`);
  return frames.nth(found.i).contentFrame().frameLocator("iframe#active-frame");
}

/** A chat page's composer is ready for `agent`. */
async function composer(chat, agent) {
  const box = chat.getByRole("textbox", { name: `Message to ${agent}` });
  await box.waitFor({ timeout: 30_000 });
  return box;
}

async function send(chat, agent, text) {
  const box = await composer(chat, agent);
  await box.fill(text);
  await chat.getByRole("button", { name: "Send" }).click();
}

before(async () => {
  assert.ok(fs.existsSync(ACP_AGENT), `claude-agent-acp is not installed at ${ACP_AGENT} (./build.sh test installs it)`);
  const r = (rel) => () => path.join(remote, rel);
  api = await startFakeApi([
    { when: { lastUserText: /SESSIONS claude edit/ }, toolUse: { name: "mcp__tether__Read", input: lazyInput({ file_path: r("review-me.txt") }) } },
    { when: { lastToolResult: /review original/ }, toolUse: { name: "mcp__tether__Edit", input: lazyInput({ file_path: r("review-me.txt"), old_string: "review original", new_string: "review changed" }) } },
    { when: { lastUserText: /SESSIONS acp run/ }, toolUse: { name: "mcp__tether__Bash", input: { command: "sleep 8; echo acp-side-done", description: "A slow command" } } },
    { when: { lastToolResult: /acp-side-done/ }, text: "ACP-SIDE-DONE: the slow command finished." },
    // Titles and anything else an agent asks on the side.
    { text: "OK.", repeat: true },
  ]);
  vs = await launchRemoteVsCode({
    name: "sessions",
    api,
    remoteFiles: {
      "review-me.txt": "review original\n",
      // An ask rule holds even in bypassPermissions: Claude Code's edit waits for the user.
      ".claude/settings.json": JSON.stringify({ permissions: { ask: ["Edit(/review-me.txt)"] } }),
    },
    withAcpAgent: true,
  });
  remote = vs.remote;
  await openTether(vs);
});

/** What every chat page of the window shows (for a failure's post-mortem). */
async function pages() {
  const frames = vs.page.locator('iframe.webview[src*="extensionId=tether.tether"]');
  const out = [];
  for (let i = 0; i < (await frames.count()); i++) {
    const frame = frames.nth(i);
    const src = (await frame.getAttribute("src")) ?? "";
    const text = await frame.contentFrame().frameLocator("iframe#active-frame").locator("body").innerText({ timeout: 2_000 }).catch((e) => `(${e.message.split("\n")[0]})`);
    out.push({ purpose: /purpose=(\w+)/.exec(src)?.[1] ?? "panel", ready: (await frame.getAttribute("class"))?.includes("ready"), box: await frame.boundingBox(), text: text.slice(0, 300) });
  }
  return out;
}

after(async () => {
  if (vs) {
    fs.writeFileSync(path.join(vs.runDir, "pages.json"), JSON.stringify(await pages().catch((e) => String(e)), null, 2));
    const log = vs.tetherLog();
    fs.writeFileSync(path.join(vs.runDir, "tether-sessions.log"), log);
    await shot(vs, "40-sessions-last").catch(() => undefined);
  }
  await vs?.close();
  await api?.close();
});

test("Claude Code and claude-agent-acp run side by side in editor tabs, both turns in flight; the one waiting for permission wears a badge", { timeout: 240_000 }, async () => {
  // Two new sessions in editor tabs; the second becomes claude-agent-acp's, in a group of its own.
  await runCommand(vs, "Tether: New Session in Editor Tab");
  await composer(await editorChat(), "Claude");
  await runCommand(vs, "Tether: New Session in Editor Tab");
  await waitFor(async () => (await vs.page.locator(".tabs-container .tab", { hasText: "New Claude Code session" }).count()) === 2, 20_000, "two tabs");
  const acpChat = await editorChat();
  await showPickers(acpChat);
  await acpChat.getByRole("button", { name: /^Agent:/ }).click();
  await acpChat.getByRole("option", { name: /Claude Agent/ }).click();
  await composer(acpChat, "Claude Agent");
  await tab("New Claude Agent session").waitFor({ timeout: 20_000 });
  await runCommand(vs, "View: Move Editor into Right Group");

  // claude-agent-acp's turn (right): a slow command on the remote.
  await send(await editorChat("right", 2), "Claude Agent", ACP_PROMPT);
  // Claude Code's turn (left), while the other runs: it reads, then its edit waits for the user
  // (the diff review opens in front of it).
  await tab("New Claude Code session").click();
  await send(await editorChat("left", 2), "Claude", CLAUDE_PROMPT);

  const both = await waitFor(async () => {
    const sessions = await openSessions();
    const claude = sessions.find((s) => s.agent === "claude" && s.inEditor && s.title === CLAUDE_PROMPT);
    const acp = sessions.find((s) => s.agent === "claude-agent-acp" && s.inEditor);
    return claude?.busy && claude.waiting && acp?.busy ? { claude, acp } : undefined;
  }, 90_000, "Claude Code waiting for permission while claude-agent-acp's turn runs");
  assert.equal(both.acp.waiting, false);
  // The Claude Code tab wears the badge in its title; the sidebar's strip shows it too.
  await tab(`◆ ${CLAUDE_PROMPT}`).waitFor({ timeout: 10_000 });
  await vs.webview.locator(`.session-tab[data-session-key="${both.claude.key}"] .session-badge-waiting`).waitFor({ timeout: 10_000 });
  assert.ok(!fs.readFileSync(path.join(remote, "review-me.txt"), "utf8").includes("changed"), "nothing written before the answer");
  await tab(`◆ ${CLAUDE_PROMPT}`).click();
  await shot(vs, "41-sessions-side-by-side");

  // claude-agent-acp finishes while Claude Code's question still waits.
  await waitFor(async () => api.requests.some((r) => JSON.stringify(r.body?.messages ?? "").includes("acp-side-done")), 60_000, "the slow command's result");
  const acpTab = (await openSessions()).find((s) => s.key === both.acp.key);
  await tab(acpTab.title).waitFor({ timeout: 10_000 });
  await waitFor(async () => !(await openSessions()).find((s) => s.key === both.acp.key)?.busy, 60_000, "claude-agent-acp's turn to end");
  const titles = (await openSessions()).map((s) => s.title);
  assert.ok(titles.includes(CLAUDE_PROMPT), `Claude Code's tab is titled by its first prompt: ${titles}`);
  assert.ok(!titles.includes("New Claude Agent session"), `claude-agent-acp's tab has a title: ${titles}`);
  await shot(vs, "42-sessions-acp-done");
});

test("after a window reload both sessions are back in their tabs: their transcripts, and the cut turn stated", { timeout: 240_000 }, async () => {
  const beforeReload = await openSessions();
  const claude = beforeReload.find((s) => s.agent === "claude" && s.title === CLAUDE_PROMPT);
  const acp = beforeReload.find((s) => s.agent === "claude-agent-acp");
  assert.ok(claude?.sessionId && acp?.sessionId, "both sessions have the agent's id");
  const oldHost = (await vs.control("_tetherfake.state")).extensionHostPid;
  await runCommand(vs, "Developer: Reload Window");
  await waitFor(async () => (await vs.control("_tetherfake.state").catch(() => ({}))).extensionHostPid !== oldHost, 60_000, "a new extension host");
  await vs.page.locator(".monaco-workbench").waitFor({ timeout: 30_000 });
  // The same open sessions, by their keys, with the agents' ids.
  const back = await waitFor(async () => {
    const sessions = await openSessions();
    return sessions.some((s) => s.key === claude.key) && sessions.some((s) => s.key === acp.key) ? sessions : undefined;
  }, 60_000, "the sessions to come back");
  assert.equal(back.find((s) => s.key === claude.key).sessionId, claude.sessionId);
  assert.equal(back.find((s) => s.key === acp.key).sessionId, acp.sessionId);
  assert.ok(!fs.readFileSync(path.join(remote, "review-me.txt"), "utf8").includes("changed"), "the cut edit wrote nothing");

  // Claude Code's tab: its transcript from the CLI's file, and the cut question stated.
  await tab(CLAUDE_PROMPT).click({ timeout: 30_000 });
  const claudeChat = await editorChat("left", 2);
  await claudeChat.getByText(CLAUDE_PROMPT).first().waitFor({ timeout: 60_000 });
  await claudeChat.getByText(/Waiting for approval of Edit .*review-me\.txt when the window reloaded; the turn was stopped\./).waitFor({ timeout: 30_000 });
  await claudeChat.getByRole("button", { name: /Retry/ }).first().waitFor({ timeout: 10_000 });
  await shot(vs, "43-sessions-after-reload-claude");

  // claude-agent-acp's tab: its conversation replayed by the agent.
  await tab(back.find((s) => s.key === acp.key).title).click({ timeout: 30_000 });
  const acpChat = await editorChat("right", 2);
  await acpChat.getByText(/ACP-SIDE-DONE/).first().waitFor({ timeout: 60_000 });
  await shot(vs, "44-sessions-after-reload-acp");
});

test("a past session of claude-agent-acp is deleted from the history after asking (session/delete): it leaves the agent's list", { timeout: 120_000 }, async () => {
  const acp = (await openSessions()).find((s) => s.agent === "claude-agent-acp");
  assert.ok(acp?.sessionId, "the ACP session has the agent's id");
  // Closing its tab ends the session; it stays in the agent's history.
  await tab(acp.title).click({ timeout: 30_000 });
  await runCommand(vs, "View: Close Editor");
  await waitFor(async () => !(await openSessions()).some((s) => s.key === acp.key), 30_000, "the ACP session to close");
  // The sidebar starts a session of claude-agent-acp; its history is the agent's session/list.
  if (!(await vs.webview.locator(".header-pickers").first().isVisible().catch(() => false))) {
    await vs.page.getByRole("tab", { name: /^Tether/ }).first().click({ timeout: 30_000 });
  }
  await showPickers(vs.webview);
  await vs.webview.getByRole("button", { name: /^Agent:/ }).click();
  await vs.webview.getByRole("option", { name: /Claude Agent/ }).click();
  await composer(vs.webview, "Claude Agent");
  const item = vs.webview.locator(`.history-item[data-session-id="${acp.sessionId}"]`);
  // A history asked for before the agent's handshake is empty (its list is not offered yet): ask again.
  await waitFor(async () => {
    if (await item.isVisible().catch(() => false)) return true;
    if (await vs.webview.locator(".history-empty").isVisible().catch(() => false)) await vs.webview.getByRole("button", { name: "Close history" }).click().catch(() => undefined);
    else if (!(await vs.webview.locator(".history-close").count())) await vs.webview.getByRole("button", { name: "Session history" }).first().click().catch(() => undefined);
    return false;
  }, 90_000, "the ACP session in the agent's history");
  const row = vs.webview.locator(".history-list li", { has: item });
  await row.hover();
  await row.locator(".history-delete").click();
  // Asked first, as for Claude Code's transcripts.
  const dialog = vs.page.locator(".monaco-dialog-box");
  await dialog.getByText(/Delete this session of Claude Agent/).waitFor({ timeout: 15_000 });
  await shot(vs, "45-sessions-acp-delete-asked");
  await dialog.getByRole("button", { name: "Delete" }).click();
  // The list comes back from the agent without it.
  await item.waitFor({ state: "detached", timeout: 30_000 });
  await vs.webview.locator(".history-list").waitFor({ timeout: 10_000 });
  await shot(vs, "46-sessions-acp-deleted");
});
