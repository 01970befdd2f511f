// Benchmark of Tether's core through its real MCP entry (dist/tether-mcp.js: wasm core + Node host),
// against baselines measured in the same run. Prints figures and ratios; asserts nothing.
//
//   node tests/bench/core.mjs [--quick]
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync, readFileSync, statSync, rmSync, promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPatch } from 'diff';
import { record } from './record.mjs';
import { coreGrepArgs } from './sources.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const quick = process.argv.includes('--quick');
const dist = join(repo, 'dist');

/** A minimal NDJSON JSON-RPC client over the server's stdio. */
function startServer(root, env = {}, args = []) {
  const child = spawn(process.execPath, [join(dist, 'tether-mcp.js'), '--root', root, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  let buffer = '';
  let nextId = 1;
  const pending = new Map();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line);
      const resolve = pending.get(msg.id);
      if (resolve) {
        pending.delete(msg.id);
        resolve(msg);
      }
    }
  });
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => reject(new Error(`${method} timed out`)), 120_000);
      pending.set(id, (msg) => {
        clearTimeout(timer);
        msg.error ? reject(new Error(msg.error.message)) : resolve(msg.result);
      });
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  const call = async (name, args) => {
    const result = await request('tools/call', { name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${result.content.map((c) => c.text).join('\n')}`);
    return result;
  };
  const stop = () =>
    new Promise((resolve) => {
      child.once('exit', resolve);
      child.stdin.end();
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  return { request, call, stop };
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const pick = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { mean: samples.reduce((a, b) => a + b, 0) / samples.length, p50: pick(0.5), p95: pick(0.95), min: sorted[0], n: samples.length };
}

/** What any Grep that answers as Claude Code's does must pay over rg itself: rg spawned without
 * blocking the event loop (as a server must), then the mtime of every match, which it sorts by. */
function rgThenMtimes(args) {
  return new Promise((resolve, reject) => {
    const child = spawn('rg', args, { stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', () => {
      const paths = Buffer.concat(chunks).toString('utf8').split('\0').filter(Boolean);
      resolve(paths.map((p) => statSync(p).mtimeMs));
    });
  });
}

async function time(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const fmt = (ms) => `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
const rows = [];
function report(name, s, baseline) {
  const ratio = baseline ? `${(s.mean / baseline.mean).toFixed(2)}× baseline (${fmt(baseline.mean)})` : '';
  rows.push(`${name.padEnd(44)} mean ${fmt(s.mean).padStart(10)}  p50 ${fmt(s.p50).padStart(10)}  p95 ${fmt(s.p95).padStart(10)}  n=${s.n}  ${ratio}`);
  console.log(rows.at(-1));
}

function line(i) {
  return `line ${String(i).padStart(6, '0')}: const value_${i} = compute(${i}, "some text to make the line realistic");`;
}

async function main() {
  const root = mkdtempSync(join(tmpdir(), 'tether-bench-'));
  try {
    const server = startServer(root);
    await server.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });

    // 1. Read of a 2,000-line file through tools/call.
    const readFile = join(root, 'read-2000.ts');
    writeFileSync(readFile, Array.from({ length: 2000 }, (_, i) => line(i)).join('\n') + '\n');
    for (let i = 0; i < 10; i++) await server.call('Read', { file_path: readFile });
    const readSamples = [];
    for (let i = 0; i < (quick ? 30 : 200); i++) readSamples.push(await time(() => server.call('Read', { file_path: readFile })));
    report('Read 2,000 lines (tools/call, core+host)', stats(readSamples));

    // 2b. The first Edit in a fresh process (wasm not tiered up yet) against the 100th in it; the
    // median of a few fresh processes, as one first call is one sample. Before the 1 MB Edits: right
    // after them, the first Edits of five fresh processes in a row took 15, 11, 8, 3.7, 3.2 ms.
    const smallFile = join(root, 'cold-edit.ts');
    const coldRatios = [];
    for (let run = 0; run < (quick ? 3 : 5); run++) {
      writeFileSync(smallFile, Array.from({ length: 200 }, (_, i) => line(i)).join('\n') + '\n');
      const coldServer = startServer(root);
      await coldServer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
      await coldServer.call('Read', { file_path: smallFile });
      const coldSamples = [];
      for (let i = 0; i < 100; i++) {
        const [from, to] = i % 2 === 0 ? ['compute(7,', 'recompute(7,'] : ['recompute(7,', 'compute(7,'];
        coldSamples.push(await time(() => coldServer.call('Edit', { file_path: smallFile, old_string: from, new_string: to })));
      }
      await coldServer.stop();
      coldRatios.push({ first: coldSamples[0], hundredth: coldSamples[99], ratio: coldSamples[0] / coldSamples[99] });
    }
    const cold = [...coldRatios].sort((x, y) => x.ratio - y.ratio)[Math.floor(coldRatios.length / 2)];
    rows.push(`${'first Edit in a fresh process (median of ' + coldRatios.length + ')'.padEnd(44)} ${fmt(cold.first)}; 100th ${fmt(cold.hundredth)}: ${cold.ratio.toFixed(2)}× the 100th`);
    console.log(rows.at(-1));
    record('first-edit-cold', {
      ratio: cold.ratio, ratioMin: Math.min(...coldRatios.map((r) => r.ratio)), goal: 2, unit: '×',
      what: 'the first Edit (200-line file) in a fresh tether-mcp process / the 100th Edit in it (median of fresh processes)',
    });

    // 2. Edit of a 1 MB file including its diff, against the npm diff package's createPatch.
    const editFile = join(root, 'edit-1mb.ts');
    const lines = [];
    let size = 0;
    for (let i = 0; size < 1024 * 1024; i++) {
      lines.push(line(i));
      size += lines.at(-1).length + 1;
    }
    const original = lines.join('\n') + '\n';
    writeFileSync(editFile, original);
    const middle = Math.floor(lines.length / 2);
    const before = lines[middle];
    const after = before.replace('compute', 'recompute');
    const edited = original.replace(before, after);
    await server.call('Read', { file_path: editFile, limit: 1 });
    const editSamples = [];
    for (let i = 0; i < (quick ? 6 : 30); i++) {
      const [from, to] = i % 2 === 0 ? [before, after] : [after, before];
      editSamples.push(await time(() => server.call('Edit', { file_path: editFile, old_string: from, new_string: to })));
    }
    const patchSamples = [];
    for (let i = 0; i < (quick ? 6 : 30); i++) {
      const [a, b] = i % 2 === 0 ? [original, edited] : [edited, original];
      patchSamples.push(await time(() => createPatch('edit-1mb.ts', a, b)));
    }
    // The floor of any Edit of the file, with no diff and no Tether: what an atomic replace of it
    // does in plain Node (resolve and stat it, read it, write a temp file with its mode, rename).
    const ioSamples = [];
    for (let i = 0; i < (quick ? 6 : 30); i++) {
      const [from, to] = i % 2 === 0 ? [before, after] : [after, before];
      ioSamples.push(await time(async () => {
        const real = await fsp.realpath(editFile);
        const { mode } = await fsp.stat(real);
        const text = (await fsp.readFile(real, 'utf8')).replace(from, to);
        const temp = `${real}.bench-${i}`;
        await fsp.writeFile(temp, text, { mode });
        await fsp.rename(temp, real);
      }));
    }
    const patchStats = stats(patchSamples);
    const editStats = stats(editSamples);
    report('npm diff createPatch, 1 MB, one line changed', patchStats);
    report('Edit 1 MB incl. diff (tools/call, core+host)', editStats, patchStats);
    report('floor: its atomic replace in plain Node, no diff', stats(ioSamples), patchStats);
    record('edit-1mb', {
      ratio: editStats.p50 / patchStats.p50, ratioMin: editStats.min / patchStats.min, goal: 0.3, unit: '×',
      what: 'Edit of a 1 MB file incl. its diff (tools/call) / npm diff createPatch on the same input',
    });
    await server.stop();

    // 2a. What a checkpoint adds to an Edit: the same Edits of a 1 MB file with checkpoints on
    // (a folder outside the workspace) and off, interleaved. Later Edits of a file in one user
    // message only update a hash; the first one takes the file's before-image, written out when
    // the turn ends (for tether-mcp: when it ends).
    const checkpointDir = mkdtempSync(join(tmpdir(), 'tether-bench-checkpoints-'));
    const plain = startServer(root);
    const checkpointed = startServer(root, {}, ['--checkpoints', checkpointDir]);
    const editFiles = { plain: join(root, 'cp-plain.ts'), checkpointed: join(root, 'cp-on.ts') };
    writeFileSync(editFiles.plain, original);
    writeFileSync(editFiles.checkpointed, original);
    const servers = { plain, checkpointed };
    const samples = { plain: [], checkpointed: [], plainFirst: [], checkpointedFirst: [] };
    for (const kind of ['plain', 'checkpointed']) {
      await servers[kind].call('Read', { file_path: editFiles[kind], limit: 1 });
      for (let i = 0; i < 4; i++) {
        const [from, to] = i % 2 === 0 ? [before, after] : [after, before];
        await servers[kind].call('Edit', { file_path: editFiles[kind], old_string: from, new_string: to });
      }
    }
    for (let i = 0; i < (quick ? 10 : 40); i++) {
      const [from, to] = i % 2 === 0 ? [before, after] : [after, before];
      for (const kind of i % 2 === 0 ? ['plain', 'checkpointed'] : ['checkpointed', 'plain']) {
        samples[kind].push(await time(() => servers[kind].call('Edit', { file_path: editFiles[kind], old_string: from, new_string: to })));
      }
    }
    // The first Edit of a file in a message: a fresh 1 MB file each time.
    for (let i = 0; i < (quick ? 6 : 20); i++) {
      for (const kind of i % 2 === 0 ? ['plain', 'checkpointed'] : ['checkpointed', 'plain']) {
        const file = join(root, `cp-first-${kind}-${i}.ts`);
        writeFileSync(file, original);
        samples[`${kind}First`].push(await time(() => servers[kind].call('Edit', { file_path: file, old_string: before, new_string: after })));
      }
    }
    await plain.stop();
    await checkpointed.stop();
    rmSync(checkpointDir, { recursive: true, force: true });
    const steady = { plain: stats(samples.plain), on: stats(samples.checkpointed) };
    const first = { plain: stats(samples.plainFirst), on: stats(samples.checkpointedFirst) };
    report('Edit 1 MB, checkpoints off (same run)', steady.plain);
    report('Edit 1 MB, checkpoints on, file seen in the message', steady.on, steady.plain);
    record('checkpoint-edit', {
      ratio: steady.on.p50 / steady.plain.p50, ratioMin: steady.on.min / steady.plain.min, goal: 1.05, unit: '×',
      what: 'Edit of a 1 MB file with checkpoints on (the file already checkpointed in this message) / off, same run',
    });
    report('first Edit of a 1 MB file, checkpoints off', first.plain);
    report('first Edit of a 1 MB file, checkpoints on (takes it)', first.on, first.plain);
    record('checkpoint-first-edit', {
      ratio: first.on.p50 / first.plain.p50, ratioMin: first.on.min / first.plain.min, goal: 1.05, unit: '×',
      what: 'the first Edit of a 1 MB file in a message with checkpoints on (its before-image taken, written at the turn end) / off, same run',
    });

    // 3. Grep over a generated 20,000-file tree, against rg on the same tree.
    const tree = join(root, 'tree');
    const dirs = quick ? 40 : 200;
    for (let d = 0; d < dirs; d++) {
      const dir = join(tree, `pkg${d}`, 'src');
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 100; f++) {
        const body = Array.from({ length: 20 }, (_, i) => line(i));
        if ((d * 100 + f) % 97 === 0) body[7] = 'export const NEEDLE_TOKEN = 42;';
        writeFileSync(join(dir, `file${f}.ts`), body.join('\n') + '\n');
      }
    }
    const files = dirs * 100;
    const rgArgs = coreGrepArgs('NEEDLE_TOKEN', tree);
    const rgOneGlob = ['--files-with-matches', '--hidden', '--glob', '!.git', 'NEEDLE_TOKEN', tree];
    const grepServer = startServer(tree);
    const grepArgs = { pattern: 'NEEDLE_TOKEN', path: tree, head_limit: 0 };
    await grepServer.call('Grep', grepArgs);
    // Interleaved, so a change in the machine's load hits both alike.
    const rgSamples = [];
    const rgOneGlobSamples = [];
    const grepSamples = [];
    const floorSamples = [];
    for (let i = 0; i < (quick ? 3 : 15); i++) {
      rgSamples.push(await time(() => execFileSync('rg', rgArgs, { maxBuffer: 64 << 20 })));
      rgOneGlobSamples.push(await time(() => execFileSync('rg', rgOneGlob, { maxBuffer: 64 << 20 })));
      grepSamples.push(await time(() => grepServer.call('Grep', grepArgs)));
      floorSamples.push(await time(() => rgThenMtimes(rgArgs)));
    }
    const rgStats = stats(rgSamples);
    report(`rg -l over ${files} files (direct spawn, one glob)`, stats(rgOneGlobSamples));
    report(`rg over ${files} files (direct spawn, the core's argv)`, rgStats);
    const grepStats = stats(grepSamples);
    report(`Grep over ${files} files (tools/call, host rg)`, grepStats, rgStats);
    report(`floor: rg spawned async + its matches' mtimes, no Tether`, stats(floorSamples), rgStats);
    record('grep-local', {
      ratio: grepStats.p50 / rgStats.p50, ratioMin: grepStats.min / rgStats.min, goal: 1.05, unit: '×',
      what: `Grep over ${files} files on a local folder (tools/call, host rg) / rg spawned directly with the core's argv`,
    });
    await grepServer.stop();
    const walkerServer = startServer(tree, { TETHER_RG: 'none' });
    await walkerServer.call('Grep', grepArgs);
    const walkerSamples = [];
    for (let i = 0; i < (quick ? 2 : 5); i++) walkerSamples.push(await time(() => walkerServer.call('Grep', grepArgs)));
    report(`Grep over ${files} files (tools/call, no rg)`, stats(walkerSamples), rgStats);
    await walkerServer.stop();

    // 4. Size of the wasm the VSIX ships.
    const wasmBytes = statSync(join(dist, 'tether_core_bg.wasm')).size;
    rows.push(`wasm size: ${wasmBytes} bytes (${(wasmBytes / 1024 / 1024).toFixed(2)} MiB; limit 2 MB, build.sh)`);
    console.log(rows.at(-1));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
