// The project's hooks on the emulated remote (`tetherfake:`), in a real VS Code with the real
// Claude Code CLI and then claude-agent-acp against the fake Messages API: a PostToolUse hook
// formats the edited file on the remote, a PreToolUse hook blocks a Bash command (exit 2) and the
// chat shows its reason. Each hook writes where it ran (`pwd`) into a log in its working
// directory: the log is in the remote folder with the remote path, and no log, no formatted file
// and nothing of the hooks is in the laptop's mirror or workspace, so nothing of the project ran
// on the laptop. Claude Code first loads a project skill whose frontmatter hooks every tool: the
// skill comes through the mirror (a plugin folder), its hooks run nowhere (they ran in the mirror
// before Claude Code got `disableAllHooks`).

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { notingSkill } from "../fixtures/noting-skill.mjs";
import { ACP_AGENT, launchRemoteVsCode, lazyInput, listTree, openTether, sendPrompt, shot, showPickers, waitFor } from "./harness.mjs";

const LOG = ".hooks-ran.log";

// The project's hooks: each notes where it ran; the formatter strips trailing blanks of the file
// the Edit named (read from the hook's stdin, as the built-in Edit's input gives it).
const HOOKS = {
  hooks: {
    PostToolUse: [
      {
        matcher: "Edit|Write",
        hooks: [
          {
            type: "command",
            command:
              `f=$(sed -n 's/.*"file_path":"\\([^"]*\\)".*/\\1/p'); echo "post $(pwd) $f" >> ${LOG}; ` +
              `sed -i 's/[[:space:]]*$//' "$f"; echo '{"systemMessage":"Formatted by the project hook"}'`,
          },
        ],
      },
    ],
    PreToolUse: [
      {
        matcher: "Bash",
        hooks: [
          {
            type: "command",
            command: `echo "pre $(pwd)" >> ${LOG}; if grep -q 'rm -rf'; then echo 'Blocked by the project: no rm -rf here' >&2; exit 2; fi`,
          },
        ],
      },
    ],
  },
};

// A skill whose frontmatter hooks note every tool call while it is active.
const SKILL = notingSkill(LOG);

let api;
let vs;
let remote;

const messageRequests = () => api.requests.filter((r) => r.path === "/v1/messages" && Array.isArray(r.body?.messages));
const toolResultTexts = () =>
  messageRequests()
    .flatMap((r) => r.body.messages.at(-1)?.content ?? [])
    .filter((b) => b && b.type === "tool_result")
    .map((b) => (typeof b.content === "string" ? b.content : (b.content ?? []).map((c) => c.text ?? "").join("")));
const logLines = () => (fs.existsSync(path.join(remote, LOG)) ? fs.readFileSync(path.join(remote, LOG), "utf8").trim().split("\n") : []);


before(async () => {
  assert.ok(fs.existsSync(ACP_AGENT), `claude-agent-acp is not installed at ${ACP_AGENT} (./build.sh test installs it)`);
  const r = (rel) => () => path.join(remote, rel);
  const turns = (tag, file) => [
    { when: { lastUserText: new RegExp(`${tag} edit`) }, toolUse: { name: "mcp__tether__Read", input: lazyInput({ file_path: r(file) }) } },
    { when: { lastToolResult: new RegExp(`${tag}-world`) }, toolUse: { name: "mcp__tether__Edit", input: lazyInput({ file_path: r(file), old_string: `${tag}-world`, new_string: `${tag}-there   ` }) } },
    { when: { lastToolResult: /has been updated/ }, toolUse: { name: "mcp__tether__Bash", input: { command: `rm -rf ${tag}-build`, description: "Clean" } } },
    { when: { lastToolResult: /Blocked by the project/ }, text: `${tag}: the project's hook refused the command.` },
  ];
  const [cliRead, ...cliRest] = turns("CLI", "cli.txt");
  const skillFirst = [
    { when: cliRead.when, toolUse: { name: "Skill", input: { skill: "probe" } } },
    { when: { lastToolResult: /Launching skill: probe/ }, toolUse: cliRead.toolUse },
  ];
  api = await startFakeApi([...skillFirst, ...cliRest, ...turns("ACP", "acp.txt"), { text: "OK.", repeat: true }]);
  vs = await launchRemoteVsCode({
    name: "hooks",
    api,
    remoteFiles: {
      "cli.txt": "hello   \nCLI-world\n",
      "acp.txt": "hello   \nACP-world\n",
      "CLI-build/keep.txt": "kept\n",
      "ACP-build/keep.txt": "kept\n",
      ".claude/settings.json": JSON.stringify(HOOKS),
      ".claude/skills/probe/SKILL.md": SKILL,
    },
    withAcpAgent: true,
  });
  remote = vs.remote;
  await openTether(vs);
});

after(async () => {
  await vs?.close();
  await api?.close();
});

/** The laptop's side: the mirror folders and the window's local workspace. */
function laptopFiles() {
  const base = path.join(vs.userData, "User/globalStorage/tether.tether/mirrors");
  return [...listTree(base).map((f) => path.join(base, f)), ...listTree(vs.workspace).map((f) => path.join(vs.workspace, f))];
}

async function hooksTurn(tag, file) {
  await sendPrompt(vs, `${tag} edit the file and clean up`);
  await waitFor(async () => toolResultTexts().some((t) => t.includes("Blocked by the project")) && logLines().some((l) => l.startsWith("pre")), 120_000, `${tag}: the blocked command`);
  await vs.webview.getByText(`${tag}: the project's hook refused the command.`).waitFor({ timeout: 60_000 });
  // The formatter ran on the remote, after Tether's Edit: the trailing blanks are gone.
  assert.equal(fs.readFileSync(path.join(remote, file), "utf8"), `hello\n${tag}-there\n`);
  assert.ok(fs.existsSync(path.join(remote, `${tag}-build/keep.txt`)), "the blocked command did not run");
  // The chat shows the block's reason and the hook's message.
  await vs.webview.getByText(/Blocked by the project: no rm -rf here/).first().waitFor({ timeout: 30_000 });
  await vs.webview.getByText(/Formatted by the project hook/).first().waitFor({ timeout: 30_000 });
}

test("Claude Code: a PostToolUse hook formats the edited file on the remote, a PreToolUse hook blocks rm -rf", { timeout: 180_000 }, async () => {
  await hooksTurn("CLI", "cli.txt");
  assert.ok(toolResultTexts().some((t) => t.includes("Launching skill: probe")), "the project's skill was loaded from the mirror");
  const lines = logLines();
  assert.ok(lines.includes(`post ${remote} ${path.join(remote, "cli.txt")}`), `the formatter ran in the remote folder: ${lines}`);
  assert.ok(lines.includes(`pre ${remote}`), `the check ran in the remote folder: ${lines}`);
  await shot(vs, "60-hooks-claude");
});

test("claude-agent-acp: the same hooks run on the remote around Tether's tools", { timeout: 180_000 }, async () => {
  await showPickers(vs.webview);
  await vs.webview.getByRole("button", { name: /^Agent:/ }).click();
  await vs.webview.getByRole("option", { name: /Claude Agent/ }).click();
  await vs.webview.getByRole("textbox", { name: "Message to Claude Agent" }).waitFor({ timeout: 10_000 });
  const before = logLines().length;
  await hooksTurn("ACP", "acp.txt");
  const lines = logLines().slice(before);
  assert.ok(lines.includes(`post ${remote} ${path.join(remote, "acp.txt")}`), `the formatter ran in the remote folder: ${lines}`);
  assert.ok(lines.includes(`pre ${remote}`), `the check ran in the remote folder: ${lines}`);
  await shot(vs, "61-hooks-acp");
});

test("nothing of the project's hooks ran on the laptop", { timeout: 30_000 }, async () => {
  // Every hook run is in the remote's log, each in the remote folder: two per agent (the skill's
  // frontmatter hooks run nowhere).
  const lines = logLines();
  assert.equal(lines.length, 4, lines.join("\n"));
  assert.ok(lines.every((l) => l.split(" ")[1] === remote), lines.join("\n"));
  // The laptop holds no log (a hook run there would have written one in its working directory,
  // the mirror) and no copy of the formatted files.
  const laptop = laptopFiles();
  assert.deepEqual(laptop.filter((f) => f.endsWith(LOG) || f.endsWith("cli.txt") || f.endsWith("acp.txt")), []);
  // The mirror holds the skill, not the settings with the hooks.
  assert.ok(laptop.some((f) => f.endsWith("skills/probe/SKILL.md")), laptop.join("\n"));
  assert.deepEqual(laptop.filter((f) => /\.claude[\\/]settings(\.local)?\.json$/.test(f)), []);
});
