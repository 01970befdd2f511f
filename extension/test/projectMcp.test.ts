// The project's MCP servers without VS Code: `.mcp.json` read through the host, the approval asked
// only where no setting decides and kept in settings.local.json, an approved stdio server started
// where the files are (here, and through Tether Remote's process commands) and reached through
// its own bridge endpoint, a broken one told with its stderr, and what is off listed with why.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { after, test } from "node:test";
import type { McpChoice, McpServerEntry } from "../src/generated/core";
import { HelperHandlers } from "../src/helper/handlers";
import { relay } from "../src/mcpBridge/client";
import { NodeHost } from "../src/node/nodeHost";
import { startLocalProcess } from "../src/node/stdioProcess";
import { ProjectServers, type ProcessLauncher } from "../src/projectMcp";
import { HelperExecutor, pairHelper } from "../src/remote/helperExecutor";
import { newHelperSecret, type HelperHello } from "../src/remote/protocol";

const FIXTURE = path.resolve(__dirname, "../../tests/fixtures/mcp/facts-server.mjs");
const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tether-project-mcp-")));
after(() => rmSync(tmp, { recursive: true, force: true }));

function project(name: string, files: Record<string, string>): string {
  const root = path.join(tmp, name);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const mcpJson = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers });
const facts = { command: process.execPath, args: [FIXTURE] };

interface Started {
  servers: ProjectServers;
  asked: string[];
  notices: string[];
}

async function start(root: string, launcher: ProcessLauncher, answer: (name: string) => McpChoice | undefined = () => "approve"): Promise<Started> {
  const asked: string[] = [];
  const notices: string[] = [];
  const servers = await ProjectServers.start({
    host: new NodeHost(),
    root,
    launcher,
    ask: async (server) => {
      asked.push(server.name);
      return answer(server.name);
    },
    bridgeCommand: (bridge) => ({ command: "node", args: ["tether-mcp-bridge.js", "--connection", bridge.connectionFile()], env: {} }),
    notice: (message) => notices.push(message),
    changed: () => undefined,
    log: () => undefined,
  });
  return { servers, asked, notices };
}

/** One MCP request through a server's bridge entry, as the agent's bridge process would send it. */
async function call(entry: McpServerEntry, message: object): Promise<Record<string, unknown>> {
  assert.equal(entry.type, "stdio");
  // The token is in a file only this user reads, never on the command line.
  const file = (entry as { args: string[] }).args.at(-1)!;
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const { endpoint, token } = JSON.parse(readFileSync(file, "utf8")) as { endpoint: string; token: string };
  assert.ok(!JSON.stringify(entry).includes(token));
  const input = new PassThrough();
  const output = new PassThrough();
  const done = relay({ endpoint, token, input, output, log: () => undefined });
  const line = new Promise<string>((resolve) => {
    let text = "";
    output.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (text.includes("\n")) resolve(text.slice(0, text.indexOf("\n")));
    });
  });
  input.write(JSON.stringify({ jsonrpc: "2.0", id: 1, ...message }) + "\n");
  const reply = JSON.parse(await line) as Record<string, unknown>;
  input.end();
  await done;
  return reply;
}

const local: ProcessLauncher = { start: startLocalProcess };

test("an approved stdio server runs in the workspace folder and answers through its own bridge endpoint", async () => {
  const root = project("local", { ".mcp.json": mcpJson({ facts }) });
  const { servers, asked } = await start(root, local);
  try {
    assert.deepEqual(asked, ["facts"]);
    assert.equal(servers.entries.length, 1);
    const reply = await call(servers.entries[0]!, { method: "tools/call", params: { name: "where_am_i", arguments: {} } });
    const text = ((reply["result"] as { content: { text: string }[] }).content[0]!.text);
    assert.equal(JSON.parse(text.replace(/^FACTS /, "")).cwd, root);
    assert.equal(servers.info().servers[0]!.running, true);
    // The choice is kept where Claude Code keeps it.
    const local = JSON.parse(readFileSync(path.join(root, ".claude/settings.local.json"), "utf8"));
    assert.deepEqual(local.enabledMcpjsonServers, ["facts"]);
  } finally {
    await servers.close();
  }
});

test("settings decide without asking: a disabled server is off with its reason, an enabled one starts", async () => {
  const root = project("settings", {
    ".mcp.json": mcpJson({ facts, other: facts }),
    ".claude/settings.json": JSON.stringify({ disabledMcpjsonServers: ["other"], enabledMcpjsonServers: ["facts"], statusLine: { type: "command", command: "x" } }),
  });
  const { servers, asked } = await start(root, local);
  try {
    assert.deepEqual(asked, []);
    assert.deepEqual(servers.entries.map((e) => e.name), ["facts"]);
    const off = servers.info().off;
    assert.ok(off.some((o) => o.what.includes('"other"') && o.reason.includes("disabledMcpjsonServers in .claude/settings.json")), JSON.stringify(off));
    assert.ok(off.some((o) => o.what.startsWith("statusLine")), JSON.stringify(off));
  } finally {
    await servers.close();
  }
});

test("a denied server is remembered and not started; an unanswered one is off until the next start", async () => {
  const root = project("deny", { ".mcp.json": mcpJson({ facts, later: facts }) });
  const first = await start(root, local, (name) => (name === "facts" ? "deny" : undefined));
  assert.deepEqual(first.servers.entries, []);
  assert.match(first.servers.info().off.map((o) => o.reason).join("\n"), /denied by you[\s\S]*not approved yet/);
  await first.servers.close();
  const second = await start(root, local, () => "approve");
  try {
    assert.deepEqual(second.asked, ["later"], "the denial was kept; the unanswered one is asked again");
  } finally {
    await second.servers.close();
  }
});

test("a server that dies is told with its stderr, and one that cannot start says why", async () => {
  const root = project("broken", {
    ".mcp.json": mcpJson({ crashes: { command: process.execPath, args: [FIXTURE, "--crash", "no database at db.sqlite"] }, missing: { command: "/nonexistent/mcp-server" } }),
  });
  const { servers, notices } = await start(root, local);
  try {
    await waitUntil(() => notices.some((n) => n.includes("crashes")));
    assert.match(notices.find((n) => n.includes("crashes"))!, /exited with code 3\. Its last output: no database at db\.sqlite/);
    assert.match(notices.find((n) => n.includes("missing"))!, /could not start on the workspace: .*ENOENT/);
    assert.deepEqual(servers.info().servers.map((s) => s.running), [false, false]);
  } finally {
    await servers.close();
  }
});

test("through Tether Remote the server runs on the helper's side, its stdin and stdout relayed", async () => {
  const handlers = new HelperHandlers({ version: "test", ripgrepPath: null, isTrusted: () => true });
  const table = new Map(handlers.commands());
  const execute = (id: string, ...args: unknown[]) => table.get(id)!(...(JSON.parse(JSON.stringify(args)) as [unknown])).then((r) => JSON.parse(JSON.stringify(r ?? null)));
  const secret = newHelperSecret();
  const paired = await pairHelper(execute, secret, 5000);
  const executor = new HelperExecutor(execute, (paired as { hello: HelperHello }).hello, secret);
  const root = project("remote", { ".mcp.json": mcpJson({ facts }) });
  const { servers } = await start(root, { start: (spec) => executor.startProcess(spec) });
  try {
    const reply = await call(servers.entries[0]!, { method: "initialize", params: { protocolVersion: "2025-06-18" } });
    assert.equal((reply["result"] as { serverInfo: { name: string } }).serverInfo.name, "facts");
  } finally {
    await servers.close();
    handlers.dispose();
  }
});

test("without a way to start processes on the remote, a stdio server is off with the reason", async () => {
  const root = project("terminal", { ".mcp.json": mcpJson({ facts, docs: { type: "http", url: "https://docs.example/mcp" } }) });
  const { servers, notices } = await start(root, { unavailable: "this window reaches the remote through the hidden terminal" });
  assert.deepEqual(servers.entries.map((e) => e.name), ["docs"], "an HTTP server is reached from here");
  assert.match(notices.join("\n"), /"facts" is off: this window reaches the remote through the hidden terminal/);
  await servers.close();
});

async function waitUntil(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
