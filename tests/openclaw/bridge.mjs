// The Rust gateway client (crate/src/openclaw), driven natively through the stdio bridge test
// binary (crate/tests/openclaw_bridge.rs): one JSON command per line in, the client's outputs
// out. The client is not in the shipped wasm yet; this runs the same Rust code.
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const binaries = {};
/** Build the bridge (once per process and profile) and return its path. */
export function bridgeBinary({ release = false } = {}) {
  const profile = release ? 'release' : 'debug';
  if (binaries[profile]) return binaries[profile];
  let binary;
  const out = execFileSync(
    'cargo',
    ['test', ...(release ? ['--release'] : []), '-p', 'tether-core', '--test', 'openclaw_bridge', '--no-run', '--message-format=json'],
    { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 },
  );
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    const message = JSON.parse(line);
    if (message.reason === 'compiler-artifact' && message.target?.name === 'openclaw_bridge' && message.executable) {
      binary = message.executable;
    }
  }
  if (!binary) throw new Error('cargo built no openclaw_bridge test binary');
  binaries[profile] = binary;
  return binary;
}

/** One client in one bridge process. `call` runs a command and resolves with its outputs. */
export class CoreClient {
  static start({ release = false } = {}) {
    return new CoreClient(
      spawn(bridgeBinary({ release }), ['--ignored', '--exact', 'stdio_bridge', '--nocapture', '--test-threads=1'], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
  }

  constructor(child) {
    this.child = child;
    this.waiting = [];
    this.batch = [];
    this.nextWakeup = null;
    this.exited = new Promise((resolve) => child.once('exit', resolve));
    child.once('exit', (code) => {
      for (const w of this.waiting.splice(0)) w.reject(new Error(`the bridge exited (${code})`));
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      // libtest prints its own text around the bridge's (and "test stdio_bridge ... " right
      // before its first line); outputs are the JSON objects.
      const at = line.indexOf('{"type"');
      if (at < 0) return;
      const output = JSON.parse(line.slice(at));
      if (output.type !== 'done') {
        this.batch.push(output);
        return;
      }
      this.nextWakeup = output.nextWakeup;
      const outputs = this.batch;
      this.batch = [];
      this.waiting.shift()?.resolve(outputs);
    });
  }

  call(command) {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(JSON.stringify(command) + '\n');
    });
  }

  async close() {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}
