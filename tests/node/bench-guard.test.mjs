// The benchmark's guard (tests/bench/check.mjs): which ratios pass and which fail it. The timings
// themselves are not tested here; this checks only the comparison ./build.sh bench --check makes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compare, overTheBar, readResults, TOLERANCE, withRetries, worstOf } from "../bench/check.mjs";

const row = (id, ratio, bench = "core") => JSON.stringify({ id, bench, ratio, goal: 1, unit: "×", what: id });

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

test("the benchmarks to run again are those of the rows more than 20% worse than recorded", () => {
  const rows = readResults([row("edit-1mb", 0.9, "core"), row("grep-remote", 1.0, "remote"), row("grep-local", 1.5, "core")].join("\n"));
  const recorded = { "edit-1mb": 0.6, "grep-remote": 1.0, "grep-local": 1.0 };
  assert.deepEqual(overTheBar(rows, recorded).map((r) => `${r.bench}:${r.id}`), ["core:edit-1mb", "core:grep-local"]);
});

test("a row over the bar once and within it in the re-run passes the guard; over it twice fails", () => {
  const recorded = { "grep-remote": 1.0, "edit-1mb": 0.6 };
  const first = readResults([row("grep-remote", 1.32, "remote"), row("edit-1mb", 1.05)].join("\n"));
  const again = readResults([row("grep-remote", 0.95, "remote"), row("edit-1mb", 1.02)].join("\n"));
  const { ok, lines } = compare(withRetries(first, again, recorded), recorded);
  assert.equal(ok, false);
  const text = lines.join("\n");
  assert.match(text, /grep-remote .*0\.950× vs recorded 1\.000× \(-5%\)/);
  assert.match(text, /re-run; first run 1\.320/);
  assert.match(text, /edit-1mb .*1\.020× vs recorded 0\.600× \(70%\).*FAILS/);
  assert.equal(compare(withRetries(first, again, { "grep-remote": 1.0 }), { "grep-remote": 1.0 }).ok, true, "the re-run within the bar holds");
});
