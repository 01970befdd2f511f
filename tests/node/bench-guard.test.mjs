// The benchmark's guard (tests/bench/check.mjs): which ratios pass and which fail it. The timings
// themselves are not tested here; this checks only the comparison ./build.sh bench --check makes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compare, readResults, TOLERANCE, worstOf } from "../bench/check.mjs";

const row = (id, ratio) => JSON.stringify({ id, ratio, goal: 1, unit: "×", what: id });

test("a ratio up to 20% worse than the recorded one passes the guard", () => {
  const rows = readResults([row("grep-local", 1.1 * 1.19)].join("\n"));
  assert.equal(compare(rows, { "grep-local": 1.1 }).ok, true);
  assert.equal(TOLERANCE, 1.2);
});

test("a ratio more than 20% worse than the recorded one fails the guard and says so", () => {
  const rows = readResults(row("edit-1mb", 0.75));
  const { ok, lines } = compare(rows, { "edit-1mb": 0.6 });
  assert.equal(ok, false);
  assert.match(lines.join("\n"), /edit-1mb.*25%.*FAILS/);
});

test("a recorded row the run did not measure fails the guard", () => {
  const { ok, lines } = compare(readResults(""), { "grep-remote": 1.0 });
  assert.equal(ok, false);
  assert.match(lines.join("\n"), /grep-remote\s+not measured/);
});

test("a row measured but not recorded yet is shown and does not fail", () => {
  assert.equal(compare(readResults(row("first-edit-cold", 3)), {}).ok, true);
});

test("a run of some benchmarks only (--partial) does not fail on the rows it did not measure", () => {
  const rows = readResults(row("edit-1mb", 0.6));
  const { ok, lines } = compare(rows, { "edit-1mb": 0.6, "grep-remote": 1.0 }, { partial: true });
  assert.equal(ok, true);
  assert.doesNotMatch(lines.join("\n"), /grep-remote/);
});

test("recording two runs keeps each row's worse ratio", () => {
  const first = readResults([row("edit-1mb", 0.6), row("grep-local", 1.0)].join("\n"));
  const second = readResults([row("edit-1mb", 0.7), row("grep-local", 0.9)].join("\n"));
  assert.deepEqual(worstOf([first, second]), { "edit-1mb": 0.7, "grep-local": 1.0 });
});
