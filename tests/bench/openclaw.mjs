// Benchmark of Tether's OpenClaw gateway client, against baselines measured in the same run.
// Prints figures and ratios; asserts nothing.
//
//  1. Frames to UI events through the Rust core (crate/src/openclaw, release build, driven in
//     process by the stdio bridge): a synthetic 10,000-delta stream, and a 2,000-delta one whose
//     frames carry the cumulative message as the real gateway's do. Baseline: parsing the same
//     frames as JSON (serde_json), nothing else.
//  2. With the real gateway installed (TETHER_NODE24, TETHER_OPENCLAW: ./build.sh test installs
//     them): the added latency of Tether's client (ws transport -> core over the bridge -> UI
//     event) against a bare `ws` client on the same turns. Both are connected to one gateway,
//     which broadcasts each turn's frames to both; each chat delta's arrival at the bare client
//     is compared with its text delta leaving Tether's core.
//
//   node tests/bench/openclaw.mjs [--quick]
import { CoreClient } from '../openclaw/bridge.mjs';
import { openSession } from '../openclaw/driver.mjs';
import { TOKEN, bareConnect, gatewayTools, startGateway } from '../openclaw/gateway.mjs';
import { WebSocket } from '../openclaw/host.mjs';

const quick = process.argv.includes('--quick');
const fmt = (n, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

async function throughput() {
  console.log('== OpenClaw frames -> UI events through the core (release, in process) ==');
  const core = CoreClient.start({ release: true });
  const runs = quick ? 1 : 5;
  for (const [deltas, cumulative] of [[10_000, false], [2_000, true]]) {
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const [result] = await core.call({ op: 'bench', deltas, cumulative });
      samples.push(result);
    }
    const best = samples.reduce((a, b) => (a.ms < b.ms ? a : b));
    const perSecond = best.frames / (best.ms / 1000);
    console.log(
      `  ${fmt(deltas, 0)} deltas${cumulative ? ' with the cumulative message' : ''}: ${fmt(best.frames, 0)} frames (${fmt(best.bytes / 1e6, 2)} MB) -> ${fmt(best.events, 0)} outputs in ${fmt(best.ms, 2)} ms` +
        ` = ${fmt(perSecond, 0)} frames/s, ${fmt(best.events / (best.ms / 1000), 0)} events/s (best of ${runs})`,
    );
    console.log(`    baseline, JSON parse of the same frames: ${fmt(best.parseMs, 2)} ms; core / parse = ${fmt(best.ms / best.parseMs, 2)}x`);
  }
  await core.close();
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
  const tether = await openSession({ url: gateway.url, options: { token: TOKEN }, release: true });
  try {
    await tether.connected();
    const turns = quick ? 2 : 5;
    const added = [];
    for (let turn = 0; turn < turns; turn++) {
      const key = `bench-${turn}-${Math.random().toString(16).slice(2, 8)}`;
      await tether.watch(key);
      const uiFrom = tether.ui.length;
      const bareFrom = bare.deltas.length;
      await bare.request('chat.send', { sessionKey: key, message: 'Say hello please.', idempotencyKey: crypto.randomUUID() });
      await tether.waitFor(() => tether.ui.slice(uiFrom).some((e) => e.type === 'done'), 'the turn', 120_000);
      const bareDeltas = bare.deltas.slice(bareFrom).filter((d) => d.sessionKey === `agent:main:${key}`);
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
