// Turn control: the queue above the composer (edit, remove, send now) and the panels of subagents
// and background tasks (live output, stop), readable at 300 px.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ev } from "./fixtures.mjs";
import { deliver, events, finish, init, posted, screenshot, useWebview } from "./helpers.mjs";

const chat = useWebview();
const T = { timeout: 30_000 };

const queue = [
  { id: "q1", text: "then run the whole test suite and tell me which tests fail, with their names", attachments: [{ kind: "file", path: "src/app.ts" }] },
  { id: "q2", text: "and fix the typo" },
];

const task = (taskId, status, extra = {}) => ({ type: "taskUpdate", taskId, toolUseId: "toolu_agent", status, description: "Survey the parser module", summary: null, ...extra });

describe("turn control", () => {
  test("queued messages show above the composer; edit, remove and send now ask the extension", T, async () => {
    const page = await chat.open({ width: 300 });
    await init(page, { busy: true, queue });
    const items = page.locator(".queue-item");
    assert.equal(await items.count(), 2);
    assert.match(await page.locator(".queue-head").innerText(), /Queued \(2\)/);
    await screenshot(page, "turns-queue-300");
    // Every control fits: the text is cut, the buttons stay inside the item.
    const box = await items.first().boundingBox();
    const send = await items.first().locator(".queue-send-now").boundingBox();
    assert.ok(send.x + send.width <= box.x + box.width + 0.5, "send now inside the item");

    await items.nth(1).locator(".queue-edit-button").click();
    const edit = page.locator(".queue-edit");
    await edit.fill("and fix the typo in README.md");
    await edit.press("Enter");
    assert.deepEqual(await posted(page, "editQueued"), [{ type: "editQueued", id: "q2", text: "and fix the typo in README.md" }]);
    await items.first().locator(".queue-remove").click();
    assert.deepEqual(await posted(page, "removeQueued"), [{ type: "removeQueued", id: "q1" }]);
    await items.nth(1).locator(".queue-send-now").click();
    assert.deepEqual(await posted(page, "sendNow"), [{ type: "sendNow", id: "q2" }]);
    await deliver(page, { type: "state", queue: [] });
    assert.equal(await page.locator(".queue-panel").count(), 0);
    await finish(page);
  });

  test("a subagent's panel shows its live output, and Stop asks for the task", T, async () => {
    const page = await chat.open({ width: 300 });
    await init(page, { busy: true });
    await events(page, [
      ev.toolStart("toolu_agent", "Agent", { description: "Survey the parser module", prompt: "look", subagent_type: "Explore" }),
      task("a1b2", "started"),
      ev.toolStart("toolu_sub_1", "Read", { file_path: "/w/src/parser.ts" }, { parentToolUseId: "toolu_agent", title: "Read src/parser.ts" }),
      ev.messageStart("msg_sub", "toolu_agent"),
      ev.text("msg_sub", "The parser has three entry points.", "toolu_agent"),
    ]);
    const panel = page.locator(".task-panel");
    assert.equal(await panel.count(), 1);
    assert.match(await panel.locator(".task-status").innerText(), /running/);
    await panel.locator(".task-panel-toggle").click();
    const body = await panel.locator(".task-panel-body").innerText();
    assert.match(body, /Read src\/parser\.ts/);
    assert.match(body, /three entry points/);
    await screenshot(page, "turns-task-300");
    await panel.locator(".task-stop").click();
    assert.deepEqual(await posted(page, "stopTask"), [{ type: "stopTask", taskId: "a1b2" }]);
    assert.match(await panel.locator(".task-status").innerText(), /stopping/);
    await events(page, [task("a1b2", "stopped", { description: null, summary: "Stopped by the user" })]);
    assert.match(await panel.locator(".task-status").innerText(), /stopped/);
    assert.equal(await panel.locator(".task-stop").count(), 0);
    await panel.locator(".task-dismiss").click();
    assert.equal(await page.locator(".task-panel").count(), 0);
    await finish(page);
  });

  test("a background shell's panel shows its last lines, wrapped at 300 px, and its Stop asks for the task", T, async () => {
    const page = await chat.open({ width: 300 });
    await init(page, { busy: true });
    const command = "npm run dev -- --host 127.0.0.1 --port 5173 --strictPort --clearScreen false";
    const shell = (status, output, extra = {}) => ({ type: "taskUpdate", taskId: "bash_1", toolUseId: "toolu_bash", status, description: command, summary: null, output, exitCode: null, ...extra });
    await events(page, [shell("started", "")]);
    const panel = page.locator(".task-panel");
    await panel.locator(".task-panel-toggle").click();
    assert.match(await panel.locator(".task-panel-body").innerText(), /No output yet/);
    const lines = Array.from({ length: 30 }, (_, i) => `[vite] page reload src/components/VeryLongComponentName${i}.tsx?t=1764709179891&import`);
    await events(page, [shell("running", ["  VITE v5.4.0  ready in 312 ms", ...lines].join("\n"))]);
    const output = panel.locator(".task-output");
    assert.match(await output.innerText(), /VeryLongComponentName29/);
    // Long lines wrap inside the panel, the newest line is in view, and nothing runs past the edge.
    const box = await output.boundingBox();
    const panelBox = await panel.boundingBox();
    assert.ok(box.x + box.width <= panelBox.x + panelBox.width + 0.5, "the output fits the panel");
    const scroll = await output.evaluate((el) => ({ width: el.scrollWidth, client: el.clientWidth, bottom: el.scrollTop + el.clientHeight, height: el.scrollHeight }));
    assert.ok(scroll.width <= scroll.client, "no sideways scrolling");
    assert.ok(scroll.bottom >= scroll.height - 2, "kept scrolled to the newest line");
    assert.match(await panel.locator(".task-status").innerText(), /running/);
    await screenshot(page, "turns-shell-300");
    await panel.locator(".task-stop").click();
    assert.deepEqual(await posted(page, "stopTask"), [{ type: "stopTask", taskId: "bash_1" }]);
    await events(page, [shell("stopped", "  VITE v5.4.0  ready in 312 ms")]);
    assert.match(await panel.locator(".task-status").innerText(), /stopped/);
    assert.equal(await panel.locator(".task-stop").count(), 0);
    await events(page, [shell("failed", "Error: port 5173 is in use", { taskId: "bash_2", exitCode: 1 })]);
    assert.match(await page.locator(".task-panel[data-task-id=bash_2] .task-status").innerText(), /failed \(exit 1\)/);
    await finish(page);
  });
});
