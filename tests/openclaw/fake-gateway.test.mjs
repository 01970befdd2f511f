// Tether's gateway client (the Rust core through its stdio bridge, the extension's ws transport)
// against a scripted fake gateway, for what the real one will not do on demand.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { openSession, shownText } from './driver.mjs';
import { SESSION, delta, final, startFakeGateway } from './fake-gateway.mjs';

const cleanup = [];
after(async () => {
  for (const stop of cleanup.reverse()) await stop().catch(() => {});
});

async function setup(script, options = {}) {
  const gateway = await startFakeGateway(script);
  cleanup.push(() => gateway.close());
  const session = await openSession({ url: gateway.url, options: { token: 'fake-token', ...options } });
  cleanup.push(() => session.stop());
  await session.watch(SESSION);
  return { gateway, session };
}

const dones = (events) => events.filter((e) => e.type === 'done');

test('a seq gap makes the client read the history again and catch up the missed text', async () => {
  const { session } = await setup(async (c) => {
    await c.handshake();
    c.event('chat', delta('r1', 'Hello', 'Hello'));
    c.event('chat', delta('r1', ' there', 'Hello there'));
    // Frames 3 and 4 never reach the client.
    c.event('tick', { ts: 1 }, 5);
    const history = await c.expect('chat.history');
    assert.equal(history.params.sessionKey, SESSION);
    c.reply(history, {
      sessionKey: SESSION,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello there, friend.' }], stopReason: 'stop', __openclaw: { runId: 'r1' } },
      ],
      sessionInfo: { activeRunIds: [] },
    });
  });
  await session.waitFor(() => dones(session.ui).length, 'the caught-up turn to end');
  assert.ok(session.logs.some((l) => l.includes('frames 3..4 were lost')), session.logs.join('\n'));
  assert.equal(shownText(session.ui), 'Hello there, friend.');
  assert.equal(dones(session.ui)[0].isError, false);
  assert.equal(session.histories.length, 1);
});

test('duplicate frames show their text once', async () => {
  const { session } = await setup(async (c) => {
    await c.handshake();
    const frames = [
      { type: 'event', event: 'chat', payload: delta('r1', 'one', 'one'), seq: 1 },
      { type: 'event', event: 'chat', payload: delta('r1', ' two', 'one two'), seq: 2 },
    ];
    for (const frame of [...frames, ...frames]) c.send(frame);
    c.send({ type: 'event', event: 'chat', payload: final('r1', 'one two'), seq: 3 });
    c.send({ type: 'event', event: 'chat', payload: final('r1', 'one two'), seq: 3 });
    // A repeated terminal event under a new seq (the gateway's second error) is dropped too.
    c.event('chat', { runId: 'r1', sessionKey: SESSION, state: 'error', errorMessage: 'late' }, 4);
  });
  await session.waitFor(() => session.logs.filter((l) => l.includes('duplicate frame')).length === 3, 'three duplicates dropped');
  assert.equal(shownText(session.ui), 'one two');
  assert.equal(dones(session.ui).length, 1);
  assert.ok(!session.ui.some((e) => e.type === 'error'));
});

test('replace rewrites the message instead of appending', async () => {
  const { session } = await setup(async (c) => {
    await c.handshake();
    c.event('chat', delta('r1', 'Draft', 'Draft'));
    c.event('chat', delta('r1', 'Better', 'Better', { replace: true }));
    c.event('chat', final('r1', 'Better answer'));
  });
  await session.waitFor(() => dones(session.ui).length, 'the turn to end');
  assert.deepEqual(session.replaced, [{ type: 'replaceText', messageId: 'r1', text: 'Better' }]);
  assert.equal(shownText(session.ui), 'Draft answer');
  assert.equal(dones(session.ui)[0].result, 'Better answer');
});

test('malformed frames are dropped with a reason and the turn goes on', async () => {
  const { session } = await setup(async (c) => {
    await c.handshake();
    for (const garbage of ['{', '[]', 'null', '{"type":"event"}', '{"type":"res","ok":true}', '{"type":"event","event":"chat","seq":"x"}', '\u0000\u0001', '{"type":"res","id":"nobody","ok":true}']) {
      c.raw(garbage);
    }
    c.socket.send(Buffer.from([0xde, 0xad]), { binary: true });
    c.event('chat', { runId: 5, state: 'delta' });
    c.event('chat', delta('r1', 'still here', 'still here'));
    c.event('chat', final('r1', 'still here'));
  });
  await session.waitFor(() => dones(session.ui).length, 'the turn to end');
  assert.equal(shownText(session.ui), 'still here');
  assert.equal(session.state, 'connected');
  const dropped = session.logs.filter((l) => l.startsWith('dropped a frame'));
  assert.ok(dropped.length >= 7, dropped.join('\n'));
  assert.ok(dropped.some((l) => l.includes('not JSON')));
  assert.ok(dropped.some((l) => l.includes('unknown request')));
});

test('a v3-only gateway is spoken to in protocol 3, with its kind events', async () => {
  const { gateway, session } = await setup(async (c) => {
    if (c.index === 0) {
      c.send({ type: 'event', event: 'connect.challenge', payload: { nonce: 'n', ts: 1 } });
      const connect = await c.expect('connect');
      assert.equal(connect.params.maxProtocol, 4);
      c.fail(connect, { code: 'INVALID_REQUEST', message: 'protocol mismatch', details: { code: 'PROTOCOL_MISMATCH', expectedProtocol: 3 } });
      c.close(1008, 'protocol mismatch');
      return;
    }
    const connect = await c.handshake({ protocol: 3 });
    assert.deepEqual([connect.params.minProtocol, connect.params.maxProtocol], [3, 3]);
    c.event('agent', { kind: 'text_delta', content: 'Reading ' });
    c.event('agent', { kind: 'tool_start', tool: 'readFile', id: 'tool-call-1', title: 'Reading src/main.ts', input: { path: 'src/main.ts' } });
    c.event('agent', { kind: 'tool_result', id: 'tool-call-1', output: 'file body', error: null });
    c.event('agent', { kind: 'text_delta', content: 'done.' });
    c.event('agent', { kind: 'done', stopReason: 'end_turn' });
  });
  await session.waitFor(() => dones(session.ui).length, 'the v3 turn to end');
  assert.equal(gateway.connections.length, 2);
  assert.equal(shownText(session.ui), 'Reading done.');
  assert.ok(session.ui.some((e) => e.type === 'toolCallResult' && e.content === 'file body'));
  assert.ok(session.states.some((s) => s.message?.includes('speaking protocol 3')));
});

test('a request without an answer times out, others are answered, and a slow hello still connects', async () => {
  const { session } = await setup(async (c) => {
    await c.handshake({ helloDelayMs: 1500 });
    const first = await c.expect('sessions.list');
    const second = await c.expect('health');
    c.reply(second, { ok: true });
    void first; // never answered
    await c.closed;
  });
  await session.connected();
  const started = Date.now();
  const [slow, quick] = await Promise.allSettled([
    session.request('sessions.list', {}, 1000),
    session.request('health', {}, 5000),
  ]);
  assert.equal(quick.status, 'fulfilled');
  assert.equal(slow.status, 'rejected');
  assert.equal(slow.reason.gateway.code, 'TIMEOUT');
  assert.ok(Date.now() - started >= 900, 'not before its time');
});

test('a shutdown announcing a restart is waited for before reconnecting', async () => {
  const { gateway, session } = await setup(async (c) => {
    await c.handshake();
    if (c.index === 0) {
      c.event('shutdown', { reason: 'restart', restartExpectedMs: 1500 });
      c.close(1012, 'service restart');
    }
  });
  await session.waitFor(() => gateway.connections.length === 2 && session.state === 'connected', 'the reconnect');
  const waited = gateway.connections[1].openedAt - gateway.connections[0].openedAt;
  assert.ok(waited >= 1400, `reconnected after ${waited} ms`);
  assert.ok(session.states.some((s) => s.message?.includes('the gateway restarts')));
});

test('a gateway still starting is tried again, and a manual disconnect stops the tries', async () => {
  const { gateway, session } = await setup(async (c) => {
    c.send({ type: 'event', event: 'connect.challenge', payload: { nonce: 'n', ts: 1 } });
    const connect = await c.expect('connect');
    c.fail(connect, { code: 'UNAVAILABLE', message: 'gateway starting; retry shortly', retryable: true, retryAfterMs: 500, details: { reason: 'startup-sidecars' } });
    c.close(1013, 'starting');
  });
  await session.waitFor(() => gateway.connections.length >= 2, 'a second try');
  await session.run({ op: 'disconnect' });
  const tries = gateway.connections.length;
  await session.waitFor(() => session.state === 'disconnected', 'disconnected', 10_000);
  await new Promise((resolve) => setTimeout(resolve, 2500));
  assert.equal(gateway.connections.length, tries, 'no try after the disconnect');
});
