// A scripted OpenClaw gateway on 127.0.0.1, for what the real one will not do on demand: seq
// gaps, duplicate and malformed frames, `replace`, a v3-only server, slow answers, lost answers.
// Each connection runs `script(connection)`; the helpers speak the gateway's frames. `board.get`
// (which the client sends on every connect) is answered with an empty board unless the script
// takes it.
import { WebSocket } from './host.mjs';

const { WebSocketServer } = WebSocket;

export const SESSION = 'agent:main:fake';

export async function startFakeGateway(script) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  const gateway = {
    url: `ws://127.0.0.1:${server.address().port}`,
    connections: [],
    errors: [],
    close: () =>
      new Promise((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
  server.on('connection', (socket) => {
    const connection = new FakeConnection(socket, gateway.connections.length);
    gateway.connections.push(connection);
    Promise.resolve(script(connection)).catch((error) => {
      gateway.errors.push(error);
      socket.terminate();
    });
  });
  return gateway;
}

class FakeConnection {
  constructor(socket, index) {
    this.socket = socket;
    this.index = index;
    this.openedAt = Date.now();
    /** Every frame the client sent. */
    this.requests = [];
    this.inbox = [];
    this.waiting = [];
    this.seq = 0;
    this.closed = new Promise((resolve) => socket.once('close', (code) => resolve(code)));
    /** Methods the script answers itself (others of `answered` get a stock answer). */
    this.taken = new Set();
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString());
      this.requests.push(frame);
      if (frame.method === 'board.get' && !this.taken.has('board.get')) {
        this.reply(frame, { sessionKey: frame.params?.sessionKey, revision: 0, tabs: [], widgets: [] });
        return;
      }
      this.inbox.push(frame);
      for (const waiter of [...this.waiting]) waiter();
    });
  }

  /** The client's next request for `method` not yet taken (others stay for their turn). */
  expect(method, timeoutMs = 10_000) {
    this.taken.add(method);
    return new Promise((resolve, reject) => {
      const stop = () => {
        clearTimeout(timer);
        const at = this.waiting.indexOf(look);
        if (at >= 0) this.waiting.splice(at, 1);
      };
      const look = () => {
        const index = this.inbox.findIndex((frame) => frame.method === method);
        if (index < 0) return;
        const [frame] = this.inbox.splice(index, 1);
        stop();
        resolve(frame);
      };
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`fake gateway: no ${method} within ${timeoutMs} ms (got ${this.inbox.map((f) => f.method).join(', ') || 'nothing'})`));
      }, timeoutMs);
      this.waiting.push(look);
      look();
    });
  }

  raw(text) {
    this.socket.send(text);
  }

  send(frame) {
    this.raw(JSON.stringify(frame));
  }

  /** A broadcast event with the next frame seq (or the one given). */
  event(event, payload, seq = ++this.seq) {
    this.seq = Math.max(this.seq, seq);
    this.send({ type: 'event', event, payload, seq });
  }

  reply(request, payload) {
    this.send({ type: 'res', id: request.id, ok: true, payload });
  }

  fail(request, error) {
    this.send({ type: 'res', id: request.id, ok: false, error });
  }

  /** Challenge, the client's connect, hello-ok speaking `protocol`. Returns the connect request. */
  async handshake({ protocol = 4, helloDelayMs = 0 } = {}) {
    this.send({ type: 'event', event: 'connect.challenge', payload: { nonce: `nonce-${this.index}`, ts: Date.now() } });
    const connect = await this.expect('connect');
    if (helloDelayMs) await new Promise((resolve) => setTimeout(resolve, helloDelayMs));
    this.reply(connect, hello(protocol));
    return connect;
  }

  close(code = 1000, reason = '') {
    this.socket.close(code, reason);
  }
}

export function hello(protocol = 4) {
  return {
    type: 'hello-ok',
    protocol,
    server: { version: 'fake-1' },
    features: { methods: ['chat.send', 'chat.history', 'chat.abort', 'sessions.list'], events: ['chat', 'agent'] },
    snapshot: { sessionDefaults: { mainSessionKey: 'agent:main:main' } },
    auth: { role: 'operator', scopes: ['operator.read', 'operator.write'] },
    policy: { maxPayload: 1 << 20, maxBufferedBytes: 2 << 20, tickIntervalMs: 30_000 },
  };
}

/** A `chat` delta as the v4 gateway sends it (with the cumulative message). */
export function delta(runId, deltaText, full, extra = {}) {
  return { runId, sessionKey: SESSION, state: 'delta', deltaText, message: { role: 'assistant', content: [{ type: 'text', text: full }] }, ...extra };
}

export function final(runId, full) {
  return { runId, sessionKey: SESSION, state: 'final', stopReason: 'stop', message: { role: 'assistant', content: [{ type: 'text', text: full }] } };
}
