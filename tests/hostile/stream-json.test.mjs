// Hostile input catalogue, the stream-json side: what Tether reads from the agent's stdout when
// that is not the Claude Code it expects (hostile-claude.mjs stands in for it), through
// dist/tether-cli.js, the same session driver the extension runs. Each case: a clear outcome in
// bounded time, only JSON events on stdout, and no file changed.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, test } from "node:test";
import { assertIntact, cleanUp, runTetherCli, snapshot, workspace } from "./client.mjs";

afterEach(cleanUp);

const HOSTILE_CLAUDE = path.join(path.dirname(fileURLToPath(import.meta.url)), "hostile-claude.mjs");

/**
 * Run one tether-cli turn against hostile-claude.mjs in `scenario`, answering permission prompts
 * with `approve` (tether-cli --approve); its exit, events and what it wrote to the agent.
 */
async function runTurn(scenario, approve = "all", files = { "a.txt": "alpha\n" }, outside = "") {
  const root = workspace(files);
  const logDir = workspace();
  const log = path.join(logDir, "stdin.ndjson");
  const before = snapshot(root);
  const { code, events, stderr } = await runTetherCli(["run", "--root", root, "--prompt", "hi", "--approve", approve, "--claude", HOSTILE_CLAUDE], {
    env: { PATH: process.env.PATH, HOME: logDir, HOSTILE_SCENARIO: scenario, HOSTILE_LOG: log, HOSTILE_ROOT: root, HOSTILE_OUTSIDE: outside },
  });
  const sent = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
  return { root, before, code, events, stderr, sent };
}

test("stream-json: garbage lines, invalid UTF-8, a 2 MB line and unknown messages are skipped, and the turn ends", async () => {
  const { root, before, code, events, stderr, sent } = await runTurn("garbage");
  assert.equal(code, 0, stderr);
  assert.ok(events.some((e) => e.type === "done" && e.subtype === "success"), JSON.stringify(events.map((e) => e.type)));
  // What the session had to answer: the unknown control request and the other MCP server's.
  const answer = (id) => sent.find((m) => m.type === "control_response" && m.response?.request_id === id)?.response;
  assert.match(answer("r-unknown")?.error ?? "", /Unsupported control request subtype: no_such_request/);
  assert.match(answer("r-other-server")?.error ?? "", /Unknown MCP server: evil/);
  assertIntact(root, before);
});

test("stream-json: an agent that writes garbage and dies before initialize ends the run with a clear error", async () => {
  const started = Date.now();
  const { root, before, code, stderr } = await runTurn("crash");
  assert.ok(Date.now() - started < 30_000, "bounded");
  assert.equal(code, 1);
  assert.match(stderr, /exit|exited|code 3/i);
  assertIntact(root, before);
});

test("stream-json: malformed MCP calls over mcp_message each get their error, and the valid edit lands", async () => {
  const { root, before, code, stderr, sent } = await runTurn("mcp");
  assert.equal(code, 0, stderr);
  const reply = (id) => sent.find((m) => m.type === "control_response" && m.response?.request_id === id)?.response?.response?.mcp_response;
  const text = (id) => JSON.stringify(reply(id));
  for (const id of ["m-unknown-arg", "m-object-id", "m-no-tool", "m-nul", "m-edit"]) {
    assert.ok(reply(id), `no mcp_response for ${id}: ${JSON.stringify(sent.filter((m) => m.type === "control_response"))}`);
  }
  assert.match(text("m-unknown-arg"), /An unexpected parameter `offest` was provided/);
  assert.equal(reply("m-object-id").error?.code, -32600);
  assert.equal(reply("m-no-tool").error?.code, -32602);
  assert.match(text("m-nul"), /null bytes.*"isError":true/);
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "ALPHA\n");
  assertIntact(root, before, ["a.txt"]);
});

test("stream-json: tools/call messages the CLI never asked permission for still go through the gate, and a refusal writes and reads nothing", async () => {
  const outside = workspace({ "secret.txt": "not for the model\n" });
  const outsideBefore = snapshot(outside);
  const { root, before, code, stderr, sent } = await runTurn("unasked", "none", { "a.txt": "alpha\n" }, outside);
  assert.equal(code, 0, stderr);
  const reply = (id) => sent.find((m) => m.type === "control_response" && m.response?.request_id === id)?.response?.response?.mcp_response;
  for (const id of ["u-write", "u-read"]) {
    assert.equal(reply(id)?.result?.isError, true, `${id}: ${JSON.stringify(reply(id))}`);
    assert.doesNotMatch(JSON.stringify(reply(id)), /not for the model/);
  }
  assert.equal(fs.existsSync(path.join(outside, "planted.txt")), false, "nothing written outside the workspace");
  assertIntact(outside, outsideBefore);
  assertIntact(root, before);
});
