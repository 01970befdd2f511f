// Tether's gateway client (the Rust core through its stdio bridge, the extension's ws transport
// and device key) against the real OpenClaw gateway, openclaw@2026.9.6 under Node 24, on
// 127.0.0.1 with a scripted fake model API. ./build.sh test installs both (TETHER_NODE24,
// TETHER_OPENCLAW).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { repo } from './bridge.mjs';
import { openSession, shownText } from './driver.mjs';
import { EXEC_COMMAND, REPLY, SLOW_REPLY } from './fake-llm.mjs';
import { TOKEN, startGateway } from './gateway.mjs';
import { MemoryStore, loadHost } from './host.mjs';

let gateway;
const sessions = [];
const timings = {};

before(async () => {
  const started = Date.now();
  gateway = await startGateway();
  timings.firstStartMs = Date.now() - started;
});

after(async () => {
  for (const session of sessions) await session.stop().catch(() => {});
  await gateway?.close();
  console.log(`# gateway timings: ${JSON.stringify(timings)}`);
});

/** A session that the suite stops at the end; its frames are saved when a test fails. */
async function session(options, extra = {}) {
  const s = await openSession({ url: gateway.url, options: { token: TOKEN, ...options }, ...extra });
  sessions.push(s);
  return s;
}

/** Run `body`; on failure keep the frames the session saw, for the log. */
async function keepingFrames(s, name, body) {
  try {
    return await body();
  } catch (error) {
    const file = join(repo, 'target', 'test-logs', `openclaw-${name}.frames.jsonl`);
    try {
      writeFileSync(file, s.frames.join('\n'));
      error.message += ` (frames: ${file})`;
    } catch {
      // no log folder
    }
    throw error;
  }
}

const key = (name) => `tether-${name}-${Math.random().toString(16).slice(2, 10)}`;
const dones = (events) => events.filter((e) => e.type === 'done');

test('a signed device keeps its scopes as a ui client and gets a device token to reconnect with', async () => {
  const { DeviceKey } = loadHost();
  const store = new MemoryStore();
  const deviceKey = await DeviceKey.load(store);
  // Without a device, openclaw-linux/ui connects with no scopes; with one it keeps them.
  const s = await session({ clientId: 'openclaw-linux', clientMode: 'ui' }, { deviceKey });
  await s.connected();
  const token = await s.waitFor(() => s.deviceToken, 'a device token');
  const listed = await s.request('sessions.list', { limit: 5 });
  assert.ok(Array.isArray(listed.sessions));
  // The stored token alone (no shared token), signed the same way, connects again.
  const again = await openSession({
    url: gateway.url,
    options: { deviceToken: token, clientId: 'openclaw-linux', clientMode: 'ui' },
    deviceKey: await DeviceKey.load(store),
  });
  sessions.push(again);
  await again.connected();
  assert.ok(Array.isArray((await again.request('sessions.list', { limit: 1 })).sessions));
});

test('a streamed turn shows the reply once, as the history then has it', async () => {
  const s = await session({});
  await s.connected();
  const name = key('stream');
  await s.watch(name);
  const events = await keepingFrames(s, 'stream', () => s.turn('Say hello please.'));
  assert.equal(shownText(events), REPLY);
  assert.equal(dones(events).length, 1);
  assert.equal(dones(events)[0].isError, false);
  assert.equal(dones(events)[0].sessionId, `agent:main:${name}`);
  assert.ok(events.some((e) => e.type === 'activity' && e.activity === 'starting_model'), 'status phases shown');
  await s.call({ op: 'history', limit: 20 });
  const history = await s.waitFor(() => s.histories.at(-1), 'the history');
  assert.deepEqual(
    history.messages.map((m) => [m.role, m.text]),
    [
      ['user', 'Say hello please.'],
      ['assistant', REPLY],
    ],
  );
});

test("a tool turn shows the gateway agent's read and its result", async () => {
  const s = await session({});
  await s.connected();
  await s.watch(key('tool'));
  const events = await keepingFrames(s, 'tool', () => s.turn('TOOLTEST: what does HELLO.txt say?'));
  const start = events.find((e) => e.type === 'toolCallStart');
  assert.equal(start.name, 'read');
  assert.equal(start.kind, 'read');
  assert.equal(start.title, 'Read from HELLO.txt');
  assert.deepEqual(events.find((e) => e.type === 'toolCallUpdate')?.input, { path: 'HELLO.txt' });
  const result = events.find((e) => e.type === 'toolCallResult');
  assert.equal(result.id, start.id);
  assert.equal(result.isError, false);
  assert.equal(result.content, 'hello from the workspace file\n');
  assert.equal(shownText(events), 'The tool said: hello from the workspace file');
  assert.ok(events.some((e) => e.type === 'activity' && e.activity === 'Let me check.'), 'the preamble shown');
});

test('abort stops a slow turn and keeps what was shown', async () => {
  const s = await session({});
  await s.connected();
  await s.watch(key('abort'));
  const from = s.ui.length;
  await s.call({ op: 'send', text: 'SLOWTEST count slowly', idempotencyKey: crypto.randomUUID() });
  await s.waitFor(() => s.ui.slice(from).filter((e) => e.type === 'textDelta').length >= 2, 'two deltas');
  await s.call({ op: 'abort' });
  await keepingFrames(s, 'abort', () => s.waitFor(() => dones(s.ui.slice(from)).length, 'the aborted turn to end'));
  const events = s.ui.slice(from);
  const done = dones(events)[0];
  assert.equal(done.isError, true);
  assert.equal(done.stopReason, 'rpc');
  assert.ok(events.some((e) => e.type === 'error' && e.kind === 'interrupted'));
  const shown = shownText(events);
  assert.ok(shown.length > 0 && SLOW_REPLY.startsWith(shown), shown);
  assert.ok(shown.length < SLOW_REPLY.length, 'stopped before the end');
});

test('a wrong token is a clear error, with no reconnect storm', async () => {
  const s = await session({ token: 'not-the-token' });
  const state = await s.waitFor(() => (s.state === 'error' ? s.states.at(-1) : undefined), 'the error state');
  assert.match(state.message, /gateway token mismatch/);
  assert.match(state.message, /AUTH_TOKEN_MISMATCH/);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(s.opens, 1, 'one socket, no retries');
  assert.equal(s.state, 'error');
});
