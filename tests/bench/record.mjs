// One row of the benchmark's summary table (tests/bench/check.mjs reads them). Each benchmark
// records what it measured against its baseline from the same run; the guard compares the ratio
// with the one recorded in tests/bench/recorded.json. Without TETHER_BENCH_RESULTS (a benchmark run
// on its own) nothing is written.

import { appendFileSync } from "node:fs";

/**
 * @param {string} id        the row's name in recorded.json (stable)
 * @param {object} row
 * @param {number} row.ratio      measured / baseline, medians (what the guard compares)
 * @param {number} [row.ratioMin] the same with minimums
 * @param {number} [row.value]    the figure the goal is about when it is not the ratio (ms, added ms)
 * @param {number} [row.valueMin]
 * @param {number} row.goal       the goal, on `value` when given, else on `ratio`
 * @param {string} row.unit       how to read value and goal: "×", "ms" or "+ms"
 * @param {string} row.what       one line: the path and its baseline
 */
export function record(id, row) {
  const file = process.env.TETHER_BENCH_RESULTS;
  if (!file) return;
  for (const key of ["ratio", "goal"]) {
    if (!Number.isFinite(row[key])) throw new Error(`bench row ${id}: ${key} is not a number (${row[key]})`);
  }
  // `bench`: which benchmark measured it (run.sh re-runs that one to confirm a failing row).
  appendFileSync(file, JSON.stringify({ id, bench: process.env.TETHER_BENCH_NAME, ...row }) + "\n");
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const min = (xs) => Math.min(...xs);
