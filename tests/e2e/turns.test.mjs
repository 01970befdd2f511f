// Turn control in a real VS Code (code-server) with the real Claude Code CLI against the fake
// Messages API: a message sent while a turn runs waits in the queue, is edited there, and goes
// with its new text when the turn ends; "Send now" steers a message into a running turn (the CLI
// cuts the turn short and answers it); a background subagent gets a panel with its live output,
// and its Stop ends it (stop_task). One code-server for all of them.

import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { CLAUDE, launchVsCode, openTether, sendPrompt, shot, waitFor } from "./harness.mjs";

let api;
let vs;

/** The user texts of every main-loop request the fake API got, in order. */
function userTexts() {
  return api.requests
    .filter((r) => r.path === "/v1/messages" && Array.isArray(r.body?.messages))
    .flatMap((r) => r.body.messages.filter((m) => m.role === "user"))
    .flatMap((m) => (typeof m.content === "string" ? [m.content] : m.content.filter((b) => b?.type === "text").map((b) => b.text)));
}

const composer = () => vs.webview.getByRole("textbox", { name: "Message to Claude" });
const turnEnded = () => vs.webview.locator(".stop-button").waitFor({ state: "detached", timeout: 60_000 });

before(async () => {
  const parser = () => path.join(vs.workspace, "parser.txt");
  api = await startFakeApi([
    // Queue: a long first turn; the queued message is answered once it ends.
    { when: { lastUserText: /start the long task/ }, delayMs: 6_000, text: "The long task is done." },
    { when: { lastUserText: /queued and edited/ }, text: "Got the edited message." },
    // Send now: a slow answer cut short by the steering message, which gets its own answer.
    { when: { lastUserText: /use tabs instead/ }, text: "Switching to tabs, as you said." },
    { when: { lastUserText: /write a slow answer/ }, delayMs: 15_000, text: "This slow answer should never show." },
    // A background subagent: it reads a file, then takes long; the main turn ends meanwhile.
    {
      when: { lastUserText: /delegate the survey/ },
      text: "Delegating.",
      toolUse: { name: "Agent", input: { description: "Survey the parser", prompt: "SUBTASK survey the parser", subagent_type: "general-purpose" } },
    },
    { when: { lastToolResult: /Async agent launched/ }, text: "The survey runs in the background." },
    { when: { lastUserText: /SUBTASK/ }, text: "Reading the parser first.", toolUse: { name: "mcp__tether__Read", input: { get file_path() { return parser(); } } } },
    { when: { lastToolResult: /three entry points/ }, delayMs: 30_000, text: "The survey is complete." },
    { repeat: true, text: "Noted." },
  ]);
  vs = await launchVsCode({
    name: "turns",
    files: { "parser.txt": "the parser has three entry points\n" },
    settings: {
      "tether.claudePath": CLAUDE,
      "tether.environment": {
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${api.port}`,
        ANTHROPIC_API_KEY: "dummy",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      },
    },
  });
  await openTether(vs);
});

after(async () => {
  await vs?.close();
  await api?.close();
});

test("a message sent during a turn is queued, edited there, and sent with its new text when the turn ends", { timeout: 120_000 }, async () => {
  await sendPrompt(vs, "start the long task");
  await vs.webview.locator(".stop-button").waitFor({ timeout: 30_000 });
  await sendPrompt(vs, "a first draft");
  const item = vs.webview.locator(".queue-item");
  await item.waitFor({ timeout: 15_000 });
  assert.match(await item.innerText(), /a first draft/);
  await item.locator(".queue-edit-button").click();
  await vs.webview.locator(".queue-edit").fill("queued and edited");
  await vs.webview.locator(".queue-save").click();
  await vs.webview.locator(".queue-item", { hasText: "queued and edited" }).waitFor({ timeout: 10_000 });
  await shot(vs, "turns-01-queued-edited");
  await vs.webview.getByText("The long task is done.").waitFor({ timeout: 60_000 });
  await vs.webview.getByText("Got the edited message.").waitFor({ timeout: 60_000 });
  await vs.webview.locator(".queue-panel").waitFor({ state: "detached", timeout: 10_000 });
  const texts = userTexts();
  assert.ok(texts.some((t) => t.includes("queued and edited")), "the fake API saw the edited text");
  assert.ok(!texts.some((t) => t.includes("a first draft")), "and never the draft");
  await shot(vs, "turns-02-queue-sent");
  await turnEnded();
});

test("send now steers a queued message into the running turn", { timeout: 120_000 }, async () => {
  await sendPrompt(vs, "write a slow answer");
  await vs.webview.locator(".stop-button").waitFor({ timeout: 30_000 });
  await waitFor(async () => userTexts().some((t) => t.includes("write a slow answer")), 30_000, "the slow turn's request");
  await sendPrompt(vs, "use tabs instead");
  const item = vs.webview.locator(".queue-item", { hasText: "use tabs instead" });
  await item.waitFor({ timeout: 15_000 });
  await item.locator(".queue-send-now").click();
  // Long before the slow answer's 15 s: the CLI cut that turn short and answered the message.
  await vs.webview.getByText("Switching to tabs, as you said.").waitFor({ timeout: 12_000 });
  await turnEnded();
  assert.equal(await vs.webview.getByText("This slow answer should never show.").count(), 0);
  await shot(vs, "turns-03-sent-now");
});

test("a background subagent gets a panel with its live output, and Stop ends it", { timeout: 150_000 }, async () => {
  await sendPrompt(vs, "delegate the survey");
  const panel = vs.webview.locator(".task-panel", { hasText: "Survey the parser" });
  await panel.waitFor({ timeout: 60_000 });
  await panel.locator(".task-panel-toggle").click();
  // Its output as it comes: the subagent's text and its Read of the workspace file.
  await panel.locator(".task-step", { hasText: "Reading the parser first." }).waitFor({ timeout: 60_000 });
  await panel.locator(".task-step", { hasText: /parser\.txt/ }).waitFor({ timeout: 30_000 });
  assert.match(await panel.locator(".task-status").innerText(), /running/);
  await shot(vs, "turns-04-subagent-panel");
  await panel.getByRole("button", { name: /^Stop / }).click();
  await waitFor(async () => /stopped/.test(await panel.locator(".task-status").innerText()), 30_000, "the task stopped");
  assert.equal(await panel.locator(".task-stop").count(), 0);
  assert.equal(await vs.webview.getByText("The survey is complete.").count(), 0);
  await shot(vs, "turns-05-subagent-stopped");
});
