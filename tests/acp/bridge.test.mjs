// The MCP bridge without a TCP port: the official MCP SDK client → dist/tether-mcp-bridge.js (a
// real process) → the host-side server (extension/src/mcpBridge) backed by the wasm TetherServer
// on a temp dir. Needs ./build.sh first.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { createConnection } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, afterEach, describe, test } from "node:test";
import { BRIDGE, REPO, loadBridgeHost, startTetherBridge } from "./bridge-host.mjs";

const requireFromExtension = createRequire(join(REPO, "extension", "package.json"));
const { Client } = requireFromExtension("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = requireFromExtension("@modelcontextprotocol/sdk/client/stdio.js");

const TIMEOUT_MS = 30_000;
const pids = new Set();
const cleanups = [];

afterEach(async () => {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
  pids.clear();
  while (cleanups.length) await cleanups.pop()();
});

function workspace() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "tether-bridge-ws-")));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function tetherBridge(root) {
  const logs = [];
  const started = await startTetherBridge(root, { log: (m) => logs.push(m) });
  cleanups.push(started.close);
  return { ...started, logs };
}

/** An MCP SDK client whose server is a bridge process with `env`. */
async function sdkClient(env) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BRIDGE], env: { PATH: process.env.PATH, ...env }, stderr: "pipe" });
  const client = new Client({ name: "tether-bridge-tests", version: "1.0.0" });
  await client.connect(transport);
  pids.add(transport.pid);
  return { client, pid: transport.pid };
}

/** A raw bridge process: its stdin, stdout lines, stderr, and exit. */
function rawBridge(env) {
  const child = spawn(process.execPath, [BRIDGE], { env: { PATH: process.env.PATH, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  pids.add(child.pid);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.on("data", (c) => (stderr += c));
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    exited,
    lines: () => stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)),
    get stderr() {
      return stderr;
    },
  };
}

const text = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

async function callOk(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, false, `${name} failed: ${text(result)}`);
  return text(result);
}

async function until(check, what, timeoutMs = 10_000) {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Socket inodes a process holds open (Linux). */
function socketInodes(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]);
    } catch {
      // Closed meanwhile.
    }
  }
  return inodes;
}

/** Inodes of the sockets in a /proc/net table, with whether each is listening (TCP state 0A). */
function procNetInodes(table) {
  if (!existsSync(table)) return [];
  return readFileSync(table, "utf8")
    .split("\n")
    .slice(1)
    .filter(Boolean)
    .map((line) => line.trim().split(/\s+/))
    .map((cols) => (table.includes("unix") ? { inode: cols[6], listening: false } : { inode: cols[9], listening: cols[3] === "0A" }));
}

describe("the MCP bridge", { timeout: TIMEOUT_MS }, () => {
  test("an MCP SDK client reaches Tether's tools through the bridge: Write, Read, Edit, Bash", async () => {
    const root = workspace();
    const { bridge } = await tetherBridge(root);
    const { client } = await sdkClient(bridge.env);
    assert.equal(client.getServerVersion().name, "tether");
    const { tools } = await client.listTools();
    assert.ok(["Read", "Write", "Edit", "Bash"].every((name) => tools.some((t) => t.name === name)));

    const file = join(root, "notes.txt");
    await callOk(client, "Write", { file_path: file, content: "hello world\n" });
    assert.match(await callOk(client, "Read", { file_path: file }), /1\thello world/);
    await callOk(client, "Edit", { file_path: file, old_string: "world", new_string: "bridge" });
    assert.equal(readFileSync(file, "utf8"), "hello bridge\n");
    assert.match(await callOk(client, "Bash", { command: "cat notes.txt && echo from-bash" }), /hello bridge\nfrom-bash/);
    assert.equal(bridge.connectionCount, 1);
    await client.close();
  });

  test("a bridge with a wrong token is refused and serves nothing", async () => {
    const { bridge, logs } = await tetherBridge(workspace());
    const wrong = rawBridge({ ...bridge.env, TETHER_BRIDGE_TOKEN: "0".repeat(64) });
    wrong.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) + "\n");
    assert.equal(await wrong.exited, 1);
    assert.match(wrong.stderr, /refused the connection: wrong token/);
    assert.deepEqual(wrong.lines(), []);
    assert.equal(bridge.connectionCount, 0);
    assert.ok(logs.some((l) => /wrong token/.test(l)), logs.join("\n"));
  });

  test("a peer that skips the hello is refused before any MCP line is handled", async () => {
    const root = workspace();
    const { bridge } = await tetherBridge(root);
    const socket = createConnection(bridge.address);
    let answer = "";
    socket.on("data", (c) => (answer += c));
    const closed = new Promise((resolve) => socket.on("close", resolve));
    socket.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "Write", arguments: { file_path: join(root, "x"), content: "x" } } }) + "\n");
    await closed;
    assert.deepEqual(JSON.parse(answer), { tetherBridge: 1, ok: false, error: "wrong token" });
    assert.equal(existsSync(join(root, "x")), false);
  });

  test("the token is in the environment, not on the command line; the endpoint is a 0700 folder's socket", async () => {
    const { bridge } = await tetherBridge(workspace());
    const { client, pid } = await sdkClient(bridge.env);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    assert.ok(!cmdline.includes(bridge.token), cmdline);
    assert.match(bridge.token, /^[0-9a-f]{64}$/);
    const folder = dirname(bridge.address);
    assert.equal(statSync(folder).mode & 0o777, 0o700);
    assert.ok(statSync(bridge.address).isSocket());
    await client.close();
  });

  test("on Windows the endpoint is a named pipe with a random name", () => {
    const { createEndpoint } = loadBridgeHost();
    const a = createEndpoint("win32");
    const b = createEndpoint("win32");
    assert.match(a.address, /^\\\\\.\\pipe\\tether-[0-9a-f]{32}$/);
    assert.notEqual(a.address, b.address);
    assert.equal(a.directory, undefined);
  });

  test("no TCP port is listened on: the bridge and the host hold Unix sockets only", { skip: process.platform !== "linux" && "reads /proc" }, async () => {
    const { bridge } = await tetherBridge(workspace());
    const { client, pid } = await sdkClient(bridge.env);
    await client.listTools();
    const tcp = [...procNetInodes("/proc/net/tcp"), ...procNetInodes("/proc/net/tcp6")];
    const unix = new Set(procNetInodes("/proc/net/unix").map((s) => s.inode));
    for (const [who, owner] of [["bridge", pid], ["host", process.pid]]) {
      const inodes = socketInodes(owner);
      const tcpHeld = tcp.filter((s) => inodes.has(s.inode));
      assert.deepEqual(tcpHeld.filter((s) => s.listening), [], `${who} listens on TCP`);
      assert.deepEqual(tcpHeld, [], `${who} holds TCP sockets`);
      assert.ok([...inodes].some((inode) => unix.has(inode)), `${who} holds no Unix socket`);
    }
    await client.close();
  });

  test("a bridge that dies mid-call leaves the host serving the next one", async () => {
    const root = workspace();
    const { bridge } = await tetherBridge(root);
    const dying = rawBridge(bridge.env);
    dying.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "Bash", arguments: { command: "sleep 1; echo late" } } }) + "\n");
    await until(() => bridge.connectionCount === 1, "the first bridge to connect");
    dying.child.kill("SIGKILL");
    await dying.exited;
    await until(() => bridge.connectionCount === 0, "the host to drop the dead bridge");

    const { client } = await sdkClient(bridge.env);
    writeFileSync(join(root, "after.txt"), "still here\n");
    assert.match(await callOk(client, "Read", { file_path: join(root, "after.txt") }), /still here/);
    await new Promise((r) => setTimeout(r, 1200)); // the dead bridge's Bash answer arrives now, to no one
    assert.match(await callOk(client, "Bash", { command: "echo alive" }), /alive/);
    await client.close();
  });

  test("the bridge answers everything sent before its stdin closed, then exits 0", async () => {
    const root = workspace();
    const { bridge } = await tetherBridge(root);
    const raw = rawBridge(bridge.env);
    const requests = [1, 2, 3].map((id) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "Bash", arguments: { command: `sleep 0.${id}; echo ${id}` } } }));
    raw.child.stdin.end(requests.map((r) => JSON.stringify(r) + "\n").join(""));
    assert.equal(await raw.exited, 0, raw.stderr);
    assert.deepEqual(raw.lines().map((l) => l.id).sort(), [1, 2, 3]);
  });

  test("closing the host ends its bridges, removes the socket folder and refuses new ones", async () => {
    const started = await startTetherBridge(workspace());
    const { bridge } = started;
    const raw = rawBridge(bridge.env);
    await until(() => bridge.connectionCount === 1, "the bridge to connect");
    const folder = dirname(bridge.address);
    await started.close();
    assert.equal(await raw.exited, 1);
    assert.match(raw.stderr, /Tether closed the connection/);
    assert.equal(existsSync(folder), false);
    const late = rawBridge(bridge.env);
    assert.equal(await late.exited, 1);
    assert.match(late.stderr, /cannot reach Tether/);
  });
});

after(() => {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
});
