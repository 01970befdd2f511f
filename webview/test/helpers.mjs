// Shared test helpers: a static server for webview/ on 127.0.0.1 (port 0), Debian's Chromium through
// playwright-core, the suite fixture that starts both, and small page utilities around the harness.
import { after, before } from "node:test";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const webviewDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const artifactsDir = resolve(webviewDir, "..", "tests", "artifacts", "webview");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".ttf": "font/ttf",
  ".map": "application/json",
  ".png": "image/png",
};

export async function startServer() {
  if (!existsSync(join(webviewDir, "out", "main.js"))) {
    throw new Error("webview/out/main.js is missing: run `node webview/build.mjs` first");
  }
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (url.pathname === "/favicon.ico") {
        res.writeHead(204).end();
        return;
      }
      const rel = normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, "");
      const file = resolve(webviewDir, rel);
      if (!file.startsWith(webviewDir)) {
        res.writeHead(403).end();
        return;
      }
      let body = await readFile(file);
      if (url.searchParams.has("nocsp") && file.endsWith(".html")) {
        body = Buffer.from(body.toString("utf8").replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, ""));
      }
      // The frame source the extension adds for an OpenClaw gateway (renderWebviewHtml's frameOrigins).
      const frameOrigin = url.searchParams.get("frames");
      if (frameOrigin && /^http:\/\/127\.0\.0\.1:\d+$/.test(frameOrigin) && file.endsWith(".html")) {
        body = Buffer.from(body.toString("utf8").replace(/(<meta http-equiv="Content-Security-Policy" content="[^"]*)"/, `$1; frame-src ${frameOrigin}"`));
      }
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  return {
    url: (query = "") => `http://127.0.0.1:${port}/test/harness.html${query}`,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Headless Chromium; a launch that dies at start (seen in CI) is tried once more. */
export async function launchBrowser() {
  const options = { executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 30_000 };
  try {
    return await chromium.launch(options);
  } catch (error) {
    console.error(`# chromium did not start (${String(error.message).split("\n")[0]}); trying once more`);
    return chromium.launch(options);
  }
}

/**
 * The fixture every suite file uses: one server and one browser for the file, started before its
 * tests and closed after them. `open(options)` gives a fresh harness page.
 */
export function useWebview() {
  let server;
  let browser;
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  return { open: (options) => openHarness(browser, server, options) };
}

/** A fresh page on the harness. Collects page errors in page.__errors. */
export async function openHarness(browser, server, { width = 420, height = 760, query = "" } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.__errors = [];
  page.on("pageerror", (e) => page.__errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") page.__errors.push(m.text());
  });
  await page.goto(server.url(query));
  await page.waitForFunction(() => Array.isArray(window.__posted) && window.__posted.some((m) => m.type === "ready"));
  page.setDefaultTimeout(5_000);
  return page;
}

export const defaultState = {
  sessionId: "sess-1",
  mode: "default",
  model: "claude-sonnet-4-5",
  models: [
    { id: "claude-sonnet-4-5", label: "Sonnet 4.5" },
    { id: "claude-opus-4-1", label: "Opus 4.1" },
    { id: "claude-haiku-4-5", label: "Haiku 4.5" },
  ],
  // No modes: the webview shows Claude Code's permission modes (webview/src/modes.ts), as the
  // extension sends them.
  modes: [],
  where: "ui-remote",
  workspaceLabel: "ssh: gpu-box:/data/proj",
  connected: true,
  busy: false,
};

export async function deliver(page, msg) {
  await page.evaluate((m) => window.__deliver(m), msg);
  await frames(page, 2);
}

export async function init(page, patch = {}) {
  await deliver(page, { type: "init", state: { ...defaultState, ...patch } });
  await page.locator(".vlist").waitFor();
}

export async function events(page, evs) {
  await deliver(page, { type: "events", events: evs });
}

/** Waits for n animation frames in the page (rendering settles). */
export async function frames(page, n = 2) {
  await page.evaluate(
    (count) =>
      new Promise((ok) => {
        let left = count;
        const step = () => (--left <= 0 ? ok() : requestAnimationFrame(step));
        requestAnimationFrame(step);
      }),
    n,
  );
}

export async function posted(page, type) {
  const all = await page.evaluate(() => window.__posted);
  return type ? all.filter((m) => m.type === type) : all;
}

export async function clearPosted(page) {
  await page.evaluate(() => {
    window.__posted.length = 0;
  });
}

export async function screenshot(page, name) {
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: join(artifactsDir, `${name}.png`) });
}

/** Closes the page's context and fails on page errors or CSP violations. */
export async function finish(page, { allowCsp = false } = {}) {
  const csp = await page.evaluate(() => window.__cspViolations).catch(() => []);
  const errors = page.__errors;
  await page.context().close();
  if (errors.length) throw new Error(`page errors: ${errors.join("\n")}`);
  if (!allowCsp && csp.length) throw new Error(`CSP violations: ${JSON.stringify(csp)}`);
}
