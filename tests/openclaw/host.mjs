// The extension's own code for the suites: the session driver with the wasm core (the OpenClaw
// backend module's connector), the Node host, the ws transport and the device keys, bundled with the extension's
// esbuild into target/openclaw-host/ beside the wasm, so the suites run what ships.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const ENTRY = `
export { SessionDriver } from './extension/src/session/driver';
export { NodeHost } from './extension/src/node/nodeHost';
export { gatewayConnector } from './extension/src/backends/openclaw';
export { DeviceKey, FileSecretStore, DEVICE_KEY_SECRET } from './extension/src/backends/openclaw/deviceKey';
export { NODE_KEY_SECRET, gatewaySecretName } from './extension/src/backends/openclaw/credentials';
export { createTetherAgent } from './extension/src/session/agent';
`;

let host;
/** The bundle (built once per process). */
export function loadHost() {
  if (host) return host;
  const dir = join(repo, 'target', 'openclaw-host');
  mkdirSync(dir, { recursive: true });
  execFileSync(
    join(repo, 'extension', 'node_modules', '.bin', 'esbuild'),
    ['--bundle', '--platform=node', '--target=node20', '--format=cjs', `--tsconfig=${join(repo, 'extension', 'tsconfig.json')}`, `--outfile=${join(dir, 'index.cjs')}`, '--log-level=warning', `--sourcefile=openclaw-host.ts`, '--loader=ts'],
    { input: ENTRY, cwd: repo, stdio: ['pipe', 'inherit', 'inherit'] },
  );
  copyFileSync(join(repo, 'target', 'wasm-pkg', 'tether_core_bg.wasm'), join(dir, 'tether_core_bg.wasm'));
  host = createRequire(import.meta.url)(join(dir, 'index.cjs'));
  return host;
}

/** The bare `ws` client the extension bundles, for baselines and probes. */
export const WebSocket = createRequire(join(repo, 'extension', 'package.json'))('ws');

/** Secrets in memory (VS Code's SecretStorage shape). */
export class MemoryStore {
  constructor() {
    this.values = new Map();
  }
  async get(key) {
    return this.values.get(key);
  }
  async store(key, value) {
    this.values.set(key, value);
  }
  async delete(key) {
    this.values.delete(key);
  }
}
