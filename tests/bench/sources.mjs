// What the in-process benchmarks load: the pinned CLI, the built wasm, and the extension's own
// modules bundled from the sources as build.sh bundles them (esbuild, the extension's tsconfig),
// with the wasm beside the bundle (the glue loads it from __dirname).

import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cache = process.env.TETHER_CACHE ?? path.join(os.homedir(), ".cache/tether");
export const claude =
  process.env.TETHER_CLAUDE_PATH ?? path.join(cache, "claude-2.1.330/node_modules/@anthropic-ai/claude-code/bin/claude.exe");
export const wasmFile = path.join(repo, "dist/tether_core_bg.wasm");
export const esbuildPackage = path.join(repo, "extension/node_modules/esbuild");

/**
 * Bundles `exports` (lines of `export { … } from "./extension/src/…"`) into `dir/name.cjs` and
 * returns the loaded module.
 */
export function loadExtensionModules(dir, name, exports) {
  fs.mkdirSync(dir);
  const require = createRequire(import.meta.url);
  require(esbuildPackage).buildSync({
    stdin: { contents: exports.join("\n"), resolveDir: repo, loader: "ts" },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    tsconfig: path.join(repo, "extension/tsconfig.json"),
    outfile: path.join(dir, `${name}.cjs`),
    logLevel: "warning",
  });
  fs.copyFileSync(wasmFile, path.join(dir, "tether_core_bg.wasm"));
  return require(path.join(dir, `${name}.cjs`));
}

/** The argv the core gives rg for a Grep listing the files that match `pattern` under `target`
 * (crate/src/tools/search/ripgrep.rs, the CLI's own): the Grep rows' baseline runs the same search,
 * so their ratio is what Tether adds. */
export function coreGrepArgs(pattern, target) {
  const vcs = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"].flatMap((dir) => ["--glob", `!${dir}`]);
  return ["--hidden", "--no-follow", ...vcs, "--max-columns", "500", "-l", "--null", pattern, target];
}
