// Open sessions in one page: the page keeps each session's chat, so showing one again is a swap
// (no replay), fast for 5,000 messages; the sidebar's strip lists the open sessions with badges and
// switches between them; the history can be searched, renamed and deleted.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { clearPosted, deliver, finish, frames, init, posted, screenshot, useWebview } from "./helpers.mjs";
import { ev, syntheticSession } from "./fixtures.mjs";

const chat = useWebview();
const T = { timeout: 60_000 };

const strip = (keys) => ({
  type: "openSessions",
  sessions: keys.map(([key, title, badges = {}]) => ({ key, title, agentLabel: "Claude", waiting: false, unread: false, busy: false, inEditor: false, ...badges })),
});

describe("open sessions", () => {
  test("switching between two sessions of 5,000 messages swaps their kept chats, nothing replayed", T, async () => {
    const page = await chat.open({ width: 300 });
    await deliver(page, { type: "showSession", key: "a", surface: "sidebar" });
    await init(page);
    await deliver(page, { type: "replay", events: syntheticSession(5000) });
    await deliver(page, { type: "showSession", key: "b", surface: "sidebar" });
    await init(page, { sessionId: "sess-2" });
    await deliver(page, { type: "replay", events: [...syntheticSession(5000), ev.user("last-b", "The last question of B")] });
    await frames(page, 4);
    // Back to A: nothing replayed, only what it missed; its rows are as they were. (How fast the
    // switch paints is webview/bench/switch.mjs's figure, not a test's.)
    for (const [key, marker] of [["a", "Question"], ["b", "The last question of B"], ["a", "Question"], ["b", "The last question of B"]]) {
      await page.evaluate(async ([k, text]) => {
        window.__deliver({ type: "showSession", key: k, surface: "sidebar" });
        window.__deliver({ type: "init", state: {} });
        await new Promise((ok) => {
          const check = () => ([...document.querySelectorAll(".vrow")].some((r) => r.textContent.includes(text)) ? ok() : requestAnimationFrame(check));
          requestAnimationFrame(check);
        });
      }, [key, marker]);
      assert.equal(await page.evaluate(() => window.__tether.store.rows.length), key === "a" ? 5000 : 5001);
    }
    await finish(page);
  });

  test("the sidebar's strip lists the open sessions with their badges and switches, closes, renames", T, async () => {
    const page = await chat.open({ width: 300 });
    await deliver(page, { type: "showSession", key: "a", surface: "sidebar" });
    await init(page);
    await deliver(page, strip([["a", "Refactor the parser"], ["b", "Fix the flaky test", { waiting: true }], ["c", "Write the release notes", { unread: true }]]));
    const tabs = page.getByRole("tab");
    assert.equal(await tabs.count(), 3);
    assert.equal(await tabs.first().getAttribute("aria-selected"), "true");
    await page.locator('[data-session-key="b"] .session-badge-waiting').waitFor();
    await page.locator('[data-session-key="c"] .session-badge-unread').waitFor();
    await screenshot(page, "60-session-strip");
    const light = await chat.open({ width: 300, query: "?theme=light" });
    await deliver(light, { type: "showSession", key: "a", surface: "sidebar" });
    await init(light);
    await deliver(light, strip([["a", "Refactor the parser"], ["b", "Fix the flaky test", { waiting: true }], ["c", "Write the release notes", { unread: true }]]));
    await screenshot(light, "62-session-strip-light");
    await finish(light);
    await clearPosted(page);
    await tabs.nth(1).click();
    await page.getByRole("button", { name: "Close Write the release notes" }).click();
    await tabs.first().dblclick();
    const sent = (await posted(page)).filter((m) => m.type !== "ready");
    assert.deepEqual(sent.slice(0, 2), [{ type: "selectSession", key: "b" }, { type: "dismissSession", key: "c" }]);
    assert.deepEqual(sent.at(-1), { type: "renameSession", key: "a" }, "a double click renames");
    // One session open: no strip. An editor tab never shows it.
    await deliver(page, strip([["a", "Refactor the parser"]]));
    assert.equal(await page.locator(".session-strip").count(), 0);
    await deliver(page, strip([["a", "A"], ["b", "B"]]));
    await deliver(page, { type: "showSession", key: "a", surface: "editor" });
    assert.equal(await page.locator(".session-strip").count(), 0);
    assert.equal(await page.getByRole("button", { name: "Open in an editor tab" }).count(), 0);
    await finish(page);
  });

  test("the history is searched by title, and offers rename and delete where the agent allows", T, async () => {
    const page = await chat.open({ width: 300 });
    await init(page);
    await page.getByRole("button", { name: "Session history" }).click();
    const sessions = [
      { id: "s1", title: "Refactor the parser", updatedAt: 3, messageCount: 4 },
      { id: "s2", title: "Fix the flaky test", updatedAt: 2, messageCount: 2 },
      { id: "s3", title: "Parser benchmarks", updatedAt: 1, messageCount: 9 },
    ];
    await deliver(page, { type: "history", sessions, actions: { rename: true, delete: true } });
    await page.getByRole("searchbox", { name: "Search sessions" }).fill("parser");
    await frames(page, 2);
    assert.deepEqual(await page.locator(".history-title").allInnerTexts(), ["Refactor the parser", "Parser benchmarks"]);
    await screenshot(page, "61-history-search");
    await clearPosted(page);
    await page.getByRole("button", { name: "Rename Parser benchmarks" }).click();
    await page.getByRole("button", { name: "Delete Parser benchmarks" }).click();
    assert.deepEqual((await posted(page)).filter((m) => m.type !== "ready"), [{ type: "renameSession", sessionId: "s3" }, { type: "deleteSession", sessionId: "s3" }]);
    await page.getByRole("searchbox", { name: "Search sessions" }).fill("nothing like it");
    await page.getByText("No session matches.").waitFor();
    // An agent that allows neither: no buttons.
    await deliver(page, { type: "history", sessions, actions: { rename: false, delete: false } });
    assert.equal(await page.locator(".history-rename, .history-delete").count(), 0);
    await finish(page);
  });
});
