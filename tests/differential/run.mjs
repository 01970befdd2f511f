#!/usr/bin/env node
// The differential runner: runs scenarios (native CLI vs Tether), compares them and reports.
//
//   node tests/differential/run.mjs [--filter TEXT] [--concurrency N] [--verbose]
//
// prints one line per scenario, every difference as a short unified diff, the tool-definition
// comparison, and `differential: N/M identical (P%)`. The node:test suite beside it
// (differential.test.mjs) runs the same scenarios, one test each.


import { pathToFileURL } from "node:url";
import { compareDefinitions, fileDifferences, normalizer, renderResult, unifiedDiff } from "./compare.mjs";
import { NATIVE_TOOLS, makeScenarioDirs, readTree, runNative, runThroughTether, toolDefinitions, toolResultsInOrder } from "./harness.mjs";
import { SCENARIOS } from "./scenarios.mjs";

/**
 * Runs one scenario both ways and compares. Resolves to
 * {name, identical, accepted, files: [...], results: [{index, tool, a, b, diff}], problems: [...], runs}.
 */
export async function runScenario(scenario) {
  const dirs = makeScenarioDirs(scenario.files);
  try {
    const callsB = scenario.callsB ?? scenario.calls;
    const [native, tether] = await Promise.all([
      runNative({ dirs, calls: scenario.calls }),
      runThroughTether({ dirs, calls: callsB }),
    ]);
    const normalize = normalizer([
      [dirs.a, "<ROOT>"],
      [dirs.b, "<ROOT>"],
      [dirs.mirror, "<ROOT>"],
      [dirs.homeA, "<HOME>"],
      [dirs.homeB, "<HOME>"],
    ]);
    const problems = [];
    const resultsA = toolResultsInOrder(native.requests);
    const resultsB = toolResultsInOrder(tether.requests);
    const treeA = readTree(dirs.a);
    const treeB = readTree(dirs.b);
    maskRunIds(resultsA, treeA);
    maskRunIds(resultsB, treeB);
    const expected = scenario.calls(dirs.a).length;
    if (resultsA.length !== expected) problems.push(`native run: ${resultsA.length} tool results for ${expected} calls (exit ${native.code}) ${native.stderr.slice(-500)}`);
    if (resultsB.length !== callsB(dirs.b).length) {
      problems.push(`tether run: ${resultsB.length} tool results for ${callsB(dirs.b).length} calls (exit ${tether.code}) ${tether.stderr.slice(-800)}`);
    }
    const results = [];
    const count = Math.max(resultsA.length, resultsB.length);
    for (let i = 0; i < count; i++) {
      const a = renderResult(resultsA[i], normalize);
      const b = renderResult(resultsB[i], normalize);
      const tool = scenario.calls(dirs.a)[i]?.tool ?? "?";
      results.push({ index: i + 1, tool, a, b, same: a === b, diff: a === b ? "" : unifiedDiff(a, b, `native ${tool}`, `tether ${tool}`) });
    }
    const files = fileDifferences(treeA, treeB);
    const identical = problems.length === 0 && files.length === 0 && results.every((r) => r.same);
    return {
      name: scenario.name,
      identical,
      accepted: scenario.accepted,
      files,
      results,
      problems,
      definitions: { native: toolDefinitions(native.requests), tether: toolDefinitions(tether.requests) },
    };
  } finally {
    dirs.cleanup();
  }
}

/**
 * Identifiers a tool makes up at random and reports (a new notebook cell's id): each run's own
 * are replaced, in its results and its files, by a placeholder, so two runs compare equal when
 * they differ only there.
 */
const RUN_ID_PATTERNS = [/Inserted cell ([0-9a-zA-Z-]{6,40})/g];

function maskRunIds(results, tree) {
  const ids = new Set();
  for (const result of results) {
    for (const block of result.blocks) for (const pattern of RUN_ID_PATTERNS) for (const m of block.matchAll(pattern)) ids.add(m[1]);
  }
  if (ids.size === 0) return;
  const mask = (text) => [...ids].reduce((out, id) => out.split(id).join("<RUN_ID>"), text);
  for (const result of results) result.blocks = result.blocks.map(mask);
  for (const [name, entry] of tree) if (Buffer.isBuffer(entry)) tree.set(name, Buffer.from(mask(entry.toString("latin1")), "latin1"));
}

/** Runs `scenarios` at most `concurrency` at a time; `onDone(outcome)` as each finishes. */
export async function runAll(scenarios, { concurrency = 3, onDone = () => {} } = {}) {
  const outcomes = new Array(scenarios.length);
  let next = 0;
  const worker = async () => {
    while (next < scenarios.length) {
      const index = next++;
      outcomes[index] = await runScenario(scenarios[index]);
      onDone(outcomes[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, scenarios.length) }, worker));
  return outcomes;
}

/** One scenario's differences as text (empty when identical). */
export function describeDifferences(outcome) {
  const parts = [...outcome.problems];
  for (const file of outcome.files) parts.push(`file ${file.path}: native ${file.a}, tether ${file.b}\n${file.diff}`.trimEnd());
  for (const result of outcome.results) if (!result.same) parts.push(`tool result ${result.index} (${result.tool}):\n${result.diff}`);
  return parts.join("\n");
}

/** The summary line: `differential: 48/52 identical (92.3%)`. */
export function summaryLine(outcomes) {
  const identical = outcomes.filter((o) => o.identical).length;
  const share = outcomes.length ? (100 * identical) / outcomes.length : 0;
  return `differential: ${identical}/${outcomes.length} identical (${share.toFixed(1)}%)`;
}

/** The tool-definition comparison, from the first outcome that has both runs' definitions. */
export function definitionReport(outcomes) {
  const withBoth = outcomes.find((o) => o.definitions.native.size && o.definitions.tether.size);
  if (!withBoth) return "tool definitions: no run recorded both tool lists";
  const rows = compareDefinitions(withBoth.definitions.native, withBoth.definitions.tether, NATIVE_TOOLS);
  const lines = ["tool definitions (native NAME vs mcp__tether__NAME):"];
  for (const row of rows) {
    if (!row.native || !row.tether) {
      lines.push(`  ${row.name}: ${row.native ? "" : "not offered natively"}${row.tether ? "" : " no Tether tool"}`.trimEnd());
      continue;
    }
    lines.push(`  ${row.name}: description ${row.description ? "same" : "differs"}, input schema ${row.schema ? "same" : "differs"}`);
  }
  const nativeNames = [...withBoth.definitions.native.keys()].join(", ");
  const tetherNames = [...withBoth.definitions.tether.keys()].join(", ");
  lines.push(`  native request tools: ${nativeNames}`, `  tether request tools: ${tetherNames}`);
  return { text: lines.join("\n"), rows };
}

async function main(argv) {
  const arg = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const filter = arg("--filter");
  const verbose = argv.includes("--verbose");
  const scenarios = SCENARIOS.filter((s) => !filter || s.name.includes(filter));
  const outcomes = await runAll(scenarios, {
    concurrency: Number(arg("--concurrency") ?? 3),
    onDone: (o) => {
      const mark = o.identical ? "same     " : o.accepted ? "ACCEPTED " : "DIFFERENT";
      process.stdout.write(`${mark} ${o.name}\n`);
      if (!o.identical) process.stdout.write(indent(describeDifferences(o)) + "\n");
      if (verbose) for (const r of o.results) process.stdout.write(indent(`--- result ${r.index} native:\n${r.a}\n--- tether:\n${r.b}`) + "\n");
    },
  });
  const definitions = definitionReport(outcomes);
  process.stdout.write("\n" + (definitions.text ?? definitions) + "\n");
  if (verbose && definitions.rows) {
    for (const row of definitions.rows) {
      if (row.descriptionDiff) process.stdout.write(indent(row.descriptionDiff) + "\n");
      if (row.schemaDiff) process.stdout.write(indent(row.schemaDiff) + "\n");
    }
  }
  process.stdout.write(summaryLine(outcomes) + "\n");
}

const indent = (text) => text.replace(/^/gm, "    ");

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}


