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
// A script is an array of turns (or {turns:[...]}), picked by `when` as script.mjs describes. A
// turn is one of:
//   { text: "..." }                                  → one text block, stop_reason end_turn
//   { thinking: "...", text: "..." }                 → a thinking block, then text
//   { text?: "...", toolUse: {name, input, id?} }    → optional text, then a tool_use, stop_reason tool_use
//     (library use: `toolUse` may be a function of the request's facts, see `when`, returning
//     {name, input}: a call built from the last tool result, e.g. an id it reported)
//   { toolUses: [{name, input, id?}, ...] }          → several tool_use blocks in one reply
//   { error: { status: 529, type?, message? } }      → an HTTP error (529 overloaded triggers api_retry)
// `when` sees the last *user* message (the CLI interleaves role:"system" messages), the tools
// offered (`hasTool`/`noTool`, e.g. to tell subagents apart) and the system prompt.
// When nothing matches, the reply is the text "(fake api: script exhausted)". Session-title
// requests (sent without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC) are answered aside, and
// POST /v1/messages/count_tokens gets {"input_tokens":42}.
// `delayMs` on a turn waits before answering.

import { pathToFileURL } from "node:url";
import { chunks, delay, runCli, scriptSlots, sendJson as json, sseHeaders, startRecordingServer, takeTurn } from "./script.mjs";

const MODEL_FALLBACK = "claude-opus-5-5";

export async function startFakeApi(script, options = {}) {
  const turns = scriptSlots(script);
  let messageSeq = 0;
  let toolSeq = 0;

  async function handle({ method, path, body }, res) {
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
    const turn = takeTurn(turns, requestFacts(body)) ?? { text: "(fake api: script exhausted)" };
    if (turn.delayMs) await delay(turn.delayMs);
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

  const server = await startRecordingServer(handle, {
    port: options.port,
    log: options.log,
    tls: options.tls,
    errorBody: (message) => ({ type: "error", error: { type: "api_error", message } }),
  });
  return {
    ...server,
    /** Requests to /v1/messages only (what the model was asked). */
    messageRequests: () => server.requests.filter((r) => r.path === "/v1/messages"),
    /** The tool_result blocks the model was sent, in order (each request's last message's). */
    toolResults: () =>
      server.requests
        .filter((r) => r.path === "/v1/messages" && Array.isArray(r.body?.messages))
        .flatMap((r) => r.body.messages.at(-1)?.content ?? [])
        .filter((b) => b && b.type === "tool_result"),
  };
}

/** A tool_result block's text (its content a string or text blocks). */
export function resultText(block) {
  return typeof block.content === "string" ? block.content : (block.content ?? []).map((c) => c.text ?? "").join("");
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

/** The streaming form, event for event as the real API sends it. */
function stream(res, message, headers) {
  res.writeHead(200, sseHeaders(headers));
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

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runCli(startFakeApi, process.argv.slice(2), [{ text: "Hello from the fake API.", repeat: true }]).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
