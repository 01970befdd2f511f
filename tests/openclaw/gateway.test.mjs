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
  assert.match(shownText(events), /The tool said: hello from the workspace file$/);
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

test('after a gateway crash mid-turn the text shown stays once, the turn is interrupted and the history matches', async () => {
  // A prompt backoff, so the client is back soon after the gateway is (the backoff itself is
  // tested in crate/tests/openclaw_protocol.rs).
  const s = await session({ backoff: { baseMs: 1000, capMs: 3000, maxTries: 60 } });
  await s.connected();
  await s.watch(key('restart'));
  const from = s.ui.length;
  await s.call({ op: 'send', text: 'SLOWTEST keep going', idempotencyKey: crypto.randomUUID() });
  await s.waitFor(() => s.ui.slice(from).filter((e) => e.type === 'textDelta').length >= 3, 'three deltas');
  const restarted = Date.now();
  await gateway.crash();
  timings.restartMs = await gateway.start();
  await keepingFrames(s, 'restart', async () => {
    await s.waitFor(() => s.state === 'connected' && s.histories.length > 0, 'the reconnect and its resync', 120_000);
    await s.waitFor(() => dones(s.ui.slice(from)).length > 0, 'the turn to end');
  });
  timings.reconnectMs = Date.now() - restarted;
  const events = s.ui.slice(from);
  assert.equal(dones(events).length, 1);
  assert.ok(events.some((e) => e.type === 'error' && e.kind === 'interrupted'), 'marked interrupted');
  const shown = shownText(events);
  assert.ok(shown.length > 0 && SLOW_REPLY.startsWith(shown), `shown once, in order: ${shown}`);
  assert.deepEqual(s.replaced, []);
  // What the gateway kept of the turn is what Tether shows (or it kept nothing of the reply).
  const history = s.histories.at(-1);
  const assistant = history.messages.filter((m) => m.role === 'assistant');
  timings.crashShownWords = shown.split(' ').length;
  timings.crashHistoryAssistantWords = assistant.map((m) => m.text.split(' ').length);
  for (const message of assistant) assert.ok(shown.startsWith(message.text) || message.text.startsWith(shown), message.text);
  assert.ok(history.messages.some((m) => m.role === 'user' && m.text === 'SLOWTEST keep going'));
  // And the client goes on. (In the crashed session itself the gateway now runs a turn of its
  // own, "[System] Your previous turn was interrupted by a gateway restart…", and steers a new
  // message into it: a chat.send there ends at once with an empty final.)
  await s.watch(key('after-restart'));
  const next = await keepingFrames(s, 'after-restart', async () => {
    const events = await s.turn('Say hello please.');
    assert.equal(shownText(events), REPLY, JSON.stringify(events.map((e) => e.type)));
    return events;
  });
  assert.equal(dones(next).length, 1);
});

test('a node is paired by an operator, and the agent runs its command there after Tether allows it', async () => {
  const { DeviceKey } = loadHost();
  const invoked = [];
  let allow = true;
  const node = await session(
    { role: 'node', displayName: 'Tether test workspace' },
    {
      deviceKey: await DeviceKey.load(new MemoryStore()),
      onNodeInvoke: async (command) => {
        invoked.push(command);
        switch (command.command) {
          case 'system.run.prepare':
            return allow
              ? { plan: { argv: command.argv, cwd: command.cwd, commandText: command.rawCommand ?? command.argv.join(' ') } }
              : { error: { code: 'SYSTEM_RUN_DENIED', message: 'the user refused' } };
          case 'system.run': {
            const [file, ...args] = command.argv;
            try {
              const { stdout, stderr } = await promisify(execFile)(file, args, { timeout: 20_000 });
              return { run: { exitCode: 0, timedOut: false, stdout, stderr } };
            } catch (error) {
              return { run: { exitCode: error.code ?? 1, timedOut: false, stdout: error.stdout ?? '', stderr: error.stderr ?? String(error) } };
            }
          }
          case 'system.which':
            return { bins: {} };
          default:
            return { error: { code: 'UNSUPPORTED', message: command.command } };
        }
      },
    },
  );
  await node.connected('the node connected');
  const operator = await session({
    scopes: ['operator.read', 'operator.write', 'operator.admin', 'operator.pairing', 'operator.approvals'],
  });
  await operator.connected();
  // Pairing stage 2: the node's command surface waits for an operator's approval.
  let entry;
  for (let tries = 0; tries < 40 && !entry?.pendingRequestId; tries++) {
    const listed = await operator.request('node.list', {});
    entry = listed.nodes?.find((n) => n.clientId === 'node-host' && n.connected);
    if (!entry?.pendingRequestId) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.ok(entry?.pendingRequestId, `a pending surface request: ${JSON.stringify(entry)}`);
  assert.ok(entry.pendingDeclaredCommands.includes('system.run'));
  await operator.request('node.pair.approve', { requestId: entry.pendingRequestId });
  const approved = (await operator.request('node.list', {})).nodes.find((n) => n.nodeId === entry.nodeId);
  assert.ok(approved.commands.includes('system.run'), JSON.stringify(approved));

  await operator.watch(key('node'));
  const events = await keepingFrames(operator, 'node', () => operator.turn('EXECTEST run it on the node'));
  const call = events.find((e) => e.type === 'toolCallStart');
  assert.equal(call.name, 'exec');
  assert.equal(call.kind, 'execute');
  const result = events.find((e) => e.type === 'toolCallResult' && e.id === call.id);
  assert.equal(result.isError, false, result.content);
  assert.match(result.content, /hi-from-node\nLinux/);
  const prepare = invoked.find((c) => c.command === 'system.run.prepare');
  const run = invoked.find((c) => c.command === 'system.run');
  assert.deepEqual(run.argv, prepare.argv);
  assert.equal(prepare.rawCommand, EXEC_COMMAND);

  // A refusal in Tether reaches the agent as a denial, and nothing runs.
  allow = false;
  const runsBefore = invoked.filter((c) => c.command === 'system.run').length;
  const denied = await keepingFrames(operator, 'node-denied', () => operator.turn('EXECTEST once more'));
  const deniedResult = denied.find((e) => e.type === 'toolCallResult');
  assert.equal(deniedResult.isError, true);
  assert.match(deniedResult.content, /denied/i);
  assert.equal(invoked.filter((c) => c.command === 'system.run').length, runsBefore);
});
