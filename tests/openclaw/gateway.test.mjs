// Tether's OpenClaw backend (the core in the wasm, behind the session driver, with the
// extension's ws transport and device keys) against the real gateway, openclaw@2026.9.6 under
// Node 24, on 127.0.0.1 with a scripted fake model API; and the same through dist/tether-cli.js.
// ./build.sh test installs both (TETHER_NODE24, TETHER_OPENCLAW). One gateway serves the suite;
// it allows file.fetch and lets the File Transfer plugin read the suite's node workspace.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { dones, openSession, shownText } from './driver.mjs';
import { EXEC_COMMAND, REPLY, SLOW_REPLY } from './fake-llm.mjs';
import { TOKEN, bareClient, startGateway } from './gateway.mjs';
import { MemoryStore, loadHost, repo } from './host.mjs';

let gateway;
let nodeWorkspace;
const sessions = [];
const timings = {};

before(async () => {
  nodeWorkspace = mkdtempSync(join(tmpdir(), 'tether-openclaw-node-'));
  writeFileSync(join(nodeWorkspace, 'notes.txt'), 'notes kept in the node workspace\n');
  const started = Date.now();
  gateway = await startGateway({
    allowCommands: ['file.fetch'],
    fileTransferNodes: { '*': { ask: 'off', allowReadPaths: [`${nodeWorkspace}/**`] } },
  });
  timings.firstStartMs = Date.now() - started;
});

after(async () => {
  for (const session of sessions) await session.stop().catch(() => {});
  await gateway?.close();
  rmSync(nodeWorkspace, { recursive: true, force: true });
  console.log(`# gateway timings: ${JSON.stringify(timings)}`);
});

/** A session the suite stops at the end; on failure its UI events are saved for the log. */
async function session(options = {}) {
  const s = await openSession({ url: gateway.url, token: TOKEN, ...options });
  sessions.push(s);
  return s;
}

async function keepingEvents(s, name, body) {
  try {
    return await body();
  } catch (error) {
    const file = join(repo, 'target', 'test-logs', `openclaw-${name}.events.jsonl`);
    try {
      writeFileSync(file, [...s.ui.map((e) => JSON.stringify(e)), ...s.logs.map((l) => JSON.stringify({ log: l }))].join('\n'));
      error.message += ` (events: ${file})`;
    } catch {
      // no log folder
    }
    throw error;
  }
}

test('a streamed turn shows the reply once, under the canonical session key, and the history matches it', async () => {
  const s = await session();
  await s.connected();
  const { events, outcome } = await keepingEvents(s, 'stream', () => s.turn('Say hello please.'));
  assert.equal(outcome.ok, true);
  assert.equal(shownText(events), REPLY);
  assert.equal(dones(events).length, 1);
  assert.match(s.sessionKey, /^agent:main:tether-/);
  assert.equal(dones(events)[0].sessionId, s.sessionKey);
  assert.ok(events.some((e) => e.type === 'activity' && e.activity === 'starting_model'), 'status phases shown');
  assert.ok(events.some((e) => e.type === 'usage' && e.outputTokens > 0));
  const transcript = await s.load(s.sessionKey);
  assert.deepEqual(
    transcript.messages.map((m) => [m.role, m.text]),
    [
      ['user', 'Say hello please.'],
      ['assistant', REPLY],
    ],
  );
  assert.equal(transcript.hasMore, false);
});

test("a tool turn shows the gateway agent's read and its result", async () => {
  const s = await session();
  await s.connected();
  const { events } = await keepingEvents(s, 'tool', () => s.turn('TOOLTEST: what does HELLO.txt say?'));
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
  const s = await session();
  await s.connected();
  const from = s.ui.length;
  const turn = s.turn('SLOWTEST count slowly');
  await s.waitFor(() => s.ui.slice(from).filter((e) => e.type === 'textDelta').length >= 2, 'two deltas');
  s.driver.operate({ op: 'interrupt' });
  const { events, outcome } = await keepingEvents(s, 'abort', () => turn);
  assert.equal(outcome.ok, false);
  assert.equal(dones(events)[0].stopReason, 'rpc');
  assert.ok(events.some((e) => e.type === 'error' && e.kind === 'interrupted'));
  const shown = shownText(events);
  assert.ok(shown.length > 0 && SLOW_REPLY.startsWith(shown), shown);
  assert.ok(shown.length < SLOW_REPLY.length, 'stopped before the end');
});

test('sessions: a new session is created and listed, and switching back shows the first one', async () => {
  const s = await session();
  await s.connected();
  await s.turn('Say hello please.');
  const first = s.sessionKey;
  s.driver.operate({ op: 'new' });
  await s.waitFor(() => s.sessionKey !== first && s.sessionKey?.startsWith('agent:'), 'the new session');
  const { events } = await s.turn('Say hello please.');
  const second = dones(events)[0].sessionId;
  assert.notEqual(second, first);
  assert.equal(second, s.sessionKey);
  const from = s.ui.length;
  s.driver.operate({ op: 'list' });
  const list = await s.waitFor(() => s.ui.slice(from).find((e) => e.type === 'sessionList'), 'the session list');
  const ids = list.sessions.map((row) => row.id);
  assert.ok(ids.includes(first) && ids.includes(second), JSON.stringify(ids));
  const transcript = await s.load(first);
  assert.equal(transcript.sessionId, first);
  assert.deepEqual(transcript.messages.map((m) => m.role), ['user', 'assistant']);
  // The next message goes to the session switched to.
  const again = await s.turn('Say hello please.');
  assert.equal(dones(again.events)[0].sessionId, first);
});

test('the device token the gateway issues is kept per gateway and connects without the shared token', async () => {
  const { gatewaySecretName } = loadHost();
  const secrets = new MemoryStore();
  const s = await session({ secrets });
  await s.connected();
  const name = gatewaySecretName(gateway.url, 'deviceToken.gateway');
  const issued = await s.waitFor(() => secrets.values.get(name), 'the stored device token');
  await s.stop();
  // The same device key and its token, no shared token: connected, with its scopes.
  const again = await session({ secrets, token: undefined });
  await again.connected();
  const { outcome, events } = await again.turn('Say hello please.');
  assert.equal(outcome.ok, true);
  assert.equal(shownText(events), REPLY);
  assert.ok(issued.length > 10);
});

test('a wrong token is a clear error, with no reconnect storm', async () => {
  const s = await session({ token: 'not-the-token' });
  const state = await s.waitFor(() => s.states().find((e) => e.state === 'error'), 'the error state');
  assert.match(state.message, /gateway token mismatch/);
  assert.match(state.message, /AUTH_TOKEN_MISMATCH/);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(s.states().filter((e) => e.state === 'connecting').length, 1, 'one try, no retries');
  assert.equal(s.state(), 'error');
  // A message now ends at once with the reason, rather than waiting for a connection.
  const { outcome } = await s.turn('Say hello please.', 5000);
  assert.equal(outcome.ok, false);
  assert.match(outcome.error.message, /not connected/);
});

test('the workspace is paired in one step, and the agent runs a command and reads a file there through Tether', async () => {
  const permissions = [];
  let allowRun = true;
  const s = await session({
    root: nodeWorkspace,
    node: { displayName: 'tether-suite-node', platform: 'linux' },
    permission: (request) => {
      permissions.push(request);
      if (request.toolName === 'Bash' && !allowRun) return { decision: 'deny', reason: 'not this time' };
      return request.toolName === 'PairNode' ? { optionId: 'approve' } : { decision: 'allow' };
    },
  });
  await s.connected('gateway');
  // The node connects after the operator's hello and its own device check: slow on a loaded machine.
  await s.connected('node', 120_000).catch((error) => {
    const tail = (file) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-40).join('\n') : `(no ${file})`);
    error.message += `\n--- the gateway's output:\n${tail(gateway.log)}\n--- its log:\n${tail(join(gateway.dirs.logs, 'openclaw.log'))}`;
    throw error;
  });
  // The one guided step: the gateway's pending command surface, approved from the operator.
  await s.waitFor(() => s.ui.some((e) => e.type === 'error' && /gateway's node now/.test(e.message)), 'the pairing', 30_000);
  const pairing = permissions.find((r) => r.toolName === 'PairNode');
  assert.ok(pairing.options.some((o) => o.optionId === 'approve'));
  assert.ok(pairing.input.commands.includes('system.run'));
  const admin = await bareClient(gateway.url, { scopes: ['operator.read', 'operator.admin'] });
  const listed = (await admin.request('node.list')).nodes.find((n) => n.displayName === 'tether-suite-node');
  admin.close();
  assert.ok(listed.commands.includes('system.run') && listed.commands.includes('file.fetch'), JSON.stringify(listed));

  const exec = await keepingEvents(s, 'node-exec', () => s.turn('EXECTEST run it on the node'));
  const call = exec.events.find((e) => e.type === 'toolCallStart' && e.name === 'exec');
  const result = exec.events.find((e) => e.type === 'toolCallResult' && e.id === call.id);
  assert.equal(result.isError, false, result.content);
  assert.match(result.content, /hi-from-node\nLinux/);
  // It ran in the workspace, as Tether's Bash: the gate saw the command.
  const asked = permissions.find((r) => r.toolName === 'Bash');
  assert.equal(asked.input.command, EXEC_COMMAND);
  assert.equal(readFileSync(join(nodeWorkspace, 'node-proof.txt'), 'utf8'), 'hi-from-node\n');

  const fetched = await keepingEvents(s, 'node-fetch', () => s.turn(`FETCHTEST node=tether-suite-node path=${nodeWorkspace}/notes.txt`));
  const fetch = fetched.events.find((e) => e.type === 'toolCallResult' && e.structured?.sha256);
  assert.ok(fetch, JSON.stringify(fetched.events.filter((e) => e.type === 'toolCallResult')));
  assert.match(fetch.content, /notes kept in the node workspace/);

  // A refusal in Tether reaches the agent as a denial, and nothing runs.
  rmSync(join(nodeWorkspace, 'node-proof.txt'));
  allowRun = false;
  const denied = await keepingEvents(s, 'node-denied', () => s.turn('EXECTEST once more'));
  const deniedResult = denied.events.find((e) => e.type === 'toolCallResult');
  assert.equal(deniedResult.isError, true);
  assert.match(deniedResult.content, /denied/i);
  assert.match(deniedResult.content, /not this time/);
  assert.equal(existsSync(join(nodeWorkspace, 'node-proof.txt')), false);
});

test('after a gateway crash mid-turn the text shown stays once, the turn is interrupted, and the history matches', async () => {
  // A prompt backoff, so the client is back soon after the gateway is (the backoff itself is
  // tested in crate/tests/openclaw_protocol.rs).
  const s = await session({ backoff: { baseMs: 1000, capMs: 3000, maxTries: 60 } });
  await s.connected();
  const from = s.ui.length;
  const turn = s.turn('SLOWTEST keep going', 180_000);
  await s.waitFor(() => s.ui.slice(from).filter((e) => e.type === 'textDelta').length >= 3, 'three deltas');
  const restarted = Date.now();
  await gateway.crash();
  timings.restartMs = await gateway.start();
  const { events } = await keepingEvents(s, 'restart', () => turn);
  await s.connected('gateway', 120_000);
  timings.reconnectMs = Date.now() - restarted;
  assert.equal(dones(events).length, 1);
  assert.ok(events.some((e) => e.type === 'error' && e.kind === 'interrupted'), 'marked interrupted');
  const shown = shownText(events);
  assert.ok(shown.length > 0 && SLOW_REPLY.startsWith(shown), `shown once, in order: ${shown}`);
  assert.ok(!events.some((e) => e.type === 'messageReplace'));
  // What the gateway kept of the turn is what Tether showed (it keeps none of a reply cut off).
  const transcript = await s.load(s.sessionKey);
  timings.crashShownWords = shown.split(' ').length;
  const assistant = transcript.messages.filter((m) => m.role === 'assistant');
  timings.crashHistoryAssistantWords = assistant.map((m) => m.text.split(' ').length);
  for (const message of assistant) assert.ok(shown.startsWith(message.text) || message.text.startsWith(shown), message.text);
  assert.ok(transcript.messages.some((m) => m.role === 'user' && m.text === 'SLOWTEST keep going'));
  // And the session goes on in a new gateway session (the crashed one runs the gateway's own
  // recovery turn, which takes a message sent there into it).
  s.driver.operate({ op: 'new' });
  await keepingEvents(s, 'after-restart', async () => {
    const next = await s.turn('Say hello please.');
    assert.equal(shownText(next.events), REPLY);
  });
});

test('tether-cli runs a turn with the token from --token-file or OPENCLAW_GATEWAY_TOKEN and its device key in a file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tether-openclaw-cli-'));
  try {
    writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
    const keys = join(dir, 'keys.json');
    const run = (args, env = {}) =>
      new Promise((resolve) =>
        execFile(process.execPath, [join(repo, 'dist', 'tether-cli.js'), 'run', '--agent', 'openclaw', '--gateway', gateway.url, '--device-key', keys, '--root', dir, ...args], { env: { ...process.env, ...env }, timeout: 120_000 }, (error, stdout, stderr) =>
          resolve({ code: error ? error.code : 0, events: stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)), stderr }),
        ),
      );
    const byFile = await run(['--token-file', join(dir, 'token'), '--prompt', 'Say hello please.']);
    assert.equal(byFile.code, 0, byFile.stderr);
    assert.equal(shownText(byFile.events), REPLY);
    assert.equal(dones(byFile.events).length, 1);
    const stored = JSON.parse(readFileSync(keys, 'utf8'));
    assert.ok(stored['tether.openclaw.deviceKey'].includes('PRIVATE KEY'));
    const byEnv = await run(['--prompt', 'Say hello please.'], { OPENCLAW_GATEWAY_TOKEN: TOKEN });
    assert.equal(byEnv.code, 0, byEnv.stderr);
    assert.equal(shownText(byEnv.events), REPLY);
    // A device the gateway paired connects by its signature whatever the shared token says, so
    // the wrong token is tried with a new device.
    const wrong = await run(['--prompt', 'Say hello please.', '--device-key', join(dir, 'other-keys.json')], { OPENCLAW_GATEWAY_TOKEN: 'wrong' });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /not connected|token mismatch/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
