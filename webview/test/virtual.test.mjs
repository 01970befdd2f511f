// The virtualized list: a 5,000-message session keeps the DOM small, scrolls to its first message,
// sticks to the bottom while streaming unless the user scrolled up.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { deliver, events, finish, frames, init, screenshot, useWebview } from "./helpers.mjs";
import { ev, syntheticSession } from "./fixtures.mjs";

const chat = useWebview();

const T = { timeout: 60_000 };

async function settle(page, fn, tries = 30) {
  for (let i = 0; i < tries; i++) {
    const v = await page.evaluate(fn);
    if (v) return v;
    await frames(page, 2);
  }
  return page.evaluate(fn);
}

function scrollInfo(page) {
  return page.evaluate(() => {
    const s = document.querySelector(".vlist");
    return { top: s.scrollTop, height: s.scrollHeight, client: s.clientHeight, rows: s.querySelectorAll(".vrow").length };
  });
}

describe("virtualized message list", () => {
  test("5,000 messages: far fewer DOM rows, ends at the bottom, scrolls to the first message", T, async () => {
    const page = await chat.open();
    await init(page);
    const session = syntheticSession(5000);
    await deliver(page, { type: "replay", events: session });
    await frames(page, 4);
    const total = await page.evaluate(() => window.__tether.store.rows.length);
    assert.equal(total, 5000);
    const info = await scrollInfo(page);
    assert.ok(info.rows > 0 && info.rows < 150, `rendered rows: ${info.rows}`);
    const nodes = await page.evaluate(() => document.querySelectorAll("*").length);
    assert.ok(nodes < 5000, `DOM nodes: ${nodes}`);
    // At the bottom: the last message is in view.
    assert.ok(info.height - info.top - info.client < 30, JSON.stringify(info));
    const lastVisible = await page.evaluate(() => {
      const rows = [...document.querySelectorAll(".vrow")];
      const last = rows.at(-1);
      const s = document.querySelector(".vlist").getBoundingClientRect();
      const r = last.getBoundingClientRect();
      return { pos: last.getAttribute("aria-posinset"), inView: r.top < s.bottom && r.bottom > s.top };
    });
    assert.deepEqual(lastVisible, { pos: "5000", inView: true });
    await screenshot(page, "20-virtual-bottom");
    // Scroll to the top (as a user would, in steps of a few screens, then Home-like jump).
    await page.locator(".vlist").hover();
    for (let i = 0; i < 3; i++) {
      await page.mouse.wheel(0, -3000);
      await frames(page, 2);
    }
    await page.evaluate(() => {
      document.querySelector(".vlist").scrollTop = 0;
    });
    const first = await settle(page, () => {
      const s = document.querySelector(".vlist");
      if (s.scrollTop !== 0) s.scrollTop = 0;
      const el = s.querySelector('.vrow[aria-posinset="1"] .msg-user');
      if (!el) return null;
      const r = el.getBoundingClientRect();
      const b = s.getBoundingClientRect();
      return r.top >= b.top - 1 && r.bottom <= b.bottom + 1 ? el.innerText : null;
    });
    assert.match(first ?? "", /^Question 1:/);
    const atTop = await scrollInfo(page);
    assert.ok(atTop.rows < 150, `rendered rows at top: ${atTop.rows}`);
    await screenshot(page, "21-virtual-top");
    // The middle of the session renders too.
    await page.evaluate(() => {
      const s = document.querySelector(".vlist");
      s.scrollTop = s.scrollHeight / 2;
    });
    await frames(page, 4);
    const mid = await page.evaluate(() => {
      const rows = [...document.querySelectorAll(".vrow")].map((r) => Number(r.getAttribute("aria-posinset")));
      return { min: Math.min(...rows), max: Math.max(...rows) };
    });
    assert.ok(mid.min > 1000 && mid.max < 4000, JSON.stringify(mid));
    await finish(page);
  });

  test("sticks to the bottom while streaming; stops when the user scrolls up; jump button re-sticks", T, async () => {
    const page = await chat.open({ height: 600 });
    await init(page);
    await deliver(page, { type: "replay", events: syntheticSession(300) });
    await frames(page, 4);
    await events(page, [
      ev.user("ux", "Stream a long answer"),
      ev.messageStart("mx"),
    ]);
    for (let i = 0; i < 30; i++) {
      await page.evaluate((e) => window.__deliver({ type: "events", events: [e] }), ev.text("mx", `Line ${i} of the answer.\n\n`));
      if (i % 5 === 0) await frames(page, 1);
    }
    await frames(page, 3);
    let info = await scrollInfo(page);
    assert.ok(info.height - info.top - info.client < 30, `stuck while streaming: ${JSON.stringify(info)}`);
    // The user scrolls up.
    await page.locator(".vlist").hover();
    await page.mouse.wheel(0, -400);
    await frames(page, 3);
    const before = (await scrollInfo(page)).top;
    for (let i = 30; i < 60; i++) {
      await page.evaluate((e) => window.__deliver({ type: "events", events: [e] }), ev.text("mx", `Line ${i} of the answer.\n\n`));
    }
    await frames(page, 4);
    info = await scrollInfo(page);
    assert.ok(Math.abs(info.top - before) < 2, `stays where the user is: ${before} → ${info.top}`);
    assert.ok(info.height - info.top - info.client > 100);
    const jump = page.getByRole("button", { name: "Scroll to the latest message" });
    await jump.waitFor();
    await screenshot(page, "22-scrolled-up-streaming");
    await jump.click();
    await frames(page, 3);
    await events(page, [ev.text("mx", "The end.")]);
    await frames(page, 3);
    info = await scrollInfo(page);
    assert.ok(info.height - info.top - info.client < 30, `re-stuck: ${JSON.stringify(info)}`);
    assert.equal(await jump.count(), 0);
    await finish(page);
  });

  test("a row growing above the viewport does not move what the user is reading", T, async () => {
    const page = await chat.open({ height: 600 });
    await init(page);
    await deliver(page, { type: "replay", events: syntheticSession(400) });
    await frames(page, 4);
    await page.evaluate(() => {
      const s = document.querySelector(".vlist");
      s.scrollTop = s.scrollHeight / 2;
    });
    await frames(page, 6);
    // Pick a row in the middle of the viewport and remember its on-screen position.
    const probe = await page.evaluate(() => {
      const s = document.querySelector(".vlist").getBoundingClientRect();
      const rows = [...document.querySelectorAll(".vrow")];
      const row = rows.find((r) => r.getBoundingClientRect().top > s.top + 150);
      return { key: row.dataset.key, top: row.getBoundingClientRect().top };
    });
    // Expand a thinking block (or tool) above it: find a toggle above the viewport's top.
    const clicked = await page.evaluate(() => {
      const s = document.querySelector(".vlist").getBoundingClientRect();
      const toggles = [...document.querySelectorAll(".vrow .tool-toggle, .vrow .thinking-toggle")].filter((t) => t.getBoundingClientRect().bottom < s.top);
      const t = toggles.at(-1);
      if (!t) return null;
      const row = t.closest(".vrow");
      const h = row.getBoundingClientRect().height;
      t.click();
      return { key: row.dataset.key, h };
    });
    assert.ok(clicked, "a toggle above the viewport");
    await frames(page, 4);
    const grown = await page.evaluate((key) => document.querySelector(`.vrow[data-key="${CSS.escape(key)}"]`)?.getBoundingClientRect().height, clicked.key);
    assert.ok(grown !== undefined && Math.abs(grown - clicked.h) > 10, `the row above changed height: ${clicked.h} → ${grown}`);
    const after = await page.evaluate((key) => document.querySelector(`.vrow[data-key="${CSS.escape(key)}"]`)?.getBoundingClientRect().top, probe.key);
    assert.ok(after !== undefined && Math.abs(after - probe.top) < 2, `moved from ${probe.top} to ${after}`);
    await finish(page);
  });
});
