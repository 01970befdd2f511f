// Claude Code behaviour pinned at the process boundary: for a few scripted sessions, the launch
// argv, the environment's keys, every line Tether writes to the CLI's stdin (initialize, prompts,
// control and MCP responses) and the NDJSON events tether-cli prints, compared with the reference
// copies in tests/integration/reference/ (captured before the backend seam was introduced).
// The CLI is reached through a recording shim that execs the real one, so nothing else changes.
// TETHER_UPDATE_REFERENCE=1 rewrites the copies instead of comparing (review the diff!).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { CLAUDE, REPO, makeDirs, runTether } from "./harness.mjs";

const REFERENCE_DIR = path.join(REPO, "tests/integration/reference");
const UPDATE = process.env.TETHER_UPDATE_REFERENCE === "1";

/** A shim in place of the CLI: records its argv, its environment (as execve gave it) and its
 * stdin, then becomes the real CLI (exec keeps the PID, so Tether's kills reach it). */
function recordingShim(dir) {
  const shim = path.join(dir, "claude-shim.sh");
  fs.writeFileSync(
    shim,
    `#!/usr/bin/env bash
printf '%s\\0' "$@" > "${dir}/argv"
cat /proc/$$/environ > "${dir}/environ"
exec "${CLAUDE}" "$@" < <(tee "${dir}/stdin")
`,
    { mode: 0o755 },
  );
  return shim;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** Values that differ from run to run by nature, keyed by field name. */
const VOLATILE = new Set(["durationMs", "duration_ms", "costUsd", "elapsedSeconds", "delayMs", "resetsAt", "timestamp"]);

function normalize(value, base) {
  if (typeof value === "string") {
    return value.split(base).join("<BASE>").replace(UUID, "<UUID>");
  }
  if (Array.isArray(value)) return value.map((v) => normalize(v, base));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, VOLATILE.has(k) && typeof v === "number" ? "<N>" : normalize(v, base)]),
    );
  }
  return value;
}

/** What one session shows at the boundary, normalized. */
async function capture({ files, script, args }) {
  const dirs = makeDirs(files);
  if (typeof script === "function") script = script(dirs.root);
  const record = path.join(dirs.base, "record");
  fs.mkdirSync(record);
  try {
    const result = await runTether({ dirs, script, args, claudePath: recordingShim(record) });
    assert.equal(result.code, 0, result.stderr);
    const argv = fs.readFileSync(path.join(record, "argv"), "utf8").split("\0").slice(0, -1);
    const envKeys = fs
      .readFileSync(path.join(record, "environ"), "utf8")
      .split("\0")
      .filter(Boolean)
      .map((entry) => entry.slice(0, entry.indexOf("=")))
      .sort();
    const stdin = fs
      .readFileSync(path.join(record, "stdin"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    // The CLI asks (MCP calls, permission questions) in its own order and Tether's replies may
    // interleave differently between runs, so replies are compared as a sorted set.
    const clean = (value) => normalize(value, dirs.base);
    return {
      argv: clean(argv),
      envKeys,
      stdin: canonicalStdin(clean(stdin)),
      events: clean(canonicalEvents(result.events)),
    };
  } finally {
    dirs.cleanup();
  }
}

const sortedBy = (items, key) => [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

function canonicalStdin(lines) {
  const requests = lines.filter((l) => l.type !== "control_response");
  const responses = lines.filter((l) => l.type === "control_response");
  return { requests, responses: sortedBy(responses, (l) => JSON.stringify(l)) };
}

/** Streaming deltas are joined per message (the CLI's chunking is its own affair); the rest keep
 * their order, but for the context meter's. */
function canonicalEvents(events) {
  const out = [];
  for (const event of events) {
    // The meter's answer comes after the turn's end, racing tether-cli's exit; its request is in stdin.
    if (event.type === "contextUsage") continue;
    const last = out.at(-1);
    if ((event.type === "textDelta" || event.type === "thinkingDelta") && last?.type === event.type && last.messageId === event.messageId) {
      last.text += event.text;
      continue;
    }
    if (event.type === "toolInputDelta" && last?.type === event.type && last.id === event.id) {
      last.partialJson += event.partialJson;
      continue;
    }
    out.push(structuredClone(event));
  }
  return out;
}

const SCENARIOS = {
  "text-turn": {
    args: ["--prompt", "REFERENCE say hello", "--model", "claude-sonnet-4-5"],
    script: [{ when: { lastUserText: "REFERENCE say hello" }, thinking: "A greeting.", text: "Hello there." }],
  },
  "read-and-reviewed-edit": {
    files: { "notes.txt": "one\ntwo\nthree\n" },
    args: ["--prompt", "REFERENCE edit notes", "--approve", "Edit"],
    script: (root) => [
      { when: { lastUserText: "REFERENCE edit notes" }, toolUse: { name: "mcp__tether__Read", input: { file_path: `${root}/notes.txt` } } },
      {
        when: { lastToolResult: /two/ },
        toolUse: { name: "mcp__tether__Edit", input: { file_path: `${root}/notes.txt`, old_string: "two", new_string: "deux" } },
      },
      { when: { lastToolResult: /updated/ }, text: "Edited." },
    ],
  },
  "denied-command-in-accept-edits": {
    args: ["--prompt", "REFERENCE run it", "--approve", "none", "--mode", "acceptEdits"],
    script: [
      { when: { lastUserText: "REFERENCE run it" }, toolUse: { name: "mcp__tether__Bash", input: { command: "touch made.txt", description: "Make a file" } } },
      { when: { lastToolResult: /rejected/ }, text: "Understood." },
    ],
  },
};

for (const [name, scenario] of Object.entries(SCENARIOS)) {
  test(`Claude Code at the process boundary is unchanged: ${name}`, async () => {
    const got = await capture(scenario);
    const file = path.join(REFERENCE_DIR, `${name}.json`);
    if (UPDATE) {
      fs.mkdirSync(REFERENCE_DIR, { recursive: true });
      fs.writeFileSync(file, `${JSON.stringify(got, null, 1)}\n`);
      return;
    }
    const want = JSON.parse(fs.readFileSync(file, "utf8"));
    assert.deepEqual(got, want);
  });
}
