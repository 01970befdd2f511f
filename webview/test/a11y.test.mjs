// Accessibility: axe-core (WCAG 2.1 A/AA rules) over the main states, plus copy-to-clipboard.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { ev } from "./fixtures.mjs";
import { deliver, events, finish, frames, init, screenshot, useWebview } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const axeSource = await readFile(require.resolve("axe-core/axe.min.js"), "utf8");

const chat = useWebview();

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
    const page = await chat.open();
    await init(page);
    assert.deepEqual(await axe(page), [], "welcome");
    await events(page, [
      ev.user("u1", "fix it", { attachments: [{ kind: "file", path: "/p/a.ts" }] }),
      ev.messageStart("m1"),
      ev.thinking("m1", "hmm"),
      ev.text("m1", "Running **tests**.\n\n```sh\nnpm test\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |"),
      ev.messageStop("m1"),
      ev.toolStart("t1", "Bash", { command: "npm test" }, { kind: "execute", title: "npm test" }),
      ev.toolResult("t1", { stdout: "FAIL", stderr: "boom", exitCode: 1 }, { isError: true }),
      ev.toolStart("t2", "Edit", { file_path: "/p/a.ts", old_string: "a", new_string: "b" }, { kind: "edit", title: "Edit" }),
      ev.toolStart("t3", "TodoWrite", { todos: [{ content: "x", status: "in_progress", activeForm: "Doing x" }] }, { kind: "think", title: "todo" }),
      ev.todos([{ content: "x", status: "in_progress", activeForm: "Doing x" }]),
      ev.toolStart("t4", "Task", { description: "look", subagent_type: "Explore", prompt: "p" }, { kind: "think", title: "Task" }),
      ev.toolStart("t5", "Grep", { pattern: "x" }, { kind: "search", title: "Grep", parentToolUseId: "t4" }),
      // Tools known only by their kind, as an ACP agent names them.
      ev.toolStart("k1", "run_shell", { command: "make" }, { kind: "execute", title: "make", locations: [{ path: "/p/Makefile", line: null }] }),
      ev.toolStart("k2", "apply_patch", {}, { kind: "edit", title: "Patch a.ts", locations: [{ path: "/p/a.ts", line: 3 }] }),
      ev.toolResult("k2", { structuredPatch: [{ oldStart: 3, oldLines: 1, newStart: 3, newLines: 1, lines: ["-x", "+y"] }] }, { content: "ok" }),
      ev.apiRetry(1, 1000, "overloaded"),
      ev.error("api", "500", { retryable: true }),
      ev.status("running"),
      ev.permission(
        "r1",
        "Edit",
        { file_path: "/p/a.ts" },
        {
          kind: "edit",
          alwaysLabel: "Edit(/p/**)",
          review: { path: "/p/a.ts", original: "a\n", proposed: "b\n", hunks: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ["-a", "+b"] }] },
        },
      ),
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
    const page = await chat.open({ width: 300, height: 720, query: "?theme=light" });
    await init(page);
    await events(page, [
      ev.user("u1", "Rename the config loader"),
      ev.messageStart("m1"),
      ev.text("m1", "I'll update `load_config` and its callers:\n\n1. `src/config.rs`\n2. `src/main.rs`"),
      ev.messageStop("m1"),
      ev.toolStart("t1", "Grep", { pattern: "load_config", path: "/data/proj" }, { kind: "search", title: "Grep" }),
      ev.toolResult("t1", { mode: "files_with_matches", numFiles: 2, filenames: ["/data/proj/src/config.rs", "/data/proj/src/main.rs"], numMatches: 4 }),
      ev.toolStart("t2", "Edit", { file_path: "/data/proj/src/config.rs" }, { kind: "edit", title: "Edit" }),
      ev.toolResult("t2", {
        filePath: "/data/proj/src/config.rs",
        structuredPatch: [{ oldStart: 3, oldLines: 3, newStart: 3, newLines: 3, lines: [" use std::fs;", "-pub fn load_config() {", "+pub fn read_config() {", " }"] }],
      }),
      ev.toolStart("t3", "Bash", { command: "cargo check", description: "Type-check" }, { kind: "execute", title: "cargo check" }),
      ev.toolResult("t3", { stdout: "", stderr: "error[E0425]: cannot find function `load_config`\n --> src/main.rs:4:5", exitCode: 101 }, { isError: true }),
      ev.status("running"),
      ev.permission("r1", "Bash", { command: "cargo fix --allow-dirty" }, { kind: "execute", title: "cargo fix", alwaysLabel: "Bash(cargo fix:*)" }),
    ]);
    await frames(page, 3);
    await screenshot(page, "23-light-narrow");
    assert.deepEqual(await axe(page), [], "light theme");
    await finish(page);
  });

  test("copy button copies the code block", T, async () => {
    const page = await chat.open();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await init(page);
    await events(page, [
      ev.messageStart("m1"),
      ev.text("m1", "```rust\nfn main() {}\n```\n"),
      ev.messageStop("m1"),
    ]);
    await page.locator('[data-action="copy-code"]').click();
    await page.locator(".code-copy.copied").waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "fn main() {}\n");
    await finish(page);
  });
});
