import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatFeed, stateFromEvent } from "../src/chat/feed";
import { done, initialState, permissionRequest, RecordingView } from "./chatFixtures";

test("an agent event reaches the view as the core emitted it, once, and stays in the transcript", () => {
  const view = new RecordingView();
  const feed = new ChatFeed(view, initialState);
  const event = { type: "textDelta", messageId: null, text: "Hel", parentToolUseId: null } as const;
  feed.event(event);
  assert.deepEqual(view.pushed, [event]);
  assert.deepEqual(feed.transcript, [event]);
});

test("session init, readiness, mode, model, status and done set the header state", () => {
  assert.deepEqual(
    stateFromEvent({ type: "sessionInit", sessionId: "s1", model: "opus", tools: [], mcpServers: [], permissionMode: "default", agentVersion: null }),
    { sessionId: "s1", model: "opus", mode: "default" },
  );
  assert.deepEqual(
    stateFromEvent({
      type: "sessionReady",
      agentVersion: "2.1.330",
      models: [{ value: "opus", displayName: "Opus", description: null }, { value: "haiku", displayName: null, description: null }],
      commands: [],
      permissionMode: null,
    }),
    { models: [{ id: "opus", label: "Opus" }, { id: "haiku", label: "haiku" }] },
  );
  assert.deepEqual(stateFromEvent({ type: "modeChanged", mode: "plan" }), { mode: "plan" });
  assert.deepEqual(stateFromEvent({ type: "modelChanged", model: null }), { model: "" });
  assert.deepEqual(stateFromEvent({ type: "status", state: "requiresAction" }), { busy: true });
  assert.deepEqual(stateFromEvent({ type: "status", state: "idle" }), { busy: false });
  assert.deepEqual(stateFromEvent(permissionRequest("p1")), { busy: true });
  assert.deepEqual(stateFromEvent(done("s1")), { busy: false, sessionId: "s1" });
  assert.equal(stateFromEvent({ type: "textDelta", messageId: "m", text: "x", parentToolUseId: null }), undefined);
});

test("a crash marks the view disconnected and idle; other errors leave the state alone", () => {
  const crash = { type: "error", kind: "crash", severity: "error", message: "exited", hint: null, retryable: true, sessionId: "s1" } as const;
  assert.deepEqual(stateFromEvent(crash), { connected: false, busy: false });
  assert.equal(stateFromEvent({ type: "error", kind: "api", severity: "error", message: "overloaded", hint: null }), undefined);
});

test("state changes are posted as patches and reported to the status bar", () => {
  const view = new RecordingView();
  const seen: boolean[] = [];
  const feed = new ChatFeed(view, initialState, (state) => seen.push(state.busy));
  feed.event({ type: "status", state: "running" });
  feed.setState({});
  assert.deepEqual(view.posted, [{ type: "state", busy: true }]);
  assert.deepEqual(seen, [true]);
  assert.equal(feed.state.busy, true);
});

test("a reloaded view gets the state and the chat so far; clear and replay replace the transcript", () => {
  const view = new RecordingView();
  const feed = new ChatFeed(view, initialState);
  feed.show([{ type: "userMessage", id: "u1", text: "hi" }]);
  feed.ready();
  assert.deepEqual(view.posted, [
    { type: "init", state: initialState },
    { type: "replay", events: [{ type: "userMessage", id: "u1", text: "hi" }] },
  ]);
  feed.clear();
  assert.deepEqual(feed.transcript, []);
  const past = [{ type: "userMessage", id: "h1", text: "before" } as const];
  feed.replay(past);
  assert.deepEqual(feed.transcript, past);
  assert.deepEqual(view.posted.slice(2), [{ type: "clear" }, { type: "replay", events: past }]);
  view.posted.length = 0;
  new ChatFeed(view, initialState).ready();
  assert.deepEqual(view.posted, [{ type: "init", state: initialState }], "an empty chat is not replayed");
});

test("the gateway connection's state reaches the header state; the node's does not", () => {
  assert.deepEqual(stateFromEvent({ type: "connectionState", channel: "gateway", state: "connecting", message: "try 2 of 10 in 2000 ms" }), {
    gateway: { state: "connecting", message: "try 2 of 10 in 2000 ms" },
  });
  assert.deepEqual(stateFromEvent({ type: "connectionState", channel: "gateway", state: "connected", message: null }), { gateway: { state: "connected" } });
  assert.equal(stateFromEvent({ type: "connectionState", channel: "node", state: "error", message: "refused" }), undefined);
});
