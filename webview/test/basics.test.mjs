// Basic states, streaming markdown and sanitization, notices and errors, header pickers, history.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ev } from "./fixtures.mjs";
import {
  clearPosted,
  deliver,
  events,
  finish,
  frames,
  init,
  posted,
  screenshot,
  useWebview,
} from "./helpers.mjs";

const chat = useWebview();

const T = { timeout: 30_000 };

describe("states", () => {
  test("loading before init, then the empty welcome state", T, async () => {
    const page = await chat.open();
    await page.locator(".loading-state").waitFor();
    assert.match(await page.locator(".loading-state").innerText(), /Starting/);
    // Typing does not wait for the extension's init; sending does.
    await page.locator(".composer-input").pressSequentially("hi");
    assert.equal(await page.locator(".composer-input").inputValue(), "hi");
    assert.equal(await page.locator(".send-button").isDisabled(), true);
    await screenshot(page, "01-loading");
    await init(page);
    assert.equal(await page.locator(".composer-input").inputValue(), "hi");
    await page.locator(".welcome").waitFor();
    assert.match(await page.locator(".welcome").innerText(), /@/);
    assert.equal(await page.locator(".loading-state").count(), 0);
    assert.equal(await page.locator(".composer-input").isDisabled(), false);
    await screenshot(page, "02-empty");
    const ready = await posted(page, "ready");
    assert.equal(ready.length, 1);
    await finish(page);
  });

  test("init fills the header: mode, model and where-it-runs badge", T, async () => {
    const page = await chat.open();
    await init(page, { mode: "plan", model: "claude-opus-4-1", where: "ui-remote" });
    assert.match(await page.locator(".mode-picker .picker-button").getAttribute("aria-label"), /Mode: Plan/);
    assert.match(await page.locator(".model-picker .picker-button").innerText(), /Opus 4\.1/);
    assert.match(await page.locator(".where-badge").getAttribute("aria-label"), /UI ↔ remote/);
    await deliver(page, { type: "state", where: "workspace" });
    assert.match(await page.locator(".where-badge").getAttribute("aria-label"), /Workspace/);
    await deliver(page, { type: "state", where: "local" });
    assert.match(await page.locator(".where-badge").getAttribute("aria-label"), /Local/);
    await finish(page);
  });

  test("the context meter shows the share used and the session's cost; its tooltip what fills it", T, async () => {
    const page = await chat.open();
    await init(page);
    assert.equal(await page.locator(".context-meter").count(), 0);
    const breakdown = [{ name: "System prompt", tokens: 420 }, { name: "Skills", tokens: 2067 }];
    await deliver(page, { type: "state", context: { used: 250_000, size: 1_000_000, cost: 0.000616, currency: "USD", breakdown } });
    const meter = page.locator(".context-meter");
    assert.equal(await meter.innerText(), "25% · $0.0006");
    const title = await meter.getAttribute("title");
    assert.match(title, /250,000 of 1,000,000 tokens \(25%\)/);
    assert.match(title, /Used by: System prompt 420, Skills 2,067/);
    assert.match(title, /Session cost: \$0\.0006/);
    await deliver(page, { type: "state", context: { used: 10, size: 100, cost: 1.5, currency: "EUR" } });
    assert.equal(await meter.innerText(), "10% · 1.50 EUR");
    await screenshot(page, "03-context-meter");
    await finish(page);
  });

  test("disconnected banner with Reconnect posting retry", T, async () => {
    const page = await chat.open();
    await init(page);
    await deliver(page, { type: "state", connected: false });
    const banner = page.locator(".banner-disconnected");
    await banner.waitFor();
    assert.equal(await banner.getAttribute("role"), "alert");
    assert.equal(await page.locator(".send-button").isDisabled(), true);
    await screenshot(page, "03-disconnected");
    await clearPosted(page);
    await banner.getByRole("button", { name: /Reconnect/ }).click();
    assert.deepEqual(await posted(page, "retry"), [{ type: "retry" }]);
    await deliver(page, { type: "state", connected: true });
    assert.equal(await page.locator(".banner-disconnected").count(), 0);
    await finish(page);
  });

  test("busy shows Stop, the working indicator, and Stop posts stop", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      ev.user("u1", "hello"),
      ev.status("running"),
    ]);
    await page.locator(".working").waitFor();
    await page.locator(".stop-button").click();
    assert.deepEqual(await posted(page, "stop"), [{ type: "stop" }]);
    await events(page, [ev.status("idle")]);
    assert.equal(await page.locator(".stop-button").count(), 0);
    assert.equal(await page.locator(".working").count(), 0);
    await finish(page);
  });
});

describe("streaming markdown", () => {
  test("text assembles across deltas, rendered as markdown, caret while streaming", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      ev.user("u1", "Explain"),
      ev.messageStart("m1"),
      ev.text("m1", "Hello **wor"),
    ]);
    const msg = page.locator('.msg-assistant[data-message-id="m1"]');
    await msg.waitFor();
    assert.equal(await msg.getAttribute("data-streaming"), "true");
    assert.equal(await msg.locator(".md.streaming").count(), 1);
    const chunks = ["ld**, this is", " a list:\n\n- one\n", "- two\n\n```py\nprint('x')", "\n```\n\nAnd a [link](https://example.com) end."];
    for (const c of chunks) await events(page, [ev.text("m1", c)]);
    await events(page, [ev.messageStop("m1")]);
    assert.equal(await msg.getAttribute("data-streaming"), "false");
    assert.equal(await msg.locator("strong").innerText(), "world");
    assert.deepEqual(await msg.locator("li").allInnerTexts(), ["one", "two"]);
    assert.equal((await msg.locator(".code-block code").innerText()).trim(), "print('x')");
    assert.equal(await msg.locator(".code-lang").innerText(), "py");
    assert.equal(await msg.locator('[data-action="copy-code"]').count(), 1);
    assert.equal(await msg.locator('a[href="https://example.com"]').count(), 1);
    assert.equal(await msg.locator(".md.streaming").count(), 0);
    // Several blocks: the finished ones were cached, not re-parsed with each delta.
    assert.ok((await msg.locator(".md-block").count()) >= 3);
    await screenshot(page, "04-streaming");
    await finish(page);
  });

  test("a message with no text (only a tool call) leaves no empty row", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      ev.messageStart("m1"),
      ev.toolStart("t1", "Read", { file_path: "/p/a" }, { kind: "read", title: "Read" }),
      ev.messageStop("m1"),
      ev.messageStart("m2"),
      ev.text("m2", "after the tool"),
    ]);
    assert.equal(await page.locator(".msg-assistant").count(), 1);
    assert.equal(await page.locator(".vrow").count(), 2);
    assert.match(await page.locator(".vrow").nth(1).innerText(), /after the tool/);
    await finish(page);
  });

  test("text without a message id continues the open message; after the turn a new one opens", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [ev.text(null, "Hel"), ev.text(null, "lo")]);
    assert.equal(await page.locator(".msg-assistant").count(), 1);
    assert.equal(await page.locator(".msg-assistant").innerText(), "Hello");
    await events(page, [ev.done(), ev.text(null, "Next turn")]);
    assert.equal(await page.locator(".msg-assistant").count(), 2);
    assert.equal(await page.locator(".msg-assistant").nth(0).getAttribute("data-streaming"), "false");
    assert.match(await page.locator(".msg-assistant").nth(1).innerText(), /Next turn/);
    await finish(page);
  });

  test("completed blocks keep their DOM while the tail streams", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      ev.messageStart("m1"),
      ev.text("m1", "First paragraph.\n\nSecond"),
    ]);
    await page.evaluate(() => {
      window.__firstBlock = document.querySelector(".md-block");
    });
    for (let i = 0; i < 5; i++) await events(page, [ev.text("m1", ` more ${i}`)]);
    const same = await page.evaluate(() => document.querySelector(".md-block") === window.__firstBlock);
    assert.equal(same, true);
    assert.match(await page.locator(".md-block").nth(1).innerText(), /Second more 0 more 1 more 2 more 3 more 4/);
    await finish(page);
  });

  for (const csp of [true, false]) {
    test(`hostile markdown is inert (${csp ? "with" : "without"} the CSP)`, T, async () => {
      const page = await chat.open({ query: csp ? "" : "?nocsp=1" });
      await init(page);
      const evil = [
        "<script>window.__xss.push('script')</script>",
        '<img src=x onerror="window.__xss.push(\'img\')">',
        "[click](javascript:window.__xss.push('link'))",
        "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[vb](vbscript:msgbox(1))",
        "[cmd](command:workbench.action.terminal.new)",
        "<a href=\"javascript:alert(1)\">raw</a>",
        "![pixel](https://tracker.example/p.png) ![x](javascript:alert(1))",
        "<svg onload=\"window.__xss.push('svg')\"></svg>",
        "<iframe src=\"https://evil.example\"></iframe>",
        "<style>body{display:none}</style>",
        "| a | b |\n|:--|--:|\n| 1 | 2 |",
        "<javascript:alert(1)>",
        "[spaced](java\tscript:alert(1))",
      ].join("\n\n");
      await events(page, [
        ev.messageStart("m1"),
        ev.text("m1", evil),
        ev.messageStop("m1"),
        ev.user("u1", "<img src=x onerror=\"window.__xss.push('user')\">"),
      ]);
      await frames(page, 3);
      const report = await page.evaluate(() => {
        const root = document.querySelector(".vlist");
        const all = [...root.querySelectorAll("*")];
        return {
          xss: window.__xss,
          scripts: root.querySelectorAll("script, iframe, svg:not(.codicon), style, object, embed").length,
          imgs: root.querySelectorAll("img").length,
          onAttrs: all.filter((el) => [...el.attributes].some((a) => /^on/i.test(a.name))).length,
          styleAttrs: all.filter((el) => (el.getAttribute("style") ?? "").trim() && !el.classList.contains("vspacer")).length,
          badHrefs: [...root.querySelectorAll("[href],[src]")]
            .map((el) => el.getAttribute("href") ?? el.getAttribute("src"))
            .filter((h) => /^\s*(javascript|data|vbscript|command)\s*:/i.test(h.replace(/\s/g, ""))),
          text: root.innerText,
          alignClasses: root.querySelectorAll("th.align-left, td.align-right").length,
        };
      });
      await frames(page, 2);
      assert.deepEqual(report.xss, [], "no injected script ran");
      assert.equal(report.scripts, 0);
      assert.equal(report.imgs, 0, "no image is loaded from markdown");
      assert.equal(report.onAttrs, 0);
      assert.equal(report.styleAttrs, 0);
      assert.deepEqual(report.badHrefs, []);
      assert.match(report.text, /<script>window\.__xss/, "raw HTML is shown as text");
      assert.match(report.text, /\[image: pixel\]/);
      assert.equal(report.alignClasses, 2, "table alignment uses classes");
      assert.deepEqual(await page.evaluate(() => window.__xss), []);
      await finish(page);
    });
  }

  test("file links in markdown post openFile with the line", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      ev.messageStart("m1"),
      ev.text("m1", "See [app.ts](src/app.ts:42) and [b](/data/proj/b.rs#L7)."),
      ev.messageStop("m1"),
    ]);
    await page.locator(".md a", { hasText: "app.ts" }).click();
    await page.locator(".md a", { hasText: /^b$/ }).click();
    assert.deepEqual(await posted(page, "openFile"), [
      { type: "openFile", path: "src/app.ts", line: 42 },
      { type: "openFile", path: "/data/proj/b.rs", line: 7 },
    ]);
    await finish(page);
  });

  test("thinking is collapsed by default, shows Thinking… while live, expands on click", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      ev.messageStart("m1"),
      ev.thinking("m1", "Let me consider the **options**"),
    ]);
    const toggle = page.locator(".thinking-toggle");
    await toggle.waitFor();
    assert.equal(await toggle.getAttribute("aria-expanded"), "false");
    assert.match(await toggle.innerText(), /Thinking…/);
    assert.equal(await page.locator(".thinking-md").count(), 0);
    assert.equal(await page.locator(".thinking .codicon-modifier-spin").count(), 1);
    await events(page, [
      ev.thinking("m1", " carefully."),
      ev.text("m1", "Answer."),
      ev.messageStop("m1"),
    ]);
    assert.doesNotMatch(await toggle.innerText(), /…/);
    await toggle.click();
    await frames(page);
    assert.equal(await toggle.getAttribute("aria-expanded"), "true");
    assert.match(await page.locator(".thinking-md").innerText(), /Let me consider the options carefully\./);
    assert.equal(await page.locator(".thinking-md strong").innerText(), "options");
    await toggle.click();
    await frames(page);
    assert.equal(await page.locator(".thinking-md").count(), 0);
    await finish(page);
  });
});

describe("a session's transcript (an agent's own history)", () => {
  const transcript = (messages, hasMore, older) => ({ type: "transcript", sessionId: "agent:main:main", messages, hasMore, older });

  test("a switched-to session replaces the chat; Load earlier messages posts loadOlder and the older page goes first", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [ev.user("u0", "from the session before")]);
    await events(page, [
      transcript(
        [
          { role: "user", text: "third question" },
          { role: "assistant", text: "third answer" },
        ],
        true,
        false,
      ),
    ]);
    assert.equal(await page.locator(".user-text").count(), 1);
    assert.match(await page.locator(".user-text").first().innerText(), /third question/);
    assert.match(await page.locator(".msg-assistant").first().innerText(), /third answer/);
    const older = page.getByRole("button", { name: "Load earlier messages" });
    await older.click();
    assert.deepEqual(await posted(page, "loadOlder"), [{ type: "loadOlder" }]);
    await events(page, [transcript([{ role: "user", text: "first question" }, { role: "assistant", text: "first answer" }], false, true)]);
    assert.equal(await older.count(), 0, "no earlier page left");
    const texts = await page.locator(".user-text").allInnerTexts();
    assert.deepEqual(texts, ["first question", "third question"]);
    await finish(page);
  });
});

describe("notices and errors", () => {
  test("api_retry notice updates in place", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      ev.user("u1", "hi"),
      ev.status("running"),
      ev.apiRetry(1, 4000, "overloaded"),
    ]);
    await events(page, [ev.apiRetry(2, 8000, "overloaded_error", { errorStatus: 529 })]);
    const retry = page.locator(".notice-retry");
    assert.equal(await retry.count(), 1);
    assert.equal(await retry.innerText(), "Retrying in 8s (attempt 2/10): 529 overloaded_error");
    await events(page, [{ type: "rateLimit", status: "allowed_warning", resetsAt: null, limitType: "five_hour" }]);
    assert.equal(await page.locator(".notice-warning", { hasText: "Rate limit allowed_warning" }).count(), 1);
    await finish(page);
  });

  test("errors: Retry posts retry; login shows the hint", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      ev.user("u1", "hi"),
      ev.error("api", "529 overloaded_error"),
    ]);
    const card = page.locator(".error-api");
    await card.waitFor();
    assert.equal(await card.getAttribute("role"), "alert");
    await card.getByRole("button", { name: /Retry/ }).click();
    assert.deepEqual(await posted(page, "retry"), [{ type: "retry" }]);
    assert.equal(await card.getByRole("button", { name: /Retrying/ }).isDisabled(), true);
    await events(page, [ev.error("notLoggedIn", "Invalid API key · Please run /login")]);
    const login = page.locator(".error-notLoggedIn");
    await login.waitFor();
    assert.match(await login.innerText(), /Not logged in/);
    assert.match(await login.innerText(), /ANTHROPIC_API_KEY/);
    await events(page, [ev.error("controlRequestFailed", "bad frame")]);
    assert.equal(await page.locator(".error-controlRequestFailed .error-retry").count(), 0);
    await screenshot(page, "05-errors");
    await finish(page);
  });

  test("the agent's notices: a denial, compaction, a failed MCP server, an error of notice severity", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      ev.user("u1", "hi"),
      ev.status("running"),
      { type: "permissionDenied", toolUseId: "t1", toolName: "Bash", message: "not allowed in plan mode", reason: "mode", agentId: null },
      { type: "compacted", trigger: "auto", preTokens: 150000 },
      { type: "mcpStatus", servers: [{ name: "tether", status: "connected" }, { name: "db", status: "failed" }] },
      ev.error("interrupted", "Stopped by the user.", { severity: "notice", hint: "Send a prompt to go on." }),
    ]);
    const notices = await page.locator(".notice").allInnerTexts();
    assert.deepEqual(notices.slice(0, 3), [
      "Bash was denied (mode): not allowed in plan mode",
      "The conversation was compacted.",
      "MCP server db (failed)",
    ]);
    assert.match(notices[3] ?? "", /^Stopped by the user\.\s+Send a prompt to go on\.$/);
    assert.equal(notices.length, 4);
    assert.equal(await page.locator(".notice-warning").count(), 2);
    // A notice does not end the turn.
    assert.equal(await page.locator(".working").count(), 1);
    assert.equal(await page.locator(".error-card").count(), 0);
    await finish(page);
  });

  test("done line with usage", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      ev.user("u1", "hi"),
      ev.usage(12000, 678, { cacheReadTokens: 300, cacheCreationTokens: 45, costUsd: 0.0421 }),
      ev.done({ durationMs: 12300, numTurns: 3 }),
    ]);
    const line = await page.locator(".done-line").innerText();
    assert.match(line, /Done/);
    assert.match(line, /12s/);
    assert.match(line, /3 turns/);
    assert.match(line, /12k in \/ 678 out/);
    assert.match(line, /\$0\.04/);
    await finish(page);
  });
});

describe("header", () => {
  test("mode picker lists descriptions and posts setMode (mouse and keyboard)", T, async () => {
    const page = await chat.open();
    await init(page);
    const button = page.locator(".mode-picker .picker-button");
    await button.click();
    const list = page.getByRole("listbox", { name: "Mode" });
    await list.waitFor();
    assert.equal(await list.getByRole("option").count(), 5);
    assert.match(await list.innerText(), /Read and plan only/);
    await screenshot(page, "06-mode-picker");
    await list.getByRole("option", { name: /Plan/ }).click();
    assert.deepEqual(await posted(page, "setMode"), [{ type: "setMode", mode: "plan" }]);
    assert.match(await button.getAttribute("aria-label"), /Plan/);
    // Keyboard: open with ArrowDown, move, Enter.
    await button.focus();
    await page.keyboard.press("ArrowDown");
    await list.waitFor();
    // The list takes focus in an effect after it opens; a key pressed before that reaches the button.
    await page.waitForFunction(() => document.activeElement?.getAttribute("role") === "listbox");
    const before = await list.getAttribute("aria-activedescendant");
    await page.keyboard.press("ArrowDown");
    await page.waitForFunction(
      (id) => document.querySelector('[role="listbox"]')?.getAttribute("aria-activedescendant") !== id,
      before,
    );
    await page.keyboard.press("Enter");
    assert.deepEqual((await posted(page, "setMode")).at(-1), { type: "setMode", mode: "dontAsk" });
    assert.equal(await page.getByRole("listbox").count(), 0);
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("picker-button")), true);
    // modeChanged from the agent updates the picker and leaves a notice.
    await events(page, [ev.modeChanged("acceptEdits")]);
    assert.match(await button.getAttribute("aria-label"), /Accept edits/);
    await page.keyboard.press("Escape");
    await finish(page);
  });

  test("model picker posts setModel", T, async () => {
    const page = await chat.open();
    await init(page);
    await page.locator(".model-picker .picker-button").click();
    await page.getByRole("option", { name: /Haiku 4\.5/ }).click();
    assert.deepEqual(await posted(page, "setModel"), [{ type: "setModel", model: "claude-haiku-4-5" }]);
    assert.match(await page.locator(".model-picker .picker-button").innerText(), /Haiku/);
    await finish(page);
  });

  test("new session posts newSession; clear empties the transcript", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [ev.user("u1", "hi")]);
    await page.getByRole("button", { name: "New session" }).click();
    assert.deepEqual(await posted(page, "newSession"), [{ type: "newSession" }]);
    await deliver(page, { type: "clear" });
    await page.locator(".welcome").waitFor();
    assert.equal(await page.locator(".msg-user").count(), 0);
    await finish(page);
  });

  test("history: empty state, list, resume, replay", T, async () => {
    const page = await chat.open();
    await init(page);
    await page.getByRole("button", { name: "Session history" }).click();
    assert.deepEqual(await posted(page, "requestHistory"), [{ type: "requestHistory" }]);
    const panel = page.getByRole("dialog", { name: "Session history" });
    await panel.waitFor();
    assert.match(await panel.innerText(), /Loading/);
    await deliver(page, { type: "history", sessions: [] });
    assert.match(await panel.innerText(), /No past sessions/);
    await page.keyboard.press("Escape");
    assert.equal(await page.getByRole("dialog").count(), 0);
    await page.getByRole("button", { name: "Session history" }).click();
    const now = Date.now();
    await deliver(page, {
      type: "history",
      sessions: [
        { id: "s-old", title: "Refactor the parser", updatedAt: now - 3 * 86400_000, messageCount: 42 },
        { id: "s-new", title: "Fix flaky test", updatedAt: new Date(now - 120_000).toISOString(), messageCount: 7 },
      ],
    });
    const items = page.locator(".history-item");
    assert.equal(await items.count(), 2);
    await frames(page, 1);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-session-id")), "s-new", "focus on the newest session");
    await page.keyboard.press("ArrowDown");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-session-id")), "s-old");
    assert.match(await items.nth(0).innerText(), /Fix flaky test[\s\S]*2 min ago · 7 messages/);
    await screenshot(page, "07-history");
    await items.nth(1).click();
    assert.deepEqual(await posted(page, "resume"), [{ type: "resume", sessionId: "s-old" }]);
    assert.equal(await page.getByRole("dialog").count(), 0);
    await deliver(page, {
      type: "replay",
      events: [
        ev.user("u1", "Refactor the parser"),
        ev.messageStart("m1"),
        ev.text("m1", "Done, see `parser.rs`."),
      ],
    });
    await page.locator(".msg-user", { hasText: "Refactor the parser" }).waitFor();
    assert.equal(await page.locator(".msg-assistant").getAttribute("data-streaming"), "false");
    await finish(page);
  });

  test("history: fork and close only where the agent offers them", T, async () => {
    const page = await chat.open();
    await init(page, { sessionId: "s-now", offers: ["setMode", "interrupt"] });
    const sessions = [
      { id: "s-now", title: "This one", updatedAt: Date.now(), messageCount: 3 },
      { id: "s-old", title: "Earlier", updatedAt: Date.now() - 86400_000, messageCount: 9 },
    ];
    await page.getByRole("button", { name: "Session history" }).click();
    await deliver(page, { type: "history", sessions });
    assert.equal(await page.locator(".history-action").count(), 0, "no fork, no close: the agent offers neither");
    await page.keyboard.press("Escape");
    await deliver(page, { type: "state", offers: ["setMode", "fork", "close"] });
    await page.getByRole("button", { name: "Session history" }).click();
    await deliver(page, { type: "history", sessions });
    assert.equal(await page.locator(".history-fork").count(), 2, "each session can be forked");
    assert.equal(await page.locator(".history-end").count(), 1, "only the current one can be closed");
    await screenshot(page, "07b-history-actions");
    await page.getByRole("button", { name: "Fork Earlier" }).click();
    assert.deepEqual(await posted(page, "forkSession"), [{ type: "forkSession", sessionId: "s-old" }]);
    await page.getByRole("button", { name: "Session history" }).click();
    await deliver(page, { type: "history", sessions });
    await page.getByRole("button", { name: "Close this session in the agent" }).click();
    assert.deepEqual(await posted(page, "closeSession"), [{ type: "closeSession" }]);
    await finish(page);
  });
});

describe("plumbing", () => {
  test("renderWebviewHtml produces the CSP with the nonce and the three URIs", T, async () => {
    const { renderWebviewHtml } = await import("../out/html.js");
    const html = renderWebviewHtml({
      cspSource: "https://file+.vscode-resource.vscode-cdn.net",
      nonce: "abcDEF123456",
      scriptUri: "https://x/out/main.js",
      styleUri: "https://x/out/main.css",
      codiconUri: "https://x/out/codicon.css",
    });
    assert.match(
      html,
      /content="default-src 'none'; style-src https:\/\/file\+\.vscode-resource\.vscode-cdn\.net 'nonce-abcDEF123456'; script-src 'nonce-abcDEF123456'; font-src https:\/\/file\+\.vscode-resource\.vscode-cdn\.net; img-src https:\/\/file\+\.vscode-resource\.vscode-cdn\.net data:"/,
    );
    assert.match(html, /<script nonce="abcDEF123456" src="https:\/\/x\/out\/main\.js"><\/script>/);
    assert.match(html, /href="https:\/\/x\/out\/main\.css"/);
    assert.match(html, /href="https:\/\/x\/out\/codicon\.css"/);
    assert.throws(() => renderWebviewHtml({ cspSource: "x", nonce: "a\"b", scriptUri: "", styleUri: "", codiconUri: "" }));
  });

  test("renderWebviewHtml frames only the gateway origins it is given, and nothing that is not an origin", T, async () => {
    const { renderWebviewHtml } = await import("../out/html.js");
    const render = (frameOrigins) =>
      renderWebviewHtml({ cspSource: "vscode-resource:", nonce: "abcDEF123456", scriptUri: "", styleUri: "", codiconUri: "", frameOrigins });
    assert.doesNotMatch(render(undefined), /frame-src/);
    assert.doesNotMatch(render([]), /frame-src/);
    assert.match(render(["http://127.0.0.1:18789"]), /; frame-src http:\/\/127\.0\.0\.1:18789"/);
    assert.match(render(["https://gw.example", "http://[::1]:18789"]), /; frame-src https:\/\/gw\.example http:\/\/\[::1\]:18789"/);
    for (const bad of ["*", "http:", "http://a.example/path", "http://a.example; script-src *", "javascript:x", "http://*.example"]) {
      assert.doesNotMatch(render([bad]), /frame-src/, bad);
    }
  });

  test("the draft survives a reload through vscode.setState", T, async () => {
    const page = await chat.open();
    await init(page);
    await page.locator(".composer-input").fill("half-written thought");
    await page.waitForFunction(() => JSON.parse(sessionStorage.getItem("__vscodeState") || "{}").draft === "half-written thought");
    await page.reload();
    await page.waitForFunction(() => window.__posted?.some((m) => m.type === "ready"));
    await init(page);
    assert.equal(await page.locator(".composer-input").inputValue(), "half-written thought");
    await finish(page);
  });

  test("codicon font loads under the CSP", T, async () => {
    const page = await chat.open();
    await init(page);
    const ok = await page.evaluate(async () => {
      await document.fonts.ready;
      return document.fonts.check('16px "codicon"');
    });
    assert.equal(ok, true);
    await finish(page);
  });
});
