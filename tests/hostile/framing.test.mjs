// Hostile input catalogue, framing and protocol: bytes and JSON-RPC a hostile MCP client sends
// dist/tether-mcp.js. Each case: a clear error (or the right answer), the server still answers
// afterwards, and no file changed.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { afterEach, test } from "node:test";
import { assertIntact, cleanUp, snapshot, startServer, workspace } from "./client.mjs";

afterEach(cleanUp);

/** A server on a small workspace, its snapshot, and a check that runs after each case. */
function setup() {
  const root = workspace({ "a.txt": "alpha\nbeta\n", "src/b.js": "export const b = 1;\n" });
  const before = snapshot(root);
  const server = startServer(root);
  const done = async (changed = []) => {
    await server.assertAlive();
    assertIntact(root, before, changed);
  };
  return { root, server, done };
}

/** The error answer with a null id (what a line that cannot be read gets). */
async function nullIdError(server) {
  return server.waitFor((m) => m.id === null && m.error);
}

test("framing: a line that is not JSON gets a parse error", async () => {
  const { server, done } = setup();
  server.send("this is not json\n");
  const reply = await nullIdError(server);
  assert.equal(reply.error.code, -32700);
  await done();
});

test("framing: random binary garbage gets parse errors, never a crash", async () => {
  const { server, done } = setup();
  const garbage = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
  server.send(Buffer.concat([garbage, Buffer.from("\n")]));
  const reply = await nullIdError(server);
  assert.ok([-32700, -32600].includes(reply.error.code), JSON.stringify(reply));
  await done();
});

test("framing: invalid UTF-8 inside a Write is refused, and nothing is written", async () => {
  const { root, server, done } = setup();
  const line = Buffer.concat([
    Buffer.from(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"Write","arguments":{"file_path":"${root}/w.txt","content":"caf`),
    Buffer.from([0xe9, 0xff]),
    Buffer.from('"}}}\n'),
  ]);
  server.send(line);
  const reply = await nullIdError(server);
  assert.equal(reply.error.code, -32700);
  assert.match(reply.error.message, /not valid UTF-8/);
  assert.ok(!fs.existsSync(path.join(root, "w.txt")), "nothing was written with U+FFFD");
  await done();
});

test("framing: a line over the 64 MiB limit is refused without being buffered whole", async () => {
  const { server, done } = setup();
  const chunk = Buffer.alloc(1 << 20, 0x61);
  for (let i = 0; i < 65; i++) server.send(chunk);
  server.send("\n");
  const reply = await server.waitFor((m) => m.id === null && m.error, 60_000);
  assert.equal(reply.error.code, -32600);
  assert.match(reply.error.message, /exceeds the limit/);
  await done();
});

test("framing: a message written one byte at a time is read whole", async () => {
  const { server, done } = setup();
  const bytes = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: "slow", method: "ping" }) + "\r\n");
  for (const byte of bytes) server.send(Buffer.from([byte]));
  const reply = await server.answer("slow");
  assert.deepEqual(reply.result, {});
  await done();
});

test("framing: blank lines and whitespace-only lines are skipped", async () => {
  const { server, done } = setup();
  server.send("\n\n   \r\n\t\n");
  server.sendMessage({ jsonrpc: "2.0", id: 1, method: "ping" });
  const reply = await server.answer(1);
  assert.deepEqual(reply.result, {});
  assert.equal(server.lines.length, 1, "blank lines get no answer");
  await done();
});

test("framing: JSON nested 100,000 deep is a parse error, not a stack overflow", async () => {
  const { server, done } = setup();
  server.send("[".repeat(100_000) + "]".repeat(100_000) + "\n");
  const reply = await nullIdError(server);
  assert.equal(reply.error.code, -32700);
  await done();
});

test("framing: NUL and control characters in a line are a parse error", async () => {
  const { server, done } = setup();
  server.send(Buffer.from('{"jsonrpc":"2.0","id":1,\0"method":"ping"}\n'));
  const reply = await nullIdError(server);
  assert.equal(reply.error.code, -32700);
  await done();
});

test("protocol: an empty batch is one invalid-request error", async () => {
  const { server, done } = setup();
  server.send("[]\n");
  const reply = await nullIdError(server);
  assert.equal(reply.error.code, -32600);
  await done();
});

test("protocol: a batch is answered as one array, by id, notifications left out", async () => {
  const { server, done } = setup();
  server.sendMessage([
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "no/such/method" },
    42,
  ]);
  const reply = await server.waitFor((m) => Array.isArray(m));
  assert.equal(reply.length, 3);
  assert.deepEqual(reply[0], { jsonrpc: "2.0", id: 1, result: {} });
  assert.equal(reply[1].error.code, -32601);
  assert.equal(reply[2].error.code, -32600);
  await done();
});

test("protocol: an array inside a batch is an invalid request, not a second batch", async () => {
  const { server, done } = setup();
  server.sendMessage([[{ jsonrpc: "2.0", id: 1, method: "ping" }], { jsonrpc: "2.0", id: 2, method: "ping" }]);
  const reply = await server.waitFor((m) => Array.isArray(m));
  assert.equal(reply[0].error.code, -32600);
  assert.deepEqual(reply[1], { jsonrpc: "2.0", id: 2, result: {} });
  await done();
});

test("protocol: a batch of 2,000 requests gets 2,000 answers", async () => {
  const { server, done } = setup();
  server.sendMessage(Array.from({ length: 2000 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })));
  const reply = await server.waitFor((m) => Array.isArray(m), 30_000);
  assert.equal(reply.length, 2000);
  assert.deepEqual(reply.map((r) => r.id), Array.from({ length: 2000 }, (_, i) => i));
  await done();
});

for (const [what, id] of [
  ["an object", { a: 1 }],
  ["an array", [1]],
  ["a boolean", true],
  ["null", null],
]) {
  test(`protocol: a request id that is ${what} is refused with -32600`, async () => {
    const { server, done } = setup();
    server.send(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping"}\n`);
    const reply = await server.waitFor((m) => m.error);
    assert.equal(reply.error.code, -32600, JSON.stringify(reply));
    assert.equal(reply.id, null);
    await done();
  });
}

test("protocol: string and number ids come back exactly as sent", async () => {
  const { server, done } = setup();
  for (const id of ["é✓ \u0000 id", 9007199254740991, -1, 0.5, ""]) {
    server.sendMessage({ jsonrpc: "2.0", id, method: "ping" });
    const reply = await server.answer(id);
    assert.deepEqual(reply.result, {});
  }
  await done();
});

test("protocol: an unknown method is -32601, an unknown notification gets nothing", async () => {
  const { server, done } = setup();
  server.sendMessage({ jsonrpc: "2.0", method: "no/such/notification" });
  const reply = await server.request("no/such/method");
  assert.equal(reply.error.code, -32601);
  assert.equal(server.lines.length, 1);
  await done();
});

test("protocol: tools/call with an unknown tool, no name or non-object arguments is -32602", async () => {
  const { server, done } = setup();
  for (const params of [{ name: "Nope" }, { arguments: {} }, { name: "Read", arguments: [1] }, "params", null]) {
    const reply = await server.request("tools/call", params);
    assert.equal(reply.error?.code, -32602, `${JSON.stringify(params)} -> ${JSON.stringify(reply)}`);
  }
  await done();
});

test("protocol: a response the server never asked for is ignored", async () => {
  const { server, done } = setup();
  server.sendMessage({ jsonrpc: "2.0", id: 99, result: { anything: true } });
  server.sendMessage({ jsonrpc: "2.0", id: 98, error: { code: 1, message: "x" } });
  await server.assertAlive();
  assert.equal(server.lines.filter((l) => /"id":9[89]/.test(l)).length, 0);
  await done();
});

test("protocol: a 10 MB Write in one line is written byte for byte", async () => {
  const { root, server, done } = setup();
  const content = "0123456789abcdef\n".repeat(640 * 1024);
  const text = await server.callOk("Write", { file_path: path.join(root, "big.txt"), content });
  assert.match(text, /File created successfully/);
  assert.equal(fs.readFileSync(path.join(root, "big.txt"), "utf8"), content);
  await done(["big.txt"]);
});

test("protocol: stdin closing while calls run still answers them, then exits 0", async () => {
  const { root, server } = setup();
  server.sendMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "Bash", arguments: { command: "sleep 1; echo late" } } });
  server.sendMessage({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "Read", arguments: { file_path: path.join(root, "a.txt") } } });
  server.child.stdin.end();
  const late = await server.answer(1);
  assert.match(late.result.content[0].text, /late/);
  const exit = await server.exited;
  assert.equal(exit.code, 0);
});
