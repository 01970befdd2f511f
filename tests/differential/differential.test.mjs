// Differential fidelity: every scenario runs once with the real Claude Code CLI's own tools and
// once through Tether, against the scripted fake Messages API, and the two must leave the same
// files and send the model the same tool results. A difference recorded as accepted (the
// scenario's `accepted`, with its reason; the README's table) must still be exactly that one.
// The closing test requires the identical share (>= 95% over >= 50 scenarios) and reports the
// tool-definition comparison (native NAME vs mcp__tether__NAME), which is informational.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { definitionReport, describeDifferences, runScenario, summaryLine } from "./run.mjs";
import { SCENARIOS } from "./scenarios.mjs";

const MIN_SCENARIOS = 50;
const MIN_SHARE = 0.95;
/** Two CLI sessions per scenario; a few scenarios at a time keep the suite within minutes. */
const CONCURRENCY = 3;
/**
 * The whole set's limit (each session is bounded by the harness at 60 s): a few minutes on an
 * idle two-core machine, several times that when the cores are shared.
 */
const SUITE_LIMIT_MS = 40 * 60_000;

const outcomes = [];

describe("differential scenarios", { concurrency: CONCURRENCY, timeout: SUITE_LIMIT_MS }, () => {
  for (const scenario of SCENARIOS) {
    test(scenario.name, async (t) => {
      const outcome = await runScenario(scenario);
      outcomes.push(outcome);
      const { accepted } = scenario;
      if (outcome.identical) {
        assert.equal(accepted, undefined, `recorded as an accepted difference (${accepted?.reason}) but now identical: remove it from the allow-list and the README`);
        return;
      }
      const differences = describeDifferences(outcome);
      if (!accepted) assert.fail(`native and Tether differ:\n${differences}`);
      for (const text of `ACCEPTED DIFFERENCE: ${accepted.reason}\n${differences}`.split("\n")) t.diagnostic(text);
      assert.deepEqual(outcome.problems, [], "both runs completed every call");
      const differing = outcome.results.filter((r) => !r.same).map((r) => r.index);
      assert.deepEqual(differing, accepted.results, "the tool results that differ are the accepted ones");
      if (!accepted.files) assert.deepEqual(outcome.files, [], "the files are identical");
    });
  }
});

test("differential: identical share and tool definitions", (t) => {
  const line = summaryLine(outcomes);
  const definitions = definitionReport(outcomes);
  t.diagnostic(line);
  for (const text of String(definitions.text ?? definitions).split("\n")) t.diagnostic(text);
  const identical = outcomes.filter((o) => o.identical).length;
  assert.ok(outcomes.length >= MIN_SCENARIOS, `${outcomes.length} scenarios ran, fewer than ${MIN_SCENARIOS}`);
  assert.ok(identical / outcomes.length >= MIN_SHARE, `${line}: below ${MIN_SHARE * 100}%`);
});

after(() => {
  const different = outcomes.filter((o) => !o.identical);
  const lines = [summaryLine(outcomes)];
  for (const o of different) lines.push(`  ${o.accepted ? "accepted" : "DIFFERENT"}: ${o.name}${o.accepted ? ` (${o.accepted.reason})` : ""}`);
  process.stdout.write(`# ${lines.join("\n# ")}\n`);
});
