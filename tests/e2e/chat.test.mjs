// The VSIX in a real VS Code (code-server), driven through its UI: the chat streams, a permission
// card's Allow edits the file on disk, Reject leaves it and the model is told, the diff editor's
// Accept writes what the user typed, the mode switches, and a past session resumes from history.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { resultText, startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { CLAUDE, launchVsCode, openTether, runCommand, sendPrompt, shot, waitFor } from "./harness.mjs";

let api;
let vs;
let ws;

before(async () => {
  const wsDir = () => ws;
  api = await startFakeApi([
    { when: { lastUserText: /say hi/ }, text: "Hello from the fake model. This answer streams into the Tether view." },
    {
      when: { lastUserText: /edit the greeting/ },
      text: "Reading it first.",
      toolUse: { name: "mcp__tether__Read", input: { get file_path() { return path.join(wsDir(), "hello.txt"); } } },
    },
    {
      when: { lastToolResult: /hello world/ },
      text: "Now the edit.",
      toolUse: {
        name: "mcp__tether__Edit",
        input: { get file_path() { return path.join(wsDir(), "hello.txt"); }, old_string: "hello world", new_string: "hello tether" },
      },
    },
    { when: { lastToolResult: /has been updated|updated/i }, text: "Edited the greeting." },
    {
      when: { lastUserText: /create notes/ },
      toolUse: { name: "mcp__tether__Write", input: { get file_path() { return path.join(wsDir(), "notes.txt"); }, content: "notes\n" } },
    },
    { when: { lastToolResult: /reject|denied|declined|doesn't want/i }, text: "Understood, I left notes.txt alone." },
    {
      when: { lastUserText: /write the plan/ },
      toolUse: { name: "mcp__tether__Write", input: { get file_path() { return path.join(wsDir(), "plan.txt"); }, content: "step 1\n" } },
    },
    { when: { lastToolResult: /plan\.txt/ }, text: "Plan written." },
    {
      when: { lastUserText: /draft a todo/ },
      toolUse: { name: "mcp__tether__Write", input: { get file_path() { return path.join(wsDir(), "todo.txt"); }, content: "todo\n" } },
    },
    { when: { lastToolResult: /closed the review/ }, text: "The review was closed; nothing written." },
    {
      when: { lastUserText: /bump the log/ },
      toolUse: { name: "mcp__tether__Read", input: { get file_path() { return path.join(wsDir(), "src/app.js"); } } },
    },
    {
      when: { lastToolResult: /console\.log\(1\)/ },
      toolUse: {
        name: "mcp__tether__Edit",
        input: { get file_path() { return path.join(wsDir(), "src/app.js"); }, old_string: "console.log(1);", new_string: "console.log(2);" },
      },
    },
    { when: { lastToolResult: /unsaved changes/ }, text: "app.js has unsaved changes; please save it first." },
  ]);
  vs = await launchVsCode({
    name: "chat",
    files: { "hello.txt": "hello world\n", "src/app.js": "console.log(1);\n" },
    settings: {
      "tether.claudePath": CLAUDE,
      "tether.environment": {
        ANTHROPIC_BASE_URL: api.url ?? `http://127.0.0.1:${api.port}`,
        ANTHROPIC_API_KEY: "dummy",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      },
      "files.autoSave": "off",
    },
  });
  ws = vs.workspace;
});

after(async () => {
  await vs?.close();
  await api?.close();
});

test("the Tether view opens and renders the chat in the webview", { timeout: 60_000 }, async () => {
  await openTether(vs);
  await shot(vs, "01-chat-open");
  const log = vs.extHostLog();
  assert.match(log, /_doActivateExtension tether\.tether/);
});

test("a prompt streams the model's text into the chat", { timeout: 90_000 }, async () => {
  await sendPrompt(vs, "say hi");
  await vs.webview.getByText("This answer streams into the Tether view.").waitFor({ timeout: 60_000 });
  await shot(vs, "02-streamed-text");
});

test("after the turn the header shows Claude Code's context usage and the session's cost", { timeout: 60_000 }, async () => {
  // The CLI answers get_context_usage after counting tokens at the fake API.
  const meter = vs.webview.locator(".context-meter");
  await meter.waitFor({ timeout: 30_000 });
  assert.match(await meter.innerText(), /^\d+% · \$\d+\.\d+$/);
  const title = await meter.getAttribute("title");
  assert.match(title, /Context: [\d,]+ of [\d,]+ tokens/);
  assert.match(title, /Used by: System prompt [\d,]+/);
  assert.ok(api.requests.some((r) => r.path.startsWith("/v1/messages/count_tokens")), "the CLI counted the context");
  await shot(vs, "02b-context-meter");
});

test("Allow on the permission card edits the file on disk (after the diff review opened)", { timeout: 120_000 }, async () => {
  await sendPrompt(vs, "edit the greeting");
  const allow = vs.webview.getByRole("button", { name: "Allow", exact: true });
  await allow.waitFor({ timeout: 60_000 });
  // The native diff editor shows the proposal.
  await vs.page.locator(".tabs-container .tab", { hasText: "hello.txt" }).first().waitFor({ timeout: 15_000 });
  await shot(vs, "03-permission-and-diff");
  // The request shows once: its card in the dock, no second copy in the timeline.
  assert.equal(await vs.webview.locator(".perm-card").count(), 1);
  assert.equal(await vs.webview.locator(".perm-line").count(), 0);
  assert.equal(fs.readFileSync(path.join(ws, "hello.txt"), "utf8"), "hello world\n");
  await allow.click();
  await waitFor(async () => fs.readFileSync(path.join(ws, "hello.txt"), "utf8") === "hello tether\n", 30_000, "the edit on disk");
  await vs.webview.getByText("Edited the greeting.").waitFor({ timeout: 30_000 });
  await shot(vs, "04-allowed-edit");
});

test("Reject leaves the file unwritten and tells the model", { timeout: 120_000 }, async () => {
  await sendPrompt(vs, "create notes");
  const reject = vs.webview.getByRole("button", { name: "Reject", exact: true });
  await reject.waitFor({ timeout: 60_000 });
  await reject.click();
  await vs.webview.getByText("Understood, I left notes.txt alone.").waitFor({ timeout: 60_000 });
  assert.equal(fs.existsSync(path.join(ws, "notes.txt")), false);
  const denied = api.toolResults().find((b) => /notes|reject|denied/i.test(resultText(b)) && b.is_error);
  assert.ok(denied, `the model got an error tool_result for the rejected Write: ${JSON.stringify(api.toolResults().map(resultText))}`);
  await shot(vs, "05-rejected");
});

test("Accept in the diff editor writes the text the user left there", { timeout: 120_000 }, async () => {
  await sendPrompt(vs, "write the plan");
  await vs.webview.getByRole("button", { name: "Allow", exact: true }).waitFor({ timeout: 60_000 });
  const modified = vs.page.locator(".monaco-diff-editor .editor.modified .view-lines").first();
  await modified.waitFor({ timeout: 15_000 });
  await modified.click();
  await vs.page.keyboard.press("Control+End");
  await vs.page.keyboard.type("step 2 (added by the user)\n");
  await shot(vs, "06-diff-edited");
  await vs.page.locator(".editor-actions [aria-label^='Accept Proposed Edit']").first().click();
  await waitFor(
    async () => fs.existsSync(path.join(ws, "plan.txt")) && /step 2 \(added by the user\)/.test(fs.readFileSync(path.join(ws, "plan.txt"), "utf8")),
    30_000,
    "plan.txt with the user's line",
  );
  await vs.webview.getByText("Plan written.").waitFor({ timeout: 60_000 });
});

test("closing the review tab rejects the edit and tells the model", { timeout: 120_000 }, async () => {
  await sendPrompt(vs, "draft a todo");
  await vs.webview.getByRole("button", { name: "Allow", exact: true }).waitFor({ timeout: 60_000 });
  const tab = vs.page.locator(".tabs-container .tab", { hasText: "todo.txt" }).first();
  await tab.waitFor({ timeout: 15_000 });
  await tab.locator(".codicon-close").click();
  await vs.webview.getByText("The review was closed; nothing written.").waitFor({ timeout: 60_000 });
  assert.equal(fs.existsSync(path.join(ws, "todo.txt")), false);
});

test("an edit to a file with unsaved changes in an editor is refused, not clobbered", { timeout: 120_000 }, async () => {
  await vs.page.locator(".monaco-workbench .part.editor").click({ position: { x: 300, y: 300 } }).catch(() => undefined);
  await vs.page.keyboard.press("Control+P");
  await vs.page.locator(".quick-input-widget input").fill("app.js");
  await vs.page.locator(".quick-input-widget .monaco-list-row", { hasText: "app.js" }).first().waitFor({ timeout: 10_000 });
  await vs.page.keyboard.press("Enter");
  const editor = vs.page.locator(".monaco-editor .view-lines", { hasText: "console.log(1);" }).first();
  await editor.waitFor({ timeout: 10_000 });
  await editor.click();
  await vs.page.keyboard.press("Control+End");
  await vs.page.keyboard.type("// mine, unsaved\n");
  await sendPrompt(vs, "bump the log");
  const allow = vs.webview.getByRole("button", { name: "Allow", exact: true });
  await allow.waitFor({ timeout: 60_000 });
  await allow.click();
  await vs.webview.getByText("app.js has unsaved changes; please save it first.").waitFor({ timeout: 60_000 });
  assert.equal(fs.readFileSync(path.join(ws, "src/app.js"), "utf8"), "console.log(1);\n");
  await shot(vs, "07-dirty-buffer-refused");
});

test("the permission mode switches from the command palette and shows in the status bar", { timeout: 60_000 }, async () => {
  await runCommand(vs, "Tether: Switch Permission Mode");
  await vs.page.locator(".quick-input-widget .monaco-list-row", { hasText: "Plan" }).first().click();
  await vs.page.locator(".statusbar-item", { hasText: "Tether: Workspace · Plan" }).waitFor({ timeout: 15_000 });
  await shot(vs, "08-plan-mode");
});

test("@-mentions suggest workspace files found by VS Code's file search", { timeout: 60_000 }, async () => {
  const box = vs.webview.getByRole("textbox", { name: "Message to Claude" });
  await box.click();
  await box.pressSequentially("look at @hell");
  await vs.webview.locator(".mention-item", { hasText: "hello.txt" }).first().waitFor({ timeout: 15_000 });
  await box.fill("");
});

test("the session exports as Markdown into a new editor", { timeout: 60_000 }, async () => {
  await runCommand(vs, "Tether: Export Session as Markdown");
  await vs.page.locator(".monaco-editor .view-lines", { hasText: "# Tether session" }).first().waitFor({ timeout: 15_000 });
  await shot(vs, "09-export-markdown");
});

test("a new session starts empty and the earlier one resumes from history", { timeout: 90_000 }, async () => {
  await vs.webview.getByRole("button", { name: "New session" }).click();
  // The new session's empty chat, not the first answer's absence: that row can be scrolled out of
  // the virtualized list already, and a history opened before the new session shows is closed by it.
  await vs.webview.locator(".welcome").waitFor({ timeout: 15_000 });
  await vs.webview.getByRole("button", { name: "Session history" }).first().click();
  const item = vs.webview.locator(".history-item").first();
  await item.waitFor({ timeout: 15_000 });
  await shot(vs, "10-history");
  await item.click();
  // The list is virtualized and sticks to the bottom: the session's last answer is what shows.
  await vs.webview.getByText("app.js has unsaved changes; please save it first.").waitFor({ timeout: 15_000 });
  await shot(vs, "11-resumed");
});
