// node --test tests/fake-api/
import { test } from "node:test";
import assert from "node:assert/strict";
import { FAKE_TITLE, startFakeOpenAi } from "./fake-openai.mjs";

async function post(api, body, headers = {}) {
  const res = await fetch(`${api.url}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer fake", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

function sse(text) {
  return text
    .split("\n\n")
    .filter((chunk) => chunk.trim())
    .map((chunk) => {
      const event = chunk.match(/^event: (.*)$/m)[1];
      const data = JSON.parse(chunk.match(/^data: (.*)$/m)[1]);
      assert.equal(data.type, event);
      return data;
    });
}

const user = (text) => ({ type: "message", role: "user", content: [{ type: "input_text", text }] });
const tools = [
  { type: "function", name: "list_mcp_resources", parameters: { type: "object" } },
  { type: "custom", name: "apply_patch" },
  { type: "namespace", name: "mcp__tether", tools: [{ type: "function", name: "Read" }] },
];

test("streams a message in the event order codex reads, usage on response.completed", async () => {
  const api = await startFakeOpenAi([{ text: "Hello from the fake Responses API." }]);
  try {
    const res = await post(api, { model: "gpt-5.5", stream: true, input: [user("hi")], tools });
    assert.match(res.type, /text\/event-stream/);
    const events = sse(res.text);
    assert.deepEqual(
      [...new Set(events.map((e) => e.type))],
      [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
      ],
    );
    assert.equal(events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join(""), "Hello from the fake Responses API.");
    const done = events.find((e) => e.type === "response.output_item.done").item;
    assert.deepEqual(done.content[0], { type: "output_text", text: "Hello from the fake Responses API.", annotations: [] });
    const completed = events.at(-1).response;
    assert.equal(completed.status, "completed");
    assert.equal(completed.usage.total_tokens, 49);
    assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
  } finally {
    await api.close();
  }
});

test("function calls carry JSON arguments and their namespace; custom calls their raw input", async () => {
  const patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n";
  const api = await startFakeOpenAi([
    {
      toolUses: [
        { namespace: "mcp__tether", name: "Read", input: { file_path: "/w/a.txt" } },
        { name: "apply_patch", custom: true, input: patch },
      ],
    },
  ]);
  try {
    const items = sse((await post(api, { stream: true, input: [user("go")], tools })).text)
      .filter((e) => e.type === "response.output_item.done")
      .map((e) => e.item);
    assert.equal(items[0].type, "function_call");
    assert.equal(items[0].namespace, "mcp__tether");
    assert.equal(items[0].name, "Read");
    assert.deepEqual(JSON.parse(items[0].arguments), { file_path: "/w/a.txt" });
    assert.match(items[0].call_id, /^call_/);
    assert.deepEqual([items[1].type, items[1].name, items[1].input], ["custom_tool_call", "apply_patch", patch]);
  } finally {
    await api.close();
  }
});

test("matches on the trailing tool outputs, the user text and namespaced tools", async () => {
  const api = await startFakeOpenAi([
    { when: { lastToolResult: /hello world/ }, text: "It says hello." },
    { when: { hasTool: "mcp__tether__Read", lastUserText: "start" }, toolUse: { namespace: "mcp__tether", name: "Read", input: {} } },
  ]);
  try {
    const first = JSON.parse((await post(api, { input: [user("start")], tools })).text);
    const call = first.output[0];
    assert.equal(call.type, "function_call");
    const input = [
      user("start"),
      call,
      { type: "function_call_output", call_id: call.call_id, output: [{ type: "input_text", text: "1\thello world" }] },
    ];
    const second = JSON.parse((await post(api, { input, tools })).text);
    assert.equal(second.output[0].content[0].text, "It says hello.");
    const third = JSON.parse((await post(api, { input, tools })).text);
    assert.equal(third.output[0].content[0].text, "(fake api: script exhausted)");
  } finally {
    await api.close();
  }
});

test("answers codex's thread-title request aside, using up no turn", async () => {
  const api = await startFakeOpenAi([{ text: "The only turn." }]);
  try {
    const title = JSON.parse(
      (await post(api, { model: "gpt-5.6-luna", input: [user("Your task is to generate a very short title for a conversation …")] }, {
        "x-codex-turn-metadata": JSON.stringify({ request_kind: "turn" }),
      })).text,
    );
    assert.equal(title.output[0].content[0].text, FAKE_TITLE);
    const turn = JSON.parse((await post(api, { model: "gpt-5.5", input: [user("hi")], tools })).text);
    assert.equal(turn.output[0].content[0].text, "The only turn.");
    assert.equal(api.turnRequests().length, 1);
  } finally {
    await api.close();
  }
});

test("an error turn answers once in the API's error shape, then the script goes on", async () => {
  const api = await startFakeOpenAi([{ error: { status: 429 } }, { text: "Recovered." }]);
  try {
    const first = await post(api, { input: [user("hi")], tools });
    assert.equal(first.status, 429);
    assert.equal(JSON.parse(first.text).error.type, "rate_limit_error");
    assert.equal(JSON.parse((await post(api, { input: [user("hi")], tools })).text).output[0].content[0].text, "Recovered.");
    assert.equal((await fetch(`${api.url}/v1/models`)).status, 404);
    assert.deepEqual(
      api.requests.map((r) => `${r.method} ${r.path}`),
      ["POST /v1/responses", "POST /v1/responses", "GET /v1/models"],
    );
  } finally {
    await api.close();
  }
});
