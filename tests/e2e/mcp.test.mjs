// The project's MCP servers (.mcp.json) with the real CLI on the emulated remote (`tetherfake:`):
// before a server's first start the user is asked (Claude Code's three answers) and the answer is
// kept in the workspace's .claude/settings.local.json; the approved stdio server starts on the
// remote through Tether Remote and the model calls its tool through Tether's bridge; the server
// records the facts of its process, which prove it ran on the remote side and under no process
// of the agent's on the laptop. A server the settings disable is listed as off with the reason,
// and a broken one is a notice with its stderr; the header's Project setup panel shows both.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { ACP_AGENT, ARTIFACTS, launchRemoteVsCode, openTether, sendPrompt, shot, showPickers, waitFor } from "./harness.mjs";
import { commandLine, descendants } from "./procs.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE = fs.readFileSync(path.join(HERE, "../fixtures/mcp/facts-server.mjs"), "utf8");

let api;
let vs;
let remote;

const server = (...args) => ({ command: process.execPath, args: ["tools/facts-server.mjs", ...args] });

before(async () => {
  api = await startFakeApi([
    { when: { lastUserText: /MCP facts/, hasTool: "mcp__facts__where_am_i" }, toolUse: { name: "mcp__facts__where_am_i", input: {} } },
    { when: { lastToolResult: /FACTS/ }, text: "The facts server answered from the workspace." },
    { when: { lastUserText: /ACP asks for facts/, hasTool: "mcp__facts__where_am_i" }, toolUse: { name: "mcp__facts__where_am_i", input: {} } },
    { when: { lastToolResult: /FACTS/ }, text: "The ACP agent got the facts from the workspace." },
    { text: "OK.", repeat: true },
  ]);
  vs = await launchRemoteVsCode({
    name: "mcp",
    api,
    remoteFiles: {
      "tools/facts-server.mjs": FIXTURE,
      ".mcp.json": JSON.stringify({ mcpServers: { facts: server(), broken: server("--crash", "cannot open db.sqlite"), skipped: server() } }, null, 2),
      ".claude/settings.json": JSON.stringify({ disabledMcpjsonServers: ["skipped"], statusLine: { type: "command", command: "echo hi" } }),
      ".claude/settings.local.json": JSON.stringify({ enabledMcpjsonServers: ["broken"] }),
    },
    withAcpAgent: true,
    settings: { "tether.defaultMode": "default" },
  });
  remote = vs.remote;
  await openTether(vs);
});

after(async () => {
  await vs?.close();
  await api?.close();
});

test("the user approves the project's server; the model calls its tool, which runs on the remote side", { timeout: 120_000 }, async () => {
  // The session starts when the chat shows: the server no setting decides is asked about first.
  const toast = vs.page.locator(".notification-toast", { hasText: 'new MCP server found in .mcp.json: "facts"' });
  await toast.waitFor({ timeout: 60_000 });
  await shot(vs, "60-mcp-approval");
  await toast.getByRole("button", { name: "Use this MCP server", exact: true }).click();
  await waitFor(async () => /enabledMcpjsonServers[\s\S]*facts/.test(fs.readFileSync(path.join(remote, ".claude/settings.local.json"), "utf8")), 30_000, "the choice kept");
  await sendPrompt(vs, "MCP facts please");
  // MCP tools ask (as in Claude Code): allow it.
  const allow = vs.webview.getByRole("button", { name: "Allow", exact: true });
  await allow.waitFor({ timeout: 60_000 });
  await allow.click();
  await vs.webview.getByText("The facts server answered from the workspace.").waitFor({ timeout: 60_000 });
  const facts = JSON.parse(fs.readFileSync(path.join(remote, "mcp-facts.json"), "utf8"));
  assert.equal(facts.cwd, remote, "the server ran in the remote folder");
  // It was started by Tether Remote (the helper's long poll on it is running) in the extension
  // host, not by the agent: no process of the CLI's tree is it or its parent.
  const state = await vs.control("_tetherfake.state");
  assert.equal(facts.ppid, state.extensionHostPid);
  assert.ok((state.link.running["_tether.remote.processRead"] ?? 0) >= 1, JSON.stringify(state.link.running));
  // One CLI: the answer Tether kept in .claude/settings.local.json is part of what the session
  // started with, so the watcher's notice of that write restarts nothing.
  const logged = [...vs.tetherLog().matchAll(/\bclaude pid (\d+)/g)].map((m) => Number(m[1]));
  assert.equal(logged.length, 1, `one CLI started (${logged.join(", ")})`);
  const cli = logged[0];
  assert.ok(fs.existsSync(`/proc/${cli}`), "the CLI runs");
  const agentTree = descendants(cli);
  assert.ok(agentTree.length > 0, "the CLI runs the bridge");
  assert.ok(!agentTree.includes(facts.pid), "the server is not under the agent");
  assert.ok(!facts.parents.some((p) => p.pid === cli), "no parent of the server is the agent");
  // The bridge's token is on no command line (Claude Code takes its MCP servers on its own).
  const cliArgs = fs.readFileSync(`/proc/${cli}/cmdline`, "utf8");
  assert.ok(cliArgs.includes("--mcp-config=") && cliArgs.includes("--connection"), "the servers reach the CLI as bridge entries");
  assert.ok(!/TETHER_BRIDGE_TOKEN|"token"/.test(cliArgs), "no token on the CLI's command line");
  // What runs under the agent is Tether's bridge, no project command. A short-lived child of the
  // CLI may be gone by the time its command line is read (commandLine gives "" then).
  for (const pid of agentTree) {
    const cmd = commandLine(pid);
    assert.ok(!cmd.includes("facts-server"), `a project process under the agent: ${cmd}`);
  }
  await shot(vs, "61-mcp-tool-called");
});

test("a broken server is a notice with its stderr; the Project setup panel lists what is off and why", { timeout: 60_000 }, async () => {
  await vs.webview.getByText(/"broken" stopped: it exited with code 3\. Its last output: cannot open db\.sqlite/).first().waitFor({ timeout: 30_000 });
  await vs.webview.getByRole("button", { name: /^Project setup/ }).click();
  const panel = vs.webview.getByRole("region", { name: "Project setup" });
  await panel.waitFor({ timeout: 10_000 });
  await panel.locator(".project-servers li", { hasText: "skipped" }).waitFor();
  await panel.getByText(/denied \(disabledMcpjsonServers in \.claude\/settings\.json\)/).first().waitFor();
  await panel.getByText(/statusLine \(\.claude\/settings\.json\)/).waitFor();
  await panel.locator(".project-servers li", { hasText: "facts" }).getByText("approved by you; runs on the workspace").waitFor();
  // Each server once, with its reason; the rest of what is off below.
  assert.equal(await panel.locator("li", { hasText: "skipped" }).count(), 1);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await vs.page.locator(".part.sidebar").screenshot({ path: path.join(ARTIFACTS, "62-mcp-project-setup.png") });
  await panel.getByRole("button", { name: "Close" }).click();
  await panel.waitFor({ state: "detached", timeout: 5000 });
});

test("claude-agent-acp gets the project's server in session/new and calls it; the server runs on the remote, not under the agent", { timeout: 120_000 }, async () => {
  assert.ok(fs.existsSync(ACP_AGENT), `claude-agent-acp is not installed at ${ACP_AGENT} (./build.sh test installs it)`);
  const before = JSON.parse(fs.readFileSync(path.join(remote, "mcp-facts.json"), "utf8"));
  await showPickers(vs.webview);
  await vs.webview.getByRole("button", { name: /^Agent:/ }).click();
  await vs.webview.getByRole("option", { name: /Claude Agent/ }).click();
  const box = vs.webview.getByRole("textbox", { name: "Message to Claude Agent" });
  await box.waitFor({ timeout: 10_000 });
  // Approved now (the choice was kept): no question this time. A first turn starts the agent; then
  // its own mode: its initial `auto` sends tool calls to a classifier the fake API cannot be;
  // Manual asks through Tether.
  await box.fill("ACP hello");
  await vs.webview.getByRole("button", { name: "Send" }).click();
  // The agent's options come with its first turn; where the header folds, they are in its menu.
  await waitFor(async () => {
    await showPickers(vs.webview);
    return (await vs.webview.locator(".agent-option-picker").count()) > 0;
  }, 60_000, "the agent's options");
  await vs.webview.locator(".agent-option-picker").getByRole("button", { name: /^Mode:/ }).click({ timeout: 60_000 });
  await vs.webview.getByRole("option", { name: /^Manual/ }).click();
  await showPickers(vs.webview);
  await vs.webview.locator(".agent-option-picker").getByRole("button", { name: /^Mode: Manual/ }).waitFor({ timeout: 10_000 });
  await box.fill("ACP asks for facts");
  await vs.webview.getByRole("button", { name: "Send" }).click();
  // claude-agent-acp's own answers: Yes / Yes, and don't ask again / No.
  const allow = vs.webview.getByRole("button", { name: "Yes", exact: true }).first();
  await allow.waitFor({ timeout: 60_000 }).catch(async (error) => {
    await shot(vs, "64-mcp-acp-failed");
    const last = api.requests.filter((r) => r.path === "/v1/messages").map((r) => JSON.stringify(r.body?.messages?.at(-1)).slice(0, 600));
    throw new Error(`${error.message}; last messages: ${last.join("\n")}`);
  });
  await allow.click();
  await vs.webview.getByText("The ACP agent got the facts from the workspace.").waitFor({ timeout: 60_000 });
  const facts = JSON.parse(fs.readFileSync(path.join(remote, "mcp-facts.json"), "utf8"));
  assert.notEqual(facts.pid, before.pid, "a server of the new session answered");
  assert.equal(facts.cwd, remote);
  const state = await vs.control("_tetherfake.state");
  assert.equal(facts.ppid, state.extensionHostPid, "started by Tether Remote in the extension host");
  const agent = Number([...vs.tetherLog().matchAll(/\bnode pid (\d+)/g)].at(-1)?.[1]);
  assert.ok(agent > 0, "the agent's pid is logged");
  const tree = descendants(agent);
  assert.ok(!tree.includes(facts.pid) && !facts.parents.some((p) => p.pid === agent), "the server is not under the agent");
  for (const pid of tree) {
    let cmd = "";
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue; // gone
    }
    assert.ok(!cmd.includes("facts-server"), `a project process under claude-agent-acp: ${cmd}`);
  }
  await shot(vs, "64-mcp-acp");
});
