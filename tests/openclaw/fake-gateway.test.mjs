// Tether's OpenClaw backend (the core in the wasm, behind the session driver, with the
// extension's ws transport) against a scripted fake gateway, for what the real one will not do
// on demand: seq gaps, duplicates, replace, malformed and hostile frames, a v3-only server, slow
// and lost answers, history pages, the canvas.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { dones, openSession, shownText } from './driver.mjs';
import { SESSION, delta, final, startFakeGateway } from './fake-gateway.mjs';

const cleanup = [];
after(async () => {
  for (const stop of cleanup.reverse()) await stop().catch(() => {});
});

/** A fake gateway running `script` per connection, and a session on it showing SESSION. */
async function setup(script, options = {}) {
  const gateway = await startFakeGateway(script);
  cleanup.push(() => gateway.close());
  const session = await openSession({ url: gateway.url, token: 'fake-token', resume: SESSION, ...options });
  cleanup.push(() => session.stop());
  return { gateway, session };
}

/** The first connection's history read (the resumed session's transcript), answered empty. */
async function answerTranscript(c, messages = []) {
  const history = await c.expect('chat.history');
  c.reply(history, { sessionKey: SESSION, messages, hasMore: false, sessionInfo: { activeRunIds: [] } });
}

const gatewayLogs = (session, text) => session.logs.filter((l) => l.includes(text));

/** Poll `predicate` (for what only the fake gateway sees). */
async function until(predicate, label, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a seq gap makes the client read the history again and catch up the missed text', async () => {
  const { session } = await setup(async (c) => {
    await c.handshake();
    await answerTranscript(c);
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
  assert.ok(gatewayLogs(session, 'frames 3..4 were lost').length, session.logs.join('\n'));
  assert.equal(shownText(session.ui), 'Hello there, friend.');
  assert.equal(dones(session.ui)[0].isError, false);
});

test('duplicate frames show their text once', async () => {
  const { session } = await setup(async (c) => {
    await c.handshake();
    await answerTranscript(c);
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
  await session.waitFor(() => gatewayLogs(session, 'duplicate frame').length === 3, 'three duplicates dropped');
  assert.equal(shownText(session.ui), 'one two');
  assert.equal(dones(session.ui).length, 1);
  assert.ok(!session.ui.some((e) => e.type === 'error'));
});

test('replace rewrites the message instead of appending', async () => {
  const { session } = await setup(async (c) => {
    await c.handshake();
    await answerTranscript(c);
    c.event('chat', delta('r1', 'Draft', 'Draft'));
    c.event('chat', delta('r1', 'Better', 'Better', { replace: true }));
    c.event('chat', final('r1', 'Better answer'));
  });
  await session.waitFor(() => dones(session.ui).length, 'the turn to end');
  assert.deepEqual(
    session.ui.filter((e) => e.type === 'messageReplace'),
    [{ type: 'messageReplace', messageId: 'r1', text: 'Better' }],
  );
  assert.equal(shownText(session.ui), 'Draft answer');
  assert.equal(dones(session.ui)[0].result, 'Better answer');
});

test('malformed frames are dropped with a reason and the turn goes on', async () => {
  const { session } = await setup(async (c) => {
    await c.handshake();
    await answerTranscript(c);
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
  assert.equal(session.state(), 'connected');
  const dropped = gatewayLogs(session, 'dropped a frame');
  assert.ok(dropped.length >= 7, dropped.join('\n'));
  assert.ok(dropped.some((l) => l.includes('not JSON')));
  assert.ok(dropped.some((l) => l.includes('unknown request')));
});

test('hostile frames each get a clear reason and leave the session working', async () => {
  const deep = '['.repeat(10_000) + ']'.repeat(10_000);
  const { session } = await setup(async (c) => {
    await c.handshake();
    await answerTranscript(c);
    const hostile = [
      // Nesting deeper than the JSON parser follows.
      deep,
      // Over the policy's 1 MiB payload limit (fake hello).
      JSON.stringify({ type: 'event', event: 'chat', payload: delta('r9', 'x', 'x'.repeat(1_100_000)), seq: 1 }),
      // A second hello-ok, an answer to the handshake that already ended.
      JSON.stringify({ type: 'res', id: 'connect-1', ok: true, payload: { type: 'hello-ok', protocol: 4 } }),
      // Seq counters that are not counters.
      JSON.stringify({ type: 'event', event: 'chat', payload: {}, seq: -1 }),
      JSON.stringify({ type: 'event', event: 'chat', payload: {}, seq: 1e300 }),
      // A request from the gateway, and a node command sent to an operator.
      JSON.stringify({ type: 'req', id: 'x', method: 'system.run', params: { command: ['rm', '-rf', '/'] } }),
      // Types that are not what the fields hold.
      JSON.stringify({ type: 'event', event: 'chat', payload: { runId: ['r'], sessionKey: {}, state: 7 } }),
      JSON.stringify({ type: 'event', event: 'agent', payload: { runId: 'r8', sessionKey: SESSION, stream: 'tool', data: { phase: 'start', toolCallId: 42, args: 'x' } } }),
      JSON.stringify({ type: 'event', event: 'connect.challenge', payload: { nonce: 'again', ts: 1 } }),
    ];
    for (const frame of hostile) c.raw(frame);
    c.event('chat', delta('r1', 'still answering', 'still answering'));
    c.event('chat', final('r1', 'still answering'));
  });
  await session.waitFor(() => dones(session.ui).some((d) => d.result === 'still answering'), 'the turn after the hostile frames');
  assert.equal(session.state(), 'connected');
  const dropped = gatewayLogs(session, 'dropped a frame');
  assert.ok(dropped.some((l) => /not JSON: recursion limit/.test(l)), dropped.join('\n'));
  assert.ok(dropped.some((l) => /exceeds the 1048576-byte limit/.test(l)));
  assert.ok(dropped.some((l) => /seq -1 is not a counter/.test(l)));
  assert.ok(dropped.some((l) => /request "system.run" from the gateway/.test(l)));
  assert.ok(dropped.some((l) => /connect.challenge outside the handshake/.test(l)));
  assert.ok(!session.ui.some((e) => e.type === 'permissionRequest'), 'nothing ran or asked');
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
    await answerTranscript(c);
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
  assert.ok(session.states().some((s) => s.message?.includes('speaking protocol 3')));
});

test('slow answers: a hello after 1.5 s still connects, and a chat.send answered late still ends its turn', async () => {
  const { session } = await setup(async (c) => {
    await c.handshake({ helloDelayMs: 1500 });
    await answerTranscript(c);
    const send = await c.expect('chat.send');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    c.reply(send, { runId: send.params.idempotencyKey, status: 'started' });
    c.event('chat', delta(send.params.idempotencyKey, 'late but here', 'late but here'));
    c.event('chat', final(send.params.idempotencyKey, 'late but here'));
  });
  await session.connected();
  const { events, outcome } = await session.turn('Hello?');
  assert.equal(outcome.ok, true);
  assert.equal(shownText(events), 'late but here');
});

test('a send whose answer was lost with the connection is sent again with the same idempotency key and runs once', async () => {
  const keys = [];
  const { session } = await setup(
    async (c) => {
      await c.handshake();
      if (c.index === 0) {
        await answerTranscript(c);
        const send = await c.expect('chat.send');
        keys.push(send.params.idempotencyKey);
        // The gateway took it and ran it, but the answer and the run's frames are lost.
        c.socket.terminate();
        return;
      }
      const send = await c.expect('chat.send');
      keys.push(send.params.idempotencyKey);
      // A replay: the gateway starts nothing and says so.
      c.reply(send, { runId: send.params.idempotencyKey, status: 'ok' });
      // Two reads of the history: the resync after the reconnect, and the replayed run's.
      for (let read = 0; read < 2; read++) {
        const history = await c.expect('chat.history');
        c.reply(history, {
          sessionKey: SESSION,
          messages: [
            { role: 'user', content: 'Once, please.' },
            { role: 'assistant', content: [{ type: 'text', text: 'Ran once.' }], stopReason: 'stop', __openclaw: { runId: send.params.idempotencyKey } },
          ],
          sessionInfo: { activeRunIds: [] },
        });
      }
    },
    { backoff: { baseMs: 200, capMs: 400, maxTries: 5 } },
  );
  await session.connected();
  const { events, outcome } = await session.turn('Once, please.');
  assert.equal(outcome.ok, true);
  assert.equal(keys.length, 2);
  assert.equal(keys[0], keys[1], 'the same idempotency key both times');
  assert.equal(shownText(events), 'Ran once.');
  assert.equal(dones(events).length, 1);
});

test("history comes in pages: the newest first, older ones with the gateway's offset", async () => {
  const message = (role, text) => ({ role, content: role === 'user' ? text : [{ type: 'text', text }] });
  const { session } = await setup(async (c) => {
    await c.handshake();
    const newest = await c.expect('chat.history');
    assert.equal(newest.params.offset, undefined);
    c.reply(newest, { sessionKey: SESSION, messages: [message('user', 'third'), message('assistant', 'fourth')], hasMore: true, nextOffset: 2 });
    const older = await c.expect('chat.history');
    assert.equal(older.params.offset, 2);
    c.reply(older, { sessionKey: SESSION, messages: [message('user', 'first'), message('assistant', 'second')], hasMore: false });
  });
  const first = await session.waitFor(() => session.ui.find((e) => e.type === 'transcript'), 'the newest page');
  assert.deepEqual(first.messages.map((m) => m.text), ['third', 'fourth']);
  assert.equal(first.hasMore, true);
  assert.equal(first.older, false);
  session.driver.operate({ op: 'command', name: 'historyOlder', args: {} });
  const older = await session.waitFor(() => session.ui.find((e) => e.type === 'transcript' && e.older), 'the older page');
  assert.deepEqual(older.messages.map((m) => m.text), ['first', 'second']);
  assert.equal(older.hasMore, false);
});

test("the canvas shows the session's board with widget pages on the gateway's origin only, and A2UI surfaces", async () => {
  const { gateway, session } = await setup(async (c) => {
    c.taken.add('board.get');
    await c.handshake();
    await answerTranscript(c);
    const empty = await c.expect('board.get');
    c.reply(empty, { sessionKey: SESSION, revision: 0, tabs: [], widgets: [] });
    c.event('board.changed', { sessionKey: SESSION, revision: 1, widget: 'chart' });
    const board = await c.expect('board.get');
    c.reply(board, {
      sessionKey: SESSION,
      revision: 1,
      tabs: [],
      widgets: [
        { name: 'chart', title: 'Chart', contentKind: 'html', revision: 1, frameUrl: '/__openclaw__/board/x/chart/index.html?bt=t', viewTicket: 't' },
        { name: 'evil', contentKind: 'html', revision: 1, frameUrl: 'https://evil.example/page.html' },
      ],
    });
    c.event('agent', { kind: 'a2ui', payload: { type: 'createSurface', surface: { id: 's1', title: 'Results' }, components: [{ id: 'c1', type: 'Text', props: { text: 'Done' } }] } });
    c.event('agent', { kind: 'a2ui', payload: { type: 'updateDataModel', surfaceId: 's1', pointer: '/results', value: [{ status: 'running' }] } });
    c.event('agent', { kind: 'a2ui', payload: { type: 'updateDataModel', surfaceId: 's1', pointer: '/results/0', value: { status: 'done' } } });
    const action = await c.expect('board.event');
    c.reply(action, { ok: true, appended: true });
    assert.deepEqual(action.params, { ticket: 't', payload: { action: 'go' } });
  });
  const boards = () => session.ui.filter((e) => e.type === 'canvas' && e.update.kind === 'board');
  await session.waitFor(() => boards().some((b) => b.update.revision === 1), 'the changed board');
  const [chart, evil] = boards().at(-1).update.widgets;
  assert.equal(chart.frameUrl, `${gateway.url.replace('ws://', 'http://')}/__openclaw__/board/x/chart/index.html?bt=t`);
  assert.equal(evil.frameUrl, null, 'a page elsewhere is not offered');
  const data = await session.waitFor(() => session.ui.filter((e) => e.type === 'canvas' && e.update.kind === 'surfaceData')[1], 'the data model');
  assert.deepEqual(data.update.model, { results: [{ status: 'done' }] });
  assert.ok(session.ui.some((e) => e.type === 'canvas' && e.update.kind === 'surface' && e.update.title === 'Results'));
  session.driver.operate({ op: 'command', name: 'canvasAction', args: { kind: 'widgetCall', widget: 'chart', callId: 'c1', method: 'state.emit', params: { payload: { action: 'go' } } } });
  await until(() => gateway.connections[0].requests.some((r) => r.method === 'board.event'), 'the widget action');
  const reply = await session.waitFor(() => session.ui.find((e) => e.type === 'canvas' && e.update.kind === 'widgetReply'), "the widget's answer");
  assert.deepEqual(reply.update, { kind: 'widgetReply', widget: 'chart', callId: 'c1', ok: true, result: { ok: true, appended: true }, error: null });
  assert.deepEqual(gateway.errors, []);
});

test('a shutdown announcing a restart is waited for before reconnecting', async () => {
  const { gateway, session } = await setup(async (c) => {
    await c.handshake();
    if (c.index === 0) {
      c.event('shutdown', { reason: 'restart', restartExpectedMs: 1500 });
      c.close(1012, 'service restart');
    }
  });
  await session.waitFor(() => gateway.connections.length === 2 && session.state() === 'connected', 'the reconnect');
  const waited = gateway.connections[1].openedAt - gateway.connections[0].openedAt;
  assert.ok(waited >= 1400, `reconnected after ${waited} ms`);
  assert.ok(session.states().some((s) => s.message?.includes('the gateway restarts')));
});

test('a gateway still starting is tried again, and a manual disconnect stops the tries', async () => {
  const { gateway, session } = await setup(async (c) => {
    c.send({ type: 'event', event: 'connect.challenge', payload: { nonce: 'n', ts: 1 } });
    const connect = await c.expect('connect');
    c.fail(connect, { code: 'UNAVAILABLE', message: 'gateway starting; retry shortly', retryable: true, retryAfterMs: 500, details: { reason: 'startup-sidecars' } });
    c.close(1013, 'starting');
  });
  await session.waitFor(() => gateway.connections.length >= 2, 'a second try');
  session.driver.operate({ op: 'command', name: 'disconnect', args: {} });
  const tries = gateway.connections.length;
  await session.waitFor(() => session.state() === 'disconnected', 'disconnected', 10_000);
  await new Promise((resolve) => setTimeout(resolve, 2500));
  assert.equal(gateway.connections.length, tries, 'no try after the disconnect');
});
