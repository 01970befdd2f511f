#!/usr/bin/env node
// Benchmark: first paint of a 5,000-message replay, and applying 1,000 streaming deltas. Baselines
// from the same browser: the replay's structured clone (what postMessage costs any webview), and the
// same deltas appended as plain text. Prints figures only (no assertions). Needs
// `node webview/build.mjs` first (npm run bench does it).
//
//   node webview/bench/first-paint.mjs [--runs N] [--messages N]
import { statSync } from "node:fs";
import { join } from "node:path";
import { finish, frames, init, launchBrowser, openHarness, startServer, webviewDir } from "../test/helpers.mjs";
import { syntheticSession } from "../test/fixtures.mjs";
import { record } from "../../tests/bench/record.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg("--runs", 3);
const MESSAGES = arg("--messages", 5000);
const DELTAS = 1000;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ms = (x) => `${x.toFixed(1)} ms`;

/** The baseline: the replay's events carried to a page as a webview receives them, postMessage's
 *  structured clone (through a MessageChannel), in a page of its own so that its garbage does not
 *  land in the measured page's heap. */
async function delivery(browser, events) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.evaluate((evs) => {
      window.__benchEvents = evs;
    }, events);
    return await page.evaluate(
      () =>
        new Promise((resolve) => {
          const channel = new MessageChannel();
          const t0 = performance.now();
          channel.port1.onmessage = (e) => resolve(e.data.length > 0 ? performance.now() - t0 : NaN);
          channel.port2.postMessage(window.__benchEvents);
        }),
    );
  } finally {
    await context.close();
  }
}

const server = await startServer();
const browser = await launchBrowser();
const session = syntheticSession(MESSAGES);
const results = { delivery: [], firstPaint: [], applyRender: [], burst: [], perDelta: [], perPlainDelta: [], nodes: 0, rows: 0, streamTotal: [] };

try {
  for (let run = 0; run < RUNS; run++) {
    results.delivery.push(await delivery(browser, session));
    const page = await openHarness(browser, server, { width: 420, height: 800 });
    await init(page);
    await page.evaluate((evs) => {
      window.__benchEvents = evs;
    }, session);
    await frames(page, 2);

    // 1. Replay → the last message of the visible window is rendered, then the next frame (paint).
    const fp = await page.evaluate(
      (n) =>
        new Promise((resolve) => {
          const t0 = performance.now();
          window.__deliver({ type: "replay", events: window.__benchEvents });
          let tRendered = 0;
          const check = () => {
            const last = document.querySelector(`.vrow[aria-posinset="${n}"]`);
            const s = document.querySelector(".vlist");
            if (last && s && s.scrollHeight - s.scrollTop - s.clientHeight < 30) {
              tRendered = performance.now();
              requestAnimationFrame(() => resolve({ rendered: tRendered - t0, painted: performance.now() - t0 }));
            } else {
              requestAnimationFrame(check);
            }
          };
          requestAnimationFrame(check);
        }),
      MESSAGES,
    );
    results.firstPaint.push(fp.painted);
    results.applyRender.push(fp.rendered);
    await frames(page, 4);
    const dom = await page.evaluate(() => ({ nodes: document.querySelectorAll("*").length, rows: document.querySelectorAll(".vrow").length }));
    results.nodes = dom.nodes;
    results.rows = dom.rows;

    // 2. 1,000 deltas, each applied and rendered on its own (the worst case: no batching), with layout.
    await page.evaluate(() => window.__deliver({ type: "events", events: [{ type: "userMessage", id: "bench-u", text: "stream" }, { type: "messageStart", messageId: "bench-m", parentToolUseId: null }] }));
    await frames(page, 2);
    const per = await page.evaluate(async (count) => {
      const store = window.__tether.store;
      const times = [];
      // A macrotask without setTimeout's 4 ms clamping, so Preact's (microtask) render has run.
      const channel = new MessageChannel();
      const yieldTask = () => new Promise((r) => {
        channel.port1.onmessage = () => r();
        channel.port2.postMessage(0);
      });
      const text = (i) =>
        i % 50 === 49 ? "\n\n```js\nconst x = " + i + ";\n```\n\n" : i % 10 === 9 ? `word${i}.\n\n- item ${i}\n\n` : `word${i} `;
      const t0 = performance.now();
      for (let i = 0; i < count; i++) {
        const s = performance.now();
        window.__deliver({ type: "events", events: [{ type: "textDelta", messageId: "bench-m", text: text(i), parentToolUseId: null }] });
        store.flush();
        await yieldTask(); // Preact's debounced render has run
        void document.querySelector(".vlist").scrollHeight; // force layout
        times.push(performance.now() - s);
      }
      const total = performance.now() - t0;
      // The baseline, after ours: the browser's own cost for the same deltas as plain text, each
      // appended to a plain element over the view, with the same task yield and forced layout.
      const plain = document.createElement("div");
      plain.style.cssText = "position:fixed;left:0;bottom:0;width:400px;max-height:300px;overflow:hidden;white-space:pre-wrap;background:#fff";
      document.body.append(plain);
      const plainTimes = [];
      for (let i = 0; i < count; i++) {
        const s = performance.now();
        plain.append(text(i));
        await yieldTask();
        void plain.scrollHeight;
        plainTimes.push(performance.now() - s);
      }
      plain.remove();
      return { times, total, plainTimes };
    }, DELTAS);
    results.perDelta.push(...per.times);
    results.perPlainDelta.push(...per.plainTimes);
    results.streamTotal.push(per.total);

    // 3. 1,000 deltas in one burst (as batched by frame): delivery → rendered.
    await page.evaluate(() => window.__deliver({ type: "events", events: [{ type: "messageStart", messageId: "bench-m2", parentToolUseId: null }] }));
    await frames(page, 2);
    const burst = await page.evaluate(
      (count) =>
        new Promise((resolve) => {
          const t0 = performance.now();
          for (let i = 0; i < count; i++) {
            window.__deliver({ type: "events", events: [{ type: "textDelta", messageId: "bench-m2", text: i % 10 === 9 ? `w${i}.\n\n` : `w${i} `, parentToolUseId: null }] });
          }
          const check = () => {
            const el = document.querySelector('.msg-assistant[data-message-id="bench-m2"]');
            if (el && el.textContent.includes(`w${count - 1}`)) requestAnimationFrame(() => resolve(performance.now() - t0));
            else requestAnimationFrame(check);
          };
          requestAnimationFrame(check);
        }),
      DELTAS,
    );
    results.burst.push(burst);
    await finish(page, { allowCsp: false });
  }
} finally {
  await browser.close();
  await server.close();
}

const size = (f) => {
  try {
    return `${(statSync(join(webviewDir, "out", f)).size / 1024).toFixed(1)} KiB`;
  } catch {
    return "n/a";
  }
};

console.log(`Tether webview benchmark (${RUNS} runs, Chromium headless, 420×800)`);
console.log(`replay of ${MESSAGES} messages (${session.length} events):`);
console.log(`  first paint (deliver → last visible message rendered → next frame): median ${ms(median(results.firstPaint))}, min ${ms(Math.min(...results.firstPaint))}, max ${ms(Math.max(...results.firstPaint))}`);
console.log(`  baseline, the replay's events delivered (postMessage's structured clone, a page of its own): median ${ms(median(results.delivery))}, min ${ms(Math.min(...results.delivery))}`);
console.log(`  rendered (before that frame): median ${ms(median(results.applyRender))}`);
console.log(`  DOM after replay: ${results.nodes} elements, ${results.rows} rows rendered of ${MESSAGES}`);
console.log(`${DELTAS} streaming deltas into one message, each applied + rendered + laid out alone:`);
console.log(`  total median ${ms(median(results.streamTotal))}; per delta mean ${ms(mean(results.perDelta))}, p50 ${ms(pct(results.perDelta, 50))}, p95 ${ms(pct(results.perDelta, 95))}, max ${ms(Math.max(...results.perDelta))}`);
console.log(`  baseline, the same deltas appended as plain text (same yield and layout): mean ${ms(mean(results.perPlainDelta))}, p50 ${ms(pct(results.perPlainDelta, 50))}, p95 ${ms(pct(results.perPlainDelta, 95))}`);
console.log(`${DELTAS} deltas delivered in one burst (coalesced per frame) → rendered + next frame: median ${ms(median(results.burst))}`);
// The goals are in ms; the guard compares the ratios to baselines from the same browser, so that a
// slower machine (or one whose memory is slower to hand out) moves both.
const paint = median(results.firstPaint);
record(`first-paint-${MESSAGES}`, {
  ratio: paint / median(results.delivery), ratioMin: Math.min(...results.firstPaint) / Math.min(...results.delivery),
  value: paint, valueMin: Math.min(...results.firstPaint), goal: MESSAGES >= 50000 ? 200 : 50, unit: "ms",
  what: `first paint of a ${MESSAGES.toLocaleString("en")}-message replay in the webview, Chromium headless (ratio: vs the replay's structured clone, as postMessage delivers it)`,
});
const deltaP95 = pct(results.perDelta, 95);
record(`stream-delta-p95-${MESSAGES}`, {
  ratio: deltaP95 / mean(results.perPlainDelta),
  value: deltaP95, valueMin: Math.min(...results.perDelta), goal: 4, unit: "ms",
  what: "one streamed text delta applied, rendered and laid out, p95, min shown as min (ratio: vs the mean of the same deltas appended as plain text)",
});
console.log(`bundle: main.js ${size("main.js")}, main.css ${size("main.css")}, codicon.css ${size("codicon.css")}, codicon.ttf ${size("codicon.ttf")}`);
