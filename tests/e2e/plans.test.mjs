// Plans and questions with real agents against the fake Messages API, in one code-server:
// Claude Code's AskUserQuestion answered in the chat's form (the answer in the next request's
// tool_result); a write refused in plan mode, the row saying so; ExitPlanMode's plan opened as a
// document before the approval, a comment on one of its lines, "No, keep planning", and the
// comment in the next request; and the same plan-mode refusal for claude-agent-acp, whose
// AskUserQuestion (a form elicitation, now that Tether advertises forms) is the same form.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { resultText, startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { ACP_AGENT, acpAgents, fakeApiEnvironment, launchVsCode, openTether, sendPrompt, shot, showPickers, waitFor } from "./harness.mjs";

const PLAN = "# Add a greeting\n\n1. Create greeting.txt\n2. Write a friendly hello into it\n3. Show it to the user\n";
const COMMENT = "Say hello in French instead";

let api;
let vs;

const toolResults = () => api.toolResults().map(resultText);

before(async () => {
  assert.ok(fs.existsSync(ACP_AGENT), `claude-agent-acp is not installed at ${ACP_AGENT}`);
  const write = (rel) => Object.defineProperty({ content: "hello\n" }, "file_path", { get: () => path.join(vs.workspace, rel), enumerable: true });
  api = await startFakeApi([
    {
      when: { lastUserText: /ASK the user/ },
      toolUse: {
        name: "AskUserQuestion",
        input: {
          questions: [
            { question: "Which color should the banner be?", header: "Color", multiSelect: false,
              options: [{ label: "Red", description: "Warm and loud" }, { label: "Blue", description: "Calm" }] },
            { question: "Which sizes do you need?", header: "Sizes", multiSelect: true,
              options: [{ label: "Small", description: "For phones" }, { label: "Medium", description: "Tablets" }, { label: "Large", description: "Desktops" }] },
          ],
        },
      },
    },
    { when: { lastToolResult: /The user answered/ }, text: "Thanks, noted your answers." },
    { when: { lastUserText: /WRITE in plan mode/ }, toolUse: { name: "mcp__tether__Write", input: write("claude-plan.txt") } },
    { when: { lastToolResult: /while in plan mode/ }, text: "Understood, planning first." },
    { when: { lastUserText: /PRESENT the plan/ }, toolUse: { name: "ExitPlanMode", input: { plan: PLAN } } },
    { when: { lastToolResult: /comments on the plan/ }, text: "Revising the plan with your comments." },
    { when: { lastUserText: /ACP WRITE in plan mode/ }, toolUse: { name: "mcp__tether__Write", input: write("acp-plan.txt") } },
    { when: { lastToolResult: /while in plan mode/ }, text: "The ACP agent keeps planning." },
    {
      when: { lastUserText: /ACP ASK the user/ },
      toolUse: {
        name: "AskUserQuestion",
        input: {
          questions: [
            { question: "Which database should we use?", header: "Database", multiSelect: false,
              options: [{ label: "Postgres", description: "Relational" }, { label: "SQLite", description: "A file" }] },
          ],
        },
      },
    },
    // claude-agent-acp's CLI words it "Your questions have been answered: …" (measured).
    { when: { lastToolResult: /"Which database should we use\?"="SQLite"/ }, text: "SQLite it is." },
    { text: "OK.", repeat: true },
  ]);
  vs = await launchVsCode({
    name: "plans",
    files: { "README.md": "A project.\n" },
    settings: {
      "tether.environment": fakeApiEnvironment(api),
      "tether.agents": acpAgents(),
      "files.autoSave": "off",
    },
  });
  await openTether(vs);
});

after(async () => {
  // What the model was sent, for a failure's post-mortem (the run folder stays).
  if (vs && api) {
    const last = api.requests.filter((r) => r.path === "/v1/messages").map((r) => r.body?.messages?.at(-1));
    fs.writeFileSync(path.join(vs.runDir, "model-requests.json"), JSON.stringify(last, null, 1));
  }
  await vs?.close();
  await api?.close();
});

async function narrow(name) {
  // Looked at 300 px wide: the side bar squeezed to a phone's width.
  await vs.page.setViewportSize({ width: 700, height: 900 });
  await shot(vs, name);
  await vs.page.setViewportSize({ width: 1400, height: 900 });
}

test("AskUserQuestion is a form in the chat; the answers reach the model as the tool's result", { timeout: 120_000 }, async () => {
  await sendPrompt(vs, "ASK the user about the banner");
  const form = vs.webview.locator(".question-form");
  await form.waitFor({ timeout: 60_000 });
  await form.getByText("Which color should the banner be?").waitFor();
  await form.getByRole("textbox", { name: "Other answer to: Which color should the banner be?" }).fill("a dark red");
  await form.getByRole("checkbox", { name: /^Small/ }).check();
  await form.getByRole("checkbox", { name: /^Large/ }).check();
  await shot(vs, "40-plans-question-form");
  await form.getByRole("button", { name: "Submit" }).click();
  await waitFor(async () => toolResults().some((t) => t.includes("The user answered")), 60_000, "the answers in a tool_result");
  const result = toolResults().find((t) => t.includes("The user answered"));
  assert.match(result, /"Which color should the banner be\?"="a dark red"/);
  assert.match(result, /"Which sizes do you need\?"="Small, Large"/);
  await vs.webview.getByText("Thanks, noted your answers.").waitFor({ timeout: 30_000 });
});

test("in plan mode Claude Code's write is refused without asking, and its row says it was plan mode", { timeout: 120_000 }, async () => {
  await showPickers(vs.webview);
  await vs.webview.locator(".mode-picker").first().click();
  await vs.webview.getByRole("option", { name: /^Plan/ }).click();
  await vs.webview.locator(".mode-picker.mode-plan").waitFor({ timeout: 10_000 });
  await sendPrompt(vs, "WRITE in plan mode please");
  const refusal = vs.webview.locator('.tool[data-tool="Write"] .tool-refusal');
  await refusal.waitFor({ timeout: 60_000 });
  assert.match(await refusal.innerText(), /Refused in plan mode/);
  await vs.webview.getByText("Understood, planning first.").waitFor({ timeout: 30_000 });
  assert.equal(await vs.webview.locator(".perm-card").count(), 0, "nobody was asked");
  assert.ok(!fs.existsSync(path.join(vs.workspace, "claude-plan.txt")), "nothing written");
  await narrow("41-plans-refused-claude");
});

test("the plan opens as a document before the approval; a comment on a line reaches the model on keep planning", { timeout: 150_000 }, async () => {
  await sendPrompt(vs, "PRESENT the plan now");
  const card = vs.webview.locator(".perm-card");
  await card.getByRole("button", { name: "No, keep planning" }).waitFor({ timeout: 60_000 });
  const tab = vs.page.locator(".tabs-container .tab", { hasText: "Plan: Add a greeting" });
  await tab.waitFor({ timeout: 30_000 });
  // A comment on the plan's line 3 ("1. Create greeting.txt").
  const editor = vs.page.locator(".editor-instance .monaco-editor").first();
  const widget = vs.page.locator(".review-widget");
  // The palette straight from the editor (a click elsewhere would move the cursor); the editor
  // may still be taking focus, so try again.
  await waitFor(async () => {
    await vs.page.keyboard.press("Escape");
    await editor.locator(".view-line", { hasText: "1. Create greeting.txt" }).click();
    await vs.page.keyboard.press("F1");
    await vs.page.locator(".quick-input-widget input").fill(">Add Comment on Current Selection");
    const row = vs.page.locator(".quick-input-widget .monaco-list-row", { hasText: "Add Comment on Current Selection" }).first();
    await row.waitFor({ timeout: 5_000 });
    await vs.page.keyboard.press("Enter");
    await widget.waitFor({ timeout: 5_000 });
    return true;
  }, 40_000, "the comment widget on the plan's line 3");
  await widget.locator(".comment-form .monaco-editor").first().click();
  await vs.page.keyboard.type(COMMENT);
  await widget.getByRole("button", { name: "Add Comment" }).click();
  await widget.getByText(COMMENT).first().waitFor({ timeout: 10_000 });
  await shot(vs, "42-plans-plan-document");
  await card.getByRole("button", { name: "No, keep planning" }).click();
  await waitFor(async () => toolResults().some((t) => t.includes(COMMENT)), 60_000, "the comment in a tool_result");
  const result = toolResults().find((t) => t.includes(COMMENT));
  assert.match(result, /On line 3 of the plan:\n> 1\. Create greeting\.txt\nSay hello in French instead/);
  await vs.webview.getByText("Revising the plan with your comments.").waitFor({ timeout: 30_000 });
});

test("in plan mode claude-agent-acp's write is refused without asking, and its row says it was plan mode", { timeout: 180_000 }, async () => {
  await showPickers(vs.webview);
  await vs.webview.getByRole("button", { name: /^Agent:/ }).click();
  await vs.webview.getByRole("option", { name: /Claude Agent/ }).click();
  await vs.webview.getByRole("textbox", { name: "Message to Claude Agent" }).waitFor({ timeout: 30_000 });
  // The new session starts in Tether's plan mode, carried over; the agent's own plan mode follows.
  await vs.webview.locator(".mode-picker.mode-plan").waitFor({ timeout: 10_000 });
  await sendPrompt(vs, "ACP WRITE in plan mode please");
  const refusal = vs.webview.locator('.tool[data-tool="Write"] .tool-refusal');
  await refusal.waitFor({ timeout: 90_000 });
  assert.match(await refusal.innerText(), /Refused in plan mode/);
  await vs.webview.getByText("The ACP agent keeps planning.").waitFor({ timeout: 60_000 });
  assert.ok(!fs.existsSync(path.join(vs.workspace, "acp-plan.txt")), "nothing written");
  await narrow("43-plans-refused-acp");
});

test("claude-agent-acp's AskUserQuestion comes as a form elicitation, shown as the same form; the answer reaches the model", { timeout: 120_000 }, async () => {
  await sendPrompt(vs, "ACP ASK the user about the database");
  const form = vs.webview.locator(".question-form");
  await form.waitFor({ timeout: 60_000 });
  await form.getByRole("radio", { name: /^SQLite/ }).check();
  await shot(vs, "44-plans-acp-form");
  await form.getByRole("button", { name: "Submit" }).click();
  await waitFor(async () => toolResults().some((t) => t.includes('"Which database should we use?"="SQLite"')), 60_000, "the ACP answer in a tool_result");
  await vs.webview.getByText("SQLite it is.").waitFor({ timeout: 60_000 });
});
