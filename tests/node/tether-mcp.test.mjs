// dist/tether-mcp.js driven by the official MCP SDK client over stdio, and by raw NDJSON lines,
// against real temporary directories. Needs ./build.sh first (./build.sh test does both).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, afterEach, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const MCP = join(REPO, "dist", "tether-mcp.js");
const requireFromExtension = createRequire(join(REPO, "extension", "package.json"));
const { Client } = requireFromExtension("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = requireFromExtension("@modelcontextprotocol/sdk/client/stdio.js");
const { McpError } = requireFromExtension("@modelcontextprotocol/sdk/types.js");

const TEST_TIMEOUT_MS = 30_000;
const TOOL_NAMES = [
  "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep", "LS", "Bash", "BashOutput", "KillShell",
];

assert.ok(existsSync(MCP), `${MCP} is missing: run ./build.sh first`);

/** Every process a test started, killed by PID if still there when the test ends. */
const spawnedPids = new Set();
const tempDirs = new Set();

function killSpawned() {
  for (const pid of spawnedPids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  spawnedPids.clear();
}
afterEach(killSpawned);
after(() => {
  killSpawned();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function makeWorkspace() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "tether-node-")));
  tempDirs.add(dir);
  return dir;
}

/** An SDK client connected to a tether-mcp serving `root`. */
async function connect(root) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCP, "--root", root], stderr: "pipe" });
  const client = new Client({ name: "tether-node-tests", version: "1.0.0" });
  await client.connect(transport);
  spawnedPids.add(transport.pid);
  return client;
}

function text(result) {
  return result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

/** Whether a Glob/Grep listing names `relative` (under `root`): the built-ins print paths inside
 * the working directory relative to it, and absolute paths otherwise. */
function lists(listing, root, relative) {
  return listing.split("\n").some((line) => line === relative || line === join(root, relative));
}

/** Call a tool and require a successful result; returns its text. */
async function callOk(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, false, `${name} failed: ${text(result)}`);
  return text(result);
}

/** A raw tether-mcp process: send lines, read response lines, see how it exits. */
function startRaw(args) {
  const child = spawn(process.execPath, [MCP, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  spawnedPids.add(child.pid);
  let stdout = "";
  let stderr = "";
  const waiters = [];
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    for (const waiter of waiters.splice(0)) waiter();
  });
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return {
    child,
    exited,
    send: (line) => child.stdin.write(line + "\n"),
    /** Resolves with the parsed response lines once there are at least `count`. */
    async responses(count) {
      while (stdout.split("\n").filter(Boolean).length < count) {
        await new Promise((resolve) => waiters.push(resolve));
      }
      return stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line));
    },
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
  };
}

describe("tether-mcp through the MCP SDK client", { timeout: TEST_TIMEOUT_MS }, () => {
  test("initialize names the tether server", async () => {
    const client = await connect(makeWorkspace());
    assert.equal(client.getServerVersion().name, "tether");
    assert.ok(client.getServerCapabilities().tools);
    await client.close();
  });

  test("tools/list has the eleven tools, all always loaded", async () => {
    const client = await connect(makeWorkspace());
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
    for (const tool of tools) {
      assert.equal(tool._meta?.["anthropic/alwaysLoad"], true, tool.name);
      assert.equal(tool.inputSchema.type, "object", tool.name);
    }
    await client.close();
  });

  test("Write creates a file and Read shows it with numbered lines", async () => {
    const root = makeWorkspace();
    const client = await connect(root);
    const file = join(root, "dir", "hello.txt");
    await callOk(client, "Write", { file_path: file, content: "first line\nsecond line\n" });
    assert.equal(readFileSync(file, "utf8"), "first line\nsecond line\n");
    const read = await callOk(client, "Read", { file_path: file });
    const lines = read.split("\n").map((line) => line.trimStart());
    assert.ok(lines.includes("1\tfirst line"), read);
    assert.ok(lines.includes("2\tsecond line"), read);
    await client.close();
  });

  test("Edit after Read replaces exactly the old string", async () => {
    const root = makeWorkspace();
    const client = await connect(root);
    const file = join(root, "code.js");
    writeFileSync(file, "const answer = 41;\n");
    await callOk(client, "Read", { file_path: file });
    await callOk(client, "Edit", { file_path: file, old_string: "41", new_string: "42" });
    assert.equal(readFileSync(file, "utf8"), "const answer = 42;\n");
    await client.close();
  });

  test("Glob lists the matching files", async () => {
    const root = makeWorkspace();
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "a.ts"), "");
    writeFileSync(join(root, "b.md"), "");
    const client = await connect(root);
    const glob = await callOk(client, "Glob", { pattern: "**/*.ts", path: root });
    assert.ok(lists(glob, root, "src/a.ts"), glob);
    assert.ok(!glob.includes("b.md"), glob);
    await client.close();
  });

  test("Grep by default lists the files that match", async () => {
    const root = makeWorkspace();
    writeFileSync(join(root, "yes.txt"), "the needle\n");
    writeFileSync(join(root, "no.txt"), "hay\n");
    const client = await connect(root);
    const grep = await callOk(client, "Grep", { pattern: "needle", path: root });
    assert.ok(lists(grep, root, "yes.txt"), grep);
    assert.ok(!grep.includes("no.txt"), grep);
    await client.close();
  });

  test("Bash returns the command's output", async () => {
    const client = await connect(makeWorkspace());
    const out = await callOk(client, "Bash", { command: "echo tether-bash-ok" });
    assert.ok(out.includes("tether-bash-ok"), out);
    await client.close();
  });

  test("Read of a missing file is an isError result", async () => {
    const root = makeWorkspace();
    const client = await connect(root);
    const result = await client.callTool({ name: "Read", arguments: { file_path: join(root, "absent.txt") } });
    assert.equal(result.isError, true);
    await client.close();
  });

  test("an unknown tool is a JSON-RPC error", async () => {
    const client = await connect(makeWorkspace());
    await assert.rejects(client.callTool({ name: "Teleport", arguments: {} }), (error) => {
      assert.ok(error instanceof McpError, String(error));
      assert.equal(error.code, -32602);
      return true;
    });
    await client.close();
  });

  test("overlapping requests are all answered", async () => {
    const client = await connect(makeWorkspace());
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? client.ping() : client.listTools())));
    assert.equal(results.length, 20);
    assert.equal(results.filter((r) => r.tools?.length === 11).length, 10);
    await client.close();
  });

  test("tool calls run concurrently, not one after another", async () => {
    const root = makeWorkspace();
    const client = await connect(root);
    // The first waits (up to 10 s) for a flag only the second creates.
    const waiter = client.callTool({
      name: "Bash",
      arguments: { command: "for i in $(seq 1 200); do [ -f flag ] && echo saw-flag && exit 0; sleep 0.05; done; exit 1" },
    });
    const setter = client.callTool({ name: "Bash", arguments: { command: "sleep 0.2; touch flag" } });
    const [waited] = await Promise.all([waiter, setter]);
    assert.ok(text(waited).includes("saw-flag"), text(waited));
    await client.close();
  });

  test("closing the client ends the server process", async () => {
    const client = await connect(makeWorkspace());
    const pid = client.transport.pid;
    await client.close();
    for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(isAlive(pid), false);
  });
});

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("tether-mcp on raw NDJSON lines", { timeout: TEST_TIMEOUT_MS }, () => {
  test("a line that is not JSON is answered with -32700 and the server keeps serving", async () => {
    const raw = startRaw(["--root", makeWorkspace()]);
    raw.send("this is not json");
    raw.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }));
    const responses = await raw.responses(2);
    const parseError = responses.find((r) => r.error);
    assert.equal(parseError.error.code, -32700);
    assert.equal(parseError.id, null);
    assert.deepEqual(responses.find((r) => r.id === 2), { jsonrpc: "2.0", id: 2, result: {} });
    raw.child.stdin.end();
    assert.deepEqual(await raw.exited, { code: 0, signal: null });
  });

  test("a line that is not UTF-8 is answered with -32700 and the server keeps serving", async () => {
    const raw = startRaw(["--root", makeWorkspace()]);
    raw.child.stdin.write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}\n')]));
    raw.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }));
    const responses = await raw.responses(2);
    const parseError = responses.find((r) => r.error);
    assert.equal(parseError.error.code, -32700);
    assert.match(parseError.error.message, /not valid UTF-8/);
    assert.deepEqual(responses.find((r) => r.id === 2), { jsonrpc: "2.0", id: 2, result: {} });
    raw.child.stdin.end();
    assert.deepEqual(await raw.exited, { code: 0, signal: null });
  });

  test("a request split across writes and ending with CRLF is answered", async () => {
    const raw = startRaw(["--root", makeWorkspace()]);
    const line = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" });
    raw.child.stdin.write(line.slice(0, 10));
    raw.child.stdin.write(line.slice(10) + "\r\n");
    const [response] = await raw.responses(1);
    assert.equal(response.id, 9);
    raw.child.stdin.end();
    await raw.exited;
  });

  test("stdin closing exits cleanly after answering what was asked, with nothing but JSON on stdout", async () => {
    const raw = startRaw(["--root", makeWorkspace()]);
    raw.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    raw.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    raw.child.stdin.end();
    assert.deepEqual(await raw.exited, { code: 0, signal: null });
    const lines = raw.stdout.split("\n").filter(Boolean);
    assert.equal(lines.length, 1);
    assert.equal(JSON.parse(lines[0]).result.tools.length, 11);
  });

  test("an oversized line is answered with an error and the server keeps serving", async () => {
    const raw = startRaw(["--root", makeWorkspace()]);
    const chunk = "x".repeat(1024 * 1024);
    // 65 MiB without a newline: over the 64 MiB limit, dropped as it streams rather than buffered.
    for (let i = 0; i < 65; i++) {
      if (!raw.child.stdin.write(chunk)) await new Promise((resolve) => raw.child.stdin.once("drain", resolve));
    }
    raw.send("");
    raw.send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping" }));
    const responses = await raw.responses(2);
    assert.equal(responses[0].error.code, -32600);
    assert.deepEqual(responses[1], { jsonrpc: "2.0", id: 5, result: {} });
    raw.child.stdin.end();
    await raw.exited;
  });

  test("--verbose logs to stderr and keeps stdout for JSON-RPC", async () => {
    const raw = startRaw(["--root", makeWorkspace(), "--verbose"]);
    raw.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
    raw.child.stdin.end();
    assert.equal((await raw.exited).code, 0);
    assert.deepEqual(JSON.parse(raw.stdout), { jsonrpc: "2.0", id: 1, result: {} });
    assert.match(raw.stderr, /ping \d+ ms/);
  });

  test("--help prints usage and exits 0", async () => {
    const raw = startRaw(["--help"]);
    assert.equal((await raw.exited).code, 0);
    assert.match(raw.stdout, /--root DIR/);
  });

  test("a missing --root is a clear error on stderr", async () => {
    const raw = startRaw([]);
    assert.equal((await raw.exited).code, 2);
    assert.match(raw.stderr, /--root DIR is required/);
    assert.equal(raw.stdout, "");
  });

  test("a --root that does not exist is a clear error", async () => {
    const missing = join(makeWorkspace(), "nope");
    const raw = startRaw(["--root", missing]);
    assert.equal((await raw.exited).code, 2);
    assert.ok(raw.stderr.includes(`--root ${missing} does not exist`), raw.stderr);
  });

  test("a --root that is a file is a clear error", async () => {
    const file = join(makeWorkspace(), "file.txt");
    writeFileSync(file, "");
    const raw = startRaw(["--root", file]);
    assert.equal((await raw.exited).code, 2);
    assert.match(raw.stderr, /is not a directory/);
  });
});
