// The core's warm-up: a Read and two Edits on an in-memory file, once per process.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { warmUpCore } from "../src/core/warmUp";

test("the warm-up's calls all succeed, on memory alone, once per process", async () => {
  const first = warmUpCore();
  assert.equal(warmUpCore(), first);
  assert.equal(await first, true);
  assert.equal(existsSync("/tether-warm-up"), false);
});
