// Runs one differential scenario twice against the scripted fake Messages API: run A is the real
// Claude Code CLI with its own (native) tools on folder A; run B is the same CLI through Tether
// (`dist/tether-cli.js run`) on folder B, whose tools the model calls as `mcp__tether__<Name>`.
// Both folders start with identical contents (mtimes included). What comes back for each run: the
// files afterwards, every tool result the model was sent, and the tool definitions of the first
// request. Every process is bounded in time and killed by PID.

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { CLAUDE, killPid, runTether } from "../integration/harness.mjs";

/** One session's time limit (a scenario runs two). */
const RUN_LIMIT_MS = 60_000;
/** Fixture files' modification time: Glob and Grep sort by it, so both folders must agree. */
const FIXTURE_MTIME_S = 1_700_000_000;

/**
 * The native built-ins a 2.1.330 session may call. Glob and Grep are hidden by default (the
 * model is told to search through Bash) and only offered when named in `--tools`; MultiEdit,
 * LS, BashOutput and KillShell no longer exist (background output is a file the model Reads, and
 * TaskStop stops a task).
 */
export const NATIVE_TOOLS = ["Read", "Write", "Edit", "NotebookEdit", "Glob", "Grep", "Bash", "TaskStop"];

/**
 * Both runs search with the same ripgrep: the CLI's own (2.1.330 embeds ripgrep 14.1.1 and runs
 * it as its own binary named `rg`), which Tether gets through $TETHER_RG. Otherwise the suite
 * would compare ripgrep versions (their error texts differ), not Tether.
 */
function useTheCliRipgrep() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tether-diff-rg-"));
  const wrapper = path.join(dir, "rg");
  fs.writeFileSync(wrapper, `#!/bin/bash\nexec -a rg ${JSON.stringify(CLAUDE)} --no-config "$@"\n`, { mode: 0o755 });
  process.env.TETHER_RG = wrapper;
  process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
}
useTheCliRipgrep();

/** The environment both runs give the CLI (Tether's launch adds its own fixed variables). */
function cliEnv(home, api) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: "dummy",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
}

/** A scenario's folders under one temp base: A and B (same contents), their HOMEs, Tether's mirror. */
export function makeScenarioDirs(files) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tether-diff-")));
  const dirs = {
    base,
    a: path.join(base, "A"),
    b: path.join(base, "B"),
    homeA: path.join(base, "homeA"),
    homeB: path.join(base, "homeB"),
    mirror: path.join(base, "M"),
  };
  for (const dir of Object.values(dirs).slice(1)) fs.mkdirSync(dir);
  for (const root of [dirs.a, dirs.b]) writeFixture(root, files);
  return { ...dirs, cleanup: () => fs.rmSync(base, { recursive: true, force: true }) };
}

/** `files`: relative path → string | Buffer | {dir: true}; each gets a fixed mtime, in order. */
function writeFixture(root, files) {
  let second = 0;
  const stamped = [];
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(root, rel);
    if (content && typeof content === "object" && !Buffer.isBuffer(content) && content.dir) {
      fs.mkdirSync(full, { recursive: true });
    } else {
      fs.mkdirSync(path.dirname(full), { recursive: true });
      fs.writeFileSync(full, content);
    }
    stamped.push([full, FIXTURE_MTIME_S + second++]);
  }
  for (const [full, time] of stamped) fs.utimesSync(full, time, time);
}

/**
 * The fake model's script for a list of tool calls: one call per turn, in order, then a closing
 * text. `prefix` turns `Read` into `mcp__tether__Read` for run B.
 */
export function scriptFor(calls, prefix) {
  return [
    ...calls.map((call, i) => ({
      text: `Step ${i + 1}.`,
      // An input given as a function is built from the last tool result (e.g. a background id).
      toolUse:
        typeof call.input === "function"
          ? (facts) => ({ name: prefix + call.tool, input: call.input(facts.lastToolResult ?? "") })
          : { name: prefix + call.tool, input: call.input },
    })),
    { text: "Done." },
  ];
}

/** Run A: the CLI with its own tools, its cwd folder A, every permission prompt answered allow. */
export async function runNative({ dirs, calls, prompt = "SCENARIO differential", limitMs = RUN_LIMIT_MS }) {
  const api = await startFakeApi(scriptFor(calls(dirs.a), ""));
  const argv = [
    "--output-format=stream-json",
    "--verbose",
    "--input-format=stream-json",
    "--permission-prompt-tool=stdio",
    "--permission-mode=default",
    "--setting-sources=",
    "--strict-mcp-config",
    `--tools=${NATIVE_TOOLS.join(",")}`,
  ];
  const child = spawn(CLAUDE, argv, {
    cwd: dirs.a,
    // The same fixed variables Tether's launch sets (crate/src/claude/launch.rs FIXED_ENV).
    env: {
      ...cliEnv(dirs.homeA, api),
      CLAUDE_CODE_ENTRYPOINT: "sdk-ts",
      CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const messages = [];
  let stderr = "";
  let buffer = "";
  const send = (message) => {
    if (!child.stdin.destroyed) child.stdin.write(JSON.stringify(message) + "\n");
  };
  child.stdin.on("error", () => {});
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const message = JSON.parse(line);
      messages.push(message);
      if (message.type === "control_request" && message.request?.subtype === "can_use_tool") {
        send({
          type: "control_response",
          response: {
            subtype: "success",
            request_id: message.request_id,
            response: { behavior: "allow", updatedInput: message.request.input },
          },
        });
      } else if (message.type === "control_request") {
        send({
          type: "control_response",
          response: { subtype: "error", request_id: message.request_id, error: "not supported by the differential harness" },
        });
      } else if (message.type === "result") {
        child.stdin.end();
      }
    }
  });
  child.stderr.on("data", (chunk) => (stderr += chunk));
  send({ type: "user", session_id: "", message: { role: "user", content: [{ type: "text", text: prompt }] }, parent_tool_use_id: null });
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  const timer = setTimeout(() => {
    stderr += `\n[differential] time limit of ${limitMs} ms reached: killing claude (pid ${child.pid})\n`;
    killPid(child.pid);
  }, limitMs);
  const { code, signal } = await exited;
  clearTimeout(timer);
  killPid(child.pid);
  await api.close();
  return { code, signal, stderr, messages, requests: api.messageRequests() };
}

/** Run B: the same CLI through Tether on folder B (mirror M), every prompt approved. */
export async function runThroughTether({ dirs, calls, prompt = "SCENARIO differential", limitMs = RUN_LIMIT_MS }) {
  const api = await startFakeApi(scriptFor(calls(dirs.b), "mcp__tether__"));
  try {
    const result = await runTether({
      dirs: { base: dirs.base, root: dirs.b, home: dirs.homeB, mirror: dirs.mirror },
      api,
      args: ["--prompt", prompt, "--approve", "all"],
      limitMs,
    });
    return { ...result, requests: api.messageRequests() };
  } finally {
    await api.close();
  }
}

/**
 * Every tool result the model was sent, in the order of the calls (ids `toolu_fake_N`), as the
 * model sees it: `{isError, blocks}` where blocks are text strings or image summaries.
 */
export function toolResultsInOrder(requests) {
  const seen = new Map();
  for (const request of requests) {
    for (const message of request.body?.messages ?? []) {
      if (message.role !== "user" || !Array.isArray(message.content)) continue;
      for (const block of message.content) {
        if (block?.type === "tool_result") seen.set(block.tool_use_id, block);
      }
    }
  }
  const ids = [...seen.keys()].sort((x, y) => idNumber(x) - idNumber(y));
  return ids.map((id) => {
    const block = seen.get(id);
    const content = typeof block.content === "string" ? [{ type: "text", text: block.content }] : block.content ?? [];
    return { id, isError: block.is_error === true, blocks: content.map(renderBlock) };
  });
}

const idNumber = (id) => Number(/(\d+)$/.exec(id)?.[1] ?? 0);

function renderBlock(block) {
  if (block?.type === "text") return block.text;
  if (block?.type === "image") {
    const data = block.source?.data ?? "";
    return `[image ${block.source?.media_type} ${data.length} base64 chars, sha ${shortHash(data)}]`;
  }
  return `[${block?.type} block ${JSON.stringify(block).slice(0, 200)}]`;
}

function shortHash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

/** Every file under `root`: relative path → Buffer (or "dir"), sorted. */
export function readTree(root) {
  const out = new Map();
  const walk = (sub) => {
    for (const entry of fs.readdirSync(path.join(root, sub), { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      const full = path.join(root, rel);
      if (entry.isDirectory()) {
        out.set(rel, "dir");
        walk(rel);
      } else if (entry.isSymbolicLink()) {
        out.set(rel, `link:${fs.readlinkSync(full)}`);
      } else {
        out.set(rel, fs.readFileSync(full));
      }
    }
  };
  walk("");
  return out;
}

/** The tool definitions of the first model request, by name. */
export function toolDefinitions(requests) {
  const first = requests.find((r) => Array.isArray(r.body?.tools));
  return new Map((first?.body.tools ?? []).map((t) => [t.name, t]));
}
