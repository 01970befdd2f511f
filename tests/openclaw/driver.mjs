// What the OpenClaw backend will do around the core, for the suites: carry out the Rust
// client's outputs with the extension's host pieces (the ws transport, the device key) and
// Node's timers, and record what reached the UI.
import { CoreClient } from './bridge.mjs';
import { loadHost } from './host.mjs';

/**
 * Start a client for `url`. `options` are the core's (json.rs: role, token, clientId, scopes,
 * caps, commands, device...); `deviceKey` signs when the core asks; `onNodeInvoke(command)`
 * returns the node's reply JSON (json.rs `reply_from_json`).
 */
export async function openSession({ url, options = {}, deviceKey, onNodeInvoke, connect = true, release = false }) {
  const core = CoreClient.start({ release });
  const session = new Session(core, url, deviceKey, onNodeInvoke);
  const device = deviceKey ? { device: deviceKey.identity } : {};
  await session.run({ op: 'new', options: { clientVersion: '0.1.0', platform: 'linux', ...device, ...options } });
  if (connect) await session.run({ op: 'connect' });
  return session;
}

export class Session {
  constructor(core, url, deviceKey, onNodeInvoke) {
    this.core = core;
    this.url = url;
    this.deviceKey = deviceKey;
    this.onNodeInvoke = onNodeInvoke;
    this.queue = Promise.resolve();
    this.outputs = [];
    /** Every frame received, as text (for diagnostics). */
    this.frames = [];
    this.ui = [];
    /** When each UI event reached JavaScript (performance.now()), for the benchmark. */
    this.uiTimes = [];
    this.states = [];
    this.logs = [];
    this.histories = [];
    this.replaced = [];
    this.nodeInvokes = [];
    this.opens = 0;
    this.deviceToken = undefined;
    this.responses = new Map();
    this.waiters = [];
    this.transport = undefined;
    this.timer = undefined;
    this.stopped = false;
  }

  /** Run one core command (after those before it) and carry out its outputs. */
  run(command) {
    const step = this.queue.then(async () => {
      if (this.stopped) return [];
      const outputs = await this.core.call({ now: Date.now(), ...command });
      for (const output of outputs) this.carry(output);
      this.schedule();
      this.notify();
      return outputs;
    });
    this.queue = step.catch(() => {});
    return step;
  }

  carry(output) {
    this.outputs.push(output);
    switch (output.type) {
      case 'open': {
        this.opens++;
        const { WsTransport } = loadHost();
        const transport = new WsTransport(this.url, {
          onOpen: () => transport === this.transport && this.run({ op: 'open' }),
          onMessage: (text) => {
            if (transport !== this.transport) return;
            this.frames.push(text);
            this.run({ op: 'frame', text });
          },
          onClose: (code, reason) => transport === this.transport && this.run({ op: 'close', code, reason }),
        });
        this.transport = transport;
        break;
      }
      case 'send':
        if (!this.transport?.send(output.text)) this.logs.push(`could not send: ${output.text.slice(0, 80)}`);
        break;
      case 'close':
        this.transport?.close(output.code, output.reason);
        break;
      case 'sign':
        if (!this.deviceKey) throw new Error('the core asked for a signature without a device key');
        this.run({ op: 'signed', signature: this.deviceKey.sign(output.payload) });
        break;
      case 'state':
        this.states.push(output);
        break;
      case 'deviceToken':
        this.deviceToken = output.token;
        break;
      case 'ui':
        this.ui.push(output.event);
        this.uiTimes.push({ at: performance.now(), event: output.event });
        break;
      case 'replaceText':
        this.replaced.push(output);
        break;
      case 'history':
        this.histories.push(output.history);
        break;
      case 'response':
        this.responses.set(output.id, output);
        break;
      case 'nodeInvoke':
        this.nodeInvokes.push(output);
        Promise.resolve(this.onNodeInvoke?.(output.command) ?? { error: { code: 'UNSUPPORTED', message: 'no handler' } })
          .then((reply) => this.run({ op: 'answerNode', id: output.id, command: output.command.command, reply }))
          .catch((error) => this.logs.push(`node handler failed: ${error.message}`));
        break;
      case 'log':
      case 'bridgeError':
        this.logs.push(output.message);
        break;
    }
  }

  schedule() {
    clearTimeout(this.timer);
    const at = this.core.nextWakeup;
    if (at === null || at === undefined || this.stopped) return;
    this.timer = setTimeout(() => this.run({ op: 'advance' }), Math.max(0, at - Date.now()));
  }

  notify() {
    for (const waiter of [...this.waiters]) {
      let value;
      try {
        value = waiter.predicate();
      } catch {
        value = undefined;
      }
      if (value) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        clearTimeout(waiter.timer);
        waiter.resolve(value);
      }
    }
  }

  /** Resolve with the first truthy `predicate()`; reject after `timeoutMs` saying what was awaited. */
  waitFor(predicate, label, timeoutMs = 60_000) {
    const now = predicate();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const waiter = { predicate, resolve };
      waiter.timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${label}; states: ${JSON.stringify(this.states.slice(-3))}; logs: ${this.logs.slice(-5).join(' | ')}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  get state() {
    return this.states.at(-1)?.state;
  }

  connected(label = 'connected', timeoutMs = 60_000) {
    return this.waitFor(() => this.state === 'connected', label, timeoutMs);
  }

  /** Run a core command that answers `{type: "result"}`; throw its error. */
  async call(command) {
    const outputs = await this.run(command);
    const result = outputs.find((o) => o.type === 'result');
    if (!result) throw new Error(`${command.op} gave no result`);
    if (!result.ok) throw Object.assign(new Error(`${command.op}: ${result.error.message}`), { gateway: result.error });
    return result.value;
  }

  /** A gateway method; resolves with its payload, rejects with its error. */
  async request(method, params = {}, timeoutMs = 30_000) {
    const id = await this.call({ op: 'request', method, params, timeoutMs });
    const response = await this.waitFor(() => this.responses.get(id), `the answer to ${method}`, timeoutMs + 5000);
    if (!response.ok) throw Object.assign(new Error(`${method}: ${response.error.message}`), { gateway: response.error });
    return response.payload;
  }

  watch(sessionKey) {
    return this.run({ op: 'watch', sessionKey });
  }

  /** Send a message and wait for its turn's `done`; returns the turn's UI events. */
  async turn(text, { idempotencyKey = crypto.randomUUID(), timeoutMs = 90_000 } = {}) {
    const from = this.ui.length;
    await this.call({ op: 'send', text, idempotencyKey });
    await this.waitFor(() => this.ui.slice(from).some((e) => e.type === 'done'), `the end of the turn "${text}"`, timeoutMs);
    return this.ui.slice(from);
  }

  async stop() {
    if (this.stopped) return;
    await this.run({ op: 'disconnect' }).catch(() => {});
    this.stopped = true;
    clearTimeout(this.timer);
    this.transport?.close(1000, 'test over');
    await this.core.close();
  }
}

/** The text a turn's events show, in order. */
export function shownText(events) {
  return events.filter((e) => e.type === 'textDelta').map((e) => e.text).join('');
}
