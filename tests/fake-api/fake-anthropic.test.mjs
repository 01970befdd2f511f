// node --test tests/fake-api/
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeApi } from "./fake-anthropic.mjs";

async function post(api, body, path = "/v1/messages?beta=true") {
  const res = await fetch(`${api.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
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

const user = (content) => ({ role: "user", content });

test("streams a text reply in the API's event order", async () => {
  const api = await startFakeApi([{ text: "Hello from the fake model, in pieces." }]);
  try {
    const res = await post(api, { model: "m", stream: true, messages: [user("hi")] });
    assert.match(res.type, /text\/event-stream/);
    const events = sse(res.text);
    assert.deepEqual(
      [...new Set(events.map((e) => e.type))],
      ["message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"],
    );
    const text = events.filter((e) => e.type === "content_block_delta").map((e) => e.delta.text).join("");
    assert.equal(text, "Hello from the fake model, in pieces.");
    assert.equal(events.find((e) => e.type === "message_delta").delta.stop_reason, "end_turn");
  } finally {
    await api.close();
  }
});

test("streams a tool_use whose input_json_delta pieces rebuild the input", async () => {
  const input = { file_path: "/remote/project/src/main.rs", old_string: "a", new_string: "b" };
  const api = await startFakeApi([{ text: "Editing.", toolUse: { name: "mcp__tether__Edit", input } }]);
  try {
    const events = sse((await post(api, { stream: true, messages: [user("go")] })).text);
    const start = events.find((e) => e.type === "content_block_start" && e.content_block.type === "tool_use");
    assert.equal(start.content_block.name, "mcp__tether__Edit");
    assert.deepEqual(start.content_block.input, {});
    const json = events
      .filter((e) => e.type === "content_block_delta" && e.index === start.index)
      .map((e) => e.delta.partial_json)
      .join("");
    assert.deepEqual(JSON.parse(json), input);
    assert.equal(events.find((e) => e.type === "message_delta").delta.stop_reason, "tool_use");
  } finally {
    await api.close();
  }
});

test("answers with plain JSON when stream is false", async () => {
  const api = await startFakeApi([{ thinking: "hmm", text: "Plain." }]);
  try {
    const res = await post(api, { stream: false, messages: [user("hi")] });
    const message = JSON.parse(res.text);
    assert.deepEqual(
      message.content.map((b) => b.type),
      ["thinking", "text"],
    );
    assert.equal(message.stop_reason, "end_turn");
  } finally {
    await api.close();
  }
});

test("an error turn answers once with its status, then the script goes on", async () => {
  const api = await startFakeApi([{ error: { status: 529 } }, { text: "Recovered." }]);
  try {
    const first = await post(api, { stream: false, messages: [user("hi")] });
    assert.equal(first.status, 529);
    assert.equal(JSON.parse(first.text).error.type, "overloaded_error");
    const second = await post(api, { stream: false, messages: [user("hi")] });
    assert.equal(JSON.parse(second.text).content[0].text, "Recovered.");
  } finally {
    await api.close();
  }
});

test("matches on the last tool_result, looking past role:system messages", async () => {
  const api = await startFakeApi([
    { when: { lastToolResult: "42 lines" }, text: "After the tool." },
    { when: { lastUserText: "start" }, toolUse: { name: "mcp__tether__Read", input: { file_path: "/x" } } },
  ]);
  try {
    const first = JSON.parse((await post(api, { stream: false, messages: [user("start")] })).text);
    assert.equal(first.content[0].type, "tool_use");
    const messages = [
      user("start"),
      { role: "assistant", content: first.content },
      user([{ type: "tool_result", tool_use_id: first.content[0].id, content: [{ type: "text", text: "read 42 lines" }] }]),
      { role: "system", content: "Environment details" },
    ];
    const second = JSON.parse((await post(api, { stream: false, messages })).text);
    assert.equal(second.content[0].text, "After the tool.");
    const third = JSON.parse((await post(api, { stream: false, messages })).text);
    assert.equal(third.content[0].text, "(fake api: script exhausted)");
  } finally {
    await api.close();
  }
});

test("a toolUse given as a function builds its call from the last tool result", async () => {
  const api = await startFakeApi([
    { toolUse: () => ({ name: "Bash", input: { command: "start", run_in_background: true } }) },
    { toolUse: (facts) => ({ name: "TaskStop", input: { task_id: /ID: (\w+)/.exec(facts.lastToolResult)[1] } }) },
  ]);
  try {
    const first = JSON.parse((await post(api, { stream: false, messages: [user("go")] })).text);
    assert.deepEqual(first.content[0].input, { command: "start", run_in_background: true });
    const messages = [
      user("go"),
      { role: "assistant", content: first.content },
      user([{ type: "tool_result", tool_use_id: first.content[0].id, content: "Command running in background with ID: b42x. Output is..." }]),
    ];
    const second = JSON.parse((await post(api, { stream: false, messages })).text);
    assert.equal(second.content[0].name, "TaskStop");
    assert.deepEqual(second.content[0].input, { task_id: "b42x" });
  } finally {
    await api.close();
  }
});

test("records every request and answers the side paths", async () => {
  const api = await startFakeApi({ turns: [{ text: "Only turn." }] });
  try {
    assert.equal((await fetch(`${api.url}/`, { method: "HEAD" })).status, 200);
    assert.equal((await fetch(`${api.url}/v1/models`)).status, 404);
    const count = await post(api, { messages: [user("x")] }, "/v1/messages/count_tokens?beta=true");
    assert.deepEqual(JSON.parse(count.text), { input_tokens: 42 });
    const title = await post(api, {
      stream: false,
      tools: [],
      messages: [user("<session>x</session>")],
      output_config: { format: { type: "json_schema", schema: { properties: { title: { type: "string" } } } } },
    });
    assert.deepEqual(JSON.parse(JSON.parse(title.text).content[0].text), { title: "Fake session" });
    const reply = JSON.parse((await post(api, { stream: false, messages: [user("x")] })).text);
    assert.equal(reply.content[0].text, "Only turn.", "the title request used up no turn");
    assert.deepEqual(
      api.requests.map((r) => `${r.method} ${r.path}`),
      ["HEAD /", "GET /v1/models", "POST /v1/messages/count_tokens", "POST /v1/messages", "POST /v1/messages"],
    );
    assert.equal(api.messageRequests().length, 2);
    assert.equal(api.requests[3].query, "?beta=true");
  } finally {
    await api.close();
  }
});
