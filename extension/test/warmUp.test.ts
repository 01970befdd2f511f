// The warm-ups: the core's (a Read and two Edits on an in-memory file, once per process) and the
// Node host's writes (a scratch file in a folder of its own).

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { warmUpCore } from "../src/core/warmUp";
import { NodeHost } from "../src/node/nodeHost";
import { warmUpHostWrites } from "../src/node/warmUpWrites";

test("the warm-up's calls all succeed, on memory alone, once per process", async () => {
  const first = warmUpCore();
  assert.equal(warmUpCore(), first);
  assert.equal(await first, true);
  assert.equal(existsSync("/tether-warm-up"), false);
});

test("the write warm-up goes through the host and leaves no scratch folder behind", async () => {
  const parent = mkdtempSync(join(tmpdir(), "tether-warm-test-"));
  try {
    const host = new NodeHost();
    const written: string[] = [];
    const writeFile = host.writeFile.bind(host);
    host.writeFile = async (path, data) => {
      written.push(path);
      await writeFile(path, data);
    };
    assert.equal(await warmUpHostWrites(host, parent), true);
    assert.equal(written.length, 2);
    assert.ok(written[0].startsWith(join(parent, "tether-warm-up-")));
    assert.deepEqual(readdirSync(parent), []);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

test("a write warm-up that fails resolves to false and still removes its folder", async () => {
  const parent = mkdtempSync(join(tmpdir(), "tether-warm-test-"));
  try {
    const host = new NodeHost();
    host.writeFile = async () => {
      throw new Error("EACCES: permission denied");
    };
    assert.equal(await warmUpHostWrites(host, parent), false);
    assert.equal(await warmUpHostWrites(new NodeHost(), join(parent, "missing")), false);
    assert.deepEqual(readdirSync(parent), []);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});
