import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import type { TurnOutcome } from "../src/session/driver";
import type { SessionOpKind } from "../src/session/agent";
import { ScriptedAgent, scriptedManager, settle } from "./chatFixtures";

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tether-queue-test-")));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** An agent whose turns run until the test ends them. */
class HeldAgent extends ScriptedAgent {
  private ends: (() => void)[] = [];

  override async prompt(text: string): Promise<TurnOutcome> {
    this.prompts.push(text);
    await new Promise<void>((resolve) => this.ends.push(resolve));
    return { ok: true };
  }

  /** The running turn ends. */
  async endTurn(): Promise<void> {
    this.ends.shift()?.();
    for (let i = 0; i < 5; i++) await settle();
  }
}

function chat(offered: SessionOpKind[] = ["interrupt"]) {
  const { manager, view, sidebar, agents } = scriptedManager({
    root: mkdtempSync(path.join(tmp, "project-")),
    makeAgent: (start) => {
      const agent = new HeldAgent(start);
      agent.offered = offered;
      return agent;
    },
  });
  const { session } = manager.newSession(sidebar, "claude");
  /** The running agent, once the first turn reached it. */
  const agent = async () => {
    for (let i = 0; i < 20 && !agents[0]; i++) await settle();
    return agents[0]!;
  };
  return { view, session, feed: session.feed, agent };
}

test("a message sent while a turn runs waits in the queue, shown, and goes when the turn ends", async () => {
  const { session, feed, view, agent } = chat();
  const first = session.send("first", []);
  const running = await agent();
  await session.send("second", [{ kind: "file", path: "a.txt" }]);
  assert.deepEqual(running.prompts, ["first"]);
  assert.deepEqual(feed.state.queue?.map((q) => q.text), ["second"]);
  assert.deepEqual(session.queued.map((q) => [q.text, q.attachments]), [["second", [{ kind: "file", path: "a.txt" }]]]);
  assert.deepEqual(view.entriesOf("userMessage").map((m) => m.text), ["first"], "not in the chat until sent");
  await running.endTurn();
  assert.deepEqual(running.prompts, ["first", "@a.txt\n\nsecond"]);
  assert.deepEqual(feed.state.queue, []);
  assert.deepEqual(view.entriesOf("userMessage").map((m) => m.text), ["first", "second"]);
  await running.endTurn();
  await first;
});

test("a queued message is sent with the text it was edited to, and a removed one not at all", async () => {
  const { session, agent } = chat();
  void session.send("first", []);
  const running = await agent();
  await session.send("typo", []);
  await session.send("drop me", []);
  const [typo, drop] = session.queued;
  session.editQueued(typo!.id, "fixed");
  session.removeQueued(drop!.id);
  await running.endTurn();
  await running.endTurn();
  assert.deepEqual(running.prompts, ["first", "fixed"]);
});

test("queued messages go one turn at a time, in order", async () => {
  const { session, agent } = chat();
  void session.send("one", []);
  const running = await agent();
  await session.send("two", []);
  await session.send("three", []);
  await running.endTurn();
  assert.deepEqual(running.prompts, ["one", "two"]);
  await running.endTurn();
  assert.deepEqual(running.prompts, ["one", "two", "three"]);
  await running.endTurn();
});

test("send now steers the message into the running turn where the agent offers steering", async () => {
  const { session, view, agent } = chat(["interrupt", "steer"]);
  void session.send("first", []);
  const running = await agent();
  await session.send("use tabs", []);
  await session.sendNow(session.queued[0]!.id);
  assert.deepEqual(running.operations, [{ op: "steer", text: "use tabs" }]);
  assert.deepEqual(session.queued, []);
  assert.deepEqual(view.entriesOf("userMessage").map((m) => m.text), ["first", "use tabs"]);
  await running.endTurn();
  assert.deepEqual(running.prompts, ["first"], "no turn of its own");
});

test("send now without steering stops the turn and sends the message first", async () => {
  const { session, agent } = chat(["interrupt"]);
  void session.send("first", []);
  const running = await agent();
  await session.send("later", []);
  await session.send("now", []);
  await session.sendNow(session.queued[1]!.id);
  assert.deepEqual(running.operations, [{ op: "interrupt" }]);
  await running.endTurn();
  assert.deepEqual(running.prompts, ["first", "now"]);
  await running.endTurn();
  assert.deepEqual(running.prompts, ["first", "now", "later"]);
  await running.endTurn();
});

test("a saved queue comes back shown and waits: it goes after the next turn", async () => {
  const { session, agent } = chat();
  session.holdQueue([{ id: "q-saved-1", text: "from before the reload" }]);
  await settle();
  assert.deepEqual(session.queued.map((q) => q.text), ["from before the reload"]);
  void session.send("first after the reload", []);
  const running = await agent();
  assert.deepEqual(running.prompts, ["first after the reload"]);
  await running.endTurn();
  assert.deepEqual(running.prompts, ["first after the reload", "from before the reload"]);
  await running.endTurn();
});

test("a new session drops the queue of the old one", async () => {
  const { session, agent } = chat();
  void session.send("first", []);
  const running = await agent();
  await session.send("for the old conversation", []);
  await session.newSession();
  await settle();
  assert.deepEqual(session.queued, []);
  assert.deepEqual(running.prompts, ["first"]);
});

test("stopping a task goes to the agent by the task's id", async () => {
  const { session, agent } = chat(["interrupt", "stopTask"]);
  void session.send("first", []);
  const running = await agent();
  session.stopTask("a7f3");
  assert.deepEqual(running.operations, [{ op: "stopTask", id: "a7f3" }]);
  await running.endTurn();
});
