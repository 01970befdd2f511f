#!/usr/bin/env node
// A scripted fake of the Anthropic Messages API for driving the real Claude Code CLI offline.
// Plain Node, no dependencies. Loopback only.
//
// Library use:
//   import { startFakeApi } from "./fake-anthropic.mjs";
//   const api = await startFakeApi([
//     { text: "I will read it.", toolUse: { name: "mcp__tether__Read", input: { file_path: "/w/a.txt" } } },
//     { when: { lastToolResult: /hello/ }, text: "The file says hello." },
//   ]);
//   // ANTHROPIC_BASE_URL = `http://127.0.0.1:${api.port}` ... later: api.requests, await api.close()
//
// CLI use:
//   node fake-anthropic.mjs --script script.json [--port 0] [--log requests.jsonl]
//   prints {"port":N} on stdout, then serves until SIGTERM/SIGINT.
//
// A script is an array of turns (or {turns:[...]}). Each model request takes the first turn not yet
// used whose `when` matches (a turn with `repeat: true` is never used up). A turn is one of:
//   { text: "..." }                                  → one text block, stop_reason end_turn
//   { thinking: "...", text: "..." }                 → a thinking block, then text
//   { text?: "...", toolUse: {name, input, id?} }    → optional text, then a tool_use, stop_reason tool_use
//     (library use: `toolUse` may be a function of the request's facts, see `when`, returning
//     {name, input}: a call built from the last tool result, e.g. an id it reported)
//   { toolUses: [{name, input, id?}, ...] }          → several tool_use blocks in one reply
//   { error: { status: 529, type?, message? } }      → an HTTP error (529 overloaded triggers api_retry)
// `when` (all given conditions must hold):
//   { lastToolResult: string|RegExp }  the last user message carries a tool_result whose text matches
//   { lastUserText: string|RegExp }    the last user message's text blocks match
//   { hasTool: "name" }                the request offers this tool
//   { noTool: "name" }                 the request does not offer this tool (e.g. to tell subagents apart)
//   { system: string|RegExp }          the system prompt matches
// When nothing matches, the reply is the text "(fake api: script exhausted)". Session-title
// requests (sent without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC) are answered aside, and
// POST /v1/messages/count_tokens gets {"input_tokens":42}.
// `delayMs` on a turn waits before answering.

import http from "node:http";
import { pathToFileURL } from "node:url";
import fs from "node:fs";

const MODEL_FALLBACK = "claude-opus-5-5";

export async function startFakeApi(script, options = {}) {
  const turns = normalizeScript(script).map((turn) => ({ turn, used: false }));
  const requests = [];
  let messageSeq = 0;
  let toolSeq = 0;
  const log = options.log ?? (() => {});

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = { unparsed: raw };
      }
      const url = new URL(req.url, "http://127.0.0.1");
      const record = { method: req.method, path: url.pathname, query: url.search, headers: req.headers, body };
      requests.push(record);
      log(record);
      handle(req.method, url.pathname, body, res).catch((e) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: String(e) } }));
      });
    });
  });

  async function handle(method, path, body, res) {
    if (method === "HEAD") {
      res.writeHead(200);
      res.end();
      return;
    }
    if (method === "POST" && path === "/v1/messages/count_tokens") {
      json(res, 200, { input_tokens: 42 });
      return;
    }
    if (method !== "POST" || path !== "/v1/messages") {
      json(res, 404, { type: "error", error: { type: "not_found_error", message: `Not found: ${method} ${path}` } });
      return;
    }
    // Without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC the CLI also asks for a session title
    // (no tools, a JSON schema with a `title`): answer it aside so it uses up no scripted turn.
    if (isTitleRequest(body)) {
      const message = assistantMessage(++messageSeq, body, [{ type: "text", text: JSON.stringify({ title: "Fake session" }) }], "end_turn");
      if (body?.stream) stream(res, message, {});
      else json(res, 200, message);
      return;
    }
    const slot = pickTurn(turns, body);
    const turn = slot?.turn ?? { text: "(fake api: script exhausted)" };
    if (slot && !turn.repeat) slot.used = true;
    if (turn.delayMs) await new Promise((r) => setTimeout(r, turn.delayMs));
    if (turn.error) {
      const status = turn.error.status ?? 529;
      const type = turn.error.type ?? (status === 529 ? "overloaded_error" : "api_error");
      json(res, status, { type: "error", error: { type, message: turn.error.message ?? "Overloaded" } }, {
        "x-should-retry": "true",
      });
      return;
    }
    const blocks = contentBlocks(resolveTurn(turn, body), () => `toolu_fake_${++toolSeq}`);
    const stopReason = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
    const message = assistantMessage(++messageSeq, body, blocks, stopReason);
    const headers = { "request-id": `req_fake_${messageSeq}` };
    if (body?.stream) stream(res, message, headers);
    else json(res, 200, message, headers);
  }

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const port = server.address().port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Requests to /v1/messages only (what the model was asked). */
    messageRequests: () => requests.filter((r) => r.path === "/v1/messages"),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

function assistantMessage(seq, body, content, stopReason) {
  return {
    id: `msg_fake_${seq}`,
    type: "message",
    role: "assistant",
    model: body?.model ?? MODEL_FALLBACK,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 42, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

function isTitleRequest(body) {
  return body?.output_config?.format?.schema?.properties?.title !== undefined && !(body?.tools ?? []).length;
}

function normalizeScript(script) {
  if (Array.isArray(script)) return script;
  if (script && Array.isArray(script.turns)) return script.turns;
  throw new Error("script must be an array of turns or {turns: [...]}");
}

function pickTurn(turns, body) {
  const facts = requestFacts(body);
  return turns.find(({ turn, used }) => (!used || turn.repeat) && matches(turn.when, facts));
}

/** What a `when` can look at: the last *user* message (the CLI interleaves role:"system" messages). */
function requestFacts(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const lastUser = [...messages].reverse().find((m) => m && m.role === "user");
  const blocks = typeof lastUser?.content === "string" ? [{ type: "text", text: lastUser.content }] : lastUser?.content ?? [];
  const toolResults = blocks.filter((b) => b?.type === "tool_result");
  const system = Array.isArray(body?.system)
    ? body.system.map((b) => (typeof b === "string" ? b : b?.text ?? "")).join("\n")
    : String(body?.system ?? "");
  return {
    lastToolResult: toolResults.length ? toolResults.map((b) => blockText(b.content)).join("\n") : null,
    lastUserText: blocks
      .filter((b) => b?.type === "text")
      .map((b) => b.text)
      .join("\n"),
    tools: (Array.isArray(body?.tools) ? body.tools : []).map((t) => t?.name),
    system,
  };
}

function blockText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c) => (c?.type === "text" ? c.text : "")).join("");
  return "";
}

function test(pattern, value) {
  if (value == null) return false;
  return pattern instanceof RegExp ? pattern.test(value) : value.includes(pattern);
}

function matches(when, facts) {
  if (!when) return true;
  if (typeof when === "function") return !!when(facts);
  if (when.lastToolResult !== undefined && !test(reviveRegExp(when.lastToolResult), facts.lastToolResult)) return false;
  if (when.lastUserText !== undefined && !test(reviveRegExp(when.lastUserText), facts.lastUserText)) return false;
  if (when.system !== undefined && !test(reviveRegExp(when.system), facts.system)) return false;
  if (when.hasTool !== undefined && !facts.tools.includes(when.hasTool)) return false;
  if (when.noTool !== undefined && facts.tools.includes(when.noTool)) return false;
  return true;
}

/** JSON scripts spell a RegExp as {"regex": "...", "flags": "i"}. */
function reviveRegExp(p) {
  return p && typeof p === "object" && !(p instanceof RegExp) && typeof p.regex === "string"
    ? new RegExp(p.regex, p.flags ?? "")
    : p;
}

/** A turn whose `toolUse` is a function (library use) gets its call from the request's facts. */
function resolveTurn(turn, body) {
  return typeof turn.toolUse === "function" ? { ...turn, toolUse: turn.toolUse(requestFacts(body)) } : turn;
}

function contentBlocks(turn, nextToolId) {
  const blocks = [];
  if (turn.thinking !== undefined) blocks.push({ type: "thinking", thinking: turn.thinking, signature: "fake-signature" });
  if (turn.text !== undefined) blocks.push({ type: "text", text: turn.text });
  const uses = turn.toolUses ?? (turn.toolUse ? [turn.toolUse] : []);
  for (const use of uses) blocks.push({ type: "tool_use", id: use.id ?? nextToolId(), name: use.name, input: use.input ?? {} });
  if (blocks.length === 0) blocks.push({ type: "text", text: "" });
  return blocks;
}

function json(res, status, value, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
}

/** The streaming form, event for event as the real API sends it. */
function stream(res, message, headers) {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...headers,
  });
  const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const { content, stop_reason, ...head } = message;
  send("message_start", {
    type: "message_start",
    message: { ...head, content: [], stop_reason: null, stop_sequence: null, usage: { ...message.usage, output_tokens: 1 } },
  });
  send("ping", { type: "ping" });
  content.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const piece of chunks(block.text, 13)) {
        send("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } });
      }
    } else if (block.type === "thinking") {
      send("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      });
      for (const piece of chunks(block.thinking, 13)) {
        send("content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: piece } });
      }
      send("content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } });
    } else if (block.type === "tool_use") {
      send("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      for (const piece of chunks(JSON.stringify(block.input), 20)) {
        send("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } });
      }
    }
    send("content_block_stop", { type: "content_block_stop", index });
  });
  send("message_delta", {
    type: "message_delta",
    delta: { stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  send("message_stop", { type: "message_stop" });
  res.end();
}

function chunks(text, size) {
  const out = [];
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out.length ? out : [""];
}

async function main(argv) {
  const arg = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const scriptPath = arg("--script");
  const script = scriptPath ? JSON.parse(fs.readFileSync(scriptPath, "utf8")) : [{ text: "Hello from the fake API.", repeat: true }];
  const logPath = arg("--log");
  const api = await startFakeApi(script, {
    port: Number(arg("--port") ?? 0),
    log: logPath ? (r) => fs.appendFileSync(logPath, JSON.stringify(r) + "\n") : undefined,
  });
  process.stdout.write(JSON.stringify({ port: api.port }) + "\n");
  const stop = () => api.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
