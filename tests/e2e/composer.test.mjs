// The composer on the emulated remote (tests/e2e/fake-remote), with the real CLI against the fake
// API, in one code-server: a slash command from the project's .claude/commands (read from the
// workspace, not the laptop) used in a Claude session, its expanded text reaching the model; an
// @-mention of a line range and one of a terminal reaching the model; and the chat at 300 and
// 500 px, in a light and a dark theme, with no element overflowing (findOverflow), left as a
// screenshot gallery in tests/artifacts/e2e/gallery/.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { ARTIFACTS, CLAUDE, findOverflow, launchVsCode, openTether, sendPrompt, setSidebarWidth, waitFor } from "./harness.mjs";

const FAKE_REMOTE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fake-remote");
const GALLERY = path.join(ARTIFACTS, "gallery");
const APP = Array.from({ length: 30 }, (_, i) => `const line${i + 1} = "app line ${i + 1}";`).join("\n") + "\n";

let api;
let vs;
let remote;

const messageRequests = () => api.requests.filter((r) => r.path === "/v1/messages" && Array.isArray(r.body?.messages));
/** The text of every request's user messages (the CLI puts its context after the user's own). */
const userTexts = () =>
  messageRequests().map((r) =>
    r.body.messages
      .filter((m) => m.role === "user")
      .map((m) => (typeof m.content === "string" ? m.content : m.content.map((b) => b.text ?? "").join("\n")))
      .join("\n"),
  );

before(async () => {
  const at = (rel) => () => path.join(remote, rel);
  const input = (fields) => Object.defineProperties({}, Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { get: typeof v === "function" ? v : () => v, enumerable: true }])));
  api = await startFakeApi([
    { when: { lastUserText: /<command-name>\/greet<\/command-name>/ }, text: "Greeted, as the project's command asks." },
    { when: { lastUserText: /TERM-MARK/ }, text: "I see the lines and the terminal's output." },
    {
      when: { lastUserText: /GALLERY tools/ },
      text: "Looking around, then one edit.",
      toolUses: [
        { name: "mcp__tether__Read", input: input({ file_path: at("src/app.js") }) },
        { name: "mcp__tether__Grep", input: input({ pattern: "app line (1|2|3) and a rather long pattern that goes on", path: at("src"), output_mode: "content" }) },
        { name: "mcp__tether__Edit", input: input({ file_path: at("src/deeply/nested/folder/with/a/long/name/component.js"), old_string: "old", new_string: "new value with a longer line than before" }) },
      ],
    },
    { when: { lastToolResult: /updated/ }, text: "Done: the component now says **new value**." },
    { when: { lastUserText: /GALLERY error/ }, error: { status: 400, type: "invalid_request_error", message: "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits." }, repeat: true },
    { text: "ok", repeat: true },
  ]);
  vs = await launchVsCode({
    name: "composer",
    extensions: [FAKE_REMOTE],
    remoteFiles: {
      ".claude/commands/greet.md": "---\ndescription: Greet someone warmly\nargument-hint: <name>\n---\nPlease greet $ARGUMENTS warmly. CMD-MARK\n",
      "src/app.js": APP,
      "src/deeply/nested/folder/with/a/long/name/component.js": "export const label = \"old\";\n",
    },
    folder: (dirs) => `tetherfake:${dirs.remote}`,
    settings: {
      "tether.claudePath": CLAUDE,
      // No retries: the scripted API error ends its turn at once.
      "tether.environment": { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", CLAUDE_CODE_MAX_RETRIES: "0" },
      "terminal.integrated.defaultProfile.linux": "bash",
      "workbench.colorTheme": "Default Dark Modern",
      "workbench.preferredDarkColorTheme": "Default Dark Modern",
      "workbench.preferredLightColorTheme": "Default Light Modern",
    },
  });
  remote = vs.remote;
  await openTether(vs);
});

after(async () => {
  await vs?.close();
  await api?.close();
});

const composer = () => vs.webview.getByRole("textbox", { name: "Message to Claude" });

async function turnEnded() {
  await vs.webview.getByRole("button", { name: "Send" }).waitFor({ timeout: 60_000 });
  await waitFor(async () => !(await vs.webview.locator(".composer.busy").count()), 60_000, "the turn's end");
}

test("a slash command from the project's .claude/commands is offered, described, and its expanded text reaches the model", { timeout: 120_000 }, async () => {
  await composer().click();
  await composer().pressSequentially("/gre");
  const item = vs.webview.locator("#command-list .mention-item", { hasText: "/greet" });
  await item.waitFor({ timeout: 60_000 });
  assert.match(await item.innerText(), /Greet someone warmly \(project\)/);
  await composer().press("Enter");
  assert.equal(await composer().inputValue(), "/greet ");
  await composer().pressSequentially("the whole team");
  await composer().press("Enter");
  await waitFor(async () => userTexts().some((t) => t.includes("Please greet the whole team warmly. CMD-MARK")), 60_000, "the expanded command at the model");
  const sent = userTexts().find((t) => t.includes("CMD-MARK"));
  assert.match(sent, /<command-message>greet<\/command-message>\n<command-name>\/greet<\/command-name>\n<command-args>the whole team<\/command-args>/);
  await vs.webview.getByText("Greeted, as the project's command asks.").waitFor({ timeout: 30_000 });
  await turnEnded();
});

test("an @-mention of a line range and one of a terminal reach the model with the lines and the terminal's output", { timeout: 120_000 }, async () => {
  await vs.control("workbench.action.terminal.new");
  // The terminal's output comes through shell integration: wait until it is active, then run.
  await vs.page.locator(".terminal-wrapper").first().waitFor({ timeout: 30_000 });
  const done = path.join(vs.runDir, "terminal-ran");
  // Output comes a moment after the command starts, as a build's or a test run's does: VS Code
  // streams an execution's output to extensions only from when they hear of its start, and the
  // output of a command that prints at once can outrun that news (a bare echo is often lost).
  await vs.control("workbench.action.terminal.sendSequence", { text: `sleep 1; echo TERM-MARK-$((6*7)) | tee ${done}\r` });
  await waitFor(async () => fs.existsSync(done) && fs.readFileSync(done, "utf8").includes("TERM-MARK-42"), 30_000, "the command run in the terminal");
  // The composer offers the terminal while a mention is typed.
  await composer().click();
  await composer().pressSequentially("@term");
  await vs.webview.locator(".mention-item", { hasText: "terminal:bash" }).waitFor({ timeout: 30_000 });
  await composer().press("Enter");
  await composer().pressSequentially("and @src/app.js#L3-4 please");
  assert.equal(await composer().inputValue(), "@terminal:bash and @src/app.js#L3-4 please");
  await composer().press("Enter");
  await waitFor(async () => userTexts().some((t) => t.includes("TERM-MARK-42") && t.includes("app line 3")), 60_000, "the mentions at the model").catch((error) => {
    throw new Error(`${error.message}; the last prompt the model got: ${JSON.stringify(userTexts().at(-1)?.slice(-1500))}`);
  });
  const sent = userTexts().find((t) => t.includes("TERM-MARK-42"));
  assert.match(sent, /Called the Read tool with the following input: \{"file_path":"[^"]*\/src\/app\.js"\}/);
  assert.match(sent, /Result of calling the Read tool:\n3\tconst line3 = "app line 3";\n4\tconst line4 = "app line 4";\n<\/system-reminder>/);
  assert.match(sent, /The user mentioned the terminal "bash"[^\n]*\n[\s\S]*TERM-MARK-42/);
  assert.match(sent, /terminal:bash and src\/app\.js#L3-4 please/);
  assert.ok(!sent.includes("app line 5"), "only the lines mentioned");
  await turnEnded();
});

/** The theme switched with VS Code's own toggle between its preferred light and dark themes. */
async function setTheme(kind) {
  const bodyClass = async () => (await vs.webview.locator("body").getAttribute("class")) ?? "";
  const want = kind === "light" ? "vscode-light" : "vscode-dark";
  if (!(await bodyClass()).includes(want)) await vs.control("workbench.action.toggleLightDarkThemes");
  await waitFor(async () => (await bodyClass()).includes(want), 20_000, `the ${kind} theme in the chat`);
}

/** The chat at both widths and both themes: a screenshot each, and nothing overflowing. */
async function gallery(name) {
  fs.mkdirSync(GALLERY, { recursive: true });
  const problems = [];
  for (const kind of ["dark", "light"]) {
    await setTheme(kind);
    for (const width of [300, 500]) {
      await setSidebarWidth(vs, width);
      await vs.page.waitForTimeout(0);
      await vs.page.locator(".part.sidebar").screenshot({ path: path.join(GALLERY, `claude-${name}-${width}-${kind}.png`) });
      for (const o of await findOverflow(vs.webview)) problems.push(`${width}px ${kind}: ${o.selector} "${o.text}" (${o.scrollWidth} > ${o.clientWidth}, right ${o.right})`);
    }
  }
  return problems;
}

test("at 300 and 500 px, light and dark: tool rows, the permission card and an error overflow nowhere", { timeout: 180_000 }, async () => {
  await sendPrompt(vs, "GALLERY tools: look around, then edit the component");
  const allow = vs.webview.getByRole("button", { name: "Allow", exact: true });
  await allow.waitFor({ timeout: 60_000 });
  const pending = await gallery("permission");
  await setSidebarWidth(vs, 500);
  await allow.click();
  await vs.webview.getByText("Done: the component now says").waitFor({ timeout: 60_000 });
  await turnEnded();
  await sendPrompt(vs, "GALLERY error please");
  await vs.webview.locator(".error-card").first().waitFor({ timeout: 60_000 });
  await turnEnded();
  const errors = await gallery("tools-error");
  const problems = [...pending, ...errors];
  if (problems.length) console.log(`overflowing:\n${problems.join("\n")}`);
  assert.deepEqual(problems, []);
});
