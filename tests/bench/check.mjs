// The benchmark's summary and its guard. Reads the rows the benchmarks recorded (record.mjs) and
// prints one table: each hot path's figure against its baseline from the same run (medians and
// minimums) and its goal. With --check it fails when a row's ratio is more than 20% worse than the
// ratio recorded in tests/bench/recorded.json (checked in, updated on purpose with --record), or
// when a recorded row was not measured. Timings are not tests: ./build.sh test does not run this.
//
//   node tests/bench/check.mjs RESULTS.jsonl [--check] [--record]

import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

/** How much worse than recorded a ratio may get before --check fails. */
export const TOLERANCE = 1.2;
const RECORDED = path.join(path.dirname(fileURLToPath(import.meta.url)), "recorded.json");

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

/** Compares measured rows with the recorded ratios: the lines to print and whether the guard holds. */
export function compare(rows, recorded) {
  const lines = [];
  let ok = true;
  const ids = [...new Set([...Object.keys(recorded), ...rows.keys()])];
  for (const id of ids) {
    const row = rows.get(id);
    const was = recorded[id];
    if (!row) {
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
      const holds = worse <= TOLERANCE;
      if (!holds) ok = false;
      guard = `${row.ratio.toFixed(3)}× vs recorded ${was.toFixed(3)}× (${((worse - 1) * 100).toFixed(0)}%)${holds ? "" : ": more than 20% worse, FAILS"}`;
    }
    lines.push(
      `  ${id.padEnd(30)} ${show(figure, row.unit).padStart(10)} median  ${figureMin === undefined ? "" : `${show(figureMin, row.unit)} min  `}` +
        `goal ≤ ${show(row.goal, row.unit)} ${met ? "met" : "NOT met"}  | ${guard}`,
    );
    lines.push(`  ${"".padEnd(30)} ${row.what}`);
  }
  return { lines, ok };
}

function show(x, unit) {
  if (unit === "×") return `${x.toFixed(2)}×`;
  if (unit === "+ms") return `${x >= 0 ? "+" : ""}${x.toFixed(2)} ms`;
  return `${x.toFixed(1)} ms`;
}

function main(argv) {
  const file = argv.find((a) => !a.startsWith("--"));
  if (!file || !existsSync(file)) {
    console.error(`check.mjs: no results file (${file ?? "none given"}); run tests/bench/run.sh`);
    return 2;
  }
  const rows = readResults(readFileSync(file, "utf8"));
  if (argv.includes("--check") && !existsSync(RECORDED)) {
    console.error(`bench --check: nothing recorded yet (${RECORDED}); record the ratios once with --record`);
    return 1;
  }
  const recorded = existsSync(RECORDED) ? JSON.parse(readFileSync(RECORDED, "utf8")).ratios : {};
  const { lines, ok } = compare(rows, recorded);
  console.log("\n== summary: each hot path against its baseline from this run ==");
  console.log(lines.join("\n"));
  if (argv.includes("--record")) {
    const ratios = Object.fromEntries([...rows].map(([id, row]) => [id, Number(row.ratio.toFixed(4))]));
    writeFileSync(RECORDED, JSON.stringify({ note: "ratios the guard compares with (./build.sh bench --record)", ratios }, null, 2) + "\n");
    console.log(`recorded ${rows.size} ratios in ${path.relative(process.cwd(), RECORDED)}`);
  }
  if (argv.includes("--check")) {
    console.log(ok ? "bench --check: every ratio within 20% of the recorded one" : "bench --check: FAILED (a ratio is more than 20% worse than recorded, or a recorded row was not measured)");
    return ok ? 0 : 1;
  }
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
