// A scripted OpenAI-compatible model API for the gateway (POST /v1/chat/completions, streamed),
// on 127.0.0.1. The newest user message picks the reply: TOOLTEST reads HELLO.txt with the
// gateway's `read` tool, EXECTEST runs a command on the node (`exec` host=node), FETCHTEST reads a
// file on the node (the deferred `file_fetch` through `tool_call`; "FETCHTEST node=NAME path=PATH"),
// SLOWTEST streams slowly (for abort and restart), ERRORTEST fails with HTTP 400; anything else
// streams REPLY.
import { createServer } from 'node:http';

export const REPLY = 'Hello from the fake LLM. This reply was streamed token by token.';
export const SLOW_REPLY = Array.from({ length: 40 }, (_, n) => `slow${n + 1}`).join(' ') + '.';
/** Writes a file, so Tether's permission engine asks before it runs (default mode). */
export const EXEC_COMMAND = 'echo hi-from-node > node-proof.txt && cat node-proof.txt && uname -s';
const INTERNAL = '<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>';

function text(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => part?.text ?? '').join('');
  return '';
}

/** The reply script for a request body. */
export function script(body) {
  const messages = body.messages ?? [];
  // The gateway adds an internal-context user message after the user's own (and again after a
  // tool result), so the asking message is the newest user message without it.
  const asking = messages.findLastIndex((m) => m.role === 'user' && !text(m.content).includes(INTERNAL));
  const asked = text(messages[asking]?.content);
  const toolResult = messages.slice(asking + 1).findLast((m) => m.role === 'tool');
  if (toolResult) {
    const result = text(toolResult.content).trim().split('\n').filter(Boolean).at(-1) ?? '';
    return { words: `The tool said: ${result}`.split(' '), delayMs: 5 };
  }
  if (asked.includes('ERRORTEST')) return { status: 400 };
  if (asked.includes('TOOLTEST')) return { preamble: 'Let me check.', tool: { name: 'read', args: { path: 'HELLO.txt' } } };
  if (asked.includes('EXECTEST')) {
    return { preamble: 'Running it on the node.', tool: { name: 'exec', args: { command: EXEC_COMMAND, host: 'node' } } };
  }
  if (asked.includes('FETCHTEST')) {
    const node = /node=(\S+)/.exec(asked)?.[1];
    const path = /path=(\S+)/.exec(asked)?.[1];
    return { preamble: 'Fetching it from the node.', tool: { name: 'tool_call', args: { id: 'file_fetch', args: { node, path } } } };
  }
  if (asked.includes('SLOWTEST')) return { words: SLOW_REPLY.split(' '), delayMs: 250 };
  return { words: REPLY.split(' '), delayMs: 15 };
}

export async function startFakeLlm() {
  const requests = [];
  let calls = 0;
  const server = createServer(async (req, res) => {
    if (req.method === 'GET' && req.url.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model' }] }));
      return;
    }
    let raw = '';
    for await (const chunk of req) raw += chunk;
    let body = {};
    try {
      body = JSON.parse(raw);
    } catch {
      // an empty or broken body gets the default reply
    }
    requests.push({ url: req.url, messages: body.messages?.length ?? 0, tools: body.tools?.length ?? 0 });
    const plan = script(body);
    if (plan.status) {
      res.writeHead(plan.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'fake: rejected on purpose', type: 'invalid_request_error' } }));
      return;
    }
    const id = `chatcmpl-fake-${++calls}`;
    const chunk = (delta, finish = null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    let closed = false;
    res.on('close', () => (closed = true));
    const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    res.write(chunk({ role: 'assistant', content: '' }));
    let finish = 'stop';
    if (plan.tool) {
      res.write(chunk({ content: plan.preamble }));
      res.write(chunk({ tool_calls: [{ index: 0, id: `call_fake_${calls}`, type: 'function', function: { name: plan.tool.name, arguments: JSON.stringify(plan.tool.args) } }] }));
      finish = 'tool_calls';
    } else {
      for (const [n, word] of plan.words.entries()) {
        if (closed) return;
        res.write(chunk({ content: (n ? ' ' : '') + word }));
        await pause(plan.delayMs);
      }
    }
    if (closed) return;
    res.write(chunk({}, finish));
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } })}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
