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
import { SessionIndex, type SessionLayout } from "../src/chat/sessionIndex";
import { NodeHost } from "../src/node/nodeHost";
import { openSession } from "../src/session/open";
import { readSettings } from "../src/settings";
import { done, initialState, permissionRequest, RecordingReviews, RecordingView, scriptedManager, settle } from "./chatFixtures";
import { FAKE_AGENT, scriptedBackend } from "./backends/scripted";

// The registry of this extension host: the real backends plus the scripted one, by one line.
const backends = [...BACKENDS, scriptedBackend];

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tether-sessions-test-")));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** What the agent said in the feed's text chunks. */
function said(feed: ChatFeed): string {
  return feed.transcript.map((e) => (e.type === "textDelta" ? e.text : "")).join("");
}

test("two sessions of different backends run at once in one host, each in its own view with its own feed", { timeout: 60_000 }, async () => {
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
  const sidebarPage = new RecordingView();
  const editorPage = new RecordingView();
  const manager = new SessionManager(
    {
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
      onChange: () => undefined,
    },
  );
  const sidebar = manager.addView(sidebarPage, "sidebar");
  const editor = manager.addView(editorPage, "editor");
  const scripted = manager.create("scripted").session;
  const acp = manager.create("fake-acp").session;
  manager.show(sidebar, manager.list()[0]!);
  manager.show(editor, manager.list()[1]!);

  // Both turns at once: each agent reads notes.txt through Tether and reports.
  await Promise.all([scripted.send("read the notes", []), acp.send("read the notes", [])]);
  assert.equal(started.length, 2);
  assert.ok(started.every((s) => s.running), "both agents run side by side");
  assert.match(said(scripted.feed), /^BENCH \[/);
  assert.match(said(acp.feed), /^BENCH \[/);
  assert.ok(scripted.feed.transcript.some((e) => e.type === "done"));
  assert.ok(acp.feed.transcript.some((e) => e.type === "done"));
  assert.equal(sidebarPage.entriesOf("userMessage").length, 1, "each view gets its own session's entries only");
  assert.equal(editorPage.entriesOf("userMessage").length, 1);
  assert.match(sidebarPage.entriesOf("textDelta").map((e) => e.text).join(""), /^BENCH \[/);

  await manager.disposeAll("the test is over");
  assert.ok(started.every((s) => !s.running), "both stopped");
  host.dispose();
});

/** A manager over scripted agents (no processes), with one sidebar page. */
function scriptedChats() {
  const { manager, view, sidebar, agents, changes } = scriptedManager({
    root: mkdtempSync(path.join(tmp, "project-")),
    host: new NodeHost({ ripgrepPath: null }),
  });
  return { manager, agents, page: view, sidebar, changes };
}

const text = (t: string) => ({ type: "textDelta", messageId: null, text: t, parentToolUseId: null }) as const;

test("two sessions of the same agent each get their own agent process", async () => {
  const { manager, agents } = scriptedChats();
  const one = manager.create("claude");
  const two = manager.create("claude");
  await Promise.all([one.session.send("first", []), two.session.send("second", [])]);
  assert.equal(agents.length, 2);
  // The two start at once: which agent process comes first is the file system's race.
  assert.deepEqual(agents.map((a) => a.prompts).sort(), [["first"], ["second"]]);
  assert.notEqual(one.key, two.key);
});

test("switching the sidebar back to a session sends only what its page missed; a replaced chat is sent whole", async () => {
  const { manager, agents, page, sidebar } = scriptedChats();
  const one = manager.create("claude");
  const two = manager.create("claude");
  manager.show(sidebar, one);
  await one.session.send("first", []);
  manager.show(sidebar, two);
  agents[0]!.emit(text("while away"));
  page.posted.length = 0;
  manager.show(sidebar, one);
  assert.deepEqual(page.posted.map((m) => m.type), ["showSession", "init", "events"]);
  const events = page.posted[2]!.type === "events" ? page.posted[2]!.events : [];
  assert.deepEqual(events, [text("while away")], "only the entry it missed");
  // The chat replaced (a session from the history) while another was shown: all of it again.
  manager.show(sidebar, two);
  await one.session.resume("old", [{ type: "userMessage", id: "u1", text: "from the past" }]);
  page.posted.length = 0;
  manager.show(sidebar, one);
  assert.deepEqual(page.posted.map((m) => m.type), ["showSession", "init", "replay"]);
});

test("titles: the first prompt cut short, then the agent's title, then the user's", async () => {
  const { manager, agents } = scriptedChats();
  const open = manager.create("claude");
  assert.equal(open.title, "New Claude Code session");
  await open.session.send(`Please refactor the parser module so that it ${"reads ".repeat(20)}\nsecond line`, []);
  assert.equal(open.title.length, 48);
  assert.match(open.title, /^Please refactor the parser module so that it r?e?…$/);
  agents[0]!.emit({ type: "sessionInfo", title: "Refactor the parser", updatedAt: null });
  assert.equal(open.title, "Refactor the parser");
  open.userTitle = "Parser work";
  assert.equal(open.title, "Parser work");
});

test("badges: a question waiting, and a turn that finished while its view was hidden until it is seen", async () => {
  const { manager, agents, page, sidebar } = scriptedChats();
  const open = manager.create("claude");
  manager.show(sidebar, open);
  await open.session.send("go", []);
  agents[0]!.emit(permissionRequest("p1"));
  await settle();
  assert.deepEqual({ waiting: open.info().waiting, unread: open.info().unread }, { waiting: true, unread: false });
  await open.session.broker.answer("p1", "allow");
  assert.equal(open.info().waiting, false);
  page.shown = false;
  agents[0]!.emit(done("s1"));
  assert.equal(open.info().unread, true, "finished unseen");
  page.shown = true;
  manager.focus(sidebar);
  assert.equal(open.info().unread, false, "seen");
  // A turn that ends in view is never unread.
  agents[0]!.emit(done("s1"));
  assert.equal(open.info().unread, false);
});

test("the index keeps an open session's metadata, and a restored one comes back with its transcript, queue, and its cut turn stated", async () => {
  const before = scriptedChats();
  const open = before.manager.create("claude");
  await open.session.send("edit the app", []);
  const agent = before.agents[0]!;
  agent.emit({ type: "sessionInit", sessionId: "c-1", model: "opus", permissionMode: "default", cwd: "/w", tools: [], slashCommands: [], mcpServers: [], agents: [], apiKeySource: null, outputStyle: null } as never);
  agent.emit({ type: "status", state: "running" });
  agent.emit(permissionRequest("p1", { toolName: "Edit", input: { file_path: "src/app.js" } }));
  await settle();
  open.session.holdQueue([{ id: "q1", text: "then run the tests" }]);
  const [record] = before.manager.records();
  assert.deepEqual(record, {
    key: open.key,
    agent: "claude",
    sessionId: "c-1",
    firstPrompt: "edit the app",
    lastPrompt: "edit the app",
    mode: "default",
    model: "opus",
    queued: [{ id: "q1", text: "then run the tests" }],
    pending: { tool: "Edit", path: "src/app.js" },
    busy: true,
  });
  // Through a memento-like store, as the extension keeps it.
  const memory = new Map<string, unknown>();
  const index = new SessionIndex({ get: <T>(k: string) => memory.get(k) as T | undefined, update: async (k, v) => void memory.set(k, JSON.parse(JSON.stringify(v))) });
  index.save({ sessions: before.manager.records(), sidebar: open.key, editors: [] });
  const layout: SessionLayout = index.load();
  assert.equal(layout.sidebar, open.key);

  const after = scriptedChats();
  const asked: string[] = [];
  const { open: back, loaded } = after.manager.restore(layout.sessions[0]!, async (agentName, id) => {
    asked.push(`${agentName}/${id}`);
    return [{ type: "userMessage", id: "h1", text: "edit the app" }];
  });
  await loaded;
  assert.deepEqual(asked, ["claude/c-1"], "the transcript comes from the agent's store");
  assert.equal(back.key, open.key);
  assert.equal(back.title, "edit the app");
  const entries = back.session.feed.transcript;
  assert.equal(entries[0]!.type, "userMessage");
  const notice = entries.at(-1)!;
  assert.ok(notice.type === "error" && notice.message === "Waiting for approval of Edit src/app.js when the window reloaded; the turn was stopped.");
  assert.equal(notice.type === "error" && notice.retryable, true);
  assert.equal(back.session.feed.state.busy, false, "nothing runs");
  assert.equal(after.agents.length, 0, "the agent starts on the next prompt (Claude Code resumes then)");
  assert.deepEqual(back.session.queued, [{ id: "q1", text: "then run the tests" }], "the queue is back, waiting");
  // Retry sends the cut turn's prompt again, resuming the conversation.
  await back.session.retry();
  assert.equal(after.agents[0]!.start.resume, "c-1");
  assert.deepEqual(after.agents[0]!.prompts, ["edit the app", "then run the tests"], "the cut turn, then the message that waited for it");
});

test("the index drops malformed records and a sidebar key that names no session", () => {
  const memory = new Map<string, unknown>([["tether.sessions", { sessions: [{ key: "a", agent: "claude", mode: "default" }, { key: 3 }, null], sidebar: "gone", editors: ["a", "b"] }]]);
  const index = new SessionIndex({ get: <T>(k: string) => memory.get(k) as T | undefined, update: async () => undefined });
  assert.deepEqual(index.load(), { sessions: [{ key: "a", agent: "claude", mode: "default" }], editors: ["a"] });
});

test("closing the session the sidebar shows moves the sidebar to another open session and stops its agent", async () => {
  const { manager, agents, sidebar } = scriptedChats();
  const one = manager.create("claude");
  const two = manager.create("gemini");
  manager.show(sidebar, one);
  await one.session.send("hi", []);
  await manager.close(one);
  assert.equal(agents[0]!.stopped, true);
  assert.equal(sidebar.shown, two);
  assert.deepEqual(manager.list(), [two]);
});
