import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { agentEntries, BACKENDS, findAgent } from "../src/backends";
import type { LaunchPlace } from "../src/backends/backend";
import type { ChatFeed } from "../src/chat/feed";
import { SessionManager } from "../src/chat/sessions";
import type { AgentSession } from "../src/chat/session";
import { NodeHost } from "../src/node/nodeHost";
import { openSession } from "../src/session/open";
import { readSettings } from "../src/settings";
import { initialState, RecordingReviews, RecordingView } from "./chatFixtures";
import { FAKE_AGENT, scriptedBackend } from "./backends/scripted";

// The registry of this extension host: the real backends plus the scripted one, by one line.
const backends = [...BACKENDS, scriptedBackend];

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tether-sessions-test-")));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** What the agent said in the feed's text chunks. */
function said(feed: ChatFeed): string {
  return feed.transcript.map((e) => (e.type === "textDelta" ? e.text : "")).join("");
}

test("two sessions of different backends run at once in one host, each with its own feed, and the view shows the one picked", { timeout: 60_000 }, async () => {
  const root = mkdtempSync(path.join(tmp, "project-"));
  writeFileSync(path.join(root, "notes.txt"), "hello\n");
  // The ACP backend proper runs the same fake agent as a user's `tether.agents` entry.
  const settings = {
    ...readSettings(() => undefined).settings,
    agents: { "fake-acp": { command: process.execPath, args: [FAKE_AGENT], env: { FAKE_ACP_SCENARIO: "read-bench", FAKE_ACP_READS: "1" } } },
  };
  const entries = agentEntries(settings, backends);
  assert.equal(findAgent(entries, "scripted")?.backend, scriptedBackend);
  assert.notEqual(findAgent(entries, "fake-acp")?.backend, scriptedBackend);
  const place: LaunchPlace = { storageDir: mkdtempSync(path.join(tmp, "storage-")), secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined } };
  const host = new NodeHost({ ripgrepPath: null });
  const started: AgentSession[] = [];
  const view = new RecordingView();
  const manager = new SessionManager(
    {
      view,
      reviews: new RecordingReviews(),
      initialState: (agent) => ({ ...initialState, agent: agent.name, agentLabel: agent.displayName }),
      onState: () => undefined,
      agent: (name) => {
        const entry = findAgent(entries, name);
        if (!entry) throw new Error(`no agent ${name}`);
        return { name, displayName: entry.displayName, history: entry.backend.history.kind };
      },
      workspace: async () => ({ host, root }),
      startAgent: async (start) => {
        const session = await openSession(
          findAgent(entries, start.agent)!,
          { host, root, settings, place, log: () => undefined },
          { mode: start.mode, onEvent: start.onEvent, onPermission: start.onPermission },
        );
        started.push(session);
        return session;
      },
      defaultMode: () => "default",
      fail: (what, error) => assert.fail(`${what}: ${String(error)}`),
      log: () => undefined,
    },
    "scripted",
  );
  const scripted = manager.active;
  const acp = manager.switchTo("fake-acp");
  assert.equal(manager.active, acp);

  // Both turns at once: each agent reads notes.txt through Tether and reports.
  await Promise.all([scripted.send("read the notes", []), acp.send("read the notes", [])]);
  assert.equal(started.length, 2);
  assert.ok(started.every((s) => s.running), "both agents run side by side");
  assert.match(said(scripted.feed), /^BENCH \[/);
  assert.match(said(acp.feed), /^BENCH \[/);
  assert.ok(scripted.feed.transcript.some((e) => e.type === "done"));
  assert.ok(acp.feed.transcript.some((e) => e.type === "done"));
  const shown = view.entriesOf("userMessage").length;
  assert.equal(shown, 1, "only the shown session's entries reach the view");

  // Switching back shows the first session as it is, still running.
  assert.equal(manager.switchTo("scripted"), scripted);
  assert.ok(started.every((s) => s.running));
  assert.equal(view.posted.at(-1)?.type, "replay");

  await manager.disposeAll("the test is over");
  assert.ok(started.every((s) => !s.running), "both stopped");
  host.dispose();
});
