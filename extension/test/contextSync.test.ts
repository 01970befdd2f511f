import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { ContextSync, type RestartableSession } from "../src/chat/contextSync";
import { NodeHost } from "../src/node/nodeHost";

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tether-context-test-")));
after(() => rmSync(tmp, { recursive: true, force: true }));

function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmp, "remote-"));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

class Session implements RestartableSession {
  running = true;
  busy = false;
  restarts: string[] = [];
  async restart(when: string): Promise<void> {
    this.restarts.push(when);
  }
}

const host = new NodeHost({ ripgrepPath: null });

test("a remote project's context is synced into the mirror; the setup carries memory, subagents and the remote's facts", async () => {
  const root = project({
    "CLAUDE.md": "Use tabs.\n",
    ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews\n---\nReview it.\n",
    "src/main.rs": "fn main() {}\n",
  });
  const mirror = path.join(tmp, "mirror-1");
  const sync = new ContextSync(new Session(), () => undefined);
  const setup = await sync.prepare({ host, root, remote: { mirror, facts: async () => ({ os: "Linux 6.1", shell: "bash" }) } }, false);
  assert.equal(setup.mirror, mirror);
  assert.match(setup.memory ?? "", /Use tabs\./);
  assert.deepEqual(setup.agentFiles?.map((a) => a.name), ["reviewer.md"]);
  assert.deepEqual(setup.remote, { os: "Linux 6.1", shell: "bash" });
  assert.equal(readFileSync(path.join(mirror, "CLAUDE.md"), "utf8"), "Use tabs.\n");
  assert.equal(existsSync(path.join(mirror, "src")), false, "only the agent context comes to the laptop");
});

test("a local project has no mirror; a project without context files gives a setup with no settings", async () => {
  const sync = new ContextSync(new Session(), () => undefined);
  assert.deepEqual(await sync.prepare({ host, root: project({ "a.txt": "x" }) }, false), { projectSettings: [] });
});

test("resuming after the memory changed carries the new memory to the next prompt, once", async () => {
  const root = project({ "CLAUDE.md": "v1\n" });
  const sync = new ContextSync(new Session(), () => undefined);
  await sync.prepare({ host, root }, false);
  writeFileSync(path.join(root, "CLAUDE.md"), "v2\n");
  await sync.prepare({ host, root }, true);
  assert.match(sync.takeReminder() ?? "", /v2/);
  assert.equal(sync.takeReminder(), undefined);
});

test("removed memory is said so; a session resumed from history (whose prompt is unknown) gets no reminder", async () => {
  const root = project({ "CLAUDE.md": "v1\n" });
  const sync = new ContextSync(new Session(), () => undefined);
  await sync.prepare({ host, root }, false);
  rmSync(path.join(root, "CLAUDE.md"));
  await sync.prepare({ host, root }, true);
  assert.match(sync.takeReminder() ?? "", /were removed/);
  sync.forget();
  writeFileSync(path.join(root, "CLAUDE.md"), "v3\n");
  await sync.prepare({ host, root }, true);
  assert.equal(sync.takeReminder(), undefined);
});

test("a change restarts the running session now, or after the turn; no change, no session: no restart", async () => {
  const root = project({ ".claude/settings.json": "{}" });
  const session = new Session();
  const sync = new ContextSync(session, () => undefined);
  await sync.changed();
  assert.deepEqual(session.restarts, [], "nothing prepared yet");
  await sync.prepare({ host, root }, false);
  await sync.changed();
  assert.deepEqual(session.restarts, [], "unchanged");
  writeFileSync(path.join(root, ".claude/settings.json"), '{"permissions":{}}');
  await sync.changed();
  assert.deepEqual(session.restarts, ["now"]);
  session.busy = true;
  await sync.changed();
  await sync.turnEnded();
  await sync.turnEnded();
  assert.deepEqual(session.restarts, ["now", "after the turn"]);
  session.running = false;
  await sync.changed();
  assert.equal(session.restarts.length, 2);
});

test("Tether's own write of a settings file restarts nothing and the mirror still holds no settings", async () => {
  const root = project({ ".claude/settings.json": "{}" });
  const mirror = path.join(tmp, "mirror-own-write");
  const session = new Session();
  const sync = new ContextSync(session, () => undefined);
  await sync.prepare({ host, root, remote: { mirror, facts: async () => ({ os: "Linux", shell: "sh" }) } }, false);
  const answer = '{"enabledMcpjsonServers":["facts"]}';
  const rule = '{"permissions":{"allow":["Bash(make:*)"]}}';
  sync.noteWrite(path.join(root, ".claude/settings.local.json"), answer);
  writeFileSync(path.join(root, ".claude/settings.local.json"), answer);
  sync.noteWrite(path.join(root, ".claude/settings.json"), rule);
  writeFileSync(path.join(root, ".claude/settings.json"), rule);
  await sync.changed();
  assert.deepEqual(session.restarts, []);
  assert.ok(!existsSync(path.join(mirror, ".claude/settings.local.json")) && !existsSync(path.join(mirror, ".claude/settings.json")));
});

test("a settings file that differs from what Tether wrote, or another file changed beside it, restarts the session", async () => {
  const root = project({ "CLAUDE.md": "v1\n", ".claude/settings.json": "{}" });
  const session = new Session();
  const sync = new ContextSync(session, () => undefined);
  await sync.prepare({ host, root }, false);
  sync.noteWrite(path.join(root, ".claude/settings.json"), '{"permissions":{}}');
  writeFileSync(path.join(root, ".claude/settings.json"), '{"permissions":{},"hooks":{}}');
  await sync.changed();
  assert.deepEqual(session.restarts, ["now"], "the user's edit after Tether's write");
  await sync.prepare({ host, root }, true);
  sync.noteWrite(path.join(root, ".claude/settings.local.json"), "{}");
  writeFileSync(path.join(root, ".claude/settings.local.json"), "{}");
  writeFileSync(path.join(root, "CLAUDE.md"), "v2\n");
  await sync.changed();
  assert.deepEqual(session.restarts, ["now", "now"], "CLAUDE.md changed too");
});
