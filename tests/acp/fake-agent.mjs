#!/usr/bin/env node
// A scripted fake ACP agent for tests: NDJSON JSON-RPC over stdio, plain Node, no model. What it
// does on a prompt is the scenario in FAKE_ACP_SCENARIO; every frame it reads is appended to
// FAKE_ACP_LOG (one {dir, message} per line), and the outcome of each check it makes on Tether's
// answers goes into a final message chunk `CHECKS {...}` (and the log), for the test to read.
//
//   every-update      every session/update kind, agent requests (fs/*, terminal/*, unknown
//                     methods, paths outside the workspace, a terminal Tether never created) and
//                     hostile frames (garbage, a huge line, a response to nothing) in one turn
//   pending-cancel    asks permission for its own edit and waits: the turn is cancelled
//   dies              sends a chunk, then exits mid-turn
//   read-bench        FAKE_ACP_READS round trips of fs/read_text_file, timed (BENCH {...})
//   broken-switch     asks to run its own shell command (as gemini-cli whose switch did not
//                     take) and runs it in its cwd when allowed
//
// Its cwd stands for the workspace as Tether gives it (the mirror on a remote workspace).

import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

const scenario = process.env.FAKE_ACP_SCENARIO ?? "every-update";
const logFile = process.env.FAKE_ACP_LOG;
const pending = new Map();
let nextId = 100;
let sessionId = "fake-session-1";
let cwd = process.cwd();
let cancelled = false;
let onCancel = () => {};

function log(dir, message) {
  if (logFile) appendFileSync(logFile, JSON.stringify({ dir, message }) + "\n");
}

function write(message) {
  log("out", message);
  process.stdout.write(JSON.stringify(message) + "\n");
}

function raw(line) {
  log("out", { raw: line.slice(0, 200), bytes: line.length });
  process.stdout.write(line + "\n");
}

const respond = (id, result) => write({ jsonrpc: "2.0", id, result });
const update = (update) => write({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update } });

/** A request to the client; resolves to {result} or {error}. */
function request(method, params) {
  const id = nextId++;
  write({ jsonrpc: "2.0", id, method, params });
  return new Promise((resolve) => pending.set(id, resolve));
}

const text = (t) => ({ type: "text", text: t });

async function everyUpdate() {
  const checks = {};
  update({ sessionUpdate: "agent_thought_chunk", content: text("Let me think.") });
  update({ sessionUpdate: "agent_message_chunk", content: text("Working on it. ") });
  update({ sessionUpdate: "plan", entries: [{ content: "Read notes", priority: "high", status: "completed" }, { content: "Edit notes", priority: "medium", status: "in_progress" }] });
  update({ sessionUpdate: "available_commands_update", availableCommands: [{ name: "review", description: "Review the changes", input: { hint: "what to review" } }] });
  update({ sessionUpdate: "current_mode_update", currentModeId: "careful" });
  update({ sessionUpdate: "config_option_update", configOptions: [{ id: "effort", name: "Effort", category: "thought_level", type: "select", currentValue: "high", options: [{ value: "low", name: "Low" }, { value: "high", name: "High" }] }] });
  update({ sessionUpdate: "session_info_update", title: "Fake session title" });
  update({ sessionUpdate: "usage_update", used: 1234, size: 200000, cost: { amount: 0.01, currency: "USD" } });
  update({ sessionUpdate: "hologram_update", depth: 3 });
  // Its own shell, shown through a terminal Tether never created (codex-acp does this).
  update({
    sessionUpdate: "tool_call", toolCallId: "own-shell", title: "ls", kind: "execute", status: "in_progress",
    rawInput: { command: "ls" }, content: [{ type: "terminal", terminalId: "own-shell" }],
    _meta: { terminal_info: { terminal_id: "own-shell", cwd } },
  });
  update({
    sessionUpdate: "tool_call_update", toolCallId: "own-shell", status: "completed",
    _meta: { terminal_output: { terminal_id: "own-shell", data: "notes.txt\n" }, terminal_exit: { terminal_id: "own-shell", exit_code: 0, signal: null } },
  });
  update({
    sessionUpdate: "tool_call", toolCallId: "edit-1", title: "Edit notes.txt", kind: "edit", status: "pending",
    locations: [{ path: join(cwd, "notes.txt"), line: 1 }],
    content: [{ type: "diff", path: join(cwd, "notes.txt"), oldText: "hello world\n", newText: "HELLO world\n" }],
  });
  // Hostile frames: garbage, a line over Tether's 64 MiB limit, a response to a request never sent,
  // an unknown notification.
  raw("this is not json {");
  raw("x".repeat(65 * 1024 * 1024));
  write({ jsonrpc: "2.0", id: 987654, result: { stray: true } });
  write({ jsonrpc: "2.0", method: "_fake/ping", params: {} });

  const read = await request("fs/read_text_file", { sessionId, path: join(cwd, "notes.txt"), line: 2, limit: 1 });
  checks.readLine2 = read.result?.content;
  const outside = await request("fs/read_text_file", { sessionId, path: "/etc/hostname" });
  checks.outsideRefused = outside.error?.message ?? null;
  const write1 = await request("fs/write_text_file", { sessionId, path: join(cwd, "notes.txt"), content: "HELLO world\nsecond line\n" });
  checks.written = write1.error ? write1.error.message : "ok";
  const term = await request("terminal/create", { sessionId, command: "sh", args: ["-c", "echo from-terminal; pwd; exit 3"] });
  checks.terminalId = term.result?.terminalId ?? term.error?.message;
  update({ sessionUpdate: "tool_call", toolCallId: "run-1", title: "Run a script", kind: "execute", status: "in_progress", content: [{ type: "terminal", terminalId: checks.terminalId }] });
  const exit = await request("terminal/wait_for_exit", { sessionId, terminalId: checks.terminalId });
  checks.exit = exit.result;
  const output = await request("terminal/output", { sessionId, terminalId: checks.terminalId });
  checks.terminalOutput = output.result?.output;
  await request("terminal/release", { sessionId, terminalId: checks.terminalId });
  update({ sessionUpdate: "tool_call_update", toolCallId: "run-1", status: "completed" });
  const unknownTerminal = await request("terminal/output", { sessionId, terminalId: "never-made" });
  checks.unknownTerminal = unknownTerminal.error?.code ?? null;
  const unknownMethod = await request("_fake/frobnicate", {});
  checks.unknownMethod = unknownMethod.error?.code ?? null;
  update({ sessionUpdate: "tool_call_update", toolCallId: "edit-1", status: "completed", content: [{ type: "content", content: text("Edited.") }] });
  update({ sessionUpdate: "agent_message_chunk", content: text(`CHECKS ${JSON.stringify(checks)}`) });
  log("checks", checks);
  return "end_turn";
}

async function pendingCancel() {
  update({ sessionUpdate: "tool_call", toolCallId: "own-edit", title: "Edit notes.txt", kind: "edit", status: "pending", content: [{ type: "diff", path: join(cwd, "notes.txt"), oldText: "hello", newText: "bye" }] });
  const cancelledBefore = new Promise((resolve) => (onCancel = resolve));
  const answer = await request("session/request_permission", {
    sessionId,
    toolCall: { toolCallId: "own-edit" },
    options: [{ optionId: "yes", name: "Yes", kind: "allow_once" }, { optionId: "no", name: "No", kind: "reject_once" }],
  });
  await cancelledBefore;
  log("checks", { permissionOutcome: answer.result?.outcome, cancelSeen: cancelled });
  update({ sessionUpdate: "tool_call_update", toolCallId: "own-edit", status: "failed" });
  return "cancelled";
}

async function readBench() {
  const reads = Number(process.env.FAKE_ACP_READS ?? 200);
  const path = join(cwd, "notes.txt");
  // Warm up (the first reads load the file into Tether's cache).
  for (let i = 0; i < 20; i++) await request("fs/read_text_file", { sessionId, path });
  const times = [];
  for (let i = 0; i < reads; i++) {
    const started = process.hrtime.bigint();
    const answer = await request("fs/read_text_file", { sessionId, path });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (!answer.result) throw new Error(`read failed: ${JSON.stringify(answer)}`);
  }
  update({ sessionUpdate: "agent_message_chunk", content: text(`BENCH ${JSON.stringify(times)}`) });
  return "end_turn";
}

/** gemini-cli whose switch did not take: it asks to run its own shell (no tool_call before, as
 * gemini does) and runs it in its cwd when allowed. */
async function brokenSwitch() {
  const command = "echo local > local.txt";
  const answer = await request("session/request_permission", {
    sessionId,
    toolCall: { toolCallId: "run_shell_command-1", title: command, kind: "execute", status: "pending", rawInput: { command } },
    options: [{ optionId: "proceed_once", name: "Allow", kind: "allow_once" }, { optionId: "cancel", name: "Reject", kind: "reject_once" }],
  });
  log("checks", { permissionOutcome: answer.result?.outcome });
  if (answer.result?.outcome?.optionId !== "proceed_once") return "cancelled";
  writeFileSync(join(cwd, "local.txt"), "local\n");
  return "end_turn";
}

const SCENARIOS = { "every-update": everyUpdate, "pending-cancel": pendingCancel, "read-bench": readBench, "broken-switch": brokenSwitch };

async function onPrompt(id) {
  if (scenario === "dies") {
    update({ sessionUpdate: "agent_message_chunk", content: text("About to fall over.") });
    setTimeout(() => process.exit(3), 50);
    return;
  }
  const stopReason = await SCENARIOS[scenario]();
  respond(id, { stopReason });
}

function onMessage(message) {
  log("in", message);
  if (message.id !== undefined && message.method === undefined) {
    const resolve = pending.get(message.id);
    pending.delete(message.id);
    resolve?.(message);
    return;
  }
  const { id, method, params } = message;
  switch (method) {
    case "initialize":
      return respond(id, {
        protocolVersion: 1,
        agentCapabilities: { loadSession: true, promptCapabilities: { image: true, embeddedContext: true }, sessionCapabilities: { list: {}, resume: {} } },
        authMethods: [],
        agentInfo: { name: "fake-acp-agent", title: "Fake ACP Agent", version: "1.0.0" },
      });
    case "session/new":
    case "session/resume":
    case "session/load":
      cwd = params.cwd;
      if (params.sessionId) sessionId = params.sessionId;
      return respond(id, {
        sessionId,
        modes: { currentModeId: "normal", availableModes: [{ id: "normal", name: "Normal" }, { id: "careful", name: "Careful" }] },
      });
    case "session/list":
      return respond(id, { sessions: [{ sessionId: "older-1", cwd, title: "An older session", updatedAt: "2026-11-01T10:00:00Z" }] });
    case "session/set_mode":
      return respond(id, {});
    case "session/prompt":
      return void onPrompt(id);
    case "session/cancel":
      cancelled = true;
      onCancel();
      return;
    default:
      if (id !== undefined) write({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } });
  }
}

createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => {
  if (!line.trim()) return;
  onMessage(JSON.parse(line));
});
process.stdin.on("end", () => process.exit(0));
