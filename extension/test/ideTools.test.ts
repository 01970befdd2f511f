import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { PassThrough } from "node:stream";
import { containedPaths } from "../src/ide/containment";
import { ideBridgeHandler, ideServerEntries } from "../src/ide/servers";
import { fileUri, IdeToolsServer, pathOfUri, type LanguagePort } from "../src/ide/tools";
import { relay } from "../src/mcpBridge/client";
import { BridgeServer } from "../src/mcpBridge/server";

/** A language port that records what it was asked and answers from a table. */
function recordingPort(asked: string[]): LanguagePort {
  return {
    diagnostics: async (file) => {
      asked.push(`diagnostics ${file ?? "*"}`);
      return [{ path: file ?? "/w/a.ts", diagnostics: [{ message: "Type 'string' is not assignable to type 'number'.", severity: "Error", range: { start: { line: 1, character: 6 }, end: { line: 1, character: 7 } }, source: "ts", code: "2322" }] }];
    },
    definition: async (file, at) => {
      asked.push(`definition ${file}:${at.line}:${at.character}`);
      return [{ path: "/w/types.ts", range: { start: { line: 1, character: 17 }, end: { line: 1, character: 22 } } }];
    },
    references: async () => [],
    hover: async () => ["function greet(name: string): string"],
    documentSymbols: async () => [{ name: "greet", kind: "Function", location: { path: "/w/types.ts", range: { start: { line: 1, character: 17 }, end: { line: 1, character: 22 } } } }],
    workspaceSymbols: async () => [],
    open: async (file, lines) => void asked.push(`open ${file} ${lines?.startLine ?? ""}`),
  };
}

const workspaceOnly = async (p: string): Promise<string> => {
  if (!p.startsWith("/w/")) throw new Error(`The path ${p} is outside the workspace /w.`);
  return p;
};

const LANGUAGE_TOOLS = ["getDefinition", "findReferences", "getHover", "getDocumentSymbols", "getWorkspaceSymbols", "openFile"];

/** The server a tool is served by: getDiagnostics under `ide`, the language tools under `vscode`. */
const serverOf = (name: string): string => (name === "getDiagnostics" ? "ide" : "vscode");

async function call(server: IdeToolsServer, name: string, args: unknown): Promise<{ text: string; isError: boolean }> {
  const reply = JSON.parse((await server.handle(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: args } }), serverOf(name)))!);
  return { text: reply.result.content[0].text, isError: reply.result.isError === true };
}

const toolNames = async (server: IdeToolsServer, name: string): Promise<string[]> =>
  JSON.parse((await server.handle('{"jsonrpc":"2.0","id":2,"method":"tools/list"}', name))!).result.tools.map((t: { name: string }) => t.name);

test("the ide server lists getDiagnostics alone, under the official name, with an optional uri", async () => {
  const server = new IdeToolsServer(recordingPort([]), workspaceOnly);
  const init = JSON.parse((await server.handle('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}', "ide"))!);
  assert.equal(init.result.protocolVersion, "2025-06-18");
  assert.equal(init.result.serverInfo.name, "ide");
  const list = JSON.parse((await server.handle('{"jsonrpc":"2.0","id":2,"method":"tools/list"}', "ide"))!);
  assert.deepEqual(await toolNames(server, "ide"), ["getDiagnostics"]);
  assert.equal(list.result.tools[0].description, "Get language diagnostics from VS Code");
  assert.deepEqual(list.result.tools[0].inputSchema.required, undefined);
  assert.equal(await server.handle('{"jsonrpc":"2.0","method":"notifications/initialized"}', "ide"), undefined);
  assert.equal(JSON.parse((await server.handle('{"jsonrpc":"2.0","id":3,"method":"nope"}', "ide"))!).error.code, -32601);
  assert.equal(JSON.parse((await server.handle("{not json", "ide"))!).error.code, -32700);
});

test("the language tools are served under vscode, which Claude Code passes through, and not under ide", async () => {
  const server = new IdeToolsServer(recordingPort([]), workspaceOnly);
  const init = JSON.parse((await server.handle('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}', "vscode"))!);
  assert.equal(init.result.serverInfo.name, "vscode");
  assert.deepEqual(await toolNames(server, "vscode"), LANGUAGE_TOOLS);
  // Each server runs only its own tools.
  const asIde = JSON.parse((await server.handle(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "getDefinition", arguments: { filePath: "/w/a.ts", line: 1, character: 1 } } }), "ide"))!);
  assert.match(asIde.error.message, /Unknown tool: getDefinition/);
  const asVscode = JSON.parse((await server.handle(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "getDiagnostics", arguments: {} } }), "vscode"))!);
  assert.match(asVscode.error.message, /Unknown tool: getDiagnostics/);
  // A bridge that names no server, or another one, is told which there are.
  const unnamed = JSON.parse((await server.handle('{"jsonrpc":"2.0","id":6,"method":"tools/list"}', ""))!);
  assert.match(unnamed.error.message, /No IDE tools server named "" \(there are ide and vscode\)/);
});

test("both IDE servers are entries of the mcpServers list, bridges to one endpoint told apart by --server", async () => {
  const server = new IdeToolsServer(recordingPort([]), workspaceOnly);
  const bridge = await BridgeServer.start({ handler: ideBridgeHandler(async () => server) });
  try {
    const entries = ideServerEntries({ command: "node", script: "tether-mcp-bridge.js", connectionFile: bridge.connectionFile(), env: {} });
    assert.deepEqual(entries.map((e) => e.name), ["ide", "vscode"]);
    const listed: Record<string, string[]> = {};
    for (const entry of entries) {
      assert.equal(entry.type, "stdio");
      const args = (entry as { args: string[] }).args;
      assert.deepEqual(args.slice(0, 2), ["tether-mcp-bridge.js", "--connection"]);
      // As the bridge process reads its flags: the connection file, then the server's name.
      const { endpoint, token } = JSON.parse(readFileSync(args[args.indexOf("--connection") + 1]!, "utf8")) as { endpoint: string; token: string };
      assert.equal(endpoint, bridge.address);
      const reply = await throughBridge({ endpoint, token, server: args[args.indexOf("--server") + 1]! }, { method: "tools/list" });
      listed[entry.name] = (reply["result"] as { tools: { name: string }[] }).tools.map((t) => t.name);
    }
    assert.deepEqual(listed, { ide: ["getDiagnostics"], vscode: LANGUAGE_TOOLS });
  } finally {
    await bridge.close();
  }
});

/** One MCP request through a bridge relay, as an agent's bridge process sends it. */
async function throughBridge(target: { endpoint: string; token: string; server: string }, message: object): Promise<Record<string, unknown>> {
  const input = new PassThrough();
  const output = new PassThrough();
  const done = relay({ ...target, input, output, log: () => undefined });
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

test("getDiagnostics answers in the official shape: file URIs with 0-based ranges and severity names", async () => {
  const asked: string[] = [];
  const server = new IdeToolsServer(recordingPort(asked), workspaceOnly);
  const { text, isError } = await call(server, "getDiagnostics", { uri: "file:///w/a.ts" });
  assert.equal(isError, false);
  assert.deepEqual(asked, ["diagnostics /w/a.ts"]);
  const files = JSON.parse(text);
  assert.equal(files[0].uri, "file:///w/a.ts");
  assert.equal(files[0].diagnostics[0].severity, "Error");
  assert.deepEqual(files[0].diagnostics[0].range.start, { line: 1, character: 6 });
  await call(server, "getDiagnostics", {});
  assert.deepEqual(asked.at(-1), "diagnostics *");
});

test("the position tools take 1-based places and answer path:line:column", async () => {
  const asked: string[] = [];
  const server = new IdeToolsServer(recordingPort(asked), workspaceOnly);
  assert.equal((await call(server, "getDefinition", { filePath: "/w/a.ts", line: 2, character: 19 })).text, "/w/types.ts:1:17");
  assert.deepEqual(asked, ["definition /w/a.ts:2:19"]);
  assert.match((await call(server, "findReferences", { filePath: "/w/a.ts", line: 2, character: 19 })).text, /No references found/);
  assert.equal((await call(server, "getHover", { filePath: "/w/a.ts", line: 2, character: 19 })).text, "function greet(name: string): string");
  assert.match((await call(server, "getDocumentSymbols", { filePath: "/w/types.ts" })).text, /^Function greet — \/w\/types\.ts:1:17/);
  const bad = await call(server, "getDefinition", { filePath: "/w/a.ts", line: 0, character: 1 });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /line must be a whole number of at least 1/);
});

test("a path outside the workspace is refused before the editor is asked", async () => {
  const asked: string[] = [];
  const server = new IdeToolsServer(recordingPort(asked), workspaceOnly);
  for (const [name, args] of [
    ["getDiagnostics", { uri: "file:///etc/passwd" }],
    ["getDefinition", { filePath: "/etc/passwd", line: 1, character: 1 }],
    ["openFile", { filePath: "/etc/passwd", startLine: 1 }],
  ] as const) {
    const result = await call(server, name, args);
    assert.equal(result.isError, true, name);
    assert.match(result.text, /outside the workspace/);
  }
  assert.deepEqual(asked, []);
});

test("file URIs and paths convert both ways, escapes included", () => {
  assert.equal(pathOfUri("file:///w/a%20b.ts"), "/w/a b.ts");
  assert.equal(pathOfUri("/w/a.ts"), "/w/a.ts");
  assert.equal(pathOfUri("file:///C:/w/a.ts"), "C:/w/a.ts");
  assert.equal(fileUri("/w/a b.ts"), "file:///w/a%20b.ts");
  assert.equal(fileUri("C:\\w\\a.ts"), "file:///C:/w/a.ts");
});

test("the containment is the file tools': mirror paths map onto the root, .. and symlinks out are refused", async () => {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tether-ide-")));
  try {
    const root = path.join(dir, "w");
    mkdirSync(path.join(root, "src"), { recursive: true });
    writeFileSync(path.join(root, "src/a.ts"), "");
    symlinkSync("/etc", path.join(root, "out"));
    const host = { realPath: async (p: string) => realpathSync(p) };
    const resolve = containedPaths(host, root, "/mirror/w");
    assert.equal(await resolve("src/a.ts"), path.join(root, "src/a.ts"));
    assert.equal(await resolve("/mirror/w/src/a.ts"), path.join(root, "src/a.ts"));
    await assert.rejects(resolve(path.join(root, "../x.ts")), /outside/);
    await assert.rejects(resolve(path.join(root, "out/passwd")), /symbolic link/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
