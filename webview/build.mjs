#!/usr/bin/env node
// Builds the chat webview: src/main.tsx → out/main.js + out/main.css, codicons → out/codicon.{css,ttf},
// and the page shell (extension/src/contract/html.ts) → out/html.js (renderWebviewHtml, for the extension and the tests).
//
//   node webview/build.mjs            production build (minified)
//   node webview/build.mjs --watch    rebuild on change (with source maps)
//   node webview/build.mjs --dev      one unminified build with source maps
import * as esbuild from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "out");
const watch = process.argv.includes("--watch");
const dev = watch || process.argv.includes("--dev");
const require = createRequire(import.meta.url);

mkdirSync(out, { recursive: true });

// Codicons: the stylesheet and its font, side by side (the CSS refers to ./codicon.ttf).
const codiconDir = dirname(require.resolve("@vscode/codicons/dist/codicon.css"));
copyFileSync(join(codiconDir, "codicon.css"), join(out, "codicon.css"));
copyFileSync(join(codiconDir, "codicon.ttf"), join(out, "codicon.ttf"));

const common = {
  bundle: true,
  logLevel: watch ? "info" : "warning",
  legalComments: "none",
  minify: !dev,
  sourcemap: dev ? "linked" : false,
  define: { "process.env.NODE_ENV": JSON.stringify(dev ? "development" : "production") },
};

const appOptions = {
  ...common,
  entryPoints: { main: join(here, "src/main.tsx") },
  outdir: out,
  format: "iife",
  platform: "browser",
  target: ["chrome114"],
  jsx: "automatic",
  jsxImportSource: "preact",
  loader: { ".ttf": "file" },
  metafile: true,
};

const htmlOptions = {
  ...common,
  entryPoints: { html: join(here, "../extension/src/contract/html.ts") },
  outdir: out,
  format: "esm",
  platform: "neutral",
  target: ["es2020"],
  minify: false,
};

function report() {
  for (const f of ["main.js", "main.css", "codicon.css", "codicon.ttf", "html.js"]) {
    try {
      const size = statSync(join(out, f)).size;
      const gz = gzipSync(readFileSync(join(out, f))).length;
      console.log(`  out/${f.padEnd(12)} ${(size / 1024).toFixed(1).padStart(7)} KiB  (gzip ${(gz / 1024).toFixed(1)} KiB)`);
    } catch {
      // not built
    }
  }
}

if (watch) {
  const ctxApp = await esbuild.context(appOptions);
  const ctxHtml = await esbuild.context(htmlOptions);
  await Promise.all([ctxApp.watch(), ctxHtml.watch()]);
  console.log("watching webview/src …");
} else {
  await Promise.all([esbuild.build(appOptions), esbuild.build(htmlOptions)]);
  report();
}
