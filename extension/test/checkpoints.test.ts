import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { messageUuid, forkPoint } from "../src/backends/claude/fork";
import { projectDir } from "../src/backends/claude/history";
import { checkpointsConfig, findCheckpointKey, noteSession, prepareCheckpoints } from "../src/chat/checkpointStore";
import { NodeHost } from "../src/node/nodeHost";
import { scriptedManager } from "./chatFixtures";

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tether-checkpoints-test-")));
after(() => rmSync(tmp, { recursive: true, force: true }));
const host = new NodeHost({ ripgrepPath: null });
const settings = { enabled: true, keepMessages: 100, keepSessions: 2 };

test("the checkpoint folder is in the workspace's .tether folder, which git ignores", async () => {
  const root = mkdtempSync(path.join(tmp, "ws-"));
  await prepareCheckpoints(host, root, "sabc", settings);
  assert.equal(checkpointsConfig(root, "sabc", 7).dir, `${root}/.tether/checkpoints/sabc`);
  assert.match(readFileSync(path.join(root, ".tether", ".gitignore"), "utf8"), /^\*$/m);
});

test("a conversation finds the checkpoint folder it was noted with, and the oldest sessions beyond the retention are removed", async () => {
  const root = mkdtempSync(path.join(tmp, "ws-"));
  for (const key of ["sa", "sb", "sc"]) {
    mkdirSync(path.join(root, ".tether", "checkpoints", key), { recursive: true });
    await noteSession(host, root, key, 2, `conv-${key}`);
    await new Promise((r) => setTimeout(r, 2));
  }
  assert.equal(await findCheckpointKey(host, root, "conv-sc"), "sc");
  assert.equal(await findCheckpointKey(host, root, "conv-sa"), undefined);
  assert.deepEqual(readdirSync(path.join(root, ".tether", "checkpoints")).sort(), ["index.json", "sb", "sc"]);
});

test("a user message's transcript uuid is made from the chat's id, as the core makes it", () => {
  // crate/src/claude/protocol/prompt.rs `message_uuid` spells the same rule.
  assert.equal(messageUuid("user-1764230000000"), "7e7e7e7e-0000-4000-8000-019ac44d6d80");
  assert.equal(messageUuid("not-a-chat-id"), undefined);
});

test("a fork resumes at the last assistant message before the user message, none for the first", async () => {
  const home = mkdtempSync(path.join(tmp, "home-"));
  const cwd = "/work/proj";
  const dir = projectDir(home, cwd);
  mkdirSync(dir, { recursive: true });
  const first = messageUuid("user-1000")!;
  const second = messageUuid("user-2000")!;
  const lines = [
    { type: "user", uuid: first, parentUuid: null },
    { type: "attachment", uuid: "att-1", parentUuid: first },
    { type: "assistant", uuid: "asst-1", parentUuid: "att-1" },
    { type: "attachment", uuid: "att-2", parentUuid: "asst-1" },
    { type: "user", uuid: second, parentUuid: "att-2" },
    { type: "assistant", uuid: "asst-2", parentUuid: second },
  ];
  writeFileSync(path.join(dir, "conv.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  assert.deepEqual(await forkPoint(cwd, "conv", "user-2000", home), { resumeAt: "asst-1" });
  assert.deepEqual(await forkPoint(cwd, "conv", "user-1000", home), {});
  await assert.rejects(forkPoint(cwd, "conv", "user-3000", home), /not in Claude Code's transcript/);
});

test("each prompt carries the id of the user message the chat shows for it", async () => {
  const { manager, view, sidebar, agents } = scriptedManager({ root: mkdtempSync(path.join(tmp, "project-")), host });
  const opened = manager.newSession(sidebar, "claude");
  await opened.session.send("change a.txt", []);
  const shown = view.entriesOf("userMessage");
  assert.equal(shown.length, 1);
  assert.deepEqual(agents[0]!.messageIds, [shown[0]!.id]);
  assert.match(shown[0]!.id, /^user-\d+$/);
});

test("a fork opens a new session of the same agent showing the conversation before the message; the first keeps running", async () => {
  const { manager, sidebar, agents } = scriptedManager({ root: mkdtempSync(path.join(tmp, "project-")), host });
  const opened = manager.newSession(sidebar, "claude");
  const first = opened.session;
  await first.send("one", []);
  const before = [...first.feed.transcript];
  const fork = manager.openFork(sidebar, opened, (s) => s.startFork("conv-1", "asst-1", before)).session;
  assert.notEqual(fork, first);
  assert.equal(sidebar.shown?.session, fork, "the view shows the fork");
  assert.deepEqual(fork.feed.transcript, before);
  await fork.send("two", []);
  assert.equal(agents.length, 2);
  assert.equal(agents[1]!.start.resume, "conv-1");
  assert.deepEqual(agents[1]!.start.fork, { resumeAt: "asst-1" });
  assert.equal(first.running, true);
});
