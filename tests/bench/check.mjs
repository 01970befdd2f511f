// The benchmark's summary and its guard. Reads the rows the benchmarks recorded (record.mjs) and
// prints one table: each hot path's figure against its baseline from the same run (medians and
// minimums) and its goal, one table per run. With --check it fails when a row's ratio is more than
// 20% worse than the ratio recorded in tests/bench/recorded.json (checked in, updated on purpose
// with --record), or when a recorded row was not measured (unless --partial: a run of some
// benchmarks only). --record writes each row's worse ratio of the runs given (run.sh gives two), so
// one lucky run does not set a bar the next quiet run misses. A row only fails --check when its
// benchmark, run again (run.sh asks which with --failing, and passes the re-run with --retry),
// misses the bar again: one noisy run on a shared machine does not fail the guard; a regression
// fails both. Timings are not tests: ./build.sh test does not run this.
//
//   node tests/bench/check.mjs RESULTS.jsonl... [--check] [--record] [--partial] [--retry RERUN.jsonl]
//   node tests/bench/check.mjs RESULTS.jsonl --failing   the benchmarks of rows over the bar

import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { OVERHEAD } from "./overhead.mjs";

/** How much worse than recorded a ratio may get before --check fails. */
export const TOLERANCE = 1.2;
const RECORDED = path.join(path.dirname(fileURLToPath(import.meta.url)), "recorded.json");

/** Whether `ratio` is more than the tolerance worse than the recorded `was`. */
function overBar(ratio, was) {
  return ratio / was > TOLERANCE;
}

/** Reads a results file: one JSON row a line; the last row of an id wins. */
export function readResults(text) {
  const rows = new Map();
  for (const line of text.split("\n")) {
    if (line.trim()) {
      const row = JSON.parse(line);
      rows.set(row.id, row);
    }
  }
  return rows;
}

/** Each row's worse ratio over several runs' rows: what --record writes. */
export function worstOf(runs) {
  const worst = {};
  for (const rows of runs) {
    for (const [id, row] of rows) worst[id] = Math.max(worst[id] ?? -Infinity, row.ratio);
  }
  return Object.fromEntries(Object.entries(worst).map(([id, ratio]) => [id, Number(ratio.toFixed(4))]));
}

/** Compares measured rows with the recorded ratios: the lines to print and whether the guard holds.
 *  With `partial` (a run of some benchmarks only) a recorded row not measured is not a failure. */
export function compare(rows, recorded, { partial = false } = {}) {
  const lines = [];
  let ok = true;
  const ids = [...new Set([...Object.keys(recorded), ...rows.keys()])];
  for (const id of ids) {
    const row = rows.get(id);
    const was = recorded[id];
    if (!row) {
      if (partial) continue;
      lines.push(`  ${id.padEnd(30)} not measured${was === undefined ? "" : `  (recorded ${was.toFixed(3)}×): FAILS the guard`}`);
      if (was !== undefined) ok = false;
      continue;
    }
    const figure = row.value ?? row.ratio;
    const figureMin = row.value === undefined ? row.ratioMin : row.valueMin;
    const met = figure <= row.goal;
    let guard = "not recorded yet";
    if (was !== undefined) {
      const worse = row.ratio / was;
      const holds = !overBar(row.ratio, was);
      if (!holds) ok = false;
      guard = `${row.ratio.toFixed(3)}× vs recorded ${was.toFixed(3)}× (${((worse - 1) * 100).toFixed(0)}%)${holds ? "" : ": more than 20% worse, FAILS"}`;
    }
    lines.push(
      `  ${id.padEnd(30)} ${show(figure, row.unit).padStart(10)} median  ${figureMin === undefined ? "" : `${show(figureMin, row.unit)} min  `}` +
        `goal ≤ ${show(row.goal, row.unit)} ${met ? "met" : "NOT met"}  | ${guard}`,
    );
    lines.push(`  ${"".padEnd(30)} ${row.what}`);
    if (!met && OVERHEAD[id]) lines.push(...wrap(`where the rest goes: ${OVERHEAD[id]}`, 96).map((text) => `  ${"".padEnd(30)} ${text}`));
  }
  return { lines, ok };
}

/** The rows measured more than 20% worse than recorded. */
export function overTheBar(rows, recorded) {
  return [...rows.values()].filter((row) => recorded[row.id] !== undefined && overBar(row.ratio, recorded[row.id]));
}

/** The run's rows, each row over the bar replaced by its re-run when the re-run did better. */
export function withRetries(rows, retried, recorded) {
  const merged = new Map(rows);
  for (const row of overTheBar(rows, recorded)) {
    const again = retried.get(row.id);
    if (again && again.ratio < row.ratio) merged.set(row.id, { ...again, what: `${again.what} (re-run; first run ${row.ratio.toFixed(3)})` });
  }
  return merged;
}

/** Words into lines of at most `width` characters. */
function wrap(text, width) {
  const lines = [""];
  for (const word of text.split(" ")) {
    const line = lines.at(-1);
    if (line && line.length + 1 + word.length > width) lines.push(word);
    else lines[lines.length - 1] = line ? `${line} ${word}` : word;
  }
  return lines;
}

function show(x, unit) {
  if (unit === "×") return `${x.toFixed(2)}×`;
  if (unit === "+ms") return `${x >= 0 ? "+" : ""}${x.toFixed(2)} ms`;
  return `${x.toFixed(1)} ms`;
}

function main(argv) {
  const retryAt = argv.indexOf("--retry");
  const retryFile = retryAt >= 0 ? argv[retryAt + 1] : undefined;
  const files = argv.filter((a, i) => !a.startsWith("--") && (retryAt < 0 || i !== retryAt + 1));
  const missing = files.find((file) => !existsSync(file));
  if (!files.length || missing) {
    console.error(`check.mjs: no results file (${missing ?? "none given"}); run tests/bench/run.sh`);
    return 2;
  }
  const runs = files.map((file) => readResults(readFileSync(file, "utf8")));
  if (argv.includes("--check") && !existsSync(RECORDED)) {
    console.error(`bench --check: nothing recorded yet (${RECORDED}); record the ratios once with --record`);
    return 1;
  }
  const recorded = existsSync(RECORDED) ? JSON.parse(readFileSync(RECORDED, "utf8")).ratios : {};
  if (argv.includes("--failing")) {
    const benches = [...new Set(overTheBar(runs[0], recorded).map((row) => row.bench))].filter(Boolean);
    if (benches.length) console.log(benches.join("\n"));
    return 0;
  }
  if (retryFile) runs[0] = withRetries(runs[0], existsSync(retryFile) ? readResults(readFileSync(retryFile, "utf8")) : new Map(), recorded);
  let ok = true;
  runs.forEach((rows, index) => {
    const result = compare(rows, recorded, { partial: argv.includes("--partial") });
    ok &&= result.ok;
    const which = runs.length > 1 ? ` (run ${index + 1} of ${runs.length})` : "";
    console.log(`\n== summary${which}: each hot path against its baseline from this run ==`);
    console.log(result.lines.join("\n"));
  });
  if (argv.includes("--record")) {
    const ratios = worstOf(runs);
    const note = `ratios the guard compares with: each row's worse of ${runs.length} run(s) of ./build.sh bench --record`;
    writeFileSync(RECORDED, JSON.stringify({ note, ratios }, null, 2) + "\n");
    console.log(`recorded ${Object.keys(ratios).length} ratios in ${path.relative(process.cwd(), RECORDED)}`);
  }
  if (argv.includes("--check")) {
    console.log(ok ? "bench --check: every ratio within 20% of the recorded one" : "bench --check: FAILED (a ratio is more than 20% worse than recorded, or a recorded row was not measured)");
    return ok ? 0 : 1;
  }
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
