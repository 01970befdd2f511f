// Preloaded into the server by rss.test.mjs (node -r): on SIGUSR2 it prints one line to stderr
// with the size of V8's young generation, the scratch space V8 grows (8 → 16 → 32 MB) under
// allocation pressure and never gives back. Nothing else changes in the process.
"use strict";
const v8 = require("node:v8");

process.on("SIGUSR2", () => {
  const young = v8
    .getHeapSpaceStatistics()
    .filter((s) => s.space_name === "new_space" || s.space_name === "new_large_object_space")
    .reduce((sum, s) => sum + s.space_size, 0);
  process.stderr.write(`tether-heap-probe ${JSON.stringify({ young, rss: process.memoryUsage().rss })}\n`);
});
