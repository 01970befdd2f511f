// Hostile input catalogue, the OpenClaw side: what Tether reads from a gateway that is not the one
// it expects (a scripted WebSocket server on 127.0.0.1, tests/openclaw/fake-gateway.mjs), through
// dist/tether-cli.js --agent openclaw, the same session driver the extension runs. The operator
// connection gets broken, oversized, out-of-place and mistyped frames; the node connection (the
// workspace offered as the gateway's hands) gets invocations that try to run or read what the
// user did not allow. Each case: a clear reason (on stderr with --verbose, or in the answer to the
// gateway), the turn still ends in bounded time, only JSON events on stdout, nothing ran, and no
// file in the workspace changed.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { afterEach, test } from "node:test";
import { SESSION, delta, final, hello, startFakeGateway } from "../openclaw/fake-gateway.mjs";
import { assertIntact, cleanUp, runTetherCli, snapshot, workspace } from "./client.mjs";

const gateways = [];
afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.close();
  await cleanUp();
});

/** The answer of the turn every case ends with, after the hostile frames. */
const STILL_HERE = "still answering";

/** Operator side of one turn: handshake, the session's transcript, then `during(connection)`
 * while the turn runs, then the turn's reply. Node connections run `node(connection)`. */
function script({ during = async () => {}, node = async () => {} } = {}) {
  return async (c) => {
    c.send({ type: "event", event: "connect.challenge", payload: { nonce: `nonce-${c.index}`, ts: Date.now() } });
    const request = await c.expect("connect");
    c.reply(request, hello(Math.min(4, request.params.maxProtocol ?? 4)));
    if (request.params.role === "node") return node(c);
    const history = await c.expect("chat.history");
    c.reply(history, { sessionKey: SESSION, messages: [], hasMore: false, sessionInfo: { activeRunIds: [] } });
    const send = await c.expect("chat.send");
    c.reply(send, { runId: "r1", status: "started" });
    await during(c);
    c.event("chat", delta("r1", STILL_HERE, STILL_HERE));
    c.event("chat", final("r1", STILL_HERE));
  };
}

/**
 * One tether-cli turn against a fake gateway running `gatewayScript`, in a workspace with
 * `files`, offering it as the node when `node`, answering prompts with `approve`.
 */
async function runTurn(gatewayScript, { files = { "a.txt": "alpha\n" }, root = workspace(files), node = false, approve = "none" } = {}) {
  const gateway = await startFakeGateway(gatewayScript);
  gateways.push(gateway);
  const home = workspace();
  fs.writeFileSync(path.join(home, "token"), "fake-token\n");
  const before = snapshot(root);
  const args = ["run", "--agent", "openclaw", "--gateway", gateway.url, "--token-file", path.join(home, "token"), "--device-key", path.join(home, "keys.json")];
  args.push("--session", SESSION, "--root", root, "--prompt", "hi", "--approve", approve, "--verbose", ...(node ? ["--node"] : []));
  const { code, events, stderr } = await runTetherCli(args, { cwd: home, env: { PATH: process.env.PATH, HOME: home }, timeoutMs: 60_000 });
  assert.deepEqual(gateway.errors.map(String), [], "the fake gateway's script ran to its end");
  return { root, before, code, events, stderr };
}

/** The turn ended with the text sent after the hostile frames. */
function assertStillAnswering({ code, events, stderr }) {
  assert.equal(code, 0, stderr);
  const done = events.find((e) => e.type === "done");
  assert.ok(done, `no done among ${events.map((e) => e.type).join(", ")}\n${stderr}`);
  assert.equal(done.result, STILL_HERE);
}

/** The lines of stderr that say a frame was dropped. */
const dropped = (stderr) => stderr.split("\n").filter((l) => l.includes("dropped a frame"));

test("gateway: frames that are not JSON, not objects, binary or nested past the parser's limit are dropped with a reason", async () => {
  const run = await runTurn(
    script({
      during: async (c) => {
        for (const garbage of ["{", "[]", "null", "\u0000\u0001", "[".repeat(10_000) + "]".repeat(10_000)]) c.raw(garbage);
        c.socket.send(Buffer.from([0xde, 0xad, 0xbe, 0xef]), { binary: true });
      },
    }),
  );
  assertStillAnswering(run);
  const reasons = dropped(run.stderr);
  assert.ok(reasons.length >= 5, run.stderr);
  assert.ok(reasons.some((l) => /not JSON: recursion limit/.test(l)), reasons.join("\n"));
  assertIntact(run.root, run.before);
});

test("gateway: a frame over the payload limit its hello announced is dropped, and the text after it shows", async () => {
  const run = await runTurn(
    script({ during: async (c) => c.event("chat", delta("r1", "x", "x".repeat(1_100_000))) }),
  );
  assertStillAnswering(run);
  assert.ok(dropped(run.stderr).some((l) => /exceeds the 1048576-byte limit/.test(l)), run.stderr);
  const shown = run.events.filter((e) => e.type === "textDelta").map((e) => e.text).join("");
  assert.equal(shown, STILL_HERE, "nothing of the oversized frame reached the view");
});

test("gateway: out-of-place frames (a second hello, a challenge mid-session, an answer to nothing, seqs that are not counters) are dropped", async () => {
  const run = await runTurn(
    script({
      during: async (c) => {
        c.send({ type: "res", id: "connect-1", ok: true, payload: { type: "hello-ok", protocol: 4 } });
        c.send({ type: "event", event: "connect.challenge", payload: { nonce: "again", ts: 1 } });
        c.send({ type: "res", id: "nobody-asked", ok: true, payload: {} });
        c.send({ type: "event", event: "chat", payload: {}, seq: -1 });
        c.send({ type: "event", event: "chat", payload: {}, seq: 1e300 });
      },
    }),
  );
  assertStillAnswering(run);
  const reasons = dropped(run.stderr).join("\n");
  assert.match(reasons, /connect.challenge outside the handshake/);
  assert.match(reasons, /seq -1 is not a counter/);
});

test("gateway: a request the gateway sends its operator (system.run) is refused and runs nothing", async () => {
  const run = await runTurn(
    script({ during: async (c) => c.send({ type: "req", id: "x", method: "system.run", params: { command: ["/bin/sh", "-c", "echo pwned > pwned.txt"] } }) }),
  );
  assertStillAnswering(run);
  assert.match(dropped(run.stderr).join("\n"), /request "system.run" from the gateway/);
  assert.ok(!fs.existsSync(path.join(run.root, "pwned.txt")));
  assertIntact(run.root, run.before);
});

test("gateway: events whose fields hold the wrong types are ignored without a crash", async () => {
  const run = await runTurn(
    script({
      during: async (c) => {
        c.event("chat", { runId: ["r"], sessionKey: {}, state: 7 });
        c.event("chat", { runId: "r1", sessionKey: SESSION, state: "delta", deltaText: 42, message: "not a message" });
        c.event("agent", { runId: "r1", sessionKey: SESSION, stream: "tool", data: { phase: "start", toolCallId: 42, args: "x" } });
        c.event("agent", { runId: "r1", sessionKey: SESSION, stream: "tool", data: null });
        c.event("board.changed", { sessionKey: 5, revision: "x" });
      },
    }),
  );
  assertStillAnswering(run);
  assert.ok(!run.events.some((e) => e.type === "permissionRequest"), "nothing asked");
});

test("gateway: a board that points widget pages at another origin offers none of them", async () => {
  const run = await runTurn(
    script({
      during: async (c) => {
        c.event("board.changed", { sessionKey: SESSION, revision: 2 });
        const get = await c.expect("board.get");
        c.reply(get, {
          sessionKey: SESSION,
          revision: 2,
          tabs: [],
          widgets: [
            { name: "evil", contentKind: "html", grantState: "none", revision: 1, frameUrl: "https://evil.example/page.html", viewTicket: "t" },
            { name: "sneaky", contentKind: "html", grantState: "none", revision: 1, frameUrl: "//evil.example/page.html", viewTicket: "t" },
            { name: "script", contentKind: "html", grantState: "none", revision: 1, frameUrl: "javascript:alert(1)", viewTicket: "t" },
          ],
        });
      },
    }),
  );
  assertStillAnswering(run);
  const boards = run.events.filter((e) => e.type === "canvas" && e.update?.kind === "board");
  const widgets = boards.at(-1)?.update.widgets ?? [];
  assert.deepEqual(
    widgets.map((w) => [w.name, w.frameUrl, w.viewTicket]),
    [
      ["evil", null, null],
      ["sneaky", null, null],
      ["script", null, null],
    ],
  );
});

/** A `node.invoke.request` for the node, and the `node.invoke.result` the client sends for it. */
async function invoke(c, id, command, params) {
  c.event("node.invoke.request", { id, nodeId: "fake-node", command, paramsJSON: typeof params === "string" ? params : JSON.stringify(params), timeoutMs: 30_000 });
  for (;;) {
    const result = await c.expect("node.invoke.result", 30_000);
    c.reply(result, { ok: true });
    if (result.params.id === id) return result.params;
  }
}

/** A turn whose node connection runs `invocations(node)` while the operator's turn waits for it. */
function nodeTurn(invocations) {
  let finished;
  const nodeDone = new Promise((resolve) => (finished = resolve));
  const results = {};
  const gatewayScript = script({
    during: () => nodeDone,
    node: async (c) => {
      try {
        Object.assign(results, await invocations(c));
      } finally {
        finished();
      }
    },
  });
  return { gatewayScript, results };
}

test("node: system.run without an approved plan is denied, whatever it asks to run", async () => {
  const { gatewayScript, results } = nodeTurn(async (c) => ({
    run: await invoke(c, "i1", "system.run", { command: ["/bin/sh", "-c", "echo pwned > pwned.txt"], rawCommand: "echo pwned > pwned.txt" }),
  }));
  const run = await runTurn(gatewayScript, { node: true, approve: "all" });
  assertStillAnswering(run);
  assert.equal(results.run.ok, false);
  assert.equal(results.run.error.code, "SYSTEM_RUN_DENIED");
  assert.ok(!fs.existsSync(path.join(run.root, "pwned.txt")));
  assertIntact(run.root, run.before);
});

test("node: a plan the user did not allow is denied, and the command after it does not run", async () => {
  const { gatewayScript, results } = nodeTurn(async (c) => {
    const argv = ["/bin/sh", "-lc", "echo pwned > pwned.txt"];
    const prepare = await invoke(c, "p1", "system.run.prepare", { command: argv, rawCommand: "echo pwned > pwned.txt", cwd: null, agentId: "main", sessionKey: SESSION });
    const runAnyway = await invoke(c, "r1", "system.run", { command: argv, rawCommand: "echo pwned > pwned.txt", approved: true, approvalDecision: "allow-always" });
    return { prepare, runAnyway };
  });
  const run = await runTurn(gatewayScript, { node: true, approve: "none" });
  assertStillAnswering(run);
  assert.equal(results.prepare.ok, false);
  assert.equal(results.prepare.error.code, "SYSTEM_RUN_DENIED");
  assert.equal(results.runAnyway.ok, false, "the gateway's approved: true is not Tether's");
  assert.ok(!fs.existsSync(path.join(run.root, "pwned.txt")));
  assertIntact(run.root, run.before);
});

test("node: a plan allowed for one command cannot run another", async () => {
  const { gatewayScript, results } = nodeTurn(async (c) => {
    const allowed = ["/bin/sh", "-lc", "echo fine"];
    const prepare = await invoke(c, "p1", "system.run.prepare", { command: allowed, rawCommand: "echo fine", cwd: null, agentId: "main", sessionKey: SESSION });
    const swapped = await invoke(c, "r1", "system.run", { command: ["/bin/sh", "-lc", "echo pwned > pwned.txt"], rawCommand: "echo fine" });
    return { prepare, swapped };
  });
  const run = await runTurn(gatewayScript, { node: true, approve: "all" });
  assertStillAnswering(run);
  assert.equal(results.prepare.ok, true, JSON.stringify(results.prepare));
  assert.equal(results.swapped.ok, false);
  assert.equal(results.swapped.error.code, "SYSTEM_RUN_DENIED");
  assert.ok(!fs.existsSync(path.join(run.root, "pwned.txt")));
  assertIntact(run.root, run.before);
});

test("node: file.fetch outside the workspace, through .. or a symlink, hands over no bytes", async () => {
  const outside = workspace({ "secret.txt": "the secret\n" });
  const root = workspace({ "a.txt": "alpha\n" });
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "link.txt"));
  const { gatewayScript, results } = nodeTurn(async (c) => ({
    absolute: await invoke(c, "f1", "file.fetch", { path: path.join(outside, "secret.txt") }),
    dotdot: await invoke(c, "f2", "file.fetch", { path: `${root}/../${path.basename(outside)}/secret.txt` }),
    link: await invoke(c, "f3", "file.fetch", { path: path.join(root, "link.txt") }),
  }));
  const run = await runTurn(gatewayScript, { node: true, approve: "none", root });
  assertStillAnswering(run);
  const secret = Buffer.from("the secret\n").toString("base64");
  for (const [name, result] of Object.entries(results)) {
    assert.equal(result.ok, false, `${name}: ${JSON.stringify(result)}`);
    assert.ok(!JSON.stringify(result).includes(secret), `${name}: no bytes`);
  }
  assertIntact(run.root, run.before);
});

test("node: invocations with broken params, an unknown command or no id get a clear error or are dropped", async () => {
  const { gatewayScript, results } = nodeTurn(async (c) => {
    c.event("node.invoke.request", { nodeId: "fake-node", command: "system.run", paramsJSON: "{}" });
    return {
      notJson: await invoke(c, "b1", "system.run.prepare", "{not json"),
      wrongTypes: await invoke(c, "b2", "system.run.prepare", { command: "rm -rf /", cwd: 7 }),
      unknown: await invoke(c, "b3", "camera.snap", {}),
      huge: await invoke(c, "b4", "file.fetch", { path: "x".repeat(200_000) }),
    };
  });
  const run = await runTurn(gatewayScript, { node: true, approve: "all" });
  assertStillAnswering(run);
  assert.equal(results.notJson.error.code, "INVALID_REQUEST");
  assert.equal(results.wrongTypes.error.code, "INVALID_REQUEST");
  assert.equal(results.unknown.error.code, "UNSUPPORTED");
  assert.equal(results.huge.ok, false);
  assert.ok(results.huge.error.message.length < 2_100, "a hostile path is not echoed whole");
  assertIntact(run.root, run.before);
});
