#!/usr/bin/env node
// A scripted fake of the OpenAI Responses API for driving the real codex-acp (codex app-server)
// offline (a `model_providers` entry with `base_url` = api.url + "/v1", `wire_api: "responses"`).
// Plain Node, no dependencies. Loopback only.
//
// Library use:
//   import { startFakeOpenAi } from "./fake-openai.mjs";
//   const api = await startFakeOpenAi([
//     { text: "Reading it.", toolUse: { namespace: "mcp__tether", name: "Read", input: { file_path: "/w/a.txt" } } },
//     { when: { lastToolResult: /hello/ }, text: "The file says hello." },
//   ]);
//   // ... later: api.requests, await api.close()
//
// CLI use: node fake-openai.mjs --script script.json [--port 0] [--log requests.jsonl]
//
// Turns (picked by `when` as script.mjs describes):
//   { text: "..." }                                          → a message item
//   { thinking: "...", text: "..." }                         → a reasoning item (its summary), then text
//   { text?: "...", toolUse: {name, input, namespace?, id?} } → a function_call item (arguments = JSON of input);
//                                                              codex wants MCP tools as namespace "mcp__<server>"
//   { toolUse: {name: "apply_patch", input: "*** Begin Patch…", custom: true} } → a custom_tool_call item
//   { toolUses: [...] }                                      → several calls in one response
//   { webSearch: {query}, text? }                            → a web_search_call item (the API's own hosted
//                                                              search, done on its side), then the text
//   { error: { status: 429, message?, type?, code? } }       → an HTTP error in the API's error shape
// `when` sees the trailing tool outputs (function_call_output / custom_tool_call_output items after
// the last assistant item) as the tool result, the last user message's text, the tools offered
// (functions by name; namespaced ones also as "<namespace>__<name>") and the instructions.
//
// POST /v1/responses streams (`stream: true`) the events codex reads: response.created,
// output_item.added/done per item (with text deltas for messages), response.completed with usage;
// without `stream` it answers the response object. Title requests (codex asks a small model for a
// thread title after the first turn, without `tools`) are answered aside with FAKE_TITLE, using up
// no turn.

import { pathToFileURL } from "node:url";
import { chunks, delay, runCli, scriptSlots, sendJson, sseHeaders, startRecordingServer, takeTurn } from "./script.mjs";

export const FAKE_TITLE = "Fake thread title";

export async function startFakeOpenAi(script, options = {}) {
  const turns = scriptSlots(script);
  let responseSeq = 0;
  let itemSeq = 0;

  async function handle({ method, path, headers, body }, res) {
    if (method !== "POST" || path !== "/v1/responses") {
      sendJson(res, 404, apiError(`Not found: ${method} ${path}`, "invalid_request_error", "not_found"));
      return;
    }
    const seq = ++responseSeq;
    if (isTitleRequest(headers, body)) {
      respond(res, body, seq, [messageItem(`msg_fake_${++itemSeq}`, FAKE_TITLE)]);
      return;
    }
    const turn = takeTurn(turns, requestFacts(body)) ?? { text: "(fake api: script exhausted)" };
    if (turn.delayMs) await delay(turn.delayMs);
    if (turn.error) {
      const status = turn.error.status ?? 429;
      const type = turn.error.type ?? (status === 429 ? "rate_limit_error" : "server_error");
      sendJson(res, status, apiError(turn.error.message ?? "Rate limit reached", type, turn.error.code ?? null));
      return;
    }
    respond(res, body, seq, outputItems(turn, () => ++itemSeq));
  }

  const server = await startRecordingServer(handle, {
    port: options.port,
    log: options.log,
    errorBody: (message) => apiError(message, "server_error", null),
  });
  return {
    ...server,
    /** The turn requests (POST /v1/responses that are not title requests). */
    turnRequests: () => server.requests.filter((r) => r.path === "/v1/responses" && !isTitleRequest(r.headers, r.body)),
  };
}

function apiError(message, type, code) {
  return { error: { message, type, param: null, code } };
}

/** A side request for a thread title: codex 0.166 sends it as an ordinary turn (request_kind
 * "turn") of a small model, without `tools`, whose user text asks for "a very short title". */
function isTitleRequest(headers, body) {
  if (/"request_kind":"[^"]*title/i.test(String(headers?.["x-codex-turn-metadata"] ?? ""))) return true;
  if (Array.isArray(body?.tools) && body.tools.length) return false;
  const facts = requestFacts(body);
  return /\btitle\b/i.test(facts.system) || /\btitle\b/i.test(facts.lastUserText);
}

function messageItem(id, text) {
  return { type: "message", id, status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] };
}

function outputItems(turn, nextSeq) {
  const items = [];
  if (turn.thinking !== undefined) {
    items.push({ type: "reasoning", id: `rs_fake_${nextSeq()}`, summary: [{ type: "summary_text", text: turn.thinking }] });
  }
  if (turn.webSearch !== undefined) {
    items.push({ type: "web_search_call", id: `ws_fake_${nextSeq()}`, status: "completed", action: { type: "search", query: turn.webSearch.query } });
  }
  if (turn.text !== undefined) items.push(messageItem(`msg_fake_${nextSeq()}`, turn.text));
  const uses = turn.toolUses ?? (turn.toolUse ? [turn.toolUse] : []);
  for (const use of uses) {
    const n = nextSeq();
    const callId = use.id ?? `call_fake_${n}`;
    if (use.custom) {
      items.push({ type: "custom_tool_call", id: `ctc_fake_${n}`, status: "completed", call_id: callId, name: use.name, input: String(use.input ?? "") });
    } else {
      const item = { type: "function_call", id: `fc_fake_${n}`, status: "completed", call_id: callId, name: use.name, arguments: JSON.stringify(use.input ?? {}) };
      if (use.namespace !== undefined) item.namespace = use.namespace;
      items.push(item);
    }
  }
  if (items.length === 0) items.push(messageItem(`msg_fake_${nextSeq()}`, ""));
  return items;
}

function responseObject(seq, body, status, output) {
  const response = {
    id: `resp_fake_${seq}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: body?.model ?? "gpt-fake",
    output,
  };
  if (status === "completed") {
    response.usage = {
      input_tokens: 42,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 7,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 49,
    };
  }
  return response;
}

function respond(res, body, seq, items) {
  if (!body?.stream) {
    sendJson(res, 200, responseObject(seq, body, "completed", items));
    return;
  }
  res.writeHead(200, sseHeaders());
  let sequence = 0;
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  send("response.created", { response: responseObject(seq, body, "in_progress", []) });
  send("response.in_progress", { response: responseObject(seq, body, "in_progress", []) });
  items.forEach((item, index) => {
    if (item.type === "message") {
      send("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress", content: [] } });
      const part = item.content[0];
      send("response.content_part.added", { item_id: item.id, output_index: index, content_index: 0, part: { ...part, text: "" } });
      for (const delta of chunks(part.text, 13)) {
        send("response.output_text.delta", { item_id: item.id, output_index: index, content_index: 0, delta });
      }
      send("response.output_text.done", { item_id: item.id, output_index: index, content_index: 0, text: part.text });
      send("response.content_part.done", { item_id: item.id, output_index: index, content_index: 0, part });
    } else {
      send("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress" } });
    }
    send("response.output_item.done", { output_index: index, item });
  });
  send("response.completed", { response: responseObject(seq, body, "completed", items) });
  res.end();
}

function itemText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c) => (typeof c?.text === "string" ? c.text : "")).join("");
  return "";
}

function requestFacts(body) {
  const input = Array.isArray(body?.input) ? body.input : [];
  let lastAssistant = -1;
  input.forEach((item, i) => {
    if (item?.role === "assistant" || ["function_call", "custom_tool_call", "reasoning"].includes(item?.type)) lastAssistant = i;
  });
  const outputs = input
    .slice(lastAssistant + 1)
    .filter((item) => item?.type === "function_call_output" || item?.type === "custom_tool_call_output");
  const lastUser = [...input].reverse().find((item) => item?.role === "user");
  const tools = [];
  for (const tool of Array.isArray(body?.tools) ? body.tools : []) {
    if (typeof tool?.name === "string") tools.push(tool.name);
    for (const inner of Array.isArray(tool?.tools) ? tool.tools : []) {
      if (typeof inner?.name === "string") tools.push(inner.name, `${tool.name}__${inner.name}`);
    }
  }
  return {
    lastToolResult: outputs.length ? outputs.map((item) => itemText(item.output)).join("\n") : null,
    lastUserText: itemText(lastUser?.content),
    tools,
    system: String(body?.instructions ?? ""),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runCli(startFakeOpenAi, process.argv.slice(2), [{ text: "Hello from the fake Responses API.", repeat: true }]).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
