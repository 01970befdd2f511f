#!/usr/bin/env node
// Drive the real Claude Code CLI against the fake Messages API with Tether's launch line and
// initialize request (crate/tests/fixtures/claude-launch.json, checked against the Rust builder by
// `cargo test`), answer its control requests the way tether-core's Session does, and record the
// transcript. Plain Node, no dependencies; bounded in time; the CLI is killed by PID if it hangs.
//
//   node tests/probe/probe-claude.mjs [--cli PATH] [--out transcript.jsonl] [--save]
//        [--scenarios read,controls,overloaded,guard,builtin,deny,explore,plan,interrupt]
//        [--variant restricted|no-restricted|restricted-project|sources-project|sources-user-project]
//        [--requests-out requests.jsonl]      (every request the fake API received)
//        [--with-nonessential-traffic]   (leave CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC unset)
//
// --save writes crate/tests/fixtures/claude-transcript-probe.jsonl. A summary of the checked facts
// is printed as JSON on stdout; the exit code is 0 only when every check held.

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
const DEFAULT_CLI =
  "/root/.cache/tether/claude-2.1.330/node_modules/@anthropic-ai/claude-code-linux-x64/claude";
const READ_PATH = "/remote/project/hello.txt";
const FILE_TEXT = "     1\thello from the remote workspace\n";
const ALL_SCENARIOS = ["read", "controls", "overloaded", "guard", "builtin", "deny", "explore", "plan", "interrupt"];
const TIME_LIMIT_MS = 150_000;

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const cli = opt("--cli", process.env.CLAUDE_BIN ?? DEFAULT_CLI);
const scenarios = opt("--scenarios", ALL_SCENARIOS.join(",")).split(",");
const variant = opt("--variant", "restricted");
const outPath = argv.includes("--save")
  ? path.join(repo, "crate/tests/fixtures/claude-transcript-probe.jsonl")
  : opt("--out", path.join(os.tmpdir(), `claude-probe-${process.pid}.jsonl`));

const launch = JSON.parse(fs.readFileSync(path.join(repo, "crate/tests/fixtures/claude-launch.json"), "utf8"));
const manifest = launch.initialize.request.sdkMcpServerManifests.tether;
const allowedBuiltins = launch.args.find((a) => a.startsWith("--tools=")).slice("--tools=".length).split(",");

// The fake model's script: each scenario starts from a prompt "SCENARIO <name>".
const script = [
  { when: { lastUserText: "SCENARIO read" }, text: "I will read the file.", toolUse: { name: "mcp__tether__Read", input: { file_path: READ_PATH } } },
  { when: { lastToolResult: "hello from the remote", hasTool: "Agent" }, text: "The file says hello." },
  { when: { lastUserText: "SCENARIO overloaded" }, error: { status: 529 } },
  { when: { lastUserText: "SCENARIO overloaded" }, text: "Recovered after a retry." },
  {
    when: { lastUserText: "SCENARIO guard" },
    toolUse: {
      name: "Agent",
      input: { description: "Isolated edit", prompt: "SUBTASK isolated", subagent_type: "general-purpose", isolation: "worktree", run_in_background: false },
    },
  },
  { when: { lastToolResult: "isolation" }, text: "The guard refused isolation." },
  { when: { lastUserText: "SCENARIO builtin" }, toolUse: { name: "Bash", input: { command: "touch /tmp/tether-probe-local-bash", description: "Touch a file" } } },
  { when: { lastToolResult: "Bash" }, text: "Bash is not available here." },
  { when: { lastUserText: "SCENARIO deny" }, toolUse: { name: "mcp__tether__Read", input: { file_path: READ_PATH } } },
  { when: { lastToolResult: "denied in the probe" }, text: "Reading was denied." },
  {
    when: { lastUserText: "SCENARIO explore" },
    toolUse: { name: "Agent", input: { description: "Find hello", prompt: "SUBTASK explore: read hello.txt", subagent_type: "Explore", run_in_background: false } },
  },
  { when: { lastUserText: "SUBTASK explore" }, toolUse: { name: "mcp__tether__Read", input: { file_path: READ_PATH } } },
  { when: { lastToolResult: "hello from the remote", noTool: "Agent" }, text: "SUBDONE: hello found." },
  { when: { lastToolResult: "SUBDONE" }, text: "The explorer found it." },
  { when: { lastUserText: "SCENARIO plan" }, text: "Planning only." },
  { when: { lastUserText: "SCENARIO interrupt" }, toolUse: { name: "mcp__tether__Read", input: { file_path: READ_PATH } } },
];

function variantArgs(args) {
  switch (variant) {
    case "restricted":
      return args;
    case "no-restricted":
      return args.filter((a) => a !== "--restricted");
    case "sources-project":
      return args.filter((a) => a !== "--restricted").map((a) => (a === "--setting-sources=" ? "--setting-sources=project" : a));
    case "restricted-project":
      return args.map((a) => (a === "--setting-sources=" ? "--setting-sources=project" : a));
    case "sources-user-project":
      return args.filter((a) => a !== "--restricted").map((a) => (a === "--setting-sources=" ? "--setting-sources=user,project" : a));
    default:
      throw new Error(`unknown variant ${variant}`);
  }
}

/** The guard hook, as tether-core's claude::guard decides it. */
function guard(input) {
  const tool = input.tool_name ?? "";
  const proceed = { continue: true };
  const deny = (reason) => ({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } });
  if (tool.startsWith("mcp__tether__")) {
    const name = tool.slice("mcp__tether__".length);
    const agent = input.agent_type;
    if ((agent === "Explore" || agent === "Plan") && !["Read", "Glob", "Grep", "LS"].includes(name)) {
      return deny(`Tether policy: the ${agent} agent is read-only; ${name} is not available to it.`);
    }
    return proceed;
  }
  const isAgent = tool === "Agent" || tool === "Task";
  const allowed = allowedBuiltins.some((a) => a === tool || (isAgent && (a === "Agent" || a === "Task")));
  if (!allowed) {
    return deny(`Tether policy: ${tool} would run on this machine, not in the workspace. Use the mcp__tether__* tools instead.`);
  }
  if (isAgent && input.tool_input?.isolation != null) {
    return deny(
      "Tether policy: isolation is not available (the files live in the remote workspace, not in a local git checkout). Call Agent again without isolation.",
    );
  }
  return proceed;
}

async function main() {
  const started = Date.now();
  const transcript = [];
  const record = (dir, line) => transcript.push({ dir, t: Date.now() - started, line });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "tether-probe-home-"));
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "tether-probe-cwd-"));
  fs.writeFileSync(path.join(cwd, "CLAUDE.md"), "Project memory: TETHER-PROJECT-CLAUDE-MD-MARKER\n");
  fs.mkdirSync(path.join(home, ".claude"), { recursive: true });
  fs.writeFileSync(path.join(home, ".claude", "CLAUDE.md"), "User memory: TETHER-USER-CLAUDE-MD-MARKER\n");

  const api = await startFakeApi(script);
  const args = variantArgs(launch.args);
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    ...launch.env,
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: "dummy",
    ...(argv.includes("--with-nonessential-traffic") ? {} : { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" }),
  };
  record("##", `spawn claude ${args.join(" ")}`);
  const child = spawn(cli, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  const killTimer = setTimeout(() => {
    record("##", "time limit reached: killing the CLI");
    process.kill(child.pid, "SIGKILL");
  }, TIME_LIMIT_MS);
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));

  const write = (obj) => {
    const line = typeof obj === "string" ? obj : JSON.stringify(obj);
    record(">>", line);
    child.stdin.write(line + "\n");
  };
  const respond = (request_id, response) => write({ type: "control_response", response: { subtype: "success", request_id, response } });
  const respondError = (request_id, error) => write({ type: "control_response", response: { subtype: "error", request_id, error } });

  // Waiters: our own control requests by id, and the next `result`.
  const ownRequests = new Map();
  let resultWaiter = null;
  let permissionHandler = null;
  let cancelWaiter = null;
  const seen = { hooks: [], permissions: [], mcpCalls: [], cancels: [], inits: [], retries: [], results: [] };
  // Numbered as tether-core's Session numbers its own requests, so the Rust replay test can
  // compare line for line; requests a Session never makes use ids outside that sequence.
  let nextId = 0;
  const request = (body, id = `tether-${++nextId}`) => {
    write({ type: "control_request", request_id: id, request: body });
    return new Promise((resolve) => ownRequests.set(id, resolve));
  };
  const nextResult = () => new Promise((resolve) => (resultWaiter = resolve));
  const prompt = (text) => {
    write({ type: "user", session_id: "", message: { role: "user", content: [{ type: "text", text }] }, parent_tool_use_id: null });
    return nextResult();
  };

  let buffer = "";
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      record("<<", line);
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      onMessage(msg);
    }
  });

  function onMessage(msg) {
    if (msg.type === "control_response") {
      const id = msg.response?.request_id;
      const waiter = ownRequests.get(id);
      if (waiter) {
        ownRequests.delete(id);
        waiter(msg.response);
      }
    } else if (msg.type === "control_cancel_request") {
      seen.cancels.push(msg.request_id);
      cancelWaiter?.(msg.request_id);
    } else if (msg.type === "control_request") {
      const req = msg.request ?? {};
      if (req.subtype === "mcp_message") {
        const m = req.message ?? {};
        seen.mcpCalls.push(m.method);
        if (m.id === undefined || m.id === null || !m.method) {
          respond(msg.request_id, { mcp_response: { jsonrpc: "2.0", result: {}, id: 0 } });
        } else if (m.method === "initialize") {
          respond(msg.request_id, { mcp_response: { jsonrpc: "2.0", id: m.id, result: manifest.initializeResult } });
        } else if (m.method === "tools/list") {
          respond(msg.request_id, { mcp_response: { jsonrpc: "2.0", id: m.id, result: manifest.toolsListResult } });
        } else if (m.method === "tools/call" && m.params?.name === "Read") {
          respond(msg.request_id, {
            mcp_response: {
              jsonrpc: "2.0",
              id: m.id,
              result: {
                content: [{ type: "text", text: FILE_TEXT }],
                _meta: { "tether/toolResult": { type: "text", file: { filePath: m.params.arguments?.file_path, numLines: 1 } } },
              },
            },
          });
        } else {
          respond(msg.request_id, { mcp_response: { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } } });
        }
      } else if (req.subtype === "hook_callback") {
        seen.hooks.push({ event: req.input?.hook_event_name, tool: req.input?.tool_name, agent_type: req.input?.agent_type });
        if (req.callback_id !== "tether-guard") respondError(msg.request_id, `Unknown hook callback: ${req.callback_id}`);
        else respond(msg.request_id, req.input?.hook_event_name === "PreToolUse" ? guard(req.input) : { continue: true });
      } else if (req.subtype === "can_use_tool") {
        seen.permissions.push({ tool: req.tool_name, agent_id: req.agent_id ?? null, suggestions: req.permission_suggestions });
        (permissionHandler ?? allow)(msg.request_id, req);
      } else if (req.subtype === "elicitation") {
        respond(msg.request_id, { action: "decline" });
      } else {
        respondError(msg.request_id, `Unsupported control request subtype: ${req.subtype}`);
      }
    } else if (msg.type === "system" && msg.subtype === "init") {
      seen.inits.push({ tools: msg.tools, mcp_servers: msg.mcp_servers, permissionMode: msg.permissionMode, agents: msg.agents });
    } else if (msg.type === "system" && msg.subtype === "api_retry") {
      seen.retries.push({ attempt: msg.attempt, error_status: msg.error_status, error: msg.error });
    } else if (msg.type === "result") {
      seen.results.push({ subtype: msg.subtype, is_error: msg.is_error, result: msg.result, terminal_reason: msg.terminal_reason });
      const w = resultWaiter;
      resultWaiter = null;
      w?.(msg);
    }
  }

  function allow(id, req) {
    respond(id, { behavior: "allow", updatedInput: req.input, toolUseID: req.tool_use_id });
  }

  const checks = {};
  const check = (name, ok, detail) => (checks[name] = { ok: !!ok, ...(detail === undefined ? {} : { detail }) });

  try {
    const init = await request(launch.initialize.request);
    check("initialize accepted", init.subtype === "success", init.subtype === "success" ? undefined : init);
    check("manifest parked", init.response?.sdk_mcp_manifests_parked?.tether === "parked", init.response?.sdk_mcp_manifests_parked);
    check("agents overridden", JSON.stringify(init.response?.agents ?? []).includes("Fast read-only search agent for locating code"));

    for (const name of scenarios) {
      record("##", `scenario ${name}`);
      if (name === "read") {
        const r = await prompt("SCENARIO read: please read hello.txt");
        check("read: result success", r.subtype === "success" && !r.is_error, r.result);
        check("read: tools/call reached the host", seen.mcpCalls.includes("tools/call"));
        check("read: can_use_tool for mcp__tether__Read", seen.permissions.some((p) => p.tool === "mcp__tether__Read"));
        check("read: guard hook fired", seen.hooks.some((h) => h.event === "PreToolUse" && h.tool === "mcp__tether__Read"));
        const tools = seen.inits.at(-1)?.tools ?? [];
        check("init: tools", true, tools);
        check("init: no local file/shell built-ins", !tools.some((t) => ["Read", "Write", "Edit", "Bash", "Glob", "Grep", "NotebookEdit", "Monitor", "EnterWorktree"].includes(t)));
      } else if (name === "controls") {
        const mode = await request({ subtype: "set_permission_mode", mode: "acceptEdits" });
        check("set_permission_mode", mode.subtype === "success", mode.response);
        const bypass = await request({ subtype: "set_permission_mode", mode: "bypassPermissions" });
        check("set_permission_mode bypassPermissions (informational)", true, bypass);
        await request({ subtype: "set_permission_mode", mode: "default" });
        const model = await request({ subtype: "set_model", model: "claude-sonnet-5-5" });
        check("set_model", model.subtype === "success", model.response);
        const status = await request({ subtype: "mcp_status" });
        check("mcp_status", status.subtype === "success", status.response?.mcpServers?.map((s) => ({ name: s.name, status: s.status })));
        const unknown = await request({ subtype: "no_such_subtype" }, "probe-unknown-1");
        check("unknown request refused", unknown.subtype === "error", unknown.error);
      } else if (name === "overloaded") {
        const r = await prompt("SCENARIO overloaded");
        check("overloaded: api_retry seen", seen.retries.length > 0, seen.retries);
        check("overloaded: recovered", r.subtype === "success" && !r.is_error, r.result);
      } else if (name === "guard") {
        const before = seen.hooks.length;
        const r = await prompt("SCENARIO guard");
        check("guard: hook saw Agent", seen.hooks.slice(before).some((h) => h.tool === "Agent"));
        check("guard: turn went on after the denial", r.subtype === "success", r.result);
      } else if (name === "builtin") {
        const before = seen.hooks.length;
        const r = await prompt("SCENARIO builtin");
        check("builtin: no hook for disallowed Bash", !seen.hooks.slice(before).some((h) => h.tool === "Bash"));
        check("builtin: no local side effect", !fs.existsSync("/tmp/tether-probe-local-bash"));
        check("builtin: turn went on", r.subtype === "success", r.result);
      } else if (name === "deny") {
        permissionHandler = (id, req) =>
          respond(id, { behavior: "deny", message: "Reading was denied in the probe", toolUseID: req.tool_use_id });
        const r = await prompt("SCENARIO deny");
        permissionHandler = null;
        check("deny: turn went on", r.subtype === "success", r.result);
      } else if (name === "explore") {
        const before = seen.permissions.length;
        const r = await prompt("SCENARIO explore");
        const sub = seen.permissions.slice(before).find((p) => p.agent_id);
        check("explore: subagent asked with agent_id", !!sub, seen.permissions.slice(before));
        check("explore: hook saw agent_type Explore", seen.hooks.some((h) => h.agent_type === "Explore"));
        check("explore: turn done", r.subtype === "success", r.result);
      } else if (name === "plan") {
        await request({ subtype: "set_permission_mode", mode: "plan" });
        const r = await prompt("SCENARIO plan");
        await request({ subtype: "set_permission_mode", mode: "default" });
        check("plan: turn done", r.subtype === "success", r.result);
        // Where plan mode tells the model to write its plan, and with which tool.
        const body = JSON.stringify(api.messageRequests().at(-1)?.body ?? {});
        const hint = body.match(/create your plan at ([^ ]+) using the ([A-Za-z_]+)/);
        check("plan: plan file instruction (informational)", true, hint ? { path: hint[1], tool: hint[2] } : body.match(/.{0,200}Plan File Info.{0,300}/)?.[0]);
      } else if (name === "interrupt") {
        let asked;
        const askedPromise = new Promise((resolve) => (permissionHandler = (id) => resolve((asked = id))));
        const cancelled = new Promise((resolve) => (cancelWaiter = resolve));
        const result = prompt("SCENARIO interrupt");
        await askedPromise;
        const ack = await request({ subtype: "interrupt" });
        const cancelledId = await cancelled;
        const r = await result;
        permissionHandler = null;
        check("interrupt: acknowledged", ack.subtype === "success", ack.response);
        check("interrupt: cancel names the open can_use_tool", cancelledId === asked);
        check("interrupt: result", r.subtype === "error_during_execution", { subtype: r.subtype, terminal_reason: r.terminal_reason });
      }
    }
  } catch (e) {
    check("probe ran", false, String(e?.stack ?? e));
  }

  record("##", "closing CLI stdin");
  child.stdin.end();
  const exit = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 10_000))]);
  if (!exit) process.kill(child.pid, "SIGKILL");
  clearTimeout(killTimer);
  record("##", `CLI exited ${JSON.stringify(exit)}`);

  const requests = api.messageRequests();
  const bodies = requests.map((r) => JSON.stringify(r.body));
  check("fake api: every request POST /v1/messages?beta=true", requests.every((r) => r.query === "?beta=true"));
  check("fake api: other paths", true, [...new Set(api.requests.map((r) => `${r.method} ${r.path}`))]);
  check("memory: project CLAUDE.md in requests (informational)", true, bodies.some((b) => b.includes("TETHER-PROJECT-CLAUDE-MD-MARKER")));
  check("memory: user CLAUDE.md in requests (informational)", true, bodies.some((b) => b.includes("TETHER-USER-CLAUDE-MD-MARKER")));
  check("append prompt reached the model", bodies.some((b) => b.includes("Remote workspace (Tether)")));
  const main = requests.find((r) => (r.body?.tools ?? []).some((t) => t.name === "Agent"));
  check("main request tools (informational)", true, main?.body?.tools?.map((t) => t.name));
  const sub = requests.find((r) => JSON.stringify(r.body?.messages ?? []).includes("SUBTASK explore"));
  if (scenarios.includes("explore")) {
    const names = sub?.body?.tools?.map((t) => t.name) ?? [];
    check("explore: subagent tools are Tether's read-only ones", names.length > 0 && names.every((n) => n.startsWith("mcp__tether__") || ["ToolSearch", "Skill", "ListAgents", "ReportFindings", "DeferredToolPlaceholder"].includes(n)), names);
  }
  check("version", true, JSON.parse(transcript.find((t) => t.dir === "<<" && t.line.includes('"claude_code_version"'))?.line ?? "{}").response?.response?.claude_code_version);

  const requestsOut = opt("--requests-out");
  if (requestsOut) fs.writeFileSync(requestsOut, api.requests.map((r) => JSON.stringify(r)).join("\n") + "\n");
  await api.close();
  fs.writeFileSync(outPath, transcript.map((t) => JSON.stringify(t)).join("\n") + "\n");
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(cwd, { recursive: true, force: true });
  const ok = Object.values(checks).every((c) => c.ok);
  console.log(JSON.stringify({ ok, variant, transcript: outPath, exit, stderr: stderr.slice(0, 2000), checks }, null, 2));
  process.exit(ok ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
