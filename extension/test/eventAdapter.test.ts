import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent } from "../src/chat/agentEvents";
import { EventAdapter } from "../src/chat/eventAdapter";

const adapt = (adapter: EventAdapter, event: AgentEvent) => adapter.adapt(event);

test("text streamed without a message id opens one assistant message and reuses it", () => {
  const a = new EventAdapter();
  const first = adapt(a, { type: "textDelta", text: "Hel" });
  const second = adapt(a, { type: "textDelta", text: "lo", messageId: null });
  assert.equal(first.events[0]?.type, "messageStart");
  const id = (first.events[0] as { id: string }).id;
  assert.deepEqual(first.events[1], { type: "textDelta", messageId: id, text: "Hel" });
  assert.deepEqual(second.events, [{ type: "textDelta", messageId: id, text: "lo" }]);
});

test("messageStart then deltas keep the agent's message id and the subagent parent", () => {
  const a = new EventAdapter();
  const start = adapt(a, { type: "messageStart", messageId: "m1", parentToolUseId: "task1" });
  assert.deepEqual(start.events, [{ type: "messageStart", id: "m1", role: "assistant", parentToolCallId: "task1" }]);
  assert.deepEqual(adapt(a, { type: "thinkingDelta", messageId: "m1", text: "hmm" }).events, [
    { type: "thinkingDelta", messageId: "m1", text: "hmm" },
  ]);
  assert.deepEqual(adapt(a, { type: "messageStop", messageId: "m1", stopReason: "end_turn" }).events, [
    { type: "messageStop", messageId: "m1" },
  ]);
});

test("tool call start, input delta, update and result map to the webview's tool events", () => {
  const a = new EventAdapter();
  const start = adapt(a, {
    type: "toolCallStart",
    id: "t1",
    name: "Edit",
    input: {},
    kind: "edit",
    title: "Edit",
    locations: [],
    parentToolUseId: null,
  });
  assert.deepEqual(start.events, [
    { type: "toolCallStart", toolCallId: "t1", name: "Edit", input: {}, kind: "edit", title: "Edit", parentToolCallId: undefined },
  ]);
  assert.deepEqual(adapt(a, { type: "toolInputDelta", id: "t1", partialJson: '{"file' }).events, [
    { type: "toolCallInputDelta", toolCallId: "t1", partialJson: '{"file' },
  ]);
  const update = adapt(a, { type: "toolCallUpdate", id: "t1", input: { file_path: "/w/a.txt" }, title: "Edit a.txt", locations: [] });
  assert.deepEqual(update.events, [
    { type: "toolCallStart", toolCallId: "t1", name: "Edit", input: { file_path: "/w/a.txt" }, kind: "", title: "Edit a.txt" },
  ]);
  const result = adapt(a, { type: "toolCallResult", id: "t1", isError: false, content: "ok", structured: { filePath: "/w/a.txt" } });
  assert.deepEqual(result.events, [
    { type: "toolCallResult", toolCallId: "t1", isError: false, content: "ok", structured: { filePath: "/w/a.txt" } },
  ]);
});

test("an update for an unknown tool call is dropped rather than invented", () => {
  assert.deepEqual(new EventAdapter().adapt({ type: "toolCallUpdate", id: "x", input: {}, title: "", locations: [] }).events, []);
});

test("a permission request with a review carries the diff, always rule, reason and tool call", () => {
  const hunks = [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ["-a", "+b"] }];
  const out = new EventAdapter().adapt({
    type: "permissionRequest",
    id: "p1",
    toolUseId: "t1",
    toolName: "Edit",
    rawToolName: "mcp__tether__Edit",
    kind: "edit",
    input: { file_path: "/w/a.txt" },
    suggestions: [],
    suppressAlwaysAllow: false,
    requiresUserInteraction: false,
    alwaysLabel: "Allow all edits this session (acceptEdits)",
    reason: "edits need approval in default mode",
    review: { path: "/w/a.txt", original: "a\n", proposed: "b\n", hunks },
  });
  assert.deepEqual(out.events, [
    {
      type: "permissionRequest",
      requestId: "p1",
      toolName: "Edit",
      input: { file_path: "/w/a.txt" },
      alwaysRule: "Allow all edits this session (acceptEdits)",
      diff: { path: "/w/a.txt", hunks },
      reason: "edits need approval in default mode",
      toolCallId: "t1",
    },
  ]);
});

test("a permission request that suppresses always-allow offers no always rule", () => {
  const out = new EventAdapter().adapt({
    type: "permissionRequest",
    id: "p2",
    toolName: "Bash",
    rawToolName: "mcp__tether__Bash",
    kind: "execute",
    input: { command: "rm -rf /" },
    suggestions: [],
    suppressAlwaysAllow: true,
    requiresUserInteraction: false,
    alwaysLabel: "Bash(rm:*)",
    decisionReason: "dangerous",
  });
  const ev = out.events[0] as unknown as Record<string, unknown>;
  assert.equal(ev["alwaysRule"], undefined);
  assert.equal(ev["reason"], "dangerous");
});

test("status, mode, done and session init update the header state", () => {
  const a = new EventAdapter();
  assert.deepEqual(a.adapt({ type: "status", state: "requiresAction" }), {
    events: [{ type: "status", state: "requires_action" }],
    state: { busy: true },
  });
  assert.deepEqual(a.adapt({ type: "modeChanged", mode: "plan" }), {
    events: [{ type: "modeChange", mode: "plan" }],
    state: { mode: "plan" },
  });
  assert.deepEqual(
    a.adapt({ type: "sessionInit", sessionId: "s1", model: "opus", tools: [], mcpServers: [], permissionMode: "default" }).state,
    { sessionId: "s1", model: "opus", mode: "default" },
  );
  const done = a.adapt({ type: "done", subtype: "success", isError: false, durationMs: 5, numTurns: 1, sessionId: "s1" });
  assert.deepEqual(done.events, [{ type: "done", subtype: "success", isError: false, durationMs: 5, numTurns: 1 }]);
  assert.deepEqual(done.state, { busy: false, sessionId: "s1" });
});

test("after done, the next text opens a new message", () => {
  const a = new EventAdapter();
  const first = a.adapt({ type: "textDelta", text: "one" });
  a.adapt({ type: "done", subtype: "success", isError: false, durationMs: 1, numTurns: 1, sessionId: "s" });
  const second = a.adapt({ type: "textDelta", text: "two" });
  assert.notEqual((first.events[0] as { id: string }).id, (second.events[0] as { id: string }).id);
});

test("errors map to the webview's kinds; notices stay notices", () => {
  const a = new EventAdapter();
  assert.deepEqual(a.adapt({ type: "error", kind: "notLoggedIn", severity: "error", message: "Not logged in", hint: "Run claude /login" }).events, [
    { type: "error", kind: "login", message: "Not logged in\nRun claude /login", retryable: false },
  ]);
  assert.deepEqual(a.adapt({ type: "error", kind: "api", severity: "error", message: "overloaded" }).events, [
    { type: "error", kind: "api", message: "overloaded", retryable: true },
  ]);
  assert.deepEqual(a.adapt({ type: "error", kind: "interrupted", severity: "notice", message: "Stopped" }).events, [
    { type: "notice", level: "info", text: "Stopped" },
  ]);
});

test("permission cancel and denial become a cancelled card and a warning notice", () => {
  const a = new EventAdapter();
  assert.deepEqual(a.adapt({ type: "permissionCancelled", id: "p1" }).events, [
    { type: "permissionResolved", requestId: "p1", outcome: "cancelled" },
  ]);
  const denied = a.adapt({ type: "permissionDenied", toolUseId: "t", toolName: "Bash", message: "not allowed in plan mode" });
  assert.equal(denied.events[0]?.type, "notice");
});

test("todos with unknown statuses fall back to pending; usage counts cached input", () => {
  const a = new EventAdapter();
  assert.deepEqual(a.adapt({ type: "todoUpdate", todos: [{ content: "x", status: "weird", activeForm: null }] }).events, [
    { type: "todoUpdate", todos: [{ content: "x", status: "pending" }] },
  ]);
  assert.deepEqual(
    a.adapt({ type: "usage", inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheCreationTokens: 4, costUsd: 0.5 }).events,
    [{ type: "usage", inputTokens: 8, outputTokens: 2, costUsd: 0.5 }],
  );
});

test("a CLI crash is a retryable crash error and marks the view disconnected", () => {
  const out = new EventAdapter().adapt({
    type: "error",
    kind: "crash",
    severity: "error",
    message: "Claude Code exited with code 1",
    retryable: true,
    sessionId: "s1",
  });
  assert.deepEqual(out, {
    events: [{ type: "error", kind: "crash", message: "Claude Code exited with code 1", retryable: true }],
    state: { connected: false, busy: false },
  });
});
