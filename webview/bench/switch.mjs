#!/usr/bin/env node
// Benchmark: switching between two open sessions of 5,000 messages each, as the view gets a
// switch today (sessions.ts switchTo: `clear`, then the session's `init` and `replay`, posted
// together): from the messages' arrival until the other session's last visible message is
// rendered and the next frame has run (painted). Baseline in the same run: the first paint of one
// 5,000-message replay into an empty view. Needs `node webview/build.mjs` first.
//
//   node webview/bench/switch.mjs [--switches N] [--messages N]

import { finish, init, launchBrowser, openHarness, startServer, frames, defaultState } from "../test/helpers.mjs";
import { syntheticSession } from "../test/fixtures.mjs";
import { median, min, record } from "../../tests/bench/record.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const SWITCHES = arg("--switches", 8);
const MESSAGES = arg("--messages", 5000);
const GOAL_MS = 100;

/** The other session's events: the same shape, its own ids and text (nothing shared). */
function renamed(events, tag) {
  return JSON.parse(JSON.stringify(events).replace(/"(u|m|t|p)(\d+)"/g, `"${tag}$1$2"`).replace(/Question /g, `${tag} question `));
}

const server = await startServer();
const browser = await launchBrowser();
const a = syntheticSession(MESSAGES);
const b = renamed(a, "b");
const switchMs = [];
const firstMs = [];
try {
  const page = await openHarness(browser, server, { width: 420, height: 800 });
  await init(page);
  await page.evaluate(
    ({ a, b, stateA, stateB }) => {
      window.__sessions = { a: { events: a, state: stateA }, b: { events: b, state: stateB } };
      /** Deliver `messages` in one task; resolves when the last message is rendered with the list
       *  at the bottom, then the next frame (painted). */
      window.__paint = (messages, n) =>
        new Promise((resolve) => {
          const t0 = performance.now();
          for (const m of messages) window.__deliver(m);
          const check = () => {
            const last = document.querySelector(`.vrow[aria-posinset="${n}"]`);
            const s = document.querySelector(".vlist");
            if (last && s && s.scrollHeight - s.scrollTop - s.clientHeight < 30) requestAnimationFrame(() => resolve(performance.now() - t0));
            else requestAnimationFrame(check);
          };
          requestAnimationFrame(check);
        });
    },
    { a, b, stateA: { ...defaultState, sessionId: "sess-a" }, stateB: { ...defaultState, sessionId: "sess-b" } },
  );
  // The baseline: one replay into a view that shows nothing yet, the first a few times.
  for (let i = 0; i < 3; i++) {
    await page.evaluate(() => window.__deliver({ type: "clear" }));
    await frames(page, 2);
    firstMs.push(await page.evaluate((n) => window.__paint([{ type: "replay", events: window.__sessions.a.events }], n), MESSAGES));
    await frames(page, 4);
  }
  // A and B are both open; the view shows A. Each switch shows the other one, as switchTo posts it.
  let shown = "a";
  for (let i = 0; i < SWITCHES; i++) {
    const next = shown === "a" ? "b" : "a";
    const ms = await page.evaluate(
      ({ next, n }) => {
        const s = window.__sessions[next];
        return window.__paint([{ type: "clear" }, { type: "init", state: s.state }, { type: "replay", events: s.events }], n);
      },
      { next, n: MESSAGES },
    );
    switchMs.push(ms);
    shown = next;
    const firstRow = await page.evaluate(() => document.querySelector(".vrow .msg-user, .vrow")?.textContent ?? "");
    if (next === "b" && !/b question|b/.test(firstRow) && !(await page.evaluate(() => document.body.textContent.includes("b question")))) {
      throw new Error("the switch did not show the other session");
    }
    await frames(page, 4);
  }
  await finish(page, { allowCsp: false });
} finally {
  await browser.close();
  await server.close();
}

const fmt = (xs) => xs.map((x) => x.toFixed(0)).join(", ");
console.log(`session switch (two open sessions of ${MESSAGES.toLocaleString("en")} messages; clear + init + replay; Chromium headless, 420×800):`);
console.log(`  switch → the other session painted: median ${median(switchMs).toFixed(1)} ms, min ${min(switchMs).toFixed(1)} [${fmt(switchMs)}]`);
console.log(`  baseline, first paint of one replay into an empty view: median ${median(firstMs).toFixed(1)} ms [${fmt(firstMs)}]`);
record(`session-switch-${MESSAGES}`, {
  ratio: median(switchMs) / median(firstMs), ratioMin: min(switchMs) / min(firstMs),
  value: median(switchMs), valueMin: min(switchMs), goal: GOAL_MS, unit: "ms",
  what: `switch between two open ${MESSAGES.toLocaleString("en")}-message sessions → painted (ratio: vs one replay's first paint)`,
});
