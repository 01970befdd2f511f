// The canvas panel in the real webview (Chromium): the session's board widgets, canvas documents and
// A2UI surfaces as the core's `canvas` events carry them; an unknown component is a placeholder
// naming it; the user's actions post `canvasAction`; and the gateway's hostile content runs nothing,
// loads nothing and leaves no handler or dangerous link behind.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { events, finish, frames, init, posted, screenshot, useWebview } from "./helpers.mjs";

const chat = useWebview();
const T = { timeout: 60_000 };
const GATEWAY = { gateway: { state: "connected" } };

const axeSource = await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe-core's WCAG 2.1 A/AA violations (evaluated through the DevTools protocol, past the CSP). */
async function axe(page) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() =>
    window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, resultTypes: ["violations"] }),
  );
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}

const canvas = (update) => ({ type: "canvas", update });
const board = (widgets) => canvas({ kind: "board", sessionId: "agent:main:tether-inst", revision: 3, widgets });
const surface = (surfaceId, components, title = null) => canvas({ kind: "surface", surfaceId, title, components });

async function openCanvas(page) {
  await page.getByRole("button", { name: /^Canvas/ }).click();
  const panel = page.getByRole("dialog", { name: "Canvas" });
  await panel.waitFor();
  return panel;
}

describe("canvas panel", () => {
  test("a gateway session offers the canvas, empty until something arrives", T, async () => {
    const page = await chat.open();
    await init(page);
    assert.equal(await page.locator(".canvas-button").count(), 0, "no canvas button for an agent without one");
    await init(page, GATEWAY);
    const panel = await openCanvas(page);
    assert.match(await panel.innerText(), /Nothing on the canvas yet/);
    await panel.getByRole("button", { name: "Refresh the canvas" }).click();
    assert.equal((await posted(page, "canvasRefresh")).length, 1);
    await panel.getByRole("button", { name: "Close canvas" }).click();
    assert.equal(await page.locator(".canvas-panel").count(), 0);
    await finish(page);
  });

  test("board widgets, documents and each A2UI component render; an unknown one is a named placeholder", T, async () => {
    const page = await chat.open();
    await init(page, GATEWAY);
    await events(page, [
      board([
        { name: "progress", title: "Session progress", contentKind: "html", revision: 2, frameUrl: "http://127.0.0.1:18789/__openclaw__/board/p/index.html" },
        { name: "report", title: null, contentKind: "plugin", revision: 1, frameUrl: null },
      ]),
      canvas({ kind: "document", docId: "doc-1", html: "<h1>Plan</h1><p>Step <strong>one</strong></p><pre><code>make test</code></pre>" }),
      surface(
        "s1",
        [
          { id: "c1", type: "Text", props: { text: "Analysis done" } },
          { id: "c2", type: "Button", props: { label: "Apply fix" } },
          { id: "c3", type: "CodeBlock", props: { code: "console.log('hello')", language: "js" } },
          { id: "c4", type: "FileTree", props: { items: ["src/main.ts", "src/util/"] } },
          { id: "c5", type: "Chart", props: { title: "x" } },
          { id: "c6", type: "Text", props: { text: { path: "/results/0/status" } } },
        ],
        "Code analysis",
      ),
      canvas({ kind: "surfaceData", surfaceId: "s1", model: { results: [{ status: "done" }] } }),
    ]);
    assert.match((await page.locator(".canvas-button").getAttribute("aria-label")) ?? "", /has content/);
    const panel = await openCanvas(page);
    const widgets = panel.getByRole("list", { name: "Board widgets" });
    assert.match(await widgets.innerText(), /Session progress[\s\S]*html · revision 2[\s\S]*report[\s\S]*plugin · revision 1/);
    assert.equal(await widgets.locator("a").getAttribute("href"), "http://127.0.0.1:18789/__openclaw__/board/p/index.html");
    const doc = panel.locator('[data-doc="doc-1"]');
    assert.equal(await doc.locator("h1").innerText(), "Plan");
    assert.equal(await doc.locator("strong").innerText(), "one");
    assert.equal(await doc.locator("pre code").innerText(), "make test");
    const s1 = panel.locator('[data-surface="s1"]');
    assert.equal(await s1.locator(".canvas-card-title").innerText(), "Code analysis");
    assert.equal(await s1.locator(".a2ui-text").first().innerText(), "Analysis done");
    assert.equal(await s1.getByRole("button", { name: "Apply fix" }).count(), 1);
    assert.equal(await s1.locator(".a2ui-code code").innerText(), "console.log('hello')");
    assert.deepEqual(await s1.locator(".a2ui-file").allInnerTexts(), ["src/main.ts", "src/util/"]);
    assert.equal(await s1.locator(".a2ui-placeholder").innerText(), "[Chart: not yet implemented]");
    assert.equal(await s1.locator(".a2ui-text").nth(1).innerText(), "done", "bound to the data model by JSON Pointer");
    await screenshot(page, "canvas");
    assert.deepEqual(await axe(page), [], "no axe violations in the panel");

    // updateComponents replaces the components and keeps the title and the data model.
    await events(page, [surface("s1", [{ id: "c6", type: "Text", props: { text: { path: "/results/0/status" } } }])]);
    assert.equal(await s1.locator(".canvas-card-title").innerText(), "Code analysis");
    assert.deepEqual(await s1.locator(".a2ui-text").allInnerTexts(), ["done"]);
    assert.equal(await s1.locator(".a2ui-button").count(), 0);
    await finish(page);
  });

  test("a Button, a FileTree item and a document's reload post their canvas actions", T, async () => {
    const page = await chat.open();
    await init(page, GATEWAY);
    await events(page, [
      canvas({ kind: "document", docId: "doc-1", html: "<p>hi</p>" }),
      surface("s1", [
        { id: "go", type: "Button", props: { label: "Go" } },
        { id: "tree", type: "FileTree", props: { items: ["README.md"] } },
      ]),
    ]);
    const panel = await openCanvas(page);
    await panel.getByRole("button", { name: "Go" }).click();
    await panel.getByRole("button", { name: "README.md" }).click();
    await panel.getByRole("button", { name: "Reload the document" }).click();
    assert.deepEqual(
      (await posted(page, "canvasAction")).map((m) => m.action),
      [
        { kind: "surface", surfaceId: "s1", action: "onClick", context: { componentId: "go" } },
        { kind: "surface", surfaceId: "s1", action: "onSelect", context: { componentId: "tree", path: "README.md" } },
        { kind: "document", docId: "doc-1" },
      ],
    );
    await finish(page);
  });

  for (const csp of [true, false]) {
    test(`hostile canvas content runs and loads nothing (${csp ? "with" : "without"} the CSP)`, T, async () => {
      const page = await chat.open({ query: csp ? "" : "?nocsp=1" });
      const origin = new URL(page.url()).origin;
      const requests = [];
      const dialogs = [];
      page.on("request", (r) => requests.push(r.url()));
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await init(page, GATEWAY);
      const evil = [
        "<script>window.__xss.push('script')</script>",
        "<img src=\"https://tracker.example/p.png\" onerror=\"window.__xss.push('img')\" alt=\"pixel\">",
        "<svg/onload=window.__xss.push('svg')></svg>",
        "<a href=\"javascript:window.__xss.push('js-link')\">js link</a>",
        "<a href=\"https://example.com/ok\" onclick=\"window.__xss.push('onclick')\">ok link</a>",
        "<iframe src=\"https://evil.example/frame\"></iframe>",
        "<details open ontoggle=\"window.__xss.push('details')\">x</details>",
        "<style>body { background: url(https://evil.example/bg.png) }</style>",
        "<p style=\"background:url(https://evil.example/p.png)\">styled</p>",
        "<form action=\"https://evil.example/f\"><button>go</button></form>",
        "<math><mtext><table><mglyph><style><img src=x onerror=\"window.__xss.push('mxss')\">",
      ].join("\n");
      await events(page, [
        board([{ name: "<img src=x onerror=window.__xss.push('w')>", title: "<script>window.__xss.push('t')</script>", contentKind: "html", revision: 1, frameUrl: "javascript:window.__xss.push('frame')" }]),
        canvas({ kind: "document", docId: "<b onmouseover=x>", html: evil }),
        surface(
          "s<script>",
          [
            { id: "t", type: "Text", props: { text: evil } },
            { id: "b", type: "Button", props: { label: "<img src=x onerror=window.__xss.push('label')>" } },
            { id: "c", type: "CodeBlock", props: { code: evil } },
            { id: "f", type: "FileTree", props: { items: ["<script>window.__xss.push('file')</script>", { path: "javascript:x" }] } },
            { id: "x", type: "<img src=x onerror=window.__xss.push('type')>", props: {} },
          ],
          "<svg onload=window.__xss.push('title')>",
        ),
      ]);
      const panel = await openCanvas(page);
      // Everything the gateway put there, hovered, and clicked unless it is an http(s) link (which VS
      // Code opens outside the webview, and the harness would follow).
      for (const el of await panel.locator(".canvas-body a, .canvas-body button, .canvas-body .a2ui-text, .canvas-document-body *").all()) {
        await el.hover({ timeout: 500, force: true }).catch(() => undefined);
        const href = await el.getAttribute("href").catch(() => null);
        if (!href) await el.click({ timeout: 500, force: true, noWaitAfter: true }).catch(() => undefined);
      }
      await frames(page, 2);
      const report = await page.evaluate(() => {
        const root = document.querySelector(".canvas-panel");
        const all = [...root.querySelectorAll("*")];
        return {
          xss: [...window.__xss],
          active: [...root.querySelectorAll("script, iframe, object, embed, style, link, base, meta, form, img, svg, math, video, audio, input, textarea")].length,
          onAttrs: all.filter((el) => [...el.attributes].some((a) => /^on/i.test(a.name))).length,
          styleAttrs: all.filter((el) => el.hasAttribute("style")).length,
          hrefs: [...root.querySelectorAll("[href]")].map((el) => el.getAttribute("href")),
          text: root.innerText,
        };
      });
      assert.deepEqual(report.xss, [], "no injected code ran");
      assert.equal(report.active, 0, "no active or loading element");
      assert.equal(report.onAttrs, 0, "no inline event handler");
      assert.equal(report.styleAttrs, 0, "no style attribute");
      assert.deepEqual(report.hrefs, ["https://example.com/ok"], "only the http(s) link keeps its target");
      assert.match(report.text, /<script>window\.__xss\.push\('script'\)<\/script>/, "a Text shows the markup as text");
      assert.match(report.text, /\[image: pixel\]/, "an image is its alt text");
      assert.match(report.text, /\[<img src=x onerror=window\.__xss\.push\('type'\)>: not yet implemented\]/);
      assert.deepEqual(
        requests.filter((url) => !(url.startsWith(`${origin}/out/`) || url.startsWith(`${origin}/test/`) || url.startsWith("data:"))),
        [],
        "nothing was fetched",
      );
      assert.deepEqual(dialogs, []);
      assert.ok(page.url().split("?")[0].endsWith("/test/harness.html"), "the page did not navigate");
      await finish(page);
    });
  }
});
