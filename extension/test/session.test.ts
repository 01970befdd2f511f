import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { NotLoggedInError } from "../src/backends/backend";
import type { CheckpointIndex } from "../src/chat/checkpointStore";
import type { AgentStart } from "../src/chat/session";
import { SessionManager } from "../src/chat/sessions";
import type { UiEvent } from "../src/generated/core";
import { NodeHost } from "../src/node/nodeHost";
import { done, initialState, permissionRequest, RecordingReviews, RecordingView, ScriptedAgent, settle } from "./chatFixtures";

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tether-session-test-")));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A chat over a real (local, empty) project whose agent is a ScriptedAgent; `turn`: the events
 * of each agent's first turn. */
function chat(options: { failStart?: Error; turn?: UiEvent[]; agent?: string; hold?: Promise<void>; remedy?: (agent: string, methodId: string) => Promise<{ done: boolean } | undefined>; checkpoints?: CheckpointIndex } = {}) {
  const view = new RecordingView();
  const reviews = new RecordingReviews();
  const agents: ScriptedAgent[] = [];
  const log: string[] = [];
  /** Starts that reached startAgent. */
  const begun: AgentStart[] = [];
  const root = mkdtempSync(path.join(tmp, "project-"));
  let loggedIn = false;
  const manager = new SessionManager(
    {
      reviews,
      initialState: (agent, previous) => ({ ...initialState, mode: previous?.mode ?? initialState.mode, agent: agent.name, agentLabel: agent.displayName }),
      onState: () => undefined,
      // "gemini" stands for an ACP agent, which keeps its own sessions.
      agent: (name) => ({ name, displayName: name === "claude" ? "Claude Code" : `Agent ${name}`, history: name === "claude" ? "files" : "agent" }),
      workspace: async () => ({ host: new NodeHost({ ripgrepPath: null }), root }),
      startAgent: async (start: AgentStart) => {
        begun.push(start);
        await options.hold;
        await settle();
        const failure = options.failStart;
        if (failure) {
          // A remedy may fix it (the first run's login buttons).
          if (!(failure instanceof NotLoggedInError) || !loggedIn) throw failure;
        }
        const agent = new ScriptedAgent(start);
        agent.turn = [...(options.turn ?? [])];
        agents.push(agent);
        return agent;
      },
      ...(options.remedy ? { remedy: options.remedy } : {}),
      ...(options.checkpoints ? { checkpoints: options.checkpoints } : {}),
      defaultMode: () => "default",
      fail: () => undefined,
      log: (m) => log.push(m),
      onChange: () => undefined,
    },
  );
  const sidebar = manager.addView(view, "sidebar");
  manager.show(sidebar, manager.create(options.agent ?? "claude"));
  const session = manager.focused!.session;
  return { view, sidebar, feed: session.feed, broker: session.broker, session, manager, agents, log, root, begun, logIn: () => (loggedIn = true) };
}

test("a permission request reaches the view once, and its answer once", async () => {
  const request = permissionRequest("p1");
  const { view, session, agents, broker } = chat({ turn: [{ type: "status", state: "requiresAction" }, request] });
  await session.send("run the tests", []);
  assert.deepEqual(view.entriesOf("permissionRequest"), [request]);
  await broker.answer("p1", "allow");
  await settle();
  assert.deepEqual(agents[0]!.answers, [{ decision: "allow" }]);
  assert.deepEqual(view.entriesOf("permissionResolved"), [{ type: "permissionResolved", requestId: "p1", outcome: "allowed" }]);
  assert.deepEqual(view.entriesOf("permissionRequest"), [request], "still once");
});

test("a turn: the user's text, running, the agent's events as they are, then idle", async () => {
  const turn = [{ type: "textDelta", messageId: null, text: "Hello", parentToolUseId: null } as const, done("s1")];
  const { view, feed, session, agents } = chat({ turn });
  await session.send("say hi", [{ kind: "file", path: "README.md" }]);
  const pushed = view.pushed.map((e) => e.type);
  assert.deepEqual(pushed, ["userMessage", "status", "textDelta", "done"]);
  assert.deepEqual(view.pushed.slice(2), turn);
  assert.equal(feed.state.busy, false);
  assert.equal(feed.state.connected, true);
  assert.deepEqual(agents[0]!.prompts, ["@README.md\n\nsay hi"]);
});

test("prompts sent while the agent starts share one start", async () => {
  const { session, agents } = chat();
  await Promise.all([session.send("one", []), session.send("two", [])]);
  assert.equal(agents.length, 1);
  assert.deepEqual(agents[0]!.prompts, ["one", "two"]);
});

test("a start that fails is an error in the chat that can be retried, and the view goes idle", async () => {
  const { view, feed, session } = chat({ failStart: new Error("claude not found") });
  await session.send("hi", []);
  const [error] = view.entriesOf("error");
  assert.equal(error?.message, "Could not start Claude Code: claude not found");
  assert.equal(error?.retryable, true);
  assert.equal(feed.state.busy, false);
});

test("not logged in: the chat shows the login buttons and the reason with Retry; a remedy done, Retry sends the message", async () => {
  const remedies = [{ id: "tether.firstRun.apiKey", name: "Enter an API Key", description: null }];
  const asked: string[] = [];
  const { view, session, agents, logIn } = chat({
    failStart: new NotLoggedInError("Claude Code is not logged in.", "Log in in a terminal (claude auth login), or enter an API key.", remedies),
    remedy: async (agent, methodId) => {
      asked.push(`${agent} ${methodId}`);
      if (methodId !== "tether.firstRun.apiKey") return undefined;
      logIn();
      return { done: true };
    },
    turn: [done("s1")],
  });
  await session.send("hi", []);
  const [login] = view.entriesOf("authMethods");
  assert.deepEqual(login?.methods, remedies);
  assert.equal(login?.message, "Claude Code is not logged in. Log in in a terminal (claude auth login), or enter an API key.");
  const [error] = view.entriesOf("error");
  assert.equal(error?.kind, "notLoggedIn");
  assert.equal(error?.message, "Claude Code is not logged in.");
  assert.match(error?.hint ?? "", /enter an API key\. Then Retry\.$/);
  assert.equal(error?.retryable, true);
  assert.equal(agents.length, 0);
  // The button: the remedy runs (not the agent's own authenticate), and the agent starts ahead.
  await session.authenticate("tether.firstRun.apiKey");
  assert.deepEqual(asked, ["claude tether.firstRun.apiKey"]);
  await until(() => agents.length === 1);
  await session.retry();
  assert.deepEqual(agents[0]!.prompts, ["hi"]);
});

test("not logged in when the chat opens: the login buttons are shown once, before any prompt", async () => {
  const remedies = [{ id: "tether.firstRun.login", name: "Log In in a Terminal", description: null }];
  const { view, session, begun } = chat({ failStart: new NotLoggedInError("Claude Code is not logged in.", "Log in.", remedies) });
  session.warm();
  await until(() => view.entriesOf("authMethods").length === 1);
  session.warm();
  await until(() => begun.length === 2);
  await settle();
  assert.equal(view.entriesOf("authMethods").length, 1);
  assert.deepEqual(view.entriesOf("error"), []);
});

test("after a crash the next prompt starts the agent again, resuming the same conversation", async () => {
  const sessionInit: UiEvent = { type: "sessionInit", sessionId: "s1", model: null, tools: [], mcpServers: [], permissionMode: null, agentVersion: null };
  const { view, feed, session, agents } = chat({ turn: [sessionInit, permissionRequest("p1")] });
  await session.send("two", []);
  agents[0]!.crash();
  assert.equal(feed.state.connected, false);
  assert.deepEqual(view.entriesOf("permissionResolved"), [{ type: "permissionResolved", requestId: "p1", outcome: "cancelled" }]);
  await session.retry();
  assert.equal(agents.length, 2);
  assert.equal(agents[1]!.start.resume, "s1");
  assert.deepEqual(agents[1]!.prompts, ["two"], "Retry sends the last prompt again");
  assert.equal(view.entriesOf("userMessage").length, 1, "without showing it again");
  assert.equal(feed.state.connected, true);
});

test("a new session stops the agent, refuses open questions, empties the chat and starts fresh", async () => {
  const { view, feed, session, agents } = chat({ turn: [done("s1"), permissionRequest("p1")] });
  await session.send("one", []);
  await session.newSession();
  await settle();
  assert.equal(agents[0]!.stopped, true);
  assert.deepEqual(agents[0]!.answers, [], "the aborted question's answer goes nowhere");
  assert.deepEqual(feed.transcript, []);
  assert.equal(feed.state.sessionId, undefined);
  assert.deepEqual(view.posted.filter((m) => m.type === "clear"), [{ type: "clear" }]);
  await session.send("two", []);
  assert.equal(agents[1]!.start.resume, undefined);
});

test("resuming replays the past conversation and the next prompt resumes it", async () => {
  const { feed, session, agents } = chat();
  const past = [{ type: "userMessage", id: "h1", text: "earlier" } as const];
  await session.resume("old-1", past);
  assert.deepEqual(feed.transcript, past);
  assert.equal(feed.state.sessionId, "old-1");
  await session.send("go on", []);
  assert.equal(agents[0]!.start.resume, "old-1");
});

test("the mode goes to the running agent; without one it is shown at once and used by the next start", async () => {
  const { view, feed, session, agents } = chat();
  session.setMode("plan");
  session.setMode("not-a-mode");
  assert.deepEqual(view.entriesOf("modeChanged"), [{ type: "modeChanged", mode: "plan" }]);
  assert.equal(feed.state.mode, "plan");
  await session.send("hi", []);
  assert.equal(agents[0]!.start.mode, "plan");
  session.setMode("acceptEdits");
  assert.deepEqual(agents[0]!.modes, ["acceptEdits"]);
});

test("changed project instructions restart a running session with resume, after the turn when one runs", async () => {
  const { session, agents, root, feed, log } = chat({ turn: [done("s1")] });
  writeFileSync(path.join(root, "CLAUDE.md"), "first\n");
  await session.send("one", []);
  assert.match(agents[0]!.start.setup.memory ?? "", /first/);
  writeFileSync(path.join(root, "CLAUDE.md"), "second\n");
  feed.setState({ busy: true });
  await session.context.changed();
  assert.equal(agents.length, 1, "not during a turn");
  feed.setState({ busy: false });
  await session.context.turnEnded();
  assert.equal(agents.length, 2);
  assert.equal(agents[0]!.stopped, true);
  assert.equal(agents[1]!.start.resume, "s1");
  assert.ok(log.some((l) => /restarting Claude Code with --resume s1 \(after the turn\)/.test(l)));
  // The resumed agent keeps its first system prompt: the new text comes with the next prompt.
  await session.send("two", []);
  assert.match(agents[1]!.prompts[0]!, /^<system-reminder>\n[^]*second\n[^]*<\/system-reminder>\n\ntwo$/);
  // Unchanged context: no restart.
  await session.context.changed();
  assert.equal(agents.length, 2);
});

test("picking another agent shows a new session of it while the first keeps running, and showing the first again shows it as it was", async () => {
  const { feed, session, manager, agents, sidebar } = chat({ turn: [done("s1")] });
  await session.send("hi", []);
  const first = manager.focused!;
  const gemini = manager.newSession(sidebar, "gemini").session;
  assert.notEqual(gemini, session);
  assert.equal(agents[0]!.stopped, false, "the first agent keeps running");
  assert.equal(gemini.feed.transcript.length, 0);
  assert.equal(gemini.feed.state.agent, "gemini");
  assert.equal(gemini.feed.state.agentLabel, "Agent gemini");
  await gemini.send("hello", []);
  assert.equal(agents[1]!.start.agent, "gemini");
  assert.deepEqual(manager.list().map((o) => o.session), [session, gemini]);
  manager.show(sidebar, first);
  assert.equal(manager.focused!.session, session);
  assert.equal(feed.state.agent, "claude");
  assert.ok(feed.transcript.some((e) => e.type === "userMessage" && e.text === "hi"), "its chat is as it was");
  await manager.close(manager.list()[1]!);
  assert.equal(agents[1]!.stopped, true, "a closed session's agent stops");
  assert.deepEqual(manager.list().map((o) => o.session), [session]);
  await manager.disposeAll("done");
  assert.equal(agents[0]!.stopped, true);
});

test("an agent's history comes from its own session list, and resuming one replays it at once", async () => {
  const { session, agents, view } = chat({ agent: "gemini" });
  const listed = session.history(async () => {
    throw new Error("no transcripts for an ACP agent");
  });
  while (!agents[0]) await settle();
  await settle();
  agents[0]!.emit({ type: "sessionList", sessions: [{ id: "s7", title: "Fix it", updatedAt: "2026-11-02T10:00:00Z", cwd: "/p", running: false }] });
  assert.deepEqual(await listed, [{ id: "s7", title: "Fix it", updatedAt: "2026-11-02T10:00:00Z", messageCount: 0 }]);
  assert.equal(view.entriesOf("sessionList").length, 0, "the list is not a chat entry");
  await session.resume("s7", []);
  const resumed = agents.at(-1)!;
  assert.equal(resumed.start.resume, "s7");
  assert.equal(resumed.start.replay, true, "the agent replays it into the chat");
});

test("an agent that offers deletion deletes a past session as one operation; its refusal rejects with the reason", async () => {
  const { session, agents } = chat({ agent: "gemini" });
  const listed = session.history(async () => []);
  while (!agents[0]) await settle();
  await settle();
  assert.equal(session.canDelete, false, "not offered: the history shows no delete");
  agents[0]!.offered = ["list", "delete"];
  assert.equal(session.canDelete, true);
  agents[0]!.emit({ type: "sessionList", sessions: [] });
  await listed;
  const deleted = session.deleteSession("s7");
  await settle();
  assert.deepEqual(agents[0]!.operations.at(-1), { op: "delete", id: "s7" });
  agents[0]!.emit({ type: "sessionDeleted", id: "s7", error: null });
  await deleted;
  const refused = session.deleteSession("s8");
  await settle();
  agents[0]!.emit({ type: "sessionDeleted", id: "s8", error: "Agent gemini refused session/delete: Resource not found" });
  await assert.rejects(refused, /Resource not found/);
});

test("the view learns at the handshake which session operations the agent offers; fork and close go to it as operations", async () => {
  const init: UiEvent = { type: "sessionInit", sessionId: "s1", model: null, tools: [], mcpServers: [], permissionMode: null, agentVersion: null };
  const { feed, session, agents } = chat({ agent: "gemini", turn: [init, done("s1")] });
  await session.send("hi", []);
  assert.deepEqual(feed.state.offers, ["setMode", "interrupt"], "what this agent offers: no fork, no close");
  agents[0]!.offered = ["setMode", "fork", "close"];
  agents[0]!.turn = [init, done("s1")];
  await session.send("again", []);
  assert.deepEqual(feed.state.offers, ["setMode", "fork", "close"]);
  session.forkSession("s0");
  session.closeSession();
  assert.deepEqual(agents[0]!.operations, [{ op: "fork", id: "s0" }, { op: "close" }]);
});

/** Until `check` holds (a start ahead runs its course in the background). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
  assert.ok(check());
}

/** A promise the test resolves. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

test("an agent started ahead takes the first prompt: the prompt pays no start", async () => {
  const { session, agents, view } = chat({ turn: [done("s1")] });
  session.warm();
  session.warm();
  await until(() => agents.length === 1);
  await settle();
  assert.equal(agents.length, 1, "one start");
  assert.deepEqual(agents[0]!.prompts, []);
  assert.deepEqual(view.pushed, [], "nothing shows in the chat");
  await session.send("hi", []);
  assert.equal(agents.length, 1);
  assert.deepEqual(agents[0]!.prompts, ["hi"]);
});

test("a mode and a model picked while the agent starts ahead go to it once it runs", async () => {
  const hold = gate();
  const { session, agents, feed, begun } = chat({ hold: hold.promise });
  session.warm();
  await until(() => begun.length === 1);
  session.setMode("plan");
  session.setModel("claude-opus-4-1");
  hold.open();
  await until(() => agents.length === 1);
  await settle();
  assert.equal(agents[0]!.start.mode, "default", "picked after its start began");
  assert.deepEqual(agents[0]!.operations, [
    { op: "setMode", mode: "plan" },
    { op: "setConfigOption", option: "model", value: "claude-opus-4-1" },
  ]);
  assert.equal(feed.state.mode, "plan");
  assert.equal(feed.state.model, "claude-opus-4-1");
});

test("a start ahead that fails shows nothing until the user sends, and that prompt tries again and tells it", async () => {
  const { session, view, log } = chat({ failStart: new Error("claude not found") });
  session.warm();
  await until(() => log.some((l) => /starting Claude Code ahead failed \(told on the next prompt\): claude not found/.test(l)));
  assert.deepEqual(view.pushed, []);
  await session.send("hi", []);
  assert.equal(view.entriesOf("error")[0]?.message, "Could not start Claude Code: claude not found");
});

test("a session left while its agent starts ahead drops that start: resuming another starts its own", async () => {
  const hold = gate();
  const { session, agents, begun } = chat({ hold: hold.promise });
  session.warm();
  await until(() => begun.length === 1);
  const resumed = session.resume("old-1", []);
  hold.open();
  await resumed;
  await until(() => agents.length === 2);
  await settle();
  assert.equal(agents[0]!.start.resume, undefined);
  assert.equal(agents[0]!.stopped, true, "the start for the left session is stopped");
  await session.send("go on", []);
  assert.equal(agents.length, 2);
  assert.equal(agents[1]!.start.resume, "old-1");
  assert.deepEqual(agents[1]!.prompts, ["go on"]);
});

test("the checkpoint index notes a conversation once, not at each turn's handshake; a failed note is tried again", async () => {
  const init = (sessionId: string): UiEvent => ({ type: "sessionInit", sessionId, model: null, tools: [], mcpServers: [], permissionMode: null, agentVersion: null });
  const notes: string[] = [];
  let failNext = true;
  const checkpoints: CheckpointIndex = {
    keyFor: async () => undefined,
    note: async (_key, conversation) => {
      notes.push(conversation);
      if (failNext) {
        failNext = false;
        throw new Error("the remote is unavailable");
      }
    },
  };
  const { session, agents, log } = chat({ turn: [init("s1"), done("s1")], checkpoints });
  await session.send("one", []);
  await settle();
  assert.match(log.join("\n"), /checkpoints: the remote is unavailable/);
  for (const text of ["two", "three"]) {
    agents[0]!.turn = [init("s1"), done("s1")];
    await session.send(text, []);
    await settle();
  }
  agents[0]!.emit(init("s2"));
  await settle();
  assert.deepEqual(notes, ["s1", "s1", "s2"], "s1 again after its failure, then once; s2 once");
});
