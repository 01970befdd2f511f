// Hostile model output in the real webview (Chromium): whatever the model writes, or a tool prints,
// nothing in it runs, nothing is fetched from anywhere (every request the page makes is counted,
// with and without the CSP), and the view stays usable: huge and deeply nested text renders a
// bounded DOM and the composer still answers. Each payload that would run calls
// window.__xss.push(tag); a dialog (alert) counts too.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ev } from "./fixtures.mjs";
import { events, finish, frames, init, posted, useWebview } from "./helpers.mjs";

const chat = useWebview();
const T = { timeout: 120_000 };
const MB = 1024 * 1024;

const PAYLOADS = [
  "<script>window.__xss.push('script')</script>",
  "<img src=x onerror=\"window.__xss.push('img')\">",
  "<svg/onload=window.__xss.push('svg')>",
  "<details open ontoggle=\"window.__xss.push('details')\">x</details>",
  "<body onload=\"window.__xss.push('body')\">",
  "<a href=\"#\" onclick=\"window.__xss.push('a-onclick')\" onmouseover=\"window.__xss.push('hover')\">hover me</a>",
  "<iframe srcdoc=\"<script>parent.__xss.push('srcdoc')</script>\"></iframe>",
  "<math><mtext><table><mglyph><style><img src=x onerror=\"window.__xss.push('mxss')\">",
  "<!--><script>window.__xss.push('comment')</script>-->",
  "</code></pre><script>window.__xss.push('break-out')</script>",
  "<input autofocus onfocus=\"window.__xss.push('focus')\">",
  "&lt;script&gt;window.__xss.push('entity')&lt;/script&gt;",
].join("\n\n");

/** Everything a hostile payload could have left in the view, and what ran. */
async function inertReport(page) {
  return page.evaluate(() => {
    const root = document.querySelector(".tether-root");
    const all = [...root.querySelectorAll("*")];
    return {
      xss: [...window.__xss],
      // The view's own controls are buttons and inputs outside rendered markdown.
      active: [...root.querySelectorAll("script, iframe, object, embed, style, link, base, meta, form, video, audio, picture, source, .md input, .md textarea, .md select")].map(
        (el) => el.outerHTML.slice(0, 80),
      ),
      imgs: root.querySelectorAll("img").length,
      onAttrs: all.filter((el) => [...el.attributes].some((a) => /^on/i.test(a.name))).map((el) => el.outerHTML.slice(0, 80)),
      styleAttrs: all
        .filter((el) => (el.getAttribute("style") ?? "").trim() && !el.classList.contains("vspacer") && !el.closest(".vlist-inner, .composer"))
        .filter((el) => /url\(|expression|import/i.test(el.getAttribute("style")))
        .map((el) => el.outerHTML.slice(0, 80)),
      badHrefs: [...root.querySelectorAll("[href],[src],[srcset],[action],[formaction],[data],[poster]")]
        .map((el) => el.getAttribute("href") ?? el.getAttribute("src") ?? el.getAttribute("srcset") ?? el.getAttribute("action") ?? el.getAttribute("data") ?? "")
        .filter((h) => /^(javascript|data|vbscript|command|file|vscode):/i.test(h.replace(/[\s\u0000-\u001f]/g, "")) || /^(https?:)?\/\//i.test(h.trim()) && !/^https?:\/\//i.test(h.trim())),
    };
  });
}

function assertInert(report) {
  assert.deepEqual(report.xss, [], "no injected code ran");
  assert.deepEqual(report.active, [], "no active element came from the content");
  assert.equal(report.imgs, 0, "no image element");
  assert.deepEqual(report.onAttrs, [], "no inline event handler");
  assert.deepEqual(report.styleAttrs, [], "no style that loads or runs anything");
  assert.deepEqual(report.badHrefs, [], "no dangerous link target");
}

/** A harness page that counts every request it makes after it loaded, and every dialog. */
async function openWatched(options) {
  const page = await chat.open(options);
  const origin = new URL(page.url()).origin;
  page.__requests = [];
  page.__dialogs = [];
  page.on("request", (r) => page.__requests.push(r.url()));
  page.on("dialog", (d) => {
    page.__dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("popup", (p) => page.__dialogs.push(`popup ${p.url()}`));
  page.__origin = origin;
  await init(page);
  return page;
}

/** Requests after load that are not the webview's own assets (its font loads on first use). */
function foreignRequests(page) {
  return page.__requests.filter((url) => !(url.startsWith(`${page.__origin}/out/`) || url.startsWith("data:")));
}

async function done(page, { allowCsp = false } = {}) {
  await frames(page, 2);
  assertInert(await inertReport(page));
  assert.deepEqual(foreignRequests(page), [], "nothing was fetched");
  assert.deepEqual(page.__dialogs, [], "no dialog or window opened");
  await finish(page, { allowCsp });
}

async function assistant(page, text, id = "m1") {
  await events(page, [ev.messageStart(id), ev.text(id, text), ev.messageStop(id)]);
}

/** Hover and click every element of the timeline (not the composer or the header). An http(s)
 * link is only hovered: clicking it is the user's choice, and VS Code opens it outside the webview
 * (after asking), where the harness would navigate. */
async function poke(page) {
  const targets = page.locator(".vlist a, .vlist .md *, .vlist .tool *");
  const n = Math.min(await targets.count(), 200);
  for (let i = 0; i < n; i++) {
    const el = targets.nth(i);
    await el.hover({ timeout: 500, force: true }).catch(() => undefined);
    const external = await el
      .evaluate((e) => {
        const isExternal = (a) => /^(https?|mailto):/i.test(a?.getAttribute("href") ?? "");
        return isExternal(e.closest("a")) || [...e.querySelectorAll("a")].some(isExternal);
      })
      .catch(() => true);
    if (!external) await el.click({ timeout: 500, force: true, noWaitAfter: true }).catch(() => undefined);
  }
  assert.ok(page.url().split("?")[0].endsWith("/test/harness.html"), `the page did not navigate: ${page.url()}`);
}

/** The deepest element nesting under the timeline. */
const depth = (page) =>
  page.evaluate(() => {
    let max = 0;
    const walk = (el, d) => {
      max = Math.max(max, d);
      for (const c of el.children) walk(c, d + 1);
    };
    walk(document.querySelector(".vlist"), 0);
    return max;
  });

const domSize = (page) => page.evaluate(() => ({ nodes: document.querySelectorAll("*").length, chars: document.body.innerText.length }));

/** The view answers: the composer takes a prompt and posts it. */
async function stillUsable(page) {
  const box = page.getByRole("textbox", { name: "Message to Claude" });
  await box.fill("still here");
  await box.press("Enter");
  assert.equal((await posted(page, "sendPrompt")).at(-1)?.text, "still here");
}

describe("hostile model output", () => {
  for (const csp of [true, false]) {
    test(`script and inline handlers in an answer run nothing, hovered and clicked (${csp ? "with" : "without"} the CSP)`, T, async () => {
      const page = await openWatched({ query: csp ? "" : "?nocsp=1" });
      await assistant(page, PAYLOADS);
      await poke(page);
      assert.match(await page.locator(".md").first().innerText(), /<script>window\.__xss\.push\('script'\)<\/script>/, "shown as text");
      await done(page);
    });
  }

  test("javascript:, data:, vbscript:, command: and file: links stay text; clicking them runs and posts nothing", T, async () => {
    const page = await openWatched();
    await assistant(
      page,
      [
        "[plain](javascript:window.__xss.push('plain'))",
        "[case](JaVaScRiPt:window.__xss.push('case'))",
        "[entity](jav&#x61;script:window.__xss.push('entity'))",
        "[tab](java\tscript:window.__xss.push('tab'))",
        "[nl](java%0ascript:window.__xss.push('nl'))",
        "[ref][evil]\n\n[evil]: javascript:window.__xss.push('ref')",
        "<javascript:window.__xss.push('auto')>",
        "[data](data:text/html,<script>parent.__xss.push('data')</script>)",
        "[vb](vbscript:msgbox)",
        "[cmd](command:workbench.action.terminal.new)",
        "[vscode](vscode://ms-vscode.remote-server/x)",
        "[file](file:///etc/passwd)",
        "[proto-relative](//evil.example/x)",
        "[title](https://example.com \"t\\\" onmouseover=\\\"window.__xss.push('title')\")",
      ].join("\n\n"),
    );
    await poke(page);
    for (const a of await page.locator(".md a[href^='http']").all()) assert.equal(await a.getAttribute("rel"), "noopener noreferrer");
    const opened = await posted(page, "openFile");
    for (const m of opened) assert.doesNotMatch(m.path, /^(javascript|data|vbscript|command|vscode|file):/i, JSON.stringify(m));
    await done(page);
  });

  for (const csp of [true, false]) {
    test(`remote images, frames, stylesheets and fonts load nothing (${csp ? "with" : "without"} the CSP)`, T, async () => {
      const page = await openWatched({ query: csp ? "" : "?nocsp=1" });
      await assistant(
        page,
        [
          "![pixel](https://tracker.example/p.png)",
          "![ref][img]\n\n[img]: https://tracker.example/ref.png",
          "<img src=\"https://tracker.example/html.png\">",
          "<picture><source srcset=\"https://tracker.example/s.png\"></picture>",
          "<video poster=\"https://tracker.example/v.png\"></video>",
          "<link rel=\"stylesheet\" href=\"https://evil.example/x.css\">",
          "<style>@import url(https://evil.example/i.css); body { background: url(https://evil.example/bg.png) }</style>",
          "<span style=\"background:url(https://evil.example/span.png)\">styled</span>",
          "<iframe src=\"https://evil.example/frame\"></iframe>",
          "<object data=\"https://evil.example/o.swf\"></object><embed src=\"https://evil.example/e\">",
          "<base href=\"https://evil.example/\"> [relative](x.html)",
          "<meta http-equiv=\"refresh\" content=\"0;url=https://evil.example/\">",
          "<form action=\"https://evil.example/f\"><button>go</button></form>",
          "<audio src=\"https://evil.example/a.mp3\" autoplay></audio>",
          "@font-face and https://evil.example/linkified.png as a bare URL",
        ].join("\n\n"),
      );
      await poke(page);
      await new Promise((r) => setTimeout(r, 300)); // a late load would show up here
      assert.match(await page.locator(".md").first().innerText(), /\[image: pixel\]/, "an image is a link with its alt text");
      await done(page);
    });
  }

  test("a user prompt and an error message holding HTML are shown as text", T, async () => {
    const page = await openWatched();
    await events(page, [
      ev.user("u1", "<img src=x onerror=\"window.__xss.push('user')\"> please"),
      ev.error("api", "<script>window.__xss.push('error')</script> overloaded <img src=x onerror=\"window.__xss.push('error-img')\">"),
    ]);
    await poke(page);
    assert.match(await page.locator(".vlist").innerText(), /<img src=x onerror=/);
    await done(page);
  });

  test("thinking, a subagent's text and its result are inert", T, async () => {
    const page = await openWatched();
    await events(page, [
      ev.messageStart("m1"),
      ev.thinking("m1", PAYLOADS),
      ev.text("m1", "ok"),
      ev.messageStop("m1"),
      ev.toolStart("task1", "Task", { description: "<b onmouseover=window.__xss.push('desc')>x</b>", prompt: PAYLOADS, subagent_type: "<script>x</script>" }),
      ev.messageStart("sm1", "task1"),
      ev.text("sm1", PAYLOADS, "task1"),
      ev.messageStop("sm1"),
      ev.toolResult("task1", {}, { content: PAYLOADS }),
    ]);
    await page.locator(".thinking-toggle").click();
    for (const toggle of await page.locator(".tool-toggle").all()) await toggle.click({ force: true }).catch(() => undefined);
    await poke(page);
    await done(page);
  });

  test("Bash output and stderr with HTML and terminal escapes are text, collapsed and expanded", T, async () => {
    const page = await openWatched();
    const out = Array.from({ length: 60 }, (_, i) => `\u001b[31m<img src=x onerror=window.__xss.push('out${i}')>\u001b[0m \u001b]8;;javascript:alert(1)\u0007link\u001b]8;;\u0007`).join("\n");
    await events(page, [
      ev.toolStart("b1", "Bash", { command: "<script>window.__xss.push('cmd')</script>", description: "<img src=x onerror=window.__xss.push('desc')>" }),
      ev.toolResult("b1", { stdout: out, stderr: PAYLOADS, exitCode: 1, interrupted: false }, { isError: true, content: out }),
    ]);
    await page.locator(".tool button", { hasText: /Show all/ }).first().click();
    await poke(page);
    assert.match(await page.locator('.tool[data-call-id="b1"] .stdout').innerText(), /<img src=x onerror=/);
    await done(page);
  });

  test("file paths and contents with HTML in Read, Grep, Glob, Edit and Write are text; a click opens the path as given", T, async () => {
    const page = await openWatched();
    const evilPath = "/w/<img src=x onerror=window.__xss.push('path')>.ts";
    await events(page, [
      ev.toolStart("r1", "Read", { file_path: evilPath }),
      ev.toolResult("r1", { type: "text", file: { filePath: evilPath, content: PAYLOADS, numLines: 3, startLine: 1, totalLines: 3 } }, { content: PAYLOADS }),
      ev.toolStart("g1", "Grep", { pattern: "<script>", output_mode: "content" }),
      ev.toolResult("g1", { mode: "content", numFiles: 1, filenames: [evilPath], content: PAYLOADS, numLines: 12 }, { content: PAYLOADS }),
      ev.toolStart("gl", "Glob", { pattern: "**/<svg onload=x>" }),
      ev.toolResult("gl", { filenames: [evilPath, "/w/javascript:alert(1)"], numFiles: 2, truncated: false, durationMs: 1 }),
      ev.toolStart("e1", "Edit", { file_path: evilPath, old_string: "<b>", new_string: PAYLOADS }),
      ev.toolResult("e1", { filePath: evilPath, oldString: "<b>", newString: PAYLOADS, originalFile: "<b>\n", structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 2, lines: ["-<b>", ...PAYLOADS.split("\n").map((l) => `+${l}`)] }] }),
      ev.toolStart("w1", "Write", { file_path: evilPath, content: PAYLOADS }),
      ev.toolResult("w1", { type: "create", filePath: evilPath, content: PAYLOADS, structuredPatch: [], originalFile: null }),
    ]);
    for (const toggle of await page.locator(".tool-toggle").all()) await toggle.click({ force: true }).catch(() => undefined);
    await poke(page);
    for (const m of await posted(page, "openFile")) assert.ok(m.path === evilPath || m.path === "/w/javascript:alert(1)", `opened as given: ${JSON.stringify(m)}`);
    await done(page);
  });

  test("a permission card and a plan holding HTML are inert, and Allow still answers", T, async () => {
    const page = await openWatched();
    await events(page, [
      ev.toolStart("b1", "Bash", { command: "rm -rf <img src=x onerror=window.__xss.push('perm')>", description: PAYLOADS }, { kind: "execute" }),
      ev.permission("req-1", "Bash", { command: "rm -rf <img src=x onerror=window.__xss.push('perm')>", description: PAYLOADS }, {
        toolUseId: "b1",
        kind: "execute",
        title: "<script>window.__xss.push('title')</script>",
        description: PAYLOADS,
        decisionReason: "<img src=x onerror=window.__xss.push('reason')>",
      }),
      ev.toolStart("p1", "ExitPlanMode", {}, { kind: "switch_mode", title: "Ready?" }),
      ev.plan("p1", `## Plan\n\n${PAYLOADS}\n\n[run](javascript:window.__xss.push('plan-link'))`),
    ]);
    await poke(page);
    assertInert(await inertReport(page));
    await page.getByRole("button", { name: "Allow", exact: true }).first().click();
    assert.deepEqual(await posted(page, "permission"), [{ type: "permission", requestId: "req-1", decision: "allow" }]);
    await done(page);
  });

  test("a 10 MB answer renders a bounded view with a notice, and the composer still works", T, async () => {
    const page = await openWatched();
    const huge = Array.from({ length: 120_000 }, (_, i) => `Paragraph ${i} with **bold**, \`code\` and [a link](https://example.com/${i}).`).join("\n\n").slice(0, 10 * MB);
    await assistant(page, huge);
    const size = await domSize(page);
    assert.ok(size.nodes < 50_000, `bounded DOM: ${size.nodes} elements`);
    assert.ok(size.chars < 1 * MB, `bounded text: ${size.chars} characters rendered`);
    assert.match(await page.locator(".md-overflow").innerText(), /M more characters of this message are not shown/);
    await stillUsable(page);
    await done(page);
  });

  test("10 MB streamed in 1 MB pieces stays bounded while it streams", T, async () => {
    const page = await openWatched();
    await events(page, [ev.messageStart("m1")]);
    const piece = "word ".repeat(MB / 5 - 1) + "\n\n";
    for (let i = 0; i < 10; i++) {
      await events(page, [ev.text("m1", piece)]);
      const size = await domSize(page);
      assert.ok(size.chars < 1 * MB, `bounded after ${i + 1} MB: ${size.chars}`);
    }
    await events(page, [ev.messageStop("m1")]);
    await page.locator(".md-overflow").waitFor();
    await stillUsable(page);
    await done(page);
  });

  test("one 1 MB line with no break renders and wraps inside the view", T, async () => {
    const page = await openWatched();
    await assistant(page, "x".repeat(MB));
    const overflow = await page.evaluate(() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth);
    assert.ok(overflow <= 1, `no horizontal overflow (${overflow}px)`);
    await stillUsable(page);
    await done(page);
  });

  const NESTED = {
    "10,000 nested block quotes": ">".repeat(10_000) + " deep",
    "10,000 nested lists": "- ".repeat(10_000) + "deep",
    "10,000 nested ordered lists": "1. ".repeat(10_000) + "deep",
    "10,000 open brackets and parentheses": "[".repeat(10_000) + "x" + "](".repeat(5_000) + ")".repeat(10_000),
    "10,000 nested emphasis markers": "*_".repeat(5_000) + "x" + "_*".repeat(5_000),
    "10,000 nested HTML tags": "<div>".repeat(10_000) + "deep" + "</div>".repeat(10_000),
  };
  for (const [what, text] of Object.entries(NESTED)) {
    test(`deeply nested markdown: ${what} render a shallow DOM`, T, async () => {
      const page = await openWatched();
      await assistant(page, text);
      const d = await depth(page);
      assert.ok(d < 400, `the DOM is ${d} levels deep`);
      await stillUsable(page);
      await done(page);
    });
  }

  test("huge tool outputs (10 MB Bash, Read, Grep, generic; a 100,000-line diff) render bounded, collapsed and expanded", T, async () => {
    const page = await openWatched();
    const big = Array.from({ length: 200_000 }, (_, i) => `line ${i} <b onmouseover=window.__xss.push('big')>x</b>`).join("\n").slice(0, 10 * MB);
    const lines = Array.from({ length: 100_000 }, (_, i) => (i % 2 ? "-" : "+") + `changed ${i}`);
    await events(page, [
      ev.toolStart("b1", "Bash", { command: "cat big" }),
      ev.toolResult("b1", { stdout: big, stderr: big.slice(0, MB), exitCode: 0, interrupted: false }, { content: big }),
      ev.toolStart("r1", "Read", { file_path: "/w/big.txt" }),
      ev.toolResult("r1", { type: "text", file: { filePath: "/w/big.txt", content: big, numLines: 200_000, startLine: 1, totalLines: 200_000 } }, { content: big }),
      ev.toolStart("g1", "Grep", { pattern: "line", output_mode: "content" }),
      ev.toolResult("g1", { mode: "content", numFiles: 1, filenames: [], content: big, numLines: 200_000 }, { content: big }),
      ev.toolStart("x1", "mcp__other__dump", { q: "all" }),
      ev.toolResult("x1", null, { content: big }),
      ev.toolStart("e1", "Edit", { file_path: "/w/big.txt", old_string: "a", new_string: "b" }),
      ev.toolResult("e1", { filePath: "/w/big.txt", oldString: "a", newString: "b", originalFile: big, structuredPatch: [{ oldStart: 1, oldLines: 50_000, newStart: 1, newLines: 50_000, lines }] }),
    ]);
    let size = await domSize(page);
    assert.ok(size.nodes < 20_000 && size.chars < 2 * MB, `collapsed: ${JSON.stringify(size)}`);
    for (const toggle of await page.locator(".tool-toggle").all()) await toggle.click({ force: true }).catch(() => undefined);
    for (const more of await page.locator(".tool button", { hasText: /Show all/ }).all()) await more.click({ force: true }).catch(() => undefined);
    await frames(page, 2);
    size = await domSize(page);
    assert.ok(size.nodes < 60_000 && size.chars < 4 * MB, `expanded: ${JSON.stringify(size)}`);
    await stillUsable(page);
    await done(page);
  });
});
