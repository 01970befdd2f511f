#!/usr/bin/env node
// A scripted fake of the Gemini API (generativelanguage v1beta) for driving the real gemini-cli
// offline (`GOOGLE_GEMINI_BASE_URL`, `GEMINI_API_KEY=fake`). Plain Node, no dependencies.
// Loopback only.
//
// Library use:
//   import { startFakeGemini } from "./fake-gemini.mjs";
//   const api = await startFakeGemini([
//     { text: "Reading it.", toolUse: { name: "mcp_tether_Read", input: { file_path: "/w/a.txt" } } },
//     { when: { lastToolResult: /hello/ }, text: "The file says hello." },
//   ]);
//   // GOOGLE_GEMINI_BASE_URL = api.url ... later: api.requests, await api.close()
//
// CLI use: node fake-gemini.mjs --script script.json [--port 0] [--log requests.jsonl]
//
// Turns (picked by `when` as script.mjs describes):
//   { text: "..." }                                  → text parts, finishReason STOP
//   { thinking: "...", text: "..." }                 → a thought part, then text
//   { text?: "...", toolUse: {name, input, id?} }    → optional text, then a functionCall part
//   { toolUses: [{name, input, id?}, ...] }          → several functionCall parts in one reply
//   { error: { status: 429, message? } }             → an HTTP error in the API's error shape
// `when` sees the last user content (its text parts, and its functionResponse parts as the tool
// result), the function declarations offered and the system instruction.
//
// Endpoints: POST /v1beta/models/{model}:streamGenerateContent?alt=sse (the turns, as SSE) and
// :generateContent (the same turns, whole). A generateContent that asks for JSON
// (`generationConfig.responseJsonSchema` or `responseSchema`: the model router of `auto`, and
// other side questions) is answered aside with a value built from its schema, using up no turn.
// :countTokens answers {"totalTokens": 42}.

import { pathToFileURL } from "node:url";
import { chunks, delay, runCli, scriptSlots, sendJson, sseHeaders, startRecordingServer, takeTurn } from "./script.mjs";

const MODEL_ROUTE = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

// The error status names the API gives each HTTP status.
const STATUS_NAMES = { 400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE" };

export async function startFakeGemini(script, options = {}) {
  const turns = scriptSlots(script);
  let responseSeq = 0;

  async function handle({ method, path, body }, res) {
    const route = method === "POST" ? MODEL_ROUTE.exec(path) : null;
    if (!route) {
      sendJson(res, 404, apiError(404, `Not found: ${method} ${path}`));
      return;
    }
    const [, model, action] = route;
    if (action === "countTokens") {
      sendJson(res, 200, { totalTokens: 42 });
      return;
    }
    if (action === "generateContent" && jsonSchemaOf(body)) {
      const value = valueFor(jsonSchemaOf(body));
      sendJson(res, 200, response(++responseSeq, model, [{ text: JSON.stringify(value) }]));
      return;
    }
    const turn = takeTurn(turns, requestFacts(body)) ?? { text: "(fake api: script exhausted)" };
    if (turn.delayMs) await delay(turn.delayMs);
    if (turn.error) {
      const status = turn.error.status ?? 429;
      sendJson(res, status, apiError(status, turn.error.message ?? "Resource has been exhausted (e.g. check quota)."));
      return;
    }
    const parts = modelParts(turn);
    const seq = ++responseSeq;
    if (action === "generateContent") {
      sendJson(res, 200, response(seq, model, parts));
      return;
    }
    // SSE: text in pieces, each function call whole, the finish reason and usage on the last event.
    res.writeHead(200, sseHeaders());
    const events = [];
    for (const part of parts) {
      if (part.text !== undefined) for (const piece of chunks(part.text, 13)) events.push([{ ...part, text: piece }]);
      else events.push([part]);
    }
    events.forEach((eventParts, i) => {
      const last = i === events.length - 1;
      const chunk = response(seq, model, eventParts, last);
      res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    });
    res.end();
  }

  const server = await startRecordingServer(handle, {
    port: options.port,
    log: options.log,
    errorBody: (message) => apiError(500, message),
  });
  return {
    ...server,
    /** The turn requests (streamGenerateContent, and generateContent without a JSON schema). */
    turnRequests: () =>
      server.requests.filter((r) => /:streamGenerateContent$/.test(r.path) || (/:generateContent$/.test(r.path) && !jsonSchemaOf(r.body))),
  };
}

function apiError(status, message) {
  return { error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" } };
}

function jsonSchemaOf(body) {
  const config = body?.generationConfig ?? {};
  return config.responseJsonSchema ?? config.responseSchema ?? null;
}

/** A value that satisfies a (simple) JSON schema: enough for the CLI's side questions. */
function valueFor(schema) {
  const type = String(schema?.type ?? "object").toLowerCase();
  if (Array.isArray(schema?.enum) && schema.enum.length) return schema.enum[0];
  switch (type) {
    case "object": {
      const out = {};
      for (const [key, sub] of Object.entries(schema?.properties ?? {})) out[key] = valueFor(sub);
      return out;
    }
    case "array":
      return [];
    case "integer":
    case "number":
      return schema?.minimum ?? 1;
    case "boolean":
      return false;
    default:
      return "fake";
  }
}

/** One response object (a whole reply, or one SSE chunk of it). */
function response(seq, model, parts, finished = true) {
  const candidate = { content: { role: "model", parts }, index: 0 };
  if (finished) candidate.finishReason = "STOP";
  const chunk = { candidates: [candidate], modelVersion: model, responseId: `fake-response-${seq}` };
  if (finished) chunk.usageMetadata = { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 };
  return chunk;
}

function modelParts(turn) {
  const parts = [];
  if (turn.thinking !== undefined) parts.push({ text: turn.thinking, thought: true });
  if (turn.text !== undefined) parts.push({ text: turn.text });
  const uses = turn.toolUses ?? (turn.toolUse ? [turn.toolUse] : []);
  for (const use of uses) {
    const functionCall = { name: use.name, args: use.input ?? {} };
    if (use.id !== undefined) functionCall.id = use.id;
    // The CLI requires a thought signature on the first function call of a turn for some models.
    parts.push({ functionCall, thoughtSignature: "skip_thought_signature_validator" });
  }
  if (parts.length === 0) parts.push({ text: "" });
  return parts;
}

function requestFacts(body) {
  const contents = Array.isArray(body?.contents) ? body.contents : [];
  const lastUser = [...contents].reverse().find((c) => c && c.role === "user");
  const parts = Array.isArray(lastUser?.parts) ? lastUser.parts : [];
  const responses = parts.filter((p) => p?.functionResponse);
  const system = (body?.systemInstruction?.parts ?? []).map((p) => p?.text ?? "").join("\n");
  const tools = (Array.isArray(body?.tools) ? body.tools : []).flatMap((t) => (t?.functionDeclarations ?? []).map((f) => f?.name));
  return {
    lastToolResult: responses.length ? responses.map((p) => resultText(p.functionResponse.response)).join("\n") : null,
    lastUserText: parts
      .filter((p) => typeof p?.text === "string")
      .map((p) => p.text)
      .join("\n"),
    tools,
    system,
  };
}

/** A functionResponse's `response` as text: its output (or error), else the whole JSON. */
function resultText(response) {
  if (typeof response?.output === "string") return response.output;
  if (typeof response?.error === "string") return response.error;
  return JSON.stringify(response ?? null);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runCli(startFakeGemini, process.argv.slice(2), [{ text: "Hello from the fake Gemini API.", repeat: true }]).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
