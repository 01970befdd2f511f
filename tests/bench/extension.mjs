#!/usr/bin/env node
// Extension benchmarks in a real VS Code (code-server), a fresh window per run:
//   view-usable  click on the Tether activity-bar tab → a key typed in the chat composer shows
//                there (activation, the page, its script, the composer enabled), against the same
//                run's built-in Search view: click on its tab → a key typed in its box shows there
//   activate()   as the extension logs it
// then the webview's first paint of a 5,000- and a 50,000-message replay and the switch between
// two open 5,000-message sessions (webview/bench). Needs ./build.sh first (the VSIX) and the
// cached code-server. The agent is configured (the real CLI against the fake API), so what the
// extension starts when the view shows is part of the measure.
//
//   node tests/bench/extension.mjs [--runs N] [--quick] [--view] [--trace]
//     --quick   3 windows, and no 50,000-message replay (a smoke run)
//     --view    only the view-usable row (not the webview benchmarks)
//     --trace   per run: the webview's own timings (script fetched, evaluated, first render) and
//               the extension's log lines with their times, to see where the time goes

import { execFileSync } from "node:child_process";
import path from "node:path";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { CLAUDE, launchVsCode, REPO } from "../e2e/harness.mjs";
import { median, min, record } from "./record.mjs";

const runsArg = process.argv.indexOf("--runs");
const QUICK = process.argv.includes("--quick");
const RUNS = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : QUICK ? 3 : 5;
const TRACE = process.argv.includes("--trace");
const GOAL_MS = 500;
const LIMIT_MS = 30_000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `frames` (every few ms) for an enabled input matching `selector`, focuses it and types
 *  one key (as the keyboard does: no waiting for the element to be "stable"), then polls until
 *  the input shows it. Returns when it showed (Date.now()). */
async function typedKeyShows(page, selector, frames = () => [page.mainFrame()]) {
  const deadline = Date.now() + LIMIT_MS;
  for (;;) {
    for (const frame of frames()) {
      const focused = await frame
        .evaluate((sel) => {
          const box = document.querySelector(sel);
          if (!box || box.disabled || box.getClientRects().length === 0) return false;
          box.focus();
          return document.activeElement === box;
        }, selector)
        .catch(() => false);
      if (!focused) continue;
      await page.keyboard.press("x");
      for (;;) {
        const shown = await frame.evaluate((sel) => document.querySelector(sel)?.value.includes("x"), selector).catch(() => false);
        if (shown) return Date.now();
        if (Date.now() > deadline) throw new Error(`the key typed into ${selector} never showed`);
        await sleep(2);
      }
    }
    if (Date.now() > deadline) throw new Error(`no enabled ${selector} within ${LIMIT_MS} ms`);
    await sleep(5);
  }
}

const COMPOSER = 'textarea[aria-label^="Message to"]';
const SEARCH_BOX = ".search-view .search-widget textarea";

const api = await startFakeApi([{ text: "ok", repeat: true }]);
const viewMs = [];
const searchMs = [];
const activateMs = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const vs = await launchVsCode({
      name: `bench-view-${run}`,
      files: { "hello.txt": "hello\n" },
      settings: {
        "tether.claudePath": CLAUDE,
        "tether.environment": { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
      },
    });
    try {
      const { page } = vs;
      // The activity-bar tab appears once the workbench knows the extension; let the window settle.
      const tether = page.getByRole("tab", { name: /^Tether/ }).first();
      await tether.waitFor({ timeout: 60_000 });
      // A window the user clicks in has settled: the extension host has activated its startup
      // extensions (git and the others) and is idle.
      const deadline = Date.now() + 60_000;
      while (!/Eager extensions activated/.test(vs.extHostLog()) && Date.now() < deadline) await sleep(100);
      await sleep(1500);
      let clicked = Date.now();
      await page.getByRole("tab", { name: /^Search/ }).first().click();
      searchMs.push((await typedKeyShows(page, SEARCH_BOX)) - clicked);
      await sleep(500);
      clicked = Date.now();
      await tether.click();
      // A webview's page is the inner frame VS Code loads as fake.html (the outer one is its host).
      const shown = await typedKeyShows(page, COMPOSER, () => page.frames().filter((f) => f.url().includes("fake.html")));
      viewMs.push(shown - clicked);
      // The LogOutputChannel "Tether" writes its own file under the user-data logs.
      let line;
      for (let i = 0; i < 50 && !line; i++) {
        line = vs.tetherLog().match(/activate\(\) took ([\d.]+) ms/);
        if (!line) await sleep(100);
      }
      if (line) activateMs.push(Number(line[1]));
      if (TRACE) await trace(vs, clicked, shown);
    } finally {
      await vs.close();
    }
  }
} finally {
  await api.close();
}

/** Where one run's time went: the webview page's own timings (relative to the click) and the
 *  extension's log lines (their wall-clock times, relative to the click). */
async function trace(vs, clicked, shown) {
  let frame;
  for (const f of vs.page.frames()) if (await f.evaluate((sel) => !!document.querySelector(sel), COMPOSER).catch(() => false)) frame = f;
  const page = await frame
    ?.evaluate(() => {
      const origin = performance.timeOrigin;
      const nav = performance.getEntriesByType("navigation")[0];
      const res = performance.getEntriesByType("resource").map((r) => ({ name: r.name.split("/").pop(), start: origin + r.startTime, end: origin + r.responseEnd, size: r.transferSize || r.encodedBodySize }));
      const marks = performance.getEntriesByType("mark").map((m) => ({ name: m.name, at: origin + m.startTime }));
      return { origin, domInteractive: nav ? origin + nav.domInteractive : undefined, res, marks };
    })
    .catch(() => undefined);
  console.log(`\n-- run trace (ms after the click on the Tether tab; key shown at ${shown - clicked}) --`);
  if (page) {
    console.log(`  webview page time origin   ${(page.origin - clicked).toFixed(0)}`);
    if (page.domInteractive) console.log(`  page domInteractive        ${(page.domInteractive - clicked).toFixed(0)}`);
    for (const r of page.res) console.log(`  fetched ${r.name.padEnd(18)} ${(r.start - clicked).toFixed(0)} → ${(r.end - clicked).toFixed(0)}`);
    for (const m of page.marks) console.log(`  mark ${m.name.padEnd(21)} ${(m.at - clicked).toFixed(0)}`);
  }
  const host = vs.extHostLog().split("\n").filter((l) => /tether/.test(l));
  for (const line of [...host, ...vs.tetherLog().split("\n")]) {
    const m = line.match(/^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \[\w+\] (.*)$/);
    if (m) console.log(`  log ${String(new Date(m[1].replace(" ", "T")).getTime() - clicked).padStart(6)}  ${m[2].slice(0, 110)}`);
  }
}

const fmt = (xs) => xs.map((x) => x.toFixed(0)).join(", ");
console.log(`view usable in code-server 4.100.3, a fresh window per run (${RUNS} runs):`);
console.log(`  click on the Tether tab → typed key shows in the composer: median ${median(viewMs).toFixed(0)} ms [${fmt(viewMs)}]`);
console.log(`  baseline: click on the Search tab → typed key shows in its box: median ${median(searchMs).toFixed(0)} ms [${fmt(searchMs)}]`);
console.log(`  activate() inside the host: median ${median(activateMs)?.toFixed(1)} ms [${fmt(activateMs)}]`);
record("view-usable", {
  ratio: median(viewMs) / median(searchMs), ratioMin: min(viewMs) / min(searchMs),
  value: median(viewMs), valueMin: min(viewMs), goal: GOAL_MS, unit: "ms",
  what: `click on the Tether tab → a typed key shows in the composer, median of ${RUNS} fresh windows (ratio: vs the built-in Search view)`,
});

if (process.argv.includes("--view")) process.exit(0);
console.log("\nwebview first paint (5,000-message replay) — webview/bench/first-paint.mjs:");
execFileSync(process.execPath, [path.join(REPO, "webview/bench/first-paint.mjs"), "--runs", "3"], { stdio: "inherit", cwd: REPO });
console.log("\nsession switch — webview/bench/switch.mjs:");
execFileSync(process.execPath, [path.join(REPO, "webview/bench/switch.mjs"), ...(QUICK ? ["--switches", "4"] : [])], { stdio: "inherit", cwd: REPO });
if (QUICK) process.exit(0);
console.log("\nwebview first paint (50,000-message replay):");
execFileSync(process.execPath, [path.join(REPO, "webview/bench/first-paint.mjs"), "--runs", "3", "--messages", "50000"], { stdio: "inherit", cwd: REPO });
