// IDE tools, network, Workspace Trust and the first run, in ONE code-server whose workspace is
// untrusted (Workspace Trust on, no startup prompt), with the real CLI against the fake Messages API
// served over HTTPS with a CA made here and reached only through a CONNECT proxy on 127.0.0.1:
// - first run: `tether.claudePath` names no file; the official extension's layout (made in the
//   extensions folder) is offered and taken; the CLI is not logged in (a fresh HOME, no key: its
//   `auth status` says so), so the chat shows the ways to log in; an API key entered there (kept
//   in SecretStorage) and Retry start the session, and the key reaches the API;
// - getDiagnostics (server `ide`) returns the TypeScript language server's error, and
//   getDefinition (server `vscode`) the file and line the language server names, to the model
//   (the next request's body);
// - the proxy saw the CLI's CONNECT and the HTTPS API was trusted through the test CA;
// - the untrusted workspace refuses a Write and a Bash (nothing written), and the chat says why;
// - "Run the Agent on the Remote" writes remote.extensionKind and prompts for a reload.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { ARTIFACTS, CLAUDE, launchVsCode, openTether, runCommand, sendPrompt, shot, waitFor } from "./harness.mjs";

const API_HOST = "fake-api.test";
const API_KEY = "sk-test-entered-in-the-chat";
const APP = 'import { greet } from "./types";\nconst n: number = greet("x");\nexport { n };\n';
const TYPES = 'export function greet(name: string): string {\n  return "hi " + name;\n}\n';

let api;
let proxy;
let vs;
let certDir;
const connects = [];

const bodies = () => api.requests.filter((r) => r.path === "/v1/messages").map((r) => JSON.stringify(r.body));

/** A CA and a server certificate for API_HOST signed by it (openssl; removed after the run). */
function makeCertificates(dir) {
  const run = (...args) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe", timeout: 30_000 });
  run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Tether Test CA");
  run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", `/CN=${API_HOST}`);
  fs.writeFileSync(path.join(dir, "ext.cnf"), `subjectAltName=DNS:${API_HOST}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf");
  return { key: fs.readFileSync(path.join(dir, "server.key")), cert: fs.readFileSync(path.join(dir, "server.pem")), ca: path.join(dir, "ca.pem") };
}

/** A CONNECT proxy that sends every tunnel to 127.0.0.1 (API_HOST resolves nowhere else). */
async function startProxy() {
  const server = http.createServer((_req, res) => {
    res.writeHead(405);
    res.end();
  });
  server.on("connect", (req, socket, head) => {
    connects.push(req.url);
    const port = Number(req.url.split(":").pop());
    const upstream = net.connect(port, "127.0.0.1", () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

before(async () => {
  certDir = fs.mkdtempSync(path.join(os.tmpdir(), "tether-e2e-ca-"));
  const tls = makeCertificates(certDir);
  let workspace = "";
  const ws = (rel) => path.join(workspace, rel);
  api = await startFakeApi(
    [
      { when: { lastUserText: /LOGIN check/ }, text: "Logged in and answering." },
      { when: { lastUserText: /IDE check/ }, toolUse: () => ({ name: "mcp__ide__getDiagnostics", input: { uri: `file://${ws("src/app.ts")}` } }) },
      { when: { lastToolResult: /not assignable to type 'number'/ }, text: "The file has a type error." },
      // Claude Code 2.1.330 offers the model only getDiagnostics of a server named `ide`, so the
      // language tools are served as `vscode`: `greet` in app.ts line 2, column 20.
      { when: { lastUserText: /DEFINITION check/ }, toolUse: () => ({ name: "mcp__vscode__getDefinition", input: { filePath: ws("src/app.ts"), line: 2, character: 20 } }) },
      { when: { lastToolResult: /types\.ts:1:17/ }, text: "greet is defined in src/types.ts, line 1." },
      { when: { lastToolResult: /No definition found|No such tool|Unknown tool/ }, text: "The definition was not found." },
      {
        when: { lastUserText: /TRUST write/ },
        // Getters: the workspace's path is known once VS Code runs.
        toolUses: [
          {
            name: "mcp__tether__Write",
            get input() {
              return { file_path: ws("blocked.txt"), content: "should not exist\n" };
            },
          },
          { name: "mcp__tether__Bash", input: { command: "touch ran.txt" } },
        ],
      },
      { when: { lastToolResult: /not trusted/ }, text: "The workspace is not trusted, so nothing was changed." },
    ],
    { tls: { key: tls.key, cert: tls.cert } },
  );
  proxy = await startProxy();
  vs = await launchVsCode({
    name: "idetools",
    workspaceTrust: true,
    files: { "src/app.ts": APP, "src/types.ts": TYPES, "tsconfig.json": '{"compilerOptions":{"strict":true,"module":"commonjs","target":"es2020"}}\n' },
    settings: {
      "security.workspace.trust.enabled": true,
      "security.workspace.trust.startupPrompt": "never",
      "security.workspace.trust.emptyWindow": false,
      "http.proxy": `http://127.0.0.1:${proxy.address().port}`,
      "tether.caCertificates": tls.ca,
      "tether.claudePath": path.join(certDir, "no-such-claude"),
      "tether.defaultMode": "bypassPermissions",
      "tether.environment": {
        // No ANTHROPIC_API_KEY: the first run asks for one (API_KEY below).
        ANTHROPIC_BASE_URL: `https://${API_HOST}:${api.port}`,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      },
    },
  });
  workspace = vs.workspace;
  // The official extension's layout, as its VSIX installs it.
  const bundled = path.join(vs.extensionsDir, "anthropic.claude-code-2.1.330-linux-x64", "resources", "native-binary");
  fs.mkdirSync(bundled, { recursive: true });
  fs.symlinkSync(CLAUDE, path.join(bundled, "claude"));
});

after(async () => {
  await vs?.close();
  await api?.close();
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve()));
  fs.rmSync(certDir, { recursive: true, force: true });
});

const toast = (name) => vs.page.locator(".notifications-toasts .notification-toast").filter({ hasText: name });

const loginRow = () => vs.webview.getByRole("group", { name: "Log in" });

test("first run: with claude missing, the Claude Code extension's bundled binary is offered and used", { timeout: 120_000 }, async () => {
  await openTether(vs);
  const offer = toast("does not exist");
  await offer.waitFor({ timeout: 60_000 });
  assert.match(await offer.innerText(), /anthropic\.claude-code-2\.1\.330-linux-x64/);
  await shot(vs, "idetools-first-run");
  await offer.getByRole("button", { name: "Use the Bundled One" }).click();
  // The bundled CLI is checked next: it is not logged in, which the chat says before any prompt.
  await loginRow().filter({ hasText: "Claude Code is not logged in." }).waitFor({ timeout: 60_000 });
  assert.doesNotMatch(vs.tetherLog(), /first run: Claude Code: .*does not exist[^]*first run: Claude Code: .*does not exist/, "the missing binary is asked about once");
});

test("first run: not logged in, the chat shows how to log in; an API key entered there and Retry answer the message", { timeout: 150_000 }, async () => {
  await sendPrompt(vs, "LOGIN check");
  const card = vs.webview.locator(".error-card.error-notLoggedIn");
  await card.waitFor({ timeout: 60_000 });
  assert.match(await card.innerText(), /Not logged in/);
  assert.equal(await loginRow().count(), 1, "the login buttons are shown once");
  assert.match(await loginRow().innerText(), /claude auth login/);
  await shot(vs, "idetools-logged-out");
  // Nothing reached the API without a login.
  assert.equal(bodies().length, 0);
  await loginRow().getByRole("button", { name: "Enter an API Key" }).click();
  const input = vs.page.locator(".quick-input-widget input");
  await input.waitFor({ timeout: 20_000 });
  await input.fill(API_KEY);
  await vs.page.keyboard.press("Enter");
  // The key is stored and the agent starts ahead; Retry sends the message again.
  await waitFor(async () => /spawning .*native-binary\/claude/.test(vs.tetherLog()), 60_000, "the session to start with the bundled claude");
  await card.getByRole("button", { name: "Retry" }).click();
  await vs.webview.getByText("Logged in and answering.").waitFor({ timeout: 90_000 });
  const asked = api.requests.filter((r) => r.path === "/v1/messages");
  assert.ok(asked.length > 0 && asked.every((r) => r.headers["x-api-key"] === API_KEY), "the key entered reached the API");
  await shot(vs, "idetools-logged-in");
});

test("IDE tools: getDiagnostics returns the TypeScript error from the language server to the model", { timeout: 120_000 }, async () => {
  // The user has the file open, as when asking about it: its language server is running (its
  // first start on a loaded machine can outlast getDiagnostics' wait).
  await vs.page.keyboard.press("Control+P");
  await vs.page.locator(".quick-input-widget input").fill("app.ts");
  await vs.page.locator(".quick-input-widget .monaco-list-row", { hasText: "app.ts" }).first().waitFor({ timeout: 20_000 });
  await vs.page.keyboard.press("Enter");
  await vs.page.locator("#status\\.problems", { hasText: "1" }).first().waitFor({ timeout: 60_000 });
  await sendPrompt(vs, "IDE check");
  await vs.webview.getByText("The file has a type error.").waitFor({ timeout: 90_000 });
  const sent = bodies().join("\n");
  assert.match(sent, /Type 'string' is not assignable to type 'number'/);
  assert.match(sent, /severity\W{1,8}Error/);
  // The tools reach the CLI through the bridge: the model is offered them by their official names.
  assert.match(sent, /mcp__ide__getDiagnostics/);
  await shot(vs, "idetools-ide-tools");
});

test("IDE tools: getDefinition (the vscode server) gives the model the file and line the TypeScript language server names", { timeout: 120_000 }, async () => {
  await sendPrompt(vs, "DEFINITION check");
  const answer = vs.webview.getByText(/greet is defined in src\/types\.ts, line 1\.|The definition was not found\./);
  await answer.waitFor({ timeout: 90_000 });
  const requests = bodies();
  const last = requests.at(-1);
  // The model was offered the language tools by the server name the CLI passes through.
  assert.match(last, /mcp__vscode__getDefinition/);
  assert.match(last, /mcp__vscode__findReferences/);
  // The tool result that reached the API: `greet` is declared in types.ts at line 1, column 17.
  const result = JSON.stringify(path.join(vs.workspace, "src/types.ts") + ":1:17").slice(1, -1);
  assert.ok(last.includes(result), `the definition's place in the model's request; got: ${last.slice(-600)}`);
  assert.equal(await answer.innerText(), "greet is defined in src/types.ts, line 1.");
  await shot(vs, "idetools-definition");
});

test("network: the CLI reached the HTTPS fake API through the proxy, trusting the test CA", () => {
  assert.ok(connects.some((target) => target === `${API_HOST}:${api.port}`), `CONNECTs seen: ${connects.join(", ")}`);
  assert.ok(api.requests.some((r) => r.path === "/v1/messages"), "the API answered over TLS");
});

test("Workspace Trust: an untrusted workspace refuses the agent's write and command, and the chat says why", { timeout: 120_000 }, async () => {
  await vs.webview.getByText(/This workspace is not trusted/).first().waitFor({ timeout: 30_000 });
  await sendPrompt(vs, "TRUST write");
  await vs.webview.getByText("The workspace is not trusted, so nothing was changed.").waitFor({ timeout: 90_000 });
  assert.equal(fs.existsSync(path.join(vs.workspace, "blocked.txt")), false);
  assert.equal(fs.existsSync(path.join(vs.workspace, "ran.txt")), false);
  const sent = bodies().join("\n");
  assert.match(sent, /not trusted, so Tether cannot write/);
  assert.match(sent, /not trusted, so Tether cannot run/);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await shot(vs, "idetools-untrusted");
});

test("Run the Agent on the Remote writes remote.extensionKind and prompts for a reload", { timeout: 60_000 }, async () => {
  await runCommand(vs, "Tether: Run the Agent on the Remote (Workspace Side)");
  await toast("after a reload").getByRole("button", { name: "Reload Window" }).waitFor({ timeout: 30_000 });
  const settings = fs.readFileSync(path.join(vs.userData, "User", "settings.json"), "utf8");
  assert.match(settings, /"remote\.extensionKind":\s*\{\s*"tether\.tether":\s*\[\s*"workspace"\s*\]/);
});
