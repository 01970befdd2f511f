// node --test tests/fake-api/
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeGemini } from "./fake-gemini.mjs";

const STREAM = "/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse";
const GENERATE = "/v1beta/models/gemini-3.5-flash-lite:generateContent";

async function post(api, path, body) {
  const res = await fetch(`${api.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": "fake" },
    body: JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

/** The chunks of an SSE answer, as the CLI splits them (`\r\n\r\n`). */
function sse(text) {
  return text
    .split("\r\n\r\n")
    .filter((chunk) => chunk.trim())
    .map((chunk) => JSON.parse(chunk.replace(/^data: /, "")));
}

const user = (...parts) => ({ role: "user", parts });
const functions = (...names) => [{ functionDeclarations: names.map((name) => ({ name, parametersJsonSchema: { type: "object" } })) }];

test("streams a text reply in pieces, finish reason and usage on the last chunk", async () => {
  const api = await startFakeGemini([{ text: "Hello from the fake Gemini model." }]);
  try {
    const res = await post(api, STREAM, { contents: [user({ text: "hi" })] });
    assert.match(res.type, /text\/event-stream/);
    const chunks = sse(res.text);
    assert.ok(chunks.length > 1);
    const text = chunks.flatMap((c) => c.candidates[0].content.parts).map((p) => p.text).join("");
    assert.equal(text, "Hello from the fake Gemini model.");
    assert.equal(chunks.at(-1).candidates[0].finishReason, "STOP");
    assert.ok(chunks.at(-1).usageMetadata.totalTokenCount > 0);
    assert.equal(chunks[0].candidates[0].finishReason, undefined);
    assert.equal(chunks[0].candidates[0].content.role, "model");
  } finally {
    await api.close();
  }
});

test("a tool use becomes a functionCall part with its args and a thought signature", async () => {
  const input = { file_path: "/w/a.txt" };
  const api = await startFakeGemini([{ text: "Reading.", toolUse: { name: "mcp_tether_Read", input } }]);
  try {
    const parts = sse((await post(api, STREAM, { contents: [user({ text: "go" })] })).text).flatMap((c) => c.candidates[0].content.parts);
    const call = parts.find((p) => p.functionCall);
    assert.deepEqual(call.functionCall, { name: "mcp_tether_Read", args: input });
    assert.equal(call.thoughtSignature, "skip_thought_signature_validator");
  } finally {
    await api.close();
  }
});

test("matches on the last functionResponse, the user text and the tools offered", async () => {
  const api = await startFakeGemini([
    { when: { lastToolResult: /hello world/ }, text: "The file says hello." },
    { when: { hasTool: "mcp_tether_Read", lastUserText: "start" }, toolUse: { name: "mcp_tether_Read", input: {} } },
  ]);
  try {
    const none = sse((await post(api, STREAM, { contents: [user({ text: "start" })] })).text);
    const noneText = none.flatMap((c) => c.candidates[0].content.parts).map((p) => p.text).join("");
    assert.equal(noneText, "(fake api: script exhausted)", "no tools offered: no turn matched");
    const first = sse((await post(api, STREAM, { contents: [user({ text: "start" })], tools: functions("mcp_tether_Read") })).text);
    assert.equal(first[0].candidates[0].content.parts[0].functionCall.name, "mcp_tether_Read");
    const result = user({ functionResponse: { id: "c1", name: "mcp_tether_Read", response: { output: "1\thello world" } } });
    const second = sse((await post(api, STREAM, { contents: [user({ text: "start" }), result], tools: functions("mcp_tether_Read") })).text);
    assert.equal(second.flatMap((c) => c.candidates[0].content.parts).map((p) => p.text).join(""), "The file says hello.");
  } finally {
    await api.close();
  }
});

test("answers the router's JSON question aside, from its schema, using up no turn", async () => {
  const api = await startFakeGemini([{ text: "The only turn." }]);
  try {
    const schema = { type: "object", properties: { complexity_reasoning: { type: "string" }, complexity_score: { type: "integer" } } };
    const routed = await post(api, GENERATE, { contents: [user({ text: "hi" })], generationConfig: { responseJsonSchema: schema } });
    const answer = JSON.parse(routed.text);
    assert.deepEqual(JSON.parse(answer.candidates[0].content.parts[0].text), { complexity_reasoning: "fake", complexity_score: 1 });
    const whole = JSON.parse((await post(api, GENERATE, { contents: [user({ text: "hi" })] })).text);
    assert.equal(whole.candidates[0].content.parts[0].text, "The only turn.");
    assert.equal(api.turnRequests().length, 1);
  } finally {
    await api.close();
  }
});

test("an error turn answers in the API's error shape once, then the script goes on", async () => {
  const api = await startFakeGemini([{ error: { status: 429 } }, { text: "Recovered." }]);
  try {
    const first = await post(api, STREAM, { contents: [user({ text: "hi" })] });
    assert.equal(first.status, 429);
    assert.equal(JSON.parse(first.text).error.status, "RESOURCE_EXHAUSTED");
    const second = sse((await post(api, STREAM, { contents: [user({ text: "hi" })] })).text);
    assert.equal(second.flatMap((c) => c.candidates[0].content.parts).map((p) => p.text).join(""), "Recovered.");
  } finally {
    await api.close();
  }
});

test("records every request, counts tokens, and 404s anything else", async () => {
  const api = await startFakeGemini([{ text: "x", repeat: true }]);
  try {
    const count = await post(api, "/v1beta/models/gemini-3.8-flash:countTokens", { contents: [] });
    assert.deepEqual(JSON.parse(count.text), { totalTokens: 42 });
    assert.equal((await fetch(`${api.url}/v1beta/models`)).status, 404);
    await post(api, STREAM, { contents: [user({ text: "hi" })] });
    assert.deepEqual(
      api.requests.map((r) => `${r.method} ${r.path}${r.query}`),
      ["POST /v1beta/models/gemini-3.8-flash:countTokens", "GET /v1beta/models", `POST ${STREAM}`],
    );
    assert.equal(api.requests[2].headers["x-goog-api-key"], "fake");
    assert.equal(api.url.startsWith("http://127.0.0.1:"), true);
  } finally {
    await api.close();
  }
});
