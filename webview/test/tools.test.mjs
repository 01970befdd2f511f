// The tool timeline: one renderer per tool, running / succeeded / failed states, nesting.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ev } from "./fixtures.mjs";
import { events, finish, frames, init, posted, screenshot, useWebview } from "./helpers.mjs";

const chat = useWebview();

const T = { timeout: 30_000 };
const start = ev.toolStart;
const result = (id, structured = null, { isError = false, content = "" } = {}) => ev.toolResult(id, structured, { isError, content });
const tool = (page, id) => page.locator(`.tool[data-call-id="${id}"]`);

describe("tool renderers", () => {
  test("Bash: command, description, running → exit badge, stderr, collapsed long output", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [start("b1", "Bash", { command: "npm test -- --ci", description: "Run the test suite" })]);
    const b = tool(page, "b1");
    await b.waitFor();
    assert.equal(await b.getAttribute("data-status"), "running");
    assert.match(await b.locator(".tool-label").innerText(), /Run the test suite/);
    assert.match(await b.locator(".command-line").innerText(), /\$ npm test -- --ci/);
    const stdout = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    await events(page, [result("b1", { stdout, stderr: "npm WARN deprecated\n", exitCode: 1, interrupted: false }, { isError: true, content: stdout })]);
    assert.equal(await b.getAttribute("data-status"), "error");
    assert.equal(await b.locator(".badge", { hasText: "exit 1" }).count(), 1);
    assert.match(await b.locator(".stderr").innerText(), /stderr[\s\S]*npm WARN deprecated/i);
    // Collapsed to the last 20 lines.
    const out = b.locator(".stdout .output-text");
    const shown = (await out.innerText()).split("\n").filter(Boolean);
    assert.equal(shown.length, 20);
    assert.equal(shown[0], "line 41");
    assert.equal(shown.at(-1), "line 60");
    await b.getByRole("button", { name: /Show all 60 lines/ }).click();
    await frames(page);
    assert.equal((await out.innerText()).split("\n").filter(Boolean).length, 60);
    // Success case.
    await events(page, [start("b2", "Bash", { command: "echo ok" }), result("b2", { stdout: "ok\n", stderr: "", exitCode: 0, interrupted: false })]);
    assert.equal(await tool(page, "b2").getAttribute("data-status"), "ok");
    assert.equal(await tool(page, "b2").locator(".badge-ok", { hasText: "exit 0" }).count(), 1);
    await finish(page);
  });

  test("Read: a file link with its line range that posts openFile", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      start("r1", "Read", { file_path: "/data/proj/src/lib.rs", offset: 10, limit: 50 }),
      result("r1", { type: "text", file: { filePath: "/data/proj/src/lib.rs", numLines: 50, startLine: 10, totalLines: 300 } }),
    ]);
    const r = tool(page, "r1");
    await r.waitFor();
    assert.equal(await r.locator(".file-ref").innerText(), "lib.rs");
    assert.equal(await r.locator(".read-range").innerText(), "lines 10–59 of 300");
    await r.locator(".file-ref").click();
    assert.deepEqual(await posted(page, "openFile"), [{ type: "openFile", path: "/data/proj/src/lib.rs", line: 10 }]);
    await finish(page);
  });

  test("Grep and Glob: pattern, path, counts, expandable file list", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      start("g1", "Grep", { pattern: "fn main", path: "/data/proj", glob: "*.rs", output_mode: "files_with_matches" }),
      result("g1", { mode: "files_with_matches", numFiles: 3, filenames: ["/data/proj/a.rs", "/data/proj/b.rs", "/data/proj/c.rs"], numMatches: 5 }),
      start("gl", "Glob", { pattern: "**/*.toml", path: "/data/proj" }),
      result("gl", { filenames: ["/data/proj/Cargo.toml", "/data/proj/crate/Cargo.toml"], numFiles: 2, truncated: false }),
      start("g2", "Grep", { pattern: "TODO", output_mode: "content" }),
      result("g2", { mode: "content", numFiles: 1, filenames: [], content: "src/x.rs:3:// TODO: fix\n", numLines: 1 }),
    ]);
    const g = tool(page, "g1");
    assert.match(await g.locator(".tool-summary").innerText(), /fn main in \/data\/proj \(\*\.rs\)/);
    assert.equal(await g.locator(".badge").innerText(), "5 matches in 3 files");
    assert.equal(await g.locator(".file-list").count(), 0);
    await g.locator(".tool-toggle").click();
    await frames(page);
    assert.equal(await g.locator(".file-list li").count(), 3);
    await g.locator(".file-list a", { hasText: "/data/proj/b.rs" }).click();
    assert.deepEqual((await posted(page, "openFile")).at(-1), { type: "openFile", path: "/data/proj/b.rs" });
    const gl = tool(page, "gl");
    assert.match(await gl.locator(".tool-summary").innerText(), /\*\*\/\*\.toml/);
    assert.equal(await gl.locator(".badge").innerText(), "2 files");
    await tool(page, "g2").locator(".tool-toggle").click();
    await frames(page);
    assert.match(await tool(page, "g2").locator(".output-text").innerText(), /TODO: fix/);
    await finish(page);
  });

  test("Edit: inline diff from structuredPatch, coloured lines, large diffs collapsed", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      start("e1", "Edit", { file_path: "/data/proj/src/app.ts", old_string: "return a - b;", new_string: "return a + b;" }),
    ]);
    // Before the result: a preview from the input.
    const e = tool(page, "e1");
    assert.equal(await e.getAttribute("data-status"), "running");
    assert.equal(await e.locator(".dl.del").count(), 1);
    await events(page, [
      result("e1", {
        filePath: "/data/proj/src/app.ts",
        structuredPatch: [{ oldStart: 10, oldLines: 3, newStart: 10, newLines: 3, lines: [" function add(a, b) {", "-  return a - b;", "+  return a + b;", " }"] }],
        originalFile: "…",
      }),
    ]);
    assert.equal(await e.getAttribute("data-status"), "ok");
    assert.equal(await e.locator(".dl.add").count(), 1);
    assert.equal(await e.locator(".dl.del").count(), 1);
    assert.equal(await e.locator(".dl.ctx").count(), 2);
    assert.match(await e.locator(".dl.add").innerText(), /return a \+ b;/);
    assert.match(await e.locator(".dl.dh").innerText(), /@@ -10,3 \+10,3 @@/);
    assert.equal(await e.locator(".diff-stats").innerText(), "+1 −1");
    const bg = await e.locator(".dl.add").evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.equal(bg, "rgba(155, 185, 85, 0.2)", "added lines use --vscode-diffEditor-insertedLineBackground");
    // A large diff.
    const lines = Array.from({ length: 300 }, (_, i) => `+new line ${i}`);
    await events(page, [
      start("e2", "Edit", { file_path: "/data/proj/big.txt", old_string: "", new_string: "x" }),
      result("e2", { filePath: "/data/proj/big.txt", structuredPatch: [{ oldStart: 1, oldLines: 0, newStart: 1, newLines: 300, lines }] }),
    ]);
    const e2 = tool(page, "e2");
    assert.ok((await e2.locator(".dl").count()) <= 40);
    await e2.getByRole("button", { name: /Show all 301 lines/ }).click();
    await frames(page);
    assert.equal(await e2.locator(".dl.add").count(), 300);
    await screenshot(page, "08-edit-diff");
    await finish(page);
  });

  test("Write: a new file shows as added lines; MultiEdit counts edits", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      start("w1", "Write", { file_path: "/data/proj/hello.py", content: "print('hi')\nprint('there')\n" }),
      result("w1", { type: "create", filePath: "/data/proj/hello.py", content: "print('hi')\nprint('there')\n", structuredPatch: [] }),
      start("m1", "MultiEdit", { file_path: "/data/proj/a.ts", edits: [{ old_string: "a", new_string: "b" }, { old_string: "c", new_string: "d" }] }),
    ]);
    const w = tool(page, "w1");
    assert.equal(await w.locator(".tool-label").innerText(), "Create");
    assert.equal(await w.locator(".dl.add").count(), 2);
    assert.equal(await w.locator(".diff-stats").innerText(), "+2 −0");
    const m = tool(page, "m1");
    assert.match(await m.locator(".tool-badges").innerText(), /2 edits/);
    assert.equal(await m.locator(".dl.add").count(), 2);
    await finish(page);
  });

  test("TodoWrite: a checklist; todoUpdate feeds the task panel", T, async () => {
    const page = await chat.open();
    await init(page);
    const todos = [
      { content: "Reproduce the bug", status: "completed", activeForm: "Reproducing the bug" },
      { content: "Fix the parser", status: "in_progress", activeForm: "Fixing the parser" },
      { content: "Add a test", status: "pending", activeForm: "Adding a test" },
    ];
    await events(page, [
      ev.status("running"),
      start("td", "TodoWrite", { todos }),
      result("td", {}, { content: "Todos have been modified successfully" }),
      ev.todos(todos),
    ]);
    const t = tool(page, "td");
    assert.equal(await t.locator(".todo").count(), 3);
    assert.equal(await t.locator(".todo-completed").count(), 1);
    assert.match(await t.locator(".todo-in_progress").innerText(), /Fixing the parser/);
    assert.match(await t.locator(".tool-badges").innerText(), /1\/3 done/);
    const panel = page.locator(".todo-panel");
    assert.match(await panel.innerText(), /Fixing the parser[\s\S]*1\/3/);
    await panel.locator(".todo-panel-head").click();
    assert.equal(await panel.locator(".todo").count(), 3);
    await screenshot(page, "09-todos");
    await finish(page);
  });

  test("ExitPlanMode: the plan as markdown", T, async () => {
    const page = await chat.open();
    await init(page, { mode: "plan" });
    await events(page, [
      start("p1", "ExitPlanMode", {}),
      ev.plan("p1", "# Plan\n\n1. Read `parser.rs`\n2. Fix the off-by-one\n3. Run `cargo test`"),
    ]);
    const p = tool(page, "p1");
    assert.equal(await p.locator(".plan-md h1").innerText(), "Plan");
    assert.equal(await p.locator(".plan-md ol li").count(), 3);
    await events(page, [result("p1", {}, { content: "User has approved your plan." })]);
    assert.equal(await p.locator(".badge", { hasText: "approved" }).count(), 1);
    await finish(page);
  });

  test("Task/Agent: a collapsible group holding its nested calls and subagent text", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      start("task1", "Task", { description: "Find the config loader", prompt: "Search the repo for…", subagent_type: "Explore" }),
      start("n1", "Grep", { pattern: "load_config" }, { parentToolUseId: "task1" }),
      result("n1", { mode: "files_with_matches", numFiles: 1, filenames: ["/data/proj/config.rs"] }),
      ev.messageStart("sm1", "task1"),
      ev.text("sm1", "Found it in **config.rs**.", "task1"),
      start("n2", "Read", { file_path: "/data/proj/config.rs" }, { parentToolUseId: "task1" }),
    ]);
    const t = tool(page, "task1");
    assert.equal(await t.locator(".tool-label").first().innerText(), "Explore");
    assert.match(await t.locator(".tool-summary").first().innerText(), /Find the config loader/);
    assert.equal(await t.locator(".task-children > .tool").count(), 2);
    assert.equal(await t.locator('.task-children .tool[data-call-id="n1"]').getAttribute("data-status"), "ok");
    assert.equal(await t.locator('.task-children .tool[data-call-id="n2"]').getAttribute("data-status"), "running");
    assert.match(await t.locator(".subagent-message").innerText(), /Found it in config\.rs/);
    assert.equal(await page.locator('.vrow > .tool[data-call-id="n1"]').count(), 0, "nested calls are not top-level rows");
    await screenshot(page, "10-task");
    await events(page, [
      result("n2", { type: "text", file: { filePath: "/data/proj/config.rs", numLines: 10, startLine: 1, totalLines: 10 } }),
      result("task1", {}, { content: "The loader is `load_config` in config.rs." }),
    ]);
    assert.equal(await t.getAttribute("data-status"), "ok");
    // Folded when done; expandable again.
    assert.equal(await t.locator(".task-body").count(), 0);
    await t.locator(".tool-toggle").first().click();
    await frames(page);
    assert.match(await t.locator(".task-result").innerText(), /load_config/);
    await finish(page);
  });

  test("generic and MCP tools: name, JSON input, result; failed state", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      start("x1", "mcp__github__create_issue", { title: "Bug", labels: ["p1"] }, { title: "Create issue" }),
      result("x1", null, { content: "Created issue #12" }),
      start("x2", "WebFetch", { url: "https://example.com/docs", prompt: "Summarize" }),
      result("x2", null, { isError: true, content: "Request failed: 404" }),
      start("x3", "SomethingNew", { a: 1 }),
    ]);
    const x1 = tool(page, "x1");
    assert.equal(await x1.locator(".tool-label").innerText(), "github · create_issue");
    await x1.locator(".tool-toggle").click();
    await frames(page);
    assert.match(await x1.locator(".json").innerText(), /"labels": \[\s*"p1"\s*\]/);
    assert.match(await x1.locator(".output").innerText(), /Created issue #12/);
    const x2 = tool(page, "x2");
    assert.equal(await x2.getAttribute("data-status"), "error");
    assert.match(await x2.locator(".tool-error-text").innerText(), /404/);
    assert.equal(await tool(page, "x3").locator(".tool-label").innerText(), "SomethingNew");
    // A turn that ends leaves no spinner behind.
    await events(page, [ev.done({ subtype: "error_during_execution", isError: true, durationMs: 100 })]);
    assert.equal(await tool(page, "x3").getAttribute("data-status"), "cancelled");
    await screenshot(page, "11-generic");
    await finish(page);
  });

  test("a tool under a name of its own is drawn by its kind: icon, title, files, command, patch", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      start("k-read", "view_file", { path: "/data/proj/a.rs" }, { kind: "read", title: "View a.rs", locations: [{ path: "/data/proj/a.rs", line: 12 }] }),
      start("k-exec", "run_shell", { command: "make -j4" }, { kind: "execute", title: "Build" }),
      result("k-exec", null, { content: "built\n" }),
      start("k-edit", "apply_patch", {}, { kind: "edit", title: "Patch b.rs", locations: [{ path: "/data/proj/b.rs", line: null }] }),
      result("k-edit", { structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ["-old", "+new"] }] }, { content: "ok" }),
      start("k-search", "find_text", { query: "TODO" }, { kind: "search", title: "Find TODO" }),
      start("k-fetch", "http_get", { url: "https://example.com" }, { kind: "fetch", title: "Fetch example.com" }),
      start("k-think", "reflect", {}, { kind: "think", title: "Thinking it over" }),
    ]);
    const icons = { "k-read": "file", "k-exec": "terminal", "k-edit": "edit", "k-search": "search", "k-fetch": "globe", "k-think": "lightbulb" };
    for (const [id, icon] of Object.entries(icons)) {
      assert.equal(await tool(page, id).locator(`.tool-icon.codicon-${icon}`).count(), 1, `${id} shows the ${icon} icon`);
    }
    assert.equal(await tool(page, "k-read").locator(".tool-label").innerText(), "View a.rs");
    await tool(page, "k-read").locator(".file-ref").click();
    assert.deepEqual((await posted(page, "openFile")).at(-1), { type: "openFile", path: "/data/proj/a.rs", line: 12 });
    assert.match(await tool(page, "k-exec").locator(".command-line").innerText(), /\$ make -j4/);
    assert.match(await tool(page, "k-exec").locator(".output").innerText(), /built/);
    const edit = tool(page, "k-edit");
    assert.equal(await edit.getAttribute("data-status"), "ok");
    assert.equal(await edit.locator(".dl.add").count(), 1);
    assert.equal(await edit.locator(".dl.del").count(), 1);
    assert.equal(await tool(page, "k-search").locator(".tool-label").innerText(), "Find TODO");
    await screenshot(page, "11b-by-kind");
    await finish(page);
  });

  test("toolInputDelta fragments build the input live", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [start("b1", "Bash", {}), ev.toolInput("b1", '{"command": "cargo bu')]);
    await events(page, [ev.toolInput("b1", 'ild --release", "description": "Build"}')]);
    assert.match(await tool(page, "b1").locator(".command-line").innerText(), /cargo build --release/);
    assert.match(await tool(page, "b1").locator(".tool-label").innerText(), /Build/);
    await finish(page);
  });

  test("a full turn looks right (screenshot)", T, async () => {
    const page = await chat.open({ height: 900 });
    await init(page);
    await events(page, [
      ev.user("u1", "The add() test fails, can you fix it?", { attachments: [{ kind: "file", path: "/data/proj/src/app.ts" }] }),
      ev.messageStart("m1"),
      ev.thinking("m1", "Look at the test output first."),
      ev.text("m1", "Let me run the tests to see the failure."),
      ev.messageStop("m1"),
      start("b1", "Bash", { command: "npm test", description: "Run tests" }),
      result("b1", { stdout: "FAIL src/app.test.ts\n  ✕ adds (4 ms)\n    Expected: 3\n    Received: -1\n", stderr: "", exitCode: 1 }, { isError: true }),
      start("r1", "Read", { file_path: "/data/proj/src/app.ts" }),
      result("r1", { type: "text", file: { filePath: "/data/proj/src/app.ts", numLines: 24, startLine: 1, totalLines: 24 } }),
      start("e1", "Edit", { file_path: "/data/proj/src/app.ts", old_string: "a - b", new_string: "a + b" }),
      result("e1", { filePath: "/data/proj/src/app.ts", structuredPatch: [{ oldStart: 10, oldLines: 3, newStart: 10, newLines: 3, lines: [" export function add(a: number, b: number) {", "-  return a - b;", "+  return a + b;", " }"] }] }),
      start("b2", "Bash", { command: "npm test", description: "Run tests again" }),
      result("b2", { stdout: "PASS src/app.test.ts\n  ✓ adds (2 ms)\n", stderr: "", exitCode: 0 }),
      ev.messageStart("m2"),
      ev.text("m2", "Fixed: `add()` subtracted instead of adding. The test passes now."),
      ev.messageStop("m2"),
      ev.usage(5120, 312, { costUsd: 0.021 }),
      ev.done({ durationMs: 8400, numTurns: 4 }),
    ]);
    await frames(page, 4);
    await screenshot(page, "12-full-turn");
    await finish(page);
  });
});
