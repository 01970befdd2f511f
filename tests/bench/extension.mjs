#!/usr/bin/env node
// Extension benchmarks in a real VS Code (code-server): activation (activate() measured inside the
// extension host, and the wall time from the ext host's activation log line to the chat composer
// being usable), and the webview's first paint of a 5,000-message replay (webview/bench).
// Prints figures only. Needs ./build.sh first (the VSIX) and the cached code-server.
//
//   node tests/bench/extension.mjs [--runs N]

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { launchVsCode, openTether, REPO } from "../e2e/harness.mjs";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 3;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

function findFiles(dir, test, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) findFiles(p, test, out);
    else if (test(p)) out.push(p);
  }
  return out;
}

const activateMs = [];
const viewReadyMs = [];
for (let run = 0; run < RUNS; run++) {
  const vs = await launchVsCode({ name: `bench-${run}` });
  try {
    // The activity-bar tab appears once the workbench knows the extension; time from the click.
    await vs.page.getByRole("tab", { name: /^Tether/ }).first().waitFor({ timeout: 60_000 });
    const clicked = performance.now();
    await openTether(vs);
    viewReadyMs.push(performance.now() - clicked);
    // The LogOutputChannel "Tether" writes its own file under the user-data logs.
    let line;
    for (let i = 0; i < 50 && !line; i++) {
      const logs = findFiles(path.join(vs.userData, "logs"), (p) => /Tether\.log$/.test(p));
      line = logs.map((f) => fs.readFileSync(f, "utf8")).join("\n").match(/activate\(\) took ([\d.]+) ms/);
      if (!line) await new Promise((r) => setTimeout(r, 100));
    }
    if (line) activateMs.push(Number(line[1]));
  } finally {
    await vs.close();
  }
}
console.log("extension activation (code-server 4.100.3, remote ext host):");
console.log(`  activate() inside the host: median ${median(activateMs)?.toFixed(1)} ms over ${activateMs.length} runs [${activateMs.map((x) => x.toFixed(1)).join(", ")}]`);
console.log(`  click on the Tether tab → chat composer usable: median ${median(viewReadyMs).toFixed(0)} ms [${viewReadyMs.map((x) => x.toFixed(0)).join(", ")}]`);

console.log("\nwebview first paint (5,000-message replay) — webview/bench/first-paint.mjs:");
execFileSync(process.execPath, [path.join(REPO, "webview/bench/first-paint.mjs"), "--runs", "3"], { stdio: "inherit", cwd: REPO });
console.log("\nwebview first paint (50,000-message replay):");
execFileSync(process.execPath, [path.join(REPO, "webview/bench/first-paint.mjs"), "--runs", "3", "--messages", "50000"], { stdio: "inherit", cwd: REPO });
