// The OpenClaw backend as the extension runs it, for the suites: a SessionDriver over the wasm
// core (the extension's code, bundled by host.mjs) on a Node host for a temporary workspace,
// recording what reached the UI and answering permission prompts as a test says.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, loadHost } from './host.mjs';

/**
 * Start a session with the gateway at `url`. `token`, `backoff`, `node` ({displayName, platform})
 * go to the gateway connector's options; `secrets` keeps the device keys (a fresh MemoryStore by
 * default); `root` is the workspace (a new temporary folder by default); `permission(request)`
 * answers prompts (default: allow). Resolves once started (connecting).
 */
export async function openSession({ url, token, backoff, node, secrets = new MemoryStore(), root, resume, permission, mode } = {}) {
  const { SessionDriver, NodeHost, gatewayConnector } = loadHost();
  const own = root === undefined;
  const workspace = root ?? mkdtempSync(join(tmpdir(), 'tether-openclaw-ws-'));
  const session = new Session(secrets, workspace, own);
  const host = new NodeHost();
  session.host = host;
  session.driver = new SessionDriver({
    host,
    connector: gatewayConnector('OpenClaw', { url, secrets, ...(token ? { token } : {}), ...(backoff ? { backoff } : {}), ...(node ? { node } : {}), clientVersion: '0.1.0-test' }),
    root: workspace,
    homeDir: workspace,
    userSettingsPath: join(workspace, '.no-user-settings.json'),
    ...(resume ? { resume } : {}),
    ...(mode ? { mode } : {}),
    onEvent: (event) => session.onEvent(event),
    onPermission: (request, signal) => session.onPermission(request, signal, permission),
    log: (message) => session.onLog(message),
  });
  await session.driver.start();
  return session;
}

export class Session {
  constructor(secrets, root, ownRoot) {
    this.secrets = secrets;
    this.root = root;
    this.ownRoot = ownRoot;
    this.ui = [];
    /** When each UI event reached JavaScript (performance.now()), for the benchmark. */
    this.uiTimes = [];
    this.logs = [];
    this.permissions = [];
    this.waiters = [];
  }

  onEvent(event) {
    this.ui.push(event);
    this.uiTimes.push({ at: performance.now(), event });
    this.notify();
  }

  onLog(message) {
    this.logs.push(message);
    this.notify();
  }

  async onPermission(request, signal, answer) {
    this.permissions.push(request);
    this.notify();
    return answer ? answer(request, signal) : { decision: 'allow' };
  }

  /** The gateway connection's states (`connectionState` events of the channel). */
  states(channel = 'gateway') {
    return this.ui.filter((e) => e.type === 'connectionState' && e.channel === channel);
  }

  state(channel = 'gateway') {
    return this.states(channel).at(-1)?.state;
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
        const states = this.ui.filter((e) => e.type === 'connectionState').slice(-6);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${label}; states: ${JSON.stringify(states)}; logs: ${this.logs.slice(-12).join(' | ')}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  connected(channel = 'gateway', timeoutMs = 60_000) {
    return this.waitFor(() => this.state(channel) === 'connected', `the ${channel} connection`, timeoutMs);
  }

  /** The session shown, as the gateway names it. */
  get sessionKey() {
    return this.ui.filter((e) => e.type === 'sessionInit').at(-1)?.sessionId;
  }

  /** Send a message and wait for its turn to end; returns the turn's UI events and outcome. */
  async turn(text, timeoutMs = 90_000) {
    const from = this.ui.length;
    let timer;
    const outcome = await Promise.race([
      this.driver.prompt(text),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`the turn "${text}" did not end in ${timeoutMs} ms; logs: ${this.logs.slice(-5).join(' | ')}`)), timeoutMs))),
    ]);
    clearTimeout(timer);
    return { events: this.ui.slice(from), outcome };
  }

  /** Switch to a session and wait for its transcript. */
  async load(key) {
    const from = this.ui.length;
    this.driver.operate({ op: 'load', id: key });
    return this.waitFor(() => this.ui.slice(from).find((e) => e.type === 'transcript'), `the transcript of ${key}`);
  }

  async stop() {
    await this.driver.stop().catch(() => {});
    this.host?.dispose?.();
    if (this.ownRoot) rmSync(this.root, { recursive: true, force: true });
  }
}

/** The text a turn's events show, in order. */
export function shownText(events) {
  return events.filter((e) => e.type === 'textDelta').map((e) => e.text).join('');
}

export const dones = (events) => events.filter((e) => e.type === 'done');
