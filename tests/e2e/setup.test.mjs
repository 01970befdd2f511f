// The project's own setup on the emulated remote (tests/e2e/fake-remote), in a multi-root
// workspace of two remote folders, with the real CLI against the fake API, in one code-server:
// a project skill in .claude/skills that the model invokes (its content reaches the model, and the
// script it names runs through Tether's Bash in the remote folder, not in the laptop's mirror);
// an Edit of a file in the second folder, named by the path the CLI knows it by (its mirror, given
// with --add-dir), lands in the second folder on the remote. A marker in a project file outside
// the agent context is on no laptop disk afterwards.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { CLAUDE, filesContaining, launchVsCode, openTether, sendPrompt, shot, waitFor } from "./harness.mjs";

const FAKE_REMOTE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fake-remote");
const MARKER = `TETHER-SETUP-MARKER-${randomUUID()}`;
const SKILL = "---\nname: greet\ndescription: Use when the user asks for a greeting.\n---\nSKILLBODY-greet: run scripts/hello.sh from this skill's folder.\n";
const SCRIPT = 'echo "SCRIPT-RAN-IN:$(pwd) FROM:$(cd "$(dirname "$0")" && pwd)"\necho ran > skill-ran.txt\n';

let api;
let vs;
let remote;
/** The second folder's mirror, as the CLI knows it (found on disk once the session started). */
let secondMirror;

const messageRequests = () => api.requests.filter((r) => r.path === "/v1/messages" && Array.isArray(r.body?.messages));
const read = (rel) => fs.readFileSync(path.join(remote, rel), "utf8");


/** The mirror folders Tether made under the run's global storage. */
function mirrors(runDir) {
  const found = [];
  const walk = (p, depth) => {
    if (depth > 7) return;
    for (const entry of fs.readdirSync(p, { withFileTypes: true })) {
      const child = path.join(p, entry.name);
      if (!entry.isDirectory()) continue;
      if (path.basename(p) === "tetherfake" && path.basename(path.dirname(p)) === "mirrors") found.push(child);
      else walk(child, depth + 1);
    }
  };
  walk(path.join(runDir, "user-data"), 0);
  return found;
}

before(async () => {
  api = await startFakeApi([
    { when: { lastUserText: /SETUP skill/ }, toolUse: { name: "Skill", input: { skill: "greet" } } },
    {
      when: (facts) => /SKILLBODY-greet/.test(facts.lastUserText),
      toolUse: (facts) => {
        const base = /Base directory for this skill: (\S+)/.exec(facts.lastUserText)?.[1] ?? "missing-base-directory";
        return { name: "mcp__tether__Bash", input: { command: `bash ${base}/scripts/hello.sh`, description: "Run the skill's script" } };
      },
    },
    { when: { lastToolResult: /SCRIPT-RAN-IN/ }, text: "The skill's script ran." },
    {
      when: { lastUserText: /SETUP edit two/ },
      toolUse: () => ({ name: "mcp__tether__Edit", input: { file_path: `${secondMirror}/lib.txt`, old_string: "second old", new_string: "second new" } }),
    },
    { when: { lastToolResult: /has been updated/ }, text: "Edited the second folder." },
  ]);
  vs = await launchVsCode({
    name: "setup",
    extensions: [FAKE_REMOTE],
    remoteFiles: {
      "one/hello.txt": "first folder\n",
      "one/.claude/skills/greet/SKILL.md": SKILL,
      "one/.claude/skills/greet/scripts/hello.sh": SCRIPT,
      "one/data/private.txt": `${MARKER}\n`,
      "two/lib.txt": "second old\n",
      "two/CLAUDE.md": "SECOND-FOLDER-MEMORY: the library folder.\n",
    },
    folder: (dirs) => {
      const file = path.join(dirs.workspace, "..", "two-remote-folders.code-workspace");
      const folders = ["one", "two"].map((name) => ({ uri: `tetherfake:${path.join(dirs.remote, name)}` }));
      fs.writeFileSync(file, JSON.stringify({ folders }));
      return file;
    },
    settings: {
      "tether.claudePath": CLAUDE,
      "tether.defaultMode": "bypassPermissions",
      "tether.environment": { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
      "files.autoSave": "off",
    },
  });
  remote = vs.remote;
  await openTether(vs);
});

after(async () => {
  await vs?.close();
  await api?.close();
});

async function turn(prompt, done) {
  await sendPrompt(vs, prompt);
  await waitFor(async () => done(), 90_000, `the turn "${prompt}"`);
  await vs.webview.getByRole("button", { name: "Send" }).waitFor({ timeout: 30_000 });
}

test("a project skill reaches the model and its script runs in the remote folder through Tether's Bash", { timeout: 150_000 }, async () => {
  await turn("SETUP skill: greet me", () => fs.existsSync(path.join(remote, "one/skill-ran.txt")));
  const bodies = messageRequests().map((r) => JSON.stringify(r.body));
  const first = bodies.find((b) => b.includes("SETUP skill"));
  assert.ok(first?.includes("Use when the user asks for a greeting"), "the skill is listed to the model");
  const afterSkill = messageRequests().find((r) => JSON.stringify(r.body.messages.at(-1)).includes("SKILLBODY-greet"));
  assert.ok(afterSkill, "the skill's content reached the model in the request after the Skill call");
  const scriptResult = await waitFor(async () => messageRequests().map((r) => JSON.stringify(r.body.messages.at(-1))).find((m) => m.includes("SCRIPT-RAN-IN")), 30_000, "the script's output");
  const ranIn = /SCRIPT-RAN-IN:(\S+) FROM:([^"\s\\]+)/.exec(scriptResult);
  assert.ok(ranIn, scriptResult);
  assert.equal(fs.realpathSync(ranIn[1]), fs.realpathSync(path.join(remote, "one")), "the script ran in the remote folder");
  assert.equal(fs.realpathSync(ranIn[2]), fs.realpathSync(path.join(remote, "one/.claude/skills/greet/scripts")), "the remote's copy of the script ran, not the mirror's");
  // The mirror holds the skill (agent context) and is where the CLI found it.
  const mirror = mirrors(vs.runDir).find((m) => path.basename(m).startsWith("one-"));
  assert.ok(mirror && fs.existsSync(path.join(mirror, ".claude/skills/greet/SKILL.md")), `the skill in the mirror (${mirror})`);
  assert.ok(!fs.existsSync(path.join(mirror, "skill-ran.txt")), "nothing ran in the mirror");
  await shot(vs, "50-setup-skill");
});

test("in a workspace of two remote folders, an edit of a file in the second folder lands there on the remote", { timeout: 150_000 }, async () => {
  secondMirror = mirrors(vs.runDir).find((m) => path.basename(m).startsWith("two-"));
  assert.ok(secondMirror, "the second folder has a mirror of its own");
  assert.ok(fs.existsSync(path.join(secondMirror, "CLAUDE.md")), "the second folder's context is mirrored");
  // The second folder's memory reached the model along with the first's.
  assert.ok(messageRequests().some((r) => JSON.stringify(r.body).includes("SECOND-FOLDER-MEMORY")), "the second folder's CLAUDE.md reached the model");
  await turn("SETUP edit two", () => read("two/lib.txt") === "second new\n");
  assert.ok(!fs.existsSync(path.join(remote, "one/lib.txt")), "nothing landed in the first folder");
  assert.ok(!fs.existsSync(path.join(secondMirror, "lib.txt")), "nothing landed in the mirror");
  // The project's bytes outside the agent context stay on the remote.
  assert.deepEqual(filesContaining([path.join(vs.runDir, "user-data"), vs.home], MARKER), []);
});
