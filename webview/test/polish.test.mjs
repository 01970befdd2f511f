// Narrow panels: the header's pickers fold into an Options menu when they do not fit, tool rows
// name files relative to the workspace (the full path on hover), errors are one line with
// their details on demand.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ev } from "./fixtures.mjs";
import { events, finish, frames, init, screenshot, useWebview } from "./helpers.mjs";

const chat = useWebview();

const T = { timeout: 30_000 };

const WIDE_STATE = {
  agent: "claude",
  agents: [
    { id: "claude", label: "Claude Code" },
    { id: "gemini", label: "Gemini CLI" },
  ],
  model: "claude-opus-5-5",
  models: [{ id: "claude-opus-5-5", label: "claude-opus-5-5 (the long model name)" }],
  workspaceRoot: "/data/proj",
};

describe("narrow panels", () => {
  test("at 300 px the pickers fold into an Options menu that holds each of them, named; at 1000 px they are a row", T, async () => {
    const page = await chat.open({ width: 300 });
    await init(page, WIDE_STATE);
    await frames(page, 3);
    const options = page.getByRole("button", { name: /Options/ });
    await options.waitFor();
    assert.equal(await page.locator(".header .model-picker").count(), 0);
    await options.click();
    const menu = page.getByRole("dialog", { name: "Agent, mode and model" });
    await menu.waitFor();
    assert.deepEqual(await menu.locator(".picker").evaluateAll((els) => els.map((e) => e.dataset.name)), ["Agent", "Mode", "Model"]);
    await screenshot(page, "header-options-300");
    // The focus is on the Options button, outside the menu: Escape closes the menu all the same.
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "detached" });
    await page.setViewportSize({ width: 1000, height: 760 });
    await page.locator(".header .model-picker").waitFor();
    assert.equal(await options.count(), 0);
    await finish(page);
  });

  test("a tool row names its file relative to the workspace, with the full path on hover", T, async () => {
    const page = await chat.open({ width: 300 });
    await init(page, WIDE_STATE);
    await events(page, [
      ev.user("u1", "read it"),
      ev.toolStart("r1", "Read", { file_path: "/data/proj/src/deeply/nested/app.js" }),
      ev.toolResult("r1", null, { content: "1\tx" }),
    ]);
    const dir = page.locator(".path-dir").first();
    await dir.waitFor();
    assert.equal((await dir.innerText()).trim(), "src/deeply/nested");
    assert.equal(await dir.getAttribute("title"), "/data/proj/src/deeply/nested/app.js");
    await finish(page);
  });

  test("an error is one line; Details shows the message", T, async () => {
    const page = await chat.open({ width: 300 });
    await init(page);
    await events(page, [ev.user("u1", "hi"), ev.error("api", "400 invalid_request_error: a long message\nwith a second line")]);
    const card = page.locator(".error-api");
    await card.waitFor();
    assert.equal(await card.locator(".error-message").count(), 0);
    const box = await card.boundingBox();
    assert.ok(box && box.height < 40, `one line high (${box?.height} px)`);
    await card.getByRole("button", { name: "Details" }).click();
    assert.match(await card.locator(".error-message").innerText(), /with a second line/);
    await finish(page);
  });

  test("a notice with a long path wraps inside a 300 px panel", T, async () => {
    const page = await chat.open({ width: 300 });
    await init(page);
    const path = "/tmp/tether-e2e-idetools-iKkHdx/workspace/.tether/checkpoints/smwz1u4fu1";
    // After a turn's end, where the checkpoint notice comes.
    await events(page, [
      ev.user("u1", "hi"),
      ev.messageStart("m1"),
      ev.text("m1", "The workspace is not trusted, so nothing was changed."),
      ev.messageStop("m1"),
      ev.done(),
      ev.error("other", `Checkpoints could not be saved: The workspace is not trusted, so Tether cannot write ${path}. Ask the user to trust the workspace (Manage Workspace Trust).`, { severity: "notice" }),
    ]);
    const notice = page.locator(".notice", { hasText: "Checkpoints could not be saved" });
    await notice.waitFor();
    const overflow = await notice.evaluate((el) => {
      const text = el.querySelector(":scope > span:last-child");
      return { right: text.getBoundingClientRect().right, width: document.documentElement.clientWidth, scroll: text.scrollWidth - text.clientWidth };
    });

    assert.ok(overflow.right <= overflow.width && overflow.scroll <= 0, `the notice stays inside the panel: ${JSON.stringify(overflow)}`);
    await finish(page);
  });

  test("an error of no titled kind says its first line; the rest and the hint are in Details", T, async () => {
    const page = await chat.open({ width: 300 });
    await init(page);
    await events(page, [ev.user("u1", "hi"), ev.error("other", "Waiting for approval of Edit a.txt when the window reloaded\nsecond line", { hint: "Retry sends it again." })]);
    const card = page.locator(".error-other");
    await card.waitFor();
    assert.equal((await card.locator(".error-title").innerText()).trim(), "Waiting for approval of Edit a.txt when the window reloaded");
    assert.equal(await card.locator(".error-message").count(), 0);
    await card.getByRole("button", { name: "Details" }).click();
    assert.equal((await card.locator(".error-message").innerText()).trim(), "second line\nRetry sends it again.");
    await finish(page);
  });
});
