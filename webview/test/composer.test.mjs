// The composer: Enter/Shift+Enter, @-file mentions round trip, attachment chips, pasted images, stop.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ev } from "./fixtures.mjs";
import { deliver, events, finish, frames, init, posted, screenshot, useWebview } from "./helpers.mjs";

const chat = useWebview();

const T = { timeout: 30_000 };

describe("composer", () => {
  test("Enter sends, Shift+Enter adds a line, the composer clears", T, async () => {
    const page = await chat.open();
    await init(page);
    const input = page.locator(".composer-input");
    await input.click();
    await page.keyboard.type("first line");
    await page.keyboard.press("Shift+Enter");
    await page.keyboard.type("second line");
    assert.equal(await input.inputValue(), "first line\nsecond line");
    await page.keyboard.press("Enter");
    assert.deepEqual(await posted(page, "sendPrompt"), [{ type: "sendPrompt", text: "first line\nsecond line", attachments: [] }]);
    assert.equal(await input.inputValue(), "");
    // Empty input does not send.
    await page.keyboard.press("Enter");
    assert.equal((await posted(page, "sendPrompt")).length, 1);
    // ArrowUp recalls the last prompt.
    await page.keyboard.press("ArrowUp");
    assert.equal(await input.inputValue(), "first line\nsecond line");
    await finish(page);
  });

  test("@-mention: debounced suggestFiles, popup, keyboard navigation, accept adds a chip", T, async () => {
    const page = await chat.open();
    await init(page);
    const input = page.locator(".composer-input");
    await input.click();
    // Debounced: nothing is asked in the same task as the keystroke.
    const immediate = await page.evaluate(() => {
      const ta = document.querySelector(".composer-input");
      ta.value = "look at @par";
      ta.setSelectionRange(ta.value.length, ta.value.length);
      ta.dispatchEvent(new InputEvent("input", { bubbles: true }));
      return window.__posted.filter((m) => m.type === "suggestFiles").length;
    });
    assert.equal(immediate, 0);
    await page.waitForFunction(() => window.__posted.some((m) => m.type === "suggestFiles"));
    await frames(page, 2);
    const reqs = await posted(page, "suggestFiles");
    assert.equal(reqs.length, 1);
    assert.equal(reqs[0].query, "par");
    assert.ok(reqs[0].requestId);
    // A stale answer is ignored.
    await deliver(page, { type: "fileSuggestions", requestId: "stale", items: [{ path: "/x/stale.rs", label: "stale.rs" }] });
    assert.equal(await page.locator(".mention-item").count(), 0);
    await deliver(page, {
      type: "fileSuggestions",
      requestId: reqs[0].requestId,
      items: [
        { path: "/data/proj/src/parse.rs", label: "src/parse.rs" },
        { path: "/data/proj/src/parser.rs", label: "src/parser.rs" },
        { path: "/data/proj/docs/parsing.md", label: "docs/parsing.md" },
      ],
    });
    const items = page.locator(".mention-item");
    assert.equal(await items.count(), 3);
    assert.equal(await input.getAttribute("aria-controls"), "mention-list");
    assert.equal(await items.nth(0).getAttribute("aria-selected"), "true");
    await page.keyboard.press("ArrowDown");
    assert.equal(await items.nth(1).getAttribute("aria-selected"), "true");
    assert.equal(await input.getAttribute("aria-activedescendant"), await items.nth(1).getAttribute("id"));
    await screenshot(page, "17-mention");
    await page.keyboard.press("Enter");
    assert.equal(await input.inputValue(), "look at @src/parser.rs ");
    assert.equal(await page.locator(".mention-popup").count(), 0);
    assert.equal(await page.locator(".composer-chips .chip").count(), 1);
    await page.keyboard.type("please");
    await page.keyboard.press("Enter");
    assert.deepEqual((await posted(page, "sendPrompt")).at(-1), {
      type: "sendPrompt",
      text: "look at @src/parser.rs please",
      attachments: [{ kind: "file", path: "/data/proj/src/parser.rs" }],
    });
    await finish(page);
  });

  test("@-mention: Escape closes the popup; the mouse can pick", T, async () => {
    const page = await chat.open();
    await init(page);
    await page.locator(".composer-input").click();
    await page.keyboard.type("@");
    await page.waitForFunction(() => window.__posted.some((m) => m.type === "suggestFiles"));
    const [req] = await posted(page, "suggestFiles");
    assert.equal(req.query, "");
    await page.locator(".mention-popup").waitFor();
    await deliver(page, { type: "fileSuggestions", requestId: req.requestId, items: [{ path: "/p/a.txt", label: "a.txt" }] });
    await page.keyboard.press("Escape");
    assert.equal(await page.locator(".mention-popup").count(), 0);
    await page.keyboard.type("b");
    await page.waitForFunction(() => window.__posted.filter((m) => m.type === "suggestFiles").length === 2);
    const req2 = (await posted(page, "suggestFiles"))[1];
    await deliver(page, { type: "fileSuggestions", requestId: req2.requestId, items: [{ path: "/p/b.txt", label: "b.txt" }] });
    await page.locator(".mention-item").click();
    assert.equal(await page.locator(".composer-input").inputValue(), "@b.txt ");
    await finish(page);
  });

  test("attachments from the extension and pasted images", T, async () => {
    const page = await chat.open();
    await init(page);
    await deliver(page, {
      type: "addAttachment",
      attachment: { kind: "selection", path: "/data/proj/src/app.ts", range: { startLine: 10, endLine: 14 }, text: "function add() {}" },
    });
    await deliver(page, { type: "prefill", text: "What does this do?" });
    assert.equal(await page.locator(".composer-input").inputValue(), "What does this do?");
    assert.match(await page.locator(".composer-chips").innerText(), /app\.ts:10-14/);
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("composer-input")), true);
    // Paste a 1×1 PNG.
    await page.evaluate(() => {
      const b64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], "shot.png", { type: "image/png" }));
      document.querySelector(".composer-input").dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    });
    await page.locator(".composer-chips .chip-image img").waitFor();
    await screenshot(page, "18-attachments");
    // Remove the selection chip with its button, then send.
    await page.getByRole("button", { name: /Remove app\.ts/ }).click();
    await page.locator(".composer-input").press("Enter");
    const [sent] = await posted(page, "sendPrompt");
    assert.equal(sent.text, "What does this do?");
    assert.equal(sent.attachments.length, 1);
    assert.equal(sent.attachments[0].kind, "image");
    assert.equal(sent.attachments[0].mimeType, "image/png");
    assert.match(sent.attachments[0].dataUrl, /^data:image\/png;base64,iVBOR/);
    await finish(page);
  });

  test("busy: Stop button and Escape post stop", T, async () => {
    const page = await chat.open();
    await init(page, { busy: true });
    await page.locator(".stop-button").waitFor();
    await page.locator(".composer-input").click();
    await page.keyboard.press("Escape");
    assert.deepEqual(await posted(page, "stop"), [{ type: "stop" }]);
    await screenshot(page, "19-busy");
    await events(page, [ev.status("idle")]);
    assert.equal(await page.locator(".stop-button").count(), 0);
    await finish(page);
  });

  test("user messages show their attachments", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      ev.user("u1", "see this", { attachments: [{ kind: "file", path: "/data/proj/README.md" }, { kind: "selection", path: "/data/proj/a.rs", range: { startLine: 3, endLine: 9 } }] }),
    ]);
    const chips = page.locator(".msg-user .chip");
    assert.equal(await chips.count(), 2);
    await chips.nth(1).locator("a").click();
    assert.deepEqual(await posted(page, "openFile"), [{ type: "openFile", path: "/data/proj/a.rs", line: 3 }]);
    await finish(page);
  });
});
