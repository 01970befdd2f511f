// Benchmark of Tether's OpenClaw gateway client, against baselines measured in the same run.
// Prints figures and ratios; asserts nothing.
//
//  1. Frames to UI events through the core (crate/src/openclaw in the release wasm, the
//     TetherAgent the extension runs, fed TransportEvents in process): a synthetic 10,000-delta
//     stream, and a 2,000-delta one whose frames carry the cumulative message as the real
//     gateway's do. Baseline: JSON.parse of the same frames, nothing else.
//  2. With the real gateway installed (TETHER_NODE24, TETHER_OPENCLAW: ./build.sh test installs
//     them): the added latency of Tether's client (ws transport -> wasm core -> UI event) against a
//     bare `ws` client on the same turns. Both are connected to one gateway, which broadcasts
//     each turn's frames to both (Tether sends the turns); each chat delta's arrival at the bare client
//     is compared with its text delta leaving Tether's core.
//
//   node tests/bench/openclaw.mjs [--quick]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSession } from '../openclaw/driver.mjs';
import { hello } from '../openclaw/fake-gateway.mjs';
import { loadHost } from '../openclaw/host.mjs';
import { TOKEN, bareConnect, gatewayTools, startGateway } from '../openclaw/gateway.mjs';
import { WebSocket } from '../openclaw/host.mjs';

const quick = process.argv.includes('--quick');
const fmt = (n, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

/** A TetherAgent with the OpenClaw backend, connected (handshake answered by hand), with one
 * turn sent; returns it and the run id the frames are for. */
async function connectedAgent(root) {
  const { createTetherAgent, NodeHost } = loadHost();
  const agent = createTetherAgent(new NodeHost(), {
    backend: 'openclaw',
    root,
    homeDir: root,
    gatewayUrl: 'ws://127.0.0.1:1',
    instanceId: 'bench',
    token: 'bench',
    device: { id: 'bench-device', publicKey: 'AAAA' },
  });
  agent.initialize();
  await agent.start();
  const feed = (event) => agent.onTransport({ channel: 'gateway', ...event });
  await feed({ kind: 'opened' });
  await feed({ kind: 'frame', text: JSON.stringify({ type: 'event', event: 'connect.challenge', payload: { nonce: 'n', ts: Date.now() } }) });
  const signed = await feed({ kind: 'signed', signature: 'c2ln' });
  const connect = signed.map((o) => o.request).find((r) => r?.kind === 'send');
  await feed({ kind: 'frame', text: JSON.stringify({ type: 'res', id: JSON.parse(connect.text).id, ok: true, payload: hello(4) }) });
  const sent = await agent.prompt('bench', []);
  const send = sent.map((o) => o.request).find((r) => r?.kind === 'send');
  const { id, params } = JSON.parse(send.text);
  const runId = params.idempotencyKey;
  await feed({ kind: 'frame', text: JSON.stringify({ type: 'res', id, ok: true, payload: { runId, status: 'started' } }) });
  return { agent, feed, runId, sessionKey: params.sessionKey };
}

async function throughput() {
  console.log('== OpenClaw frames -> UI events through the core (release wasm, in process) ==');
  const runs = quick ? 1 : 5;
  for (const [deltas, cumulative] of [[10_000, false], [2_000, true]]) {
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const root = mkdtempSync(join(tmpdir(), 'tether-bench-openclaw-'));
      const { agent, feed, runId, sessionKey } = await connectedAgent(root);
      let full = '';
      const frames = [];
      for (let n = 0; n < deltas; n++) {
        const text = `w${n} `;
        full += text;
        const payload = { runId, sessionKey, seq: n + 1, state: 'delta', deltaText: text, ...(cumulative ? { message: { role: 'assistant', content: [{ type: 'text', text: full }] } } : {}) };
        frames.push(JSON.stringify({ type: 'event', event: 'chat', seq: n + 1, payload }));
      }
      frames.push(JSON.stringify({ type: 'event', event: 'chat', seq: deltas + 1, payload: { runId, sessionKey, state: 'final', stopReason: 'stop', message: { role: 'assistant', content: [{ type: 'text', text: full }] } } }));
      const bytes = frames.reduce((sum, f) => sum + f.length, 0);
      let parsed = 0;
      const parseStart = performance.now();
      for (const f of frames) parsed += JSON.parse(f).seq;
      const parseMs = performance.now() - parseStart;
      let events = 0;
      let textDeltas = 0;
      const started = performance.now();
      for (const text of frames) {
        const outputs = await feed({ kind: 'frame', text });
        for (const o of outputs) {
          if (o.type !== 'event') continue;
          events++;
          if (o.event.type === 'textDelta') textDeltas++;
        }
      }
      const ms = performance.now() - started;
      agent.free();
      rmSync(root, { recursive: true, force: true });
      if (parsed === 0 || textDeltas !== deltas) throw new Error(`expected ${deltas} text deltas, got ${textDeltas}`);
      samples.push({ frames: frames.length, bytes, events, ms, parseMs });
    }
    const best = samples.reduce((a, b) => (a.ms < b.ms ? a : b));
    console.log(
      `  ${fmt(deltas, 0)} deltas${cumulative ? ' with the cumulative message' : ''}: ${fmt(best.frames, 0)} frames (${fmt(best.bytes / 1e6, 2)} MB) -> ${fmt(best.events, 0)} UI events in ${fmt(best.ms, 2)} ms` +
        ` = ${fmt(best.frames / (best.ms / 1000), 0)} frames/s, ${fmt(best.events / (best.ms / 1000), 0)} events/s (best of ${runs})`,
    );
    console.log(`    baseline, JSON.parse of the same frames: ${fmt(best.parseMs, 2)} ms; core / parse = ${fmt(best.ms / best.parseMs, 1)}x`);
  }
}

async function latency() {
  try {
    gatewayTools();
  } catch (error) {
    console.log(`== added latency against a bare ws client: skipped (${error.message}) ==`);
    return;
  }
  console.log('== added latency of Tether\'s client against a bare ws client, same gateway turns ==');
  const gateway = await startGateway();
  console.log(`  gateway ready in ${fmt(gateway.readyMs / 1000)} s`);
  const bare = await bareClient(gateway.url);
  const tether = await openSession({ url: gateway.url, token: TOKEN });
  try {
    await tether.connected();
    const turns = quick ? 2 : 5;
    const added = [];
    for (let turn = 0; turn < turns; turn++) {
      const key = tether.sessionKey;
      const uiFrom = tether.ui.length;
      const bareFrom = bare.deltas.length;
      await tether.turn('Say hello please.', 120_000);
      const bareDeltas = bare.deltas.slice(bareFrom).filter((d) => d.sessionKey === key);
      const tetherDeltas = tether.uiTimes.slice(uiFrom).filter((t) => t.event.type === 'textDelta');
      const pairs = Math.min(bareDeltas.length, tetherDeltas.length);
      for (let i = 0; i < pairs; i++) {
        if (bareDeltas[i].text !== tetherDeltas[i].event.text) continue;
        added.push(tetherDeltas[i].at - bareDeltas[i].at);
      }
    }
    console.log(
      `  ${added.length} text deltas over ${turns} turns: Tether's UI event comes ${fmt(median(added), 2)} ms (median) / ${fmt(percentile(added, 0.95), 2)} ms (p95) after the bare client's frame`,
    );
  } finally {
    await tether.stop();
    bare.close();
    await gateway.close();
  }
}

/** A bare `ws` operator client: records each chat delta's arrival. */
function bareClient(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const pending = new Map();
    let next = 0;
    const client = {
      deltas: [],
      request(method, params) {
        const id = `bare-${++next}`;
        ws.send(JSON.stringify({ type: 'req', id, method, params }));
        return new Promise((res, rej) => pending.set(id, (frame) => (frame.ok ? res(frame.payload) : rej(new Error(frame.error?.message)))));
      },
      close: () => ws.terminate(),
    };
    ws.on('error', reject);
    ws.on('message', (data) => {
      const at = performance.now();
      const frame = JSON.parse(data.toString());
      if (frame.event === 'connect.challenge') {
        ws.send(JSON.stringify({ type: 'req', id: 'connect', method: 'connect', params: bareConnect() }));
      } else if (frame.type === 'res' && frame.id === 'connect') {
        frame.ok ? resolve(client) : reject(new Error(frame.error?.message));
      } else if (frame.type === 'res') {
        pending.get(frame.id)?.(frame);
      } else if (frame.event === 'chat' && frame.payload?.state === 'delta') {
        client.deltas.push({ at, text: frame.payload.deltaText, sessionKey: frame.payload.sessionKey });
      }
    });
  });
}

await throughput();
await latency();
