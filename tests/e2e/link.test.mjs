// The link to the emulated remote counted (issue 34): every file system call and every command of
// Tether Remote is one round trip of the fake remote's link model (fake-remote/link-model.js).
// Claude Code runs one tool per turn on the `tetherfake:` folder, and the round trips of each
// turn, less those of a turn without a tool, are what the tool costs. The table is printed and
// written to tests/artifacts/e2e/link-round-trips.json; the checks here are what the link model
// itself must do (count every call, overlap calls made at once, add the latency it is given).

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { ARTIFACTS, launchRemoteVsCode, lazyInput, openTether, runTurn, waitFor } from "./harness.mjs";

let api;
let vs;
let remote;

const MB = 1024 * 1024;
const BIG = `${"x".repeat(99)}\n`.repeat(MB / 100) + "BIG-END\n";
const NOTEBOOK = JSON.stringify({
  cells: [{ cell_type: "code", id: "c1", metadata: {}, source: ["print(1)\n"], outputs: [], execution_count: null }],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
});

/** One turn per row: its prompt and the tool uses the model answers it with (none: the baseline). */
const r = (rel) => () => path.join(remote, rel);
const ROWS = [
  ["baseline (no tool)", []],
  ["Read", [{ name: "mcp__tether__Read", input: lazyInput({ file_path: r("small.txt") }) }]],
  ["Read ×4 at once", ["a.txt", "b.txt", "c.txt", "d.txt"].map((f) => ({ name: "mcp__tether__Read", input: lazyInput({ file_path: r(f) }) }))],
  ["Write (new file)", [{ name: "mcp__tether__Write", input: lazyInput({ file_path: r("new.txt"), content: "written over the link\n" }) }]],
  ["Edit (small)", [{ name: "mcp__tether__Edit", input: lazyInput({ file_path: r("small.txt"), old_string: "small one", new_string: "small two" }) }]],
  ["MultiEdit", [{ name: "mcp__tether__MultiEdit", input: lazyInput({ file_path: r("small.txt"), edits: [{ old_string: "small two", new_string: "small three" }, { old_string: "tail", new_string: "end" }] }) }]],
  ["Read (1 MB, 5 lines)", [{ name: "mcp__tether__Read", input: lazyInput({ file_path: r("big.txt"), offset: 1, limit: 5 }) }]],
  ["Edit (1 MB)", [{ name: "mcp__tether__Edit", input: lazyInput({ file_path: r("big.txt"), old_string: "BIG-END", new_string: "BIG-EDITED" }) }]],
  ["Glob", [{ name: "mcp__tether__Glob", input: { pattern: "**/*.txt" } }]],
  ["Grep", [{ name: "mcp__tether__Grep", input: { pattern: "needle-[0-9]+", output_mode: "content" } }]],
  ["LS", [{ name: "mcp__tether__LS", input: lazyInput({ path: r("") }) }]],
  ["Bash (short)", [{ name: "mcp__tether__Bash", input: { command: "echo over-the-link", description: "Echo" } }]],
  ["Read (notebook)", [{ name: "mcp__tether__Read", input: lazyInput({ file_path: r("nb.ipynb") }) }]],
  ["NotebookEdit", [{ name: "mcp__tether__NotebookEdit", input: lazyInput({ notebook_path: r("nb.ipynb"), cell_id: "c1", new_source: "print(2)\n" }) }]],
];
/** The prompt of row `index` in a pass (each pass has its own turns in the script). */
const promptOf = (index, pass = "ROW") => `LINK-${pass}-${index} go`;
const PASSES = ["ROW", "SLOW"];

before(async () => {
  api = await startFakeApi([
    ...PASSES.flatMap((pass) => ROWS.flatMap(([, uses], index) => (uses.length ? [{ when: { lastUserText: new RegExp(`${promptOf(index, pass)}$`) }, toolUses: uses }] : []))),
    // Every tool turn ends with one answer to its results; a prompt without a tool, with text.
    { when: (facts) => facts.lastToolResult !== null, text: "Row done.", repeat: true },
    { text: "OK.", repeat: true },
  ]);
  vs = await launchRemoteVsCode({
    name: "link",
    api,
    remoteFiles: {
      "small.txt": "a small one\nwith a tail\n",
      "a.txt": "file a\n",
      "b.txt": "file b\n",
      "c.txt": "file c\n",
      "d.txt": "file d\n",
      "big.txt": BIG,
      "nb.ipynb": NOTEBOOK,
      "src/deep/haystack.txt": "hay\nneedle-42\nhay\n",
    },
  });
  remote = vs.remote;
  await openTether(vs);
});

after(async () => {
  await vs?.close();
  await api?.close();
});

const stats = (reset = false) => vs.control("_tetherfake.linkStats", reset);

/** The link's counts once nothing is under way and nothing new came for half a second. */
async function settled() {
  let last = -1;
  let quietPolls = 0;
  return waitFor(async () => {
    const now = await stats();
    quietPolls = now.inflight === 0 && now.roundTrips === last ? quietPolls + 1 : 0;
    last = now.roundTrips;
    return quietPolls >= 5 ? now : undefined;
  }, 30_000, "the link to go quiet");
}

async function measureRow(index, pass = "ROW") {
  await settled();
  await stats(true);
  const requests = api.messageRequests().length;
  const turns = ROWS[index][1].length ? 2 : 1;
  await runTurn(vs, promptOf(index, pass), () => api.messageRequests().length >= requests + turns);
  return settled();
}

test("every tool's round trips over the emulated remote's link, counted against a turn without a tool", { timeout: 300_000 }, async (t) => {
  await vs.control("_tetherfake.linkModel", {});
  // The session starts (agent, project context, Tether Remote) before anything is measured.
  await runTurn(vs, "LINK warm up", () => api.messageRequests().length >= 1, 120_000);
  const measured = [];
  for (let index = 0; index < ROWS.length; index++) measured.push(await measureRow(index));
  const baseline = measured[0];
  const rows = ROWS.map(([name], index) => ({
    tool: name,
    roundTrips: measured[index].roundTrips - (index === 0 ? 0 : baseline.roundTrips),
    turnRoundTrips: measured[index].roundTrips,
    maxInflight: measured[index].maxInflight,
    byName: measured[index].byName,
    calls: measured[index].calls,
  }));
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.writeFileSync(path.join(ARTIFACTS, "link-round-trips.json"), `${JSON.stringify(rows, null, 2)}\n`);
  // The artifact names each call (and its path or arguments); the diagnostics count them.
  for (const row of rows) t.diagnostic(`${row.tool.padEnd(22)} ${String(row.roundTrips).padStart(4)} round trips (turn ${row.turnRoundTrips}, at most ${row.maxInflight} at once): ${JSON.stringify(row.byName)}`);

  // Every tool call crossed the link and did its work on the remote.
  assert.equal(fs.readFileSync(path.join(remote, "small.txt"), "utf8"), "a small three\nwith a end\n");
  assert.ok(fs.readFileSync(path.join(remote, "big.txt"), "utf8").endsWith("BIG-EDITED\n"));
  assert.equal(fs.readFileSync(path.join(remote, "new.txt"), "utf8"), "written over the link\n");
  assert.match(fs.readFileSync(path.join(remote, "nb.ipynb"), "utf8"), /print\(2\)/);
  for (const row of rows.slice(1)) assert.ok(row.turnRoundTrips > baseline.roundTrips || row.byName["_tether.remote.run"], `${row.tool} crossed the link: ${JSON.stringify(row)}`);
  assert.ok(rows.find((row) => row.tool === "Bash (short)").byName["_tether.remote.run"] >= 1, "Bash ran through Tether Remote");
});

test("the link model adds its round-trip time to every call: a turn's delay is at least RTT × its round trips", { timeout: 120_000 }, async (t) => {
  await settled();
  await vs.control("_tetherfake.linkModel", { rttMs: 40, jitterMs: 10, seed: 7 });
  try {
    for (const name of ["Read", "Read ×4 at once"]) {
      const row = await measureRow(ROWS.findIndex(([tool]) => tool === name), "SLOW");
      t.diagnostic(`${name} at 40 ms: ${row.roundTrips} round trips, at most ${row.maxInflight} at once, ${Math.round(row.delayMs)} ms of link delay`);
      assert.ok(row.roundTrips > 0);
      assert.ok(row.delayMs >= row.roundTrips * 40, JSON.stringify(row));
    }
  } finally {
    await vs.control("_tetherfake.linkModel", {});
  }
});
