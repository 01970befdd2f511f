// NodeHost's stats: many asked at once are answered together, each with its own file's answer.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { NodeHost } from "../src/node/nodeHost";

test("hundreds of stats asked in one tick each get their own file's size, or its own error", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tether-stat-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const host = new NodeHost({ ripgrepPath: null });
  t.after(() => host.dispose());
  const names = Array.from({ length: 300 }, (_, i) => `f${i}`);
  names.forEach((name, i) => writeFileSync(join(dir, name), "x".repeat(i)));
  const answers = await Promise.allSettled([...names, "missing"].map((name) => host.stat(join(dir, name))));
  assert.deepEqual(
    answers.slice(0, -1).map((a) => (a.status === "fulfilled" ? a.value.size : -1)),
    names.map((_, i) => i),
  );
  const missing = answers.at(-1)!;
  assert.equal(missing.status, "rejected");
  assert.equal((missing as PromiseRejectedResult).reason.code, "ENOENT");
  assert.equal((await host.stat(dir)).kind, "directory");
});
