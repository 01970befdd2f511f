// Accessibility: axe-core (WCAG 2.1 A/AA rules) over the main states, plus copy-to-clipboard.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { deliver, events, finish, frames, init, launchBrowser, openHarness, screenshot, startServer } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const axeSource = await readFile(require.resolve("axe-core/axe.min.js"), "utf8");

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const T = { timeout: 60_000 };

async function axe(page) {
  // Evaluated through the DevTools protocol, so the page's CSP does not apply to it.
  await page.evaluate(axeSource);
  const result = await page.evaluate(() =>
    window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, resultTypes: ["violations"] }),
  );
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}

describe("accessibility", () => {
  test("no axe violations: welcome, conversation with tools, permission card, mention popup, history", T, async () => {
    const page = await openHarness(browser, server);
    await init(page);
    assert.deepEqual(await axe(page), [], "welcome");
    await events(page, [
      { type: "userMessage", id: "u1", text: "fix it", attachments: [{ kind: "file", path: "/p/a.ts" }] },
      { type: "messageStart", id: "m1", role: "assistant" },
      { type: "thinkingDelta", messageId: "m1", text: "hmm" },
      { type: "textDelta", messageId: "m1", text: "Running **tests**.\n\n```sh\nnpm test\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |" },
      { type: "messageStop", messageId: "m1" },
      { type: "toolCallStart", toolCallId: "t1", name: "Bash", input: { command: "npm test" }, kind: "execute", title: "npm test" },
      { type: "toolCallResult", toolCallId: "t1", isError: true, content: "", structured: { stdout: "FAIL", stderr: "boom", exitCode: 1 } },
      { type: "toolCallStart", toolCallId: "t2", name: "Edit", input: { file_path: "/p/a.ts", old_string: "a", new_string: "b" }, kind: "edit", title: "Edit" },
      { type: "toolCallStart", toolCallId: "t3", name: "TodoWrite", input: { todos: [{ content: "x", status: "in_progress", activeForm: "Doing x" }] }, kind: "think", title: "todo" },
      { type: "todoUpdate", todos: [{ content: "x", status: "in_progress", activeForm: "Doing x" }] },
      { type: "toolCallStart", toolCallId: "t4", name: "Task", input: { description: "look", subagent_type: "Explore", prompt: "p" }, kind: "think", title: "Task" },
      { type: "toolCallStart", toolCallId: "t5", name: "Grep", input: { pattern: "x" }, kind: "search", title: "Grep", parentToolCallId: "t4" },
      { type: "apiRetry", attempt: 1, maxRetries: 10, delayMs: 1000, error: "overloaded" },
      { type: "error", kind: "api", message: "500", retryable: true },
      { type: "status", state: "running" },
      {
        type: "permissionRequest",
        requestId: "r1",
        toolName: "Edit",
        input: { file_path: "/p/a.ts" },
        alwaysRule: "Edit(/p/**)",
        diff: { path: "/p/a.ts", hunks: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ["-a", "+b"] }] },
      },
    ]);
    await frames(page, 3);
    assert.deepEqual(await axe(page), [], "conversation + permission");
    await deliver(page, { type: "state", connected: false });
    assert.deepEqual(await axe(page), [], "disconnected");
    await deliver(page, { type: "state", connected: true });
    await page.locator(".composer-input").click();
    await page.keyboard.type("@a");
    await page.waitForFunction(() => window.__posted.some((m) => m.type === "suggestFiles"));
    const req = await page.evaluate(() => window.__posted.find((m) => m.type === "suggestFiles"));
    await deliver(page, { type: "fileSuggestions", requestId: req.requestId, items: [{ path: "/p/a.ts", label: "a.ts" }] });
    assert.deepEqual(await axe(page), [], "mention popup");
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Session history" }).click();
    await deliver(page, { type: "history", sessions: [{ id: "s", title: "Old", updatedAt: Date.now(), messageCount: 2 }] });
    assert.deepEqual(await axe(page), [], "history");
    await page.keyboard.press("Escape");
    await page.locator(".mode-picker .picker-button").click();
    assert.deepEqual(await axe(page), [], "mode picker open");
    await finish(page);
  });

  test("light theme, narrow sidebar: no axe violations (contrast included)", T, async () => {
    const page = await openHarness(browser, server, { width: 300, height: 720, query: "?theme=light" });
    await init(page);
    await events(page, [
      { type: "userMessage", id: "u1", text: "Rename the config loader" },
      { type: "messageStart", id: "m1", role: "assistant" },
      { type: "textDelta", messageId: "m1", text: "I'll update `load_config` and its callers:\n\n1. `src/config.rs`\n2. `src/main.rs`" },
      { type: "messageStop", messageId: "m1" },
      { type: "toolCallStart", toolCallId: "t1", name: "Grep", input: { pattern: "load_config", path: "/data/proj" }, kind: "search", title: "Grep" },
      { type: "toolCallResult", toolCallId: "t1", isError: false, content: "", structured: { mode: "files_with_matches", numFiles: 2, filenames: ["/data/proj/src/config.rs", "/data/proj/src/main.rs"], numMatches: 4 } },
      { type: "toolCallStart", toolCallId: "t2", name: "Edit", input: { file_path: "/data/proj/src/config.rs" }, kind: "edit", title: "Edit" },
      {
        type: "toolCallResult",
        toolCallId: "t2",
        isError: false,
        content: "",
        structured: { filePath: "/data/proj/src/config.rs", structuredPatch: [{ oldStart: 3, oldLines: 3, newStart: 3, newLines: 3, lines: [" use std::fs;", "-pub fn load_config() {", "+pub fn read_config() {", " }"] }] },
      },
      { type: "toolCallStart", toolCallId: "t3", name: "Bash", input: { command: "cargo check", description: "Type-check" }, kind: "execute", title: "cargo check" },
      { type: "toolCallResult", toolCallId: "t3", isError: true, content: "", structured: { stdout: "", stderr: "error[E0425]: cannot find function `load_config`\n --> src/main.rs:4:5", exitCode: 101 } },
      { type: "status", state: "running" },
      { type: "permissionRequest", requestId: "r1", toolName: "Bash", input: { command: "cargo fix --allow-dirty" }, title: "cargo fix", alwaysRule: "Bash(cargo fix:*)" },
    ]);
    await frames(page, 3);
    await screenshot(page, "23-light-narrow");
    assert.deepEqual(await axe(page), [], "light theme");
    await finish(page);
  });

  test("copy button copies the code block", T, async () => {
    const page = await openHarness(browser, server);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await init(page);
    await events(page, [
      { type: "messageStart", id: "m1", role: "assistant" },
      { type: "textDelta", messageId: "m1", text: "```rust\nfn main() {}\n```\n" },
      { type: "messageStop", messageId: "m1" },
    ]);
    await page.locator('[data-action="copy-code"]').click();
    await page.locator(".code-copy.copied").waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "fn main() {}\n");
    await finish(page);
  });
});
