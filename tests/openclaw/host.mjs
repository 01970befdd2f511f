// The extension's host pieces for the gateway (extension/src/openclaw: the ws transport and the
// device key), bundled with the extension's esbuild so the suites run the same TypeScript.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repo } from './bridge.mjs';

let host;
export function loadHost() {
  if (host) return host;
  const out = join(repo, 'target', 'openclaw-host', 'index.cjs');
  mkdirSync(join(repo, 'target', 'openclaw-host'), { recursive: true });
  execFileSync(
    join(repo, 'extension', 'node_modules', '.bin', 'esbuild'),
    [
      join(repo, 'extension', 'src', 'openclaw', 'index.ts'),
      '--bundle',
      '--platform=node',
      '--target=node20',
      '--format=cjs',
      `--tsconfig=${join(repo, 'extension', 'tsconfig.json')}`,
      `--outfile=${out}`,
      '--log-level=warning',
    ],
    { stdio: 'inherit' },
  );
  host = createRequire(import.meta.url)(out);
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
