// The real OpenClaw gateway (openclaw@2026.9.6 under Node 24, as ./build.sh installs them) on
// 127.0.0.1 with the fake model API, in a throwaway state directory: started, waited for, and
// stopped by its PID (its process group), never by name, and killed when its time is up.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startFakeLlm } from './fake-llm.mjs';
import { WebSocket } from './host.mjs';

export const TOKEN = 'tether-test-token';
/** The longest a gateway may live; it is killed then whatever the tests do. */
const MAX_LIFETIME_MS = 10 * 60_000;

export function gatewayTools() {
  const node = process.env.TETHER_NODE24;
  const entry = process.env.TETHER_OPENCLAW;
  if (!node || !entry || !existsSync(node) || !existsSync(entry)) {
    throw new Error('Node 24 and the openclaw gateway are not installed: run ./build.sh test, which installs them (TETHER_NODE24, TETHER_OPENCLAW)');
  }
  return { node, entry };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Start a gateway. Node mode's settings: `allowCommands`, the commands the gateway allows beyond
 * its platform list (file.fetch is not on linux's), and `fileTransferNodes`, the File Transfer
 * plugin's per-node policy (`{"*": {ask: "off", allowReadPaths: [...]}}`; policyVersion 2).
 */
export async function startGateway({ allowCommands = [], fileTransferNodes } = {}) {
  const { node, entry } = gatewayTools();
  const root = mkdtempSync(join(tmpdir(), 'tether-openclaw-'));
  const dirs = Object.fromEntries(['home', 'state', 'workspace', 'tmp', 'logs'].map((d) => [d, join(root, d)]));
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  writeFileSync(join(dirs.workspace, 'HELLO.txt'), 'hello from the workspace file\n');
  const llm = await startFakeLlm();
  const port = await freePort();
  const config = {
    gateway: {
      mode: 'local',
      port,
      bind: 'loopback',
      auth: { mode: 'token', token: TOKEN },
      ...(allowCommands.length ? { nodes: { commands: { allow: allowCommands } } } : {}),
    },
    discovery: { mdns: { mode: 'off' } },
    update: { checkOnStart: false },
    logging: { file: join(dirs.logs, 'openclaw.log') },
    agents: { defaults: { workspace: dirs.workspace, model: { primary: 'fake/fake-model' } } },
    models: {
      mode: 'merge',
      catalogRefresh: { enabled: false },
      providers: {
        fake: {
          baseUrl: `http://127.0.0.1:${llm.port}/v1`,
          apiKey: 'sk-fake-local',
          api: 'openai-completions',
          models: [{ id: 'fake-model', name: 'Fake Model', reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 4096 }],
        },
      },
    },
    ...(fileTransferNodes
      ? { plugins: { entries: { 'file-transfer': { config: { policyVersion: 2, nodes: fileTransferNodes } } } } }
      : {}),
  };
  const configPath = join(dirs.state, 'openclaw.json');
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const env = {
    PATH: `${dirname(node)}:${process.env.PATH}`,
    HOME: dirs.home,
    OPENCLAW_STATE_DIR: dirs.state,
    OPENCLAW_CONFIG_PATH: configPath,
    OPENCLAW_NO_AUTO_UPDATE: '1',
    OPENCLAW_DISABLE_BONJOUR: '1',
    OPENCLAW_SKIP_CHANNELS: '1',
    OPENCLAW_NO_RESPAWN: '1',
    OPENCLAW_EXEC_SHELL_SNAPSHOT: '0',
    OPENCLAW_OFFLINE: '1',
    TMPDIR: dirs.tmp,
  };
  const gateway = {
    url: `ws://127.0.0.1:${port}`,
    port,
    root,
    dirs,
    llm,
    configPath,
    config,
    child: undefined,
    log: join(dirs.logs, 'gateway-stdout.log'),
    async start() {
      const out = createWriteStream(this.log, { flags: 'a' });
      const child = spawn(node, [entry, 'gateway', 'run'], { env, cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.pipe(out);
      child.stderr.pipe(out);
      this.child = child;
      this.exited = new Promise((resolve) => child.once('exit', resolve));
      const killer = setTimeout(() => kill(child.pid, 'SIGKILL'), MAX_LIFETIME_MS);
      killer.unref();
      child.once('exit', () => clearTimeout(killer));
      const started = Date.now();
      await waitReady(this.url, child);
      this.readyMs = Date.now() - started;
      return this.readyMs;
    },
    /** SIGTERM to the gateway's process group, SIGKILL after 10 s. */
    async stop() {
      const child = this.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => kill(child.pid, 'SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(timer);
    },
    /** SIGKILL the gateway's process group mid-whatever (a crash). */
    async crash() {
      const child = this.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      kill(child.pid, 'SIGKILL');
      await this.exited;
    },
    async close() {
      running.delete(this);
      await this.stop();
      await llm.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
  running.add(gateway);
  await gateway.start();
  return gateway;
}

/** Gateways still running when the test process exits are killed (by PID). */
const running = new Set();
process.once('exit', () => {
  for (const gateway of running) if (gateway.child) kill(gateway.child.pid, 'SIGKILL');
});

function kill(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Connect as cli/cli until hello-ok: the gateway refuses with UNAVAILABLE while it starts. */
async function waitReady(url, child, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the gateway exited with ${child.exitCode} while starting`);
    if (await probe(url)) return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`the gateway was not ready after ${timeoutMs} ms`);
}

/** One bare handshake: true on hello-ok. */
export function probe(url, { token = TOKEN, timeoutMs = 5000 } = {}) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    const done = (ok) => {
      clearTimeout(timer);
      ws.terminate();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    ws.on('error', () => done(false));
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.event === 'connect.challenge') {
        ws.send(JSON.stringify({ type: 'req', id: 'probe', method: 'connect', params: bareConnect(token) }));
      } else if (frame.type === 'res' && frame.id === 'probe') {
        done(frame.ok === true);
      }
    });
  });
}

/** The connect params of a bare client (as the reference's chat-run did). */
export function bareConnect(token = TOKEN) {
  return {
    minProtocol: 4,
    maxProtocol: 4,
    client: { id: 'cli', version: '0.1.0', platform: 'linux', mode: 'cli' },
    role: 'operator',
    scopes: ['operator.read', 'operator.write'],
    caps: ['tool-events'],
    commands: [],
    permissions: {},
    auth: { token },
  };
}

/** A bare `ws` operator (cli/cli, the shared token): raw requests, and each chat delta's arrival. */
export function bareClient(url, { scopes = ['operator.read', 'operator.write'], token = TOKEN } = {}) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const pending = new Map();
    let next = 0;
    const client = {
      deltas: [],
      events: [],
      request(method, params = {}) {
        const id = `bare-${++next}`;
        ws.send(JSON.stringify({ type: 'req', id, method, params }));
        return new Promise((res, rej) =>
          pending.set(id, (frame) => (frame.ok ? res(frame.payload) : rej(Object.assign(new Error(`${method}: ${frame.error?.message}`), { gateway: frame.error })))),
        );
      },
      close: () => ws.terminate(),
    };
    ws.on('error', reject);
    ws.on('message', (data) => {
      const at = performance.now();
      const frame = JSON.parse(data.toString());
      if (frame.event === 'connect.challenge') {
        ws.send(JSON.stringify({ type: 'req', id: 'connect', method: 'connect', params: { ...bareConnect(token), scopes } }));
      } else if (frame.type === 'res' && frame.id === 'connect') {
        frame.ok ? resolve(client) : reject(new Error(frame.error?.message));
      } else if (frame.type === 'res') {
        pending.get(frame.id)?.(frame);
      } else if (frame.event === 'chat' && frame.payload?.state === 'delta') {
        client.deltas.push({ at, text: frame.payload.deltaText, sessionKey: frame.payload.sessionKey });
      } else if (frame.type === 'event') {
        client.events.push(frame);
      }
    });
  });
}
