// Turn control in a real VS Code (code-server) with the real Claude Code CLI against the fake
// Messages API: a message sent while a turn runs waits in the queue, is edited there, and goes
// with its new text when the turn ends; "Send now" steers a message into a running turn (the CLI
// cuts the turn short and answers it); a background subagent gets a panel with its live output,
// and its Stop ends it (stop_task); so does a background shell Bash started (Tether kills it, and
// the model's BashOutput says so). One code-server for all of them.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { ARTIFACTS, CLAUDE, FAKE_REMOTE, findOverflow, launchVsCode, openTether, sendPrompt, setSidebarWidth, shot, waitFor } from "./harness.mjs";

let api;
let vs;

/** Writes its pid, then a marker line every 0.3 s. */
/** How long the fake API holds the background subagent's last answer: long enough to Stop it first. */
const SURVEY_ANSWER_DELAY_MS = 12_000;
const MARKER_COMMAND = 'echo $$ > shell.pid; i=0; while true; do i=$((i+1)); echo "SHELL-MARK-$i"; sleep 0.3; done';

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
    { when: { lastToolResult: /three entry points/ }, delayMs: SURVEY_ANSWER_DELAY_MS, text: "The survey is complete." },
    // A background shell: a marker line every 0.3 s until it is stopped.
    {
      when: { lastUserText: /start the marker printer/ },
      text: "Starting it in the background.",
      toolUse: { name: "mcp__tether__Bash", input: { command: MARKER_COMMAND, run_in_background: true, description: "Print a marker every 0.3 s" } },
    },
    { when: { lastToolResult: /Command running in background with ID: bash_1/ }, text: "The marker printer runs." },
    { when: { lastUserText: /check on the marker printer/ }, text: "Checking.", toolUse: { name: "mcp__tether__BashOutput", input: { bash_id: "bash_1" } } },
    { when: { lastToolResult: /<status>killed<\/status>[\s\S]*SHELL-MARK-1\n/ }, text: "The marker printer was killed." },
    { repeat: true, text: "Noted." },
  ]);
  vs = await launchVsCode({
    name: "turns",
    // For its control port (the theme toggle); the workspace stays a local folder.
    extensions: [FAKE_REMOTE],
    files: { "parser.txt": "the parser has three entry points\n" },
    settings: {
      "tether.claudePath": CLAUDE,
      "tether.environment": {
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${api.port}`,
        ANTHROPIC_API_KEY: "dummy",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      },
      "workbench.colorTheme": "Default Dark Modern",
      "workbench.preferredDarkColorTheme": "Default Dark Modern",
      "workbench.preferredLightColorTheme": "Default Light Modern",
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
  // Its last request, with the Read's result, is out: the answer is held for the delay.
  const lastRequestOut = () => api.requests.some((r) => JSON.stringify(r.body?.messages ?? "").includes("three entry points"));
  await waitFor(async () => lastRequestOut(), 30_000, "the subagent's request after its Read");
  await shot(vs, "turns-04-subagent-panel");
  await panel.getByRole("button", { name: /^Stop / }).click();
  await waitFor(async () => /stopped/.test(await panel.locator(".task-status").innerText()), 30_000, "the task stopped");
  assert.equal(await panel.locator(".task-stop").count(), 0);
  // Had Stop not ended the subagent, its answer would show once the delay is over.
  await new Promise((resolve) => setTimeout(resolve, SURVEY_ANSWER_DELAY_MS + 2_000));
  assert.equal(await vs.webview.getByText("The survey is complete.").count(), 0, "the stopped subagent went on");
  assert.match(await panel.locator(".task-status").innerText(), /stopped/);
  await shot(vs, "turns-05-subagent-stopped");
});

/** The theme switched with VS Code's own toggle between its preferred light and dark themes. */
async function setTheme(kind) {
  const bodyClass = async () => (await vs.webview.locator("body").getAttribute("class")) ?? "";
  const want = kind === "light" ? "vscode-light" : "vscode-dark";
  if (!(await bodyClass()).includes(want)) await vs.control("workbench.action.toggleLightDarkThemes");
  await waitFor(async () => (await bodyClass()).includes(want), 20_000, `the ${kind} theme in the chat`);
}

/** The side bar with the chat at 300 and 500 px, dark and light; what overflows, if anything. */
async function shellGallery(name) {
  const problems = [];
  for (const kind of ["dark", "light"]) {
    await setTheme(kind);
    for (const width of [300, 500]) {
      await setSidebarWidth(vs, width);
      await vs.page.waitForTimeout(100);
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await vs.page.locator(".part.sidebar").screenshot({ path: path.join(ARTIFACTS, `${name}-${width}-${kind}.png`) });
      for (const o of await findOverflow(vs.webview)) problems.push(`${width}px ${kind}: ${o.selector} "${o.text}"`);
    }
  }
  await setTheme("dark");
  return problems;
}

test("a background shell gets a panel with its live output; Stop kills it and the model's BashOutput says so", { timeout: 180_000 }, async () => {
  await turnEnded();
  await sendPrompt(vs, "start the marker printer");
  const allow = vs.webview.getByRole("button", { name: "Allow", exact: true });
  await allow.waitFor({ timeout: 60_000 });
  await allow.click();
  const panel = vs.webview.locator(".task-panel", { hasText: "Print a marker every 0.3 s" });
  await panel.waitFor({ timeout: 60_000 });
  await panel.locator(".task-panel-toggle").click();
  const output = panel.locator(".task-output");
  await output.getByText("SHELL-MARK-3").waitFor({ timeout: 30_000 });
  // Live: later lines keep coming while it runs.
  await output.getByText("SHELL-MARK-8").waitFor({ timeout: 30_000 });
  assert.match(await panel.locator(".task-status").innerText(), /running/);
  await turnEnded();
  const problems = await shellGallery("turns-06-shell-panel");
  assert.deepEqual(problems, [], "nothing overflows");
  await setSidebarWidth(vs, 300);

  const pid = Number(fs.readFileSync(path.join(vs.workspace, "shell.pid"), "utf8").trim());
  await panel.getByRole("button", { name: /^Stop / }).click();
  await waitFor(async () => /stopped/.test(await panel.locator(".task-status").innerText()), 30_000, "the shell stopped");
  assert.equal(await panel.locator(".task-stop").count(), 0);
  await waitFor(async () => !isAlive(pid), 10_000, "the shell's process gone");
  await shot(vs, "turns-07-shell-stopped");

  await sendPrompt(vs, "check on the marker printer");
  const answer = vs.webview.getByText("The marker printer was killed.");
  // BashOutput reads Tether's own record of the shell: it runs without a question.
  let asked = false;
  await waitFor(async () => {
    if (await vs.webview.locator(".perm-card:not(.perm-decided)").count()) asked = true;
    return (await answer.count()) > 0;
  }, 60_000, "the model's BashOutput saying the shell was killed");
  assert.equal(asked, false, "BashOutput was asked about");
  await turnEnded();
});

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
