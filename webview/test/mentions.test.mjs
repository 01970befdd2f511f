// The composer's completion lists: slash commands (the agent's and the project's, with their
// descriptions), @-mentions of line ranges, folders, terminals and the Problems list; and which
// key sends (tether.sendWith).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { deliver, finish, frames, init, posted, screenshot, useWebview } from "./helpers.mjs";

const chat = useWebview();

const T = { timeout: 30_000 };

async function typeInto(page, text) {
  await page.evaluate((value) => {
    const ta = document.querySelector(".composer-input");
    ta.focus();
    ta.value = value;
    ta.setSelectionRange(value.length, value.length);
    ta.dispatchEvent(new InputEvent("input", { bubbles: true }));
  }, text);
}

/** Answers the next suggestFiles request (after the `before` ones already answered). */
async function suggest(page, items, before = 0) {
  await page.waitForFunction((n) => window.__posted.filter((m) => m.type === "suggestFiles").length > n, before);
  const req = (await posted(page, "suggestFiles")).at(-1);
  await deliver(page, { type: "fileSuggestions", requestId: req.requestId, items });
  return req;
}

describe("composer completion", () => {
  test("slash commands: the agent's and the project's, described, matched by prefix then substring", T, async () => {
    const page = await chat.open({ width: 300 });
    await init(page, {
      commands: [
        { name: "compact", description: "Clear the history but keep a summary", argumentHint: "<instructions>" },
        { name: "__internal", description: null, argumentHint: null },
      ],
      projectCommands: [
        { name: "deploy", description: "Deploy the app (project)", argumentHint: "<env>" },
        { name: "ops:redeploy", description: "Redeploy (project)", argumentHint: null },
      ],
    });
    await typeInto(page, "/");
    const items = page.locator("#command-list .mention-item");
    assert.deepEqual(await items.evaluateAll((els) => els.map((e) => e.dataset.command)), ["deploy", "ops:redeploy", "compact"]);
    assert.match(await items.nth(0).innerText(), /Deploy the app \(project\)/);
    await screenshot(page, "composer-commands-300");
    await typeInto(page, "/dep");
    assert.deepEqual(await items.evaluateAll((els) => els.map((e) => e.dataset.command)), ["deploy", "ops:redeploy"]);
    await page.keyboard.press("Enter");
    assert.equal(await page.locator(".composer-input").inputValue(), "/deploy ");
    await page.keyboard.type("staging");
    await page.keyboard.press("Enter");
    assert.equal((await posted(page, "sendPrompt")).at(-1).text, "/deploy staging");
    await finish(page);
  });

  test("a typed line range is kept when a file is picked, and is no chip", T, async () => {
    const page = await chat.open();
    await init(page);
    await typeInto(page, "see @app.js#L10-20");
    const req = await suggest(page, [{ path: "src/app.js", label: "src/app.js" }]);
    assert.equal(req.query, "app.js");
    await page.locator(".mention-item").first().waitFor();
    await page.keyboard.press("Enter");
    assert.equal(await page.locator(".composer-input").inputValue(), "see @src/app.js#L10-20 ");
    assert.equal(await page.locator(".composer-chips .chip").count(), 0);
    await finish(page);
  });

  test("folders, terminals and the Problems list are offered with their icons and written as mentions", T, async () => {
    const page = await chat.open();
    await init(page);
    await typeInto(page, "@");
    await suggest(page, [
      { path: "bash", label: "terminal:bash", kind: "terminal", detail: "recent output" },
      { path: "problems", label: "problems", kind: "problems", detail: "2 in the Problems list" },
      { path: "src/", label: "src/", kind: "folder" },
      { path: "src/app.js", label: "src/app.js" },
    ]);
    const items = page.locator(".mention-item");
    assert.equal(await items.count(), 4);
    assert.equal(await items.nth(0).locator(".codicon-terminal").count(), 1);
    assert.equal(await items.nth(1).locator(".codicon-warning").count(), 1);
    assert.equal(await items.nth(2).locator(".codicon-folder").count(), 1);
    assert.match(await items.nth(1).innerText(), /2 in the Problems list/);
    await screenshot(page, "composer-mentions");
    await page.keyboard.press("Enter");
    assert.equal(await page.locator(".composer-input").inputValue(), "@terminal:bash ");
    await page.keyboard.type("@pro");
    await suggest(page, [{ path: "problems", label: "problems", kind: "problems" }], (await posted(page, "suggestFiles")).length);
    await page.locator(".mention-item").first().waitFor();
    await page.keyboard.press("Enter");
    const asked = (await posted(page, "suggestFiles")).length;
    await page.keyboard.type("@sr");
    await suggest(page, [{ path: "src/", label: "src/", kind: "folder" }], asked);
    await page.locator(".mention-item").first().waitFor();
    await page.keyboard.press("Tab");
    assert.equal(await page.locator(".composer-input").inputValue(), "@terminal:bash @problems @src/ ");
    await finish(page);
  });

  test("with tether.sendWith shiftEnter, Shift+Enter sends and Enter starts a new line", T, async () => {
    const page = await chat.open();
    await init(page, { sendWith: "shiftEnter" });
    const input = page.locator(".composer-input");
    await input.click();
    await page.keyboard.type("one");
    await page.keyboard.press("Enter");
    await page.keyboard.type("two");
    assert.equal(await input.inputValue(), "one\ntwo");
    assert.equal((await posted(page, "sendPrompt")).length, 0);
    assert.match(await input.getAttribute("placeholder") ?? "", /./);
    await page.keyboard.press("Shift+Enter");
    assert.deepEqual((await posted(page, "sendPrompt")).at(-1), { type: "sendPrompt", text: "one\ntwo", attachments: [] });
    await frames(page, 1);
    await finish(page);
  });
});
