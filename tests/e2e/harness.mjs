// Runs the packed VSIX in a real VS Code: code-server (from the build's tool cache) in its own
// process group on 127.0.0.1, a fresh HOME/user-data/extensions per run, headless Debian chromium
// driven by playwright-core. Recipe and selectors: shared/reference/vscode-e2e-code-server.md.

import { spawn, execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CACHE = process.env.TETHER_CACHE ?? path.join(os.homedir(), ".cache/tether");
export const TOOLS = process.env.TETHER_VSCODE_TOOLS ?? path.join(CACHE, "code-server-4.100.3");
/** vsce, as build.sh installs it for the VSIX (code-server does not bring one). */
const VSCE = process.env.TETHER_VSCE ?? path.join(CACHE, "vsce-3.9.1/node_modules/.bin/vsce");
const CODE_SERVER = path.join(TOOLS, "node_modules/.bin/code-server");
export const CLAUDE =
  process.env.TETHER_CLAUDE_PATH ?? path.join(CACHE, "claude-2.1.330/node_modules/@anthropic-ai/claude-code/bin/claude.exe");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const ARTIFACTS = path.join(REPO, "tests/artifacts/e2e");
const EXTENSION_ID = "tether.tether";

const require = createRequire(path.join(TOOLS, "package.json"));
const { chromium } = require("playwright-core");

export function vsixPath() {
  const { version } = JSON.parse(fs.readFileSync(path.join(REPO, "extension/package.json"), "utf8"));
  const vsix = path.join(REPO, "dist", `tether-${version}.vsix`);
  if (!fs.existsSync(vsix)) throw new Error(`${vsix} is missing: run ./build.sh first`);
  return vsix;
}

/**
 * Chromium with a persistent profile. A launch that dies at start ("Target page, context or browser
 * has been closed", seen once in CI after a dozen launches in a row) is tried once more on a fresh
 * profile; the first failure is logged, a second one fails the test.
 */
async function launchChromium(profile, env) {
  const options = {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 900 },
    env,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  };
  try {
    return await chromium.launchPersistentContext(profile, options);
  } catch (error) {
    console.error(`# chromium did not start (${String(error.message).split("\n")[0]}); trying once more`);
    fs.rmSync(profile, { recursive: true, force: true });
    fs.mkdirSync(profile, { recursive: true });
    return chromium.launchPersistentContext(profile, options);
  }
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function writeTree(root, files) {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/** Pack an extension folder (a test-only extension) into a VSIX in `outDir`. */
function packExtension(dir, outDir) {
  const out = path.join(outDir, `${path.basename(dir)}.vsix`);
  execFileSync(VSCE, ["package", "--no-dependencies", "--allow-missing-repository", "--skip-license", "--out", out], {
    cwd: dir,
    stdio: "pipe",
    timeout: 60_000,
  });
  return out;
}

/**
 * Start VS Code with the VSIX installed, a workspace holding `files`, and `settings` in the user's
 * settings.json. `remoteFiles` go into a second folder (`remote`); `extensions` are extra
 * extension folders packed and installed too; `folder(dirs)` chooses what the window opens (a
 * path or a URI; default the workspace); `workspaceTrust` keeps VS Code's Workspace Trust on (with
 * `security.workspace.trust.*` in `settings`). Returns { page, webview, workspace, remote, runDir,
 * control(), close(), … }.
 */
export async function launchVsCode({ files = {}, remoteFiles = {}, settings = {}, name = "run", extensions = [], folder, workspaceTrust = false }) {
  const runDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `tether-e2e-${name}-`)));
  const dirs = Object.fromEntries(
    ["home", "xdg", "user-data", "extensions", "workspace", "remote", "profile"].map((d) => [d, path.join(runDir, d)]),
  );
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  writeTree(dirs.workspace, files);
  writeTree(dirs.remote, remoteFiles);
  fs.mkdirSync(path.join(dirs["user-data"], "User"), { recursive: true });
  fs.writeFileSync(
    path.join(dirs["user-data"], "User/settings.json"),
    JSON.stringify(
      {
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "security.workspace.trust.enabled": false,
        "extensions.autoCheckUpdates": false,
        "telemetry.telemetryLevel": "off",
        ...settings,
      },
      null,
      2,
    ),
  );
  // code-server's window is remote to its extension host: once the window changes a setting, the
  // host reads machine-scoped settings (tether.agents, tether.environment, …) from the machine's
  // settings file only, so they go there too.
  fs.mkdirSync(path.join(dirs["user-data"], "Machine"), { recursive: true });
  fs.writeFileSync(path.join(dirs["user-data"], "Machine/settings.json"), JSON.stringify(settings, null, 2));
  // Everything code-server, the extension host, the CLI and chromium write lands in the run dir.
  const env = { ...process.env, HOME: dirs.home, XDG_CONFIG_HOME: dirs.xdg, XDG_DATA_HOME: path.join(dirs.xdg, "data") };
  delete env.CLAUDECODE;
  delete env.NODE_OPTIONS;
  const common = ["--user-data-dir", dirs["user-data"], "--extensions-dir", dirs.extensions];
  execFileSync(CODE_SERVER, [...common, "--install-extension", vsixPath()], { env, stdio: "pipe", timeout: 60_000 });
  for (const dir of extensions) {
    execFileSync(CODE_SERVER, [...common, "--install-extension", packExtension(dir, runDir)], { env, stdio: "pipe", timeout: 60_000 });
  }

  const port = await freePort();
  const logFile = fs.openSync(path.join(runDir, "code-server.log"), "a");
  const server = spawn(
    CODE_SERVER,
    [
      "--bind-addr", `127.0.0.1:${port}`, "--auth", "none", "--disable-telemetry", "--disable-update-check",
      ...(workspaceTrust ? [] : ["--disable-workspace-trust"]), "--disable-getting-started-override", ...common, dirs.workspace,
    ],
    { env, detached: true, stdio: ["ignore", logFile, logFile] },
  );
  const killServer = () => {
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {}
  };
  let context;
  const consoleLines = [];
  const close = async () => {
    await context?.close().catch(() => undefined);
    killServer();
    await new Promise((r) => setTimeout(r, 300));
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {}
    fs.writeFileSync(path.join(runDir, "browser-console.log"), consoleLines.join("\n"));
  };
  try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 30_000, "code-server to listen");
    context = await launchChromium(dirs.profile, env);
    const page = context.pages()[0] ?? (await context.newPage());
    page.on("console", (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
    // A `.code-workspace` file opens as a (multi-root) workspace, anything else as a folder. The
    // workbench's first load compiles a lot of JavaScript: on a busy machine it takes well over
    // Playwright's default 30 s.
    const target = folder ? folder(dirs) : dirs.workspace;
    const multiRoot = target.endsWith(".code-workspace");
    await page.goto(`http://127.0.0.1:${port}/?${multiRoot ? "workspace" : "folder"}=${encodeURIComponent(target)}`, { timeout: 90_000, ...(multiRoot ? { waitUntil: "commit" } : {}) });
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 }).catch(async (error) => {
      await page.screenshot({ path: path.join(runDir, "no-workbench.png") }).catch(() => undefined);
      throw error;
    });
    const webview = page
      .frameLocator(`iframe.webview.ready[src*="extensionId=${EXTENSION_ID}"][src*="purpose=webviewView"]`)
      .frameLocator("iframe#active-frame");
    return {
      page,
      webview,
      runDir,
      workspace: dirs.workspace,
      remote: dirs.remote,
      home: dirs.home,
      extensionsDir: dirs.extensions,
      /** Run a VS Code command in the extension host (needs tests/e2e/fake-remote installed). */
      async control(id, ...args) {
        const portFile = path.join(dirs.home, ".tether-test-control");
        const controlPort = await waitFor(() => Promise.resolve(fs.existsSync(portFile) && fs.readFileSync(portFile, "utf8")), 30_000, "the control port");
        // A fresh connection per call: a kept-alive socket the server has just timed out fails.
        const reply = await new Promise((resolve, reject) => {
          const req = http.request({ host: "127.0.0.1", port: Number(controlPort), method: "POST", agent: false }, (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (chunk) => (body += chunk));
            res.on("end", () => {
              try {
                resolve(JSON.parse(body));
              } catch (error) {
                reject(error);
              }
            });
          });
          req.on("error", reject);
          req.end(JSON.stringify({ id, args }));
        });
        if (!reply.ok) throw new Error(`${id}: ${reply.error}`);
        return reply.value;
      },
      /** Tether's own log (its LogOutputChannel file). */
      tetherLog() {
        const found = [];
        const walk = (d) => {
          for (const e of fs.readdirSync(d, { withFileTypes: true })) {
            const p = path.join(d, e.name);
            if (e.isDirectory()) walk(p);
            else if (/Tether\.log$/.test(e.name)) found.push(p);
          }
        };
        const logs = path.join(dirs["user-data"], "logs");
        if (fs.existsSync(logs)) walk(logs);
        return found.map((f) => fs.readFileSync(f, "utf8")).join("\n");
      },
      userData: dirs["user-data"],
      close,
      /** The remote extension host's log (activation lines). */
      extHostLog() {
        const logs = path.join(dirs["user-data"], "logs");
        const found = [];
        const walk = (d) => {
          for (const e of fs.readdirSync(d, { withFileTypes: true })) {
            const p = path.join(d, e.name);
            if (e.isDirectory()) walk(p);
            else if (e.name === "remoteexthost.log") found.push(p);
          }
        };
        if (fs.existsSync(logs)) walk(logs);
        return found.map((f) => fs.readFileSync(f, "utf8")).join("\n");
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Open the Tether view from the activity bar and wait for the chat to render. */
export async function openTether(vs) {
  await vs.page.getByRole("tab", { name: /^Tether/ }).first().click({ timeout: 30_000 });
  await vs.webview.getByRole("textbox", { name: "Message to Claude" }).waitFor({ timeout: 30_000 });
}

export async function sendPrompt(vs, text) {
  const box = vs.webview.getByRole("textbox", { name: "Message to Claude" });
  await box.fill(text);
  await vs.webview.getByRole("button", { name: "Send" }).click();
}

/** Send `prompt`, wait until `done()` holds (the model's answer arrived), then for the turn's end. */
export async function runTurn(vs, prompt, done, timeoutMs = 90_000) {
  await sendPrompt(vs, prompt);
  await waitFor(async () => done(), timeoutMs, `the turn "${prompt}"`);
  await vs.webview.getByRole("button", { name: "Send" }).waitFor({ timeout: 30_000 });
}

/** Run a command from the palette (focus leaves the webview first). */
export async function runCommand(vs, title) {
  await vs.page.locator(".monaco-workbench .part.editor").click({ position: { x: 200, y: 200 } }).catch(() => undefined);
  await vs.page.keyboard.press("F1");
  const input = vs.page.locator(".quick-input-widget input");
  await input.fill(`>${title}`);
  await vs.page.locator(".quick-input-widget .monaco-list-row", { hasText: title }).first().waitFor({ timeout: 10_000 });
  await vs.page.keyboard.press("Enter");
}

export async function shot(vs, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await vs.page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

export { waitFor };

/** The test extension that stands in for Remote-SSH: a `tetherfake:` file system over a folder. */
export const FAKE_REMOTE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fake-remote");
/** claude-agent-acp, where build.sh installs it. */
export const ACP_AGENT =
  process.env.TETHER_ACP_CLAUDE_AGENT ??
  path.join(CACHE, "claude-agent-acp-0.101.0/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js");

/**
 * claude-agent-acp as a `tether.agents` entry. Bypass makes the adapter start Claude Code with
 * --dangerously-skip-permissions, which Claude Code refuses to root (this test box) unless told
 * it is in a sandbox.
 */
export const acpAgents = () => ({ "claude-agent-acp": { command: process.execPath, args: [ACP_AGENT], env: { CLAUDE_CODE_EXECUTABLE: CLAUDE, IS_SANDBOX: "1" } } });

/** What points an agent at the fake Messages API `api`. */
export const fakeApiEnvironment = (api) => ({ ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" });

/**
 * VS Code on the emulated remote: `remoteFiles` in the remote folder, opened as `tetherfake:`,
 * Claude Code (and with `withAcpAgent` claude-agent-acp) against the fake Messages API `api`, in
 * bypassPermissions, autosave off; `settings` added on top.
 */
export function launchRemoteVsCode({ name, api, remoteFiles = {}, settings = {}, withAcpAgent = false }) {
  return launchVsCode({
    name,
    extensions: [FAKE_REMOTE],
    remoteFiles,
    folder: (dirs) => `tetherfake:${dirs.remote}`,
    settings: {
      "tether.claudePath": CLAUDE,
      "tether.defaultMode": "bypassPermissions",
      "tether.environment": fakeApiEnvironment(api),
      ...(withAcpAgent && { "tether.agents": acpAgents() }),
      "files.autoSave": "off",
      ...settings,
    },
  });
}

/**
 * A scripted tool call's input whose fields may be functions, read when the fake API sends the
 * call (the remote folder's path is known only once VS Code is up).
 */
export const lazyInput = (fields) =>
  Object.defineProperties({}, Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { get: typeof v === "function" ? v : () => v, enumerable: true }])));

/** Files under `dir`, relative, POSIX, sorted (none when it does not exist). */
export function listTree(dir) {
  const out = [];
  const walk = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), childRel);
      else out.push(childRel);
    }
  };
  if (fs.existsSync(dir)) walk(dir, "");
  return out.sort();
}

/** Files under `dirs` whose bytes contain `needle` (links not followed; files over 256 MiB skipped). */
export function filesContaining(dirs, needle) {
  const bytes = Buffer.from(needle);
  const hits = [];
  const walk = (p) => {
    let stat;
    try {
      stat = fs.lstatSync(p);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      let names = [];
      try {
        names = fs.readdirSync(p);
      } catch {
        return;
      }
      for (const name of names) walk(path.join(p, name));
    } else if (stat.isFile() && stat.size <= 256 * 1024 * 1024) {
      try {
        if (fs.readFileSync(p).includes(bytes)) hits.push(p);
      } catch {}
    }
  };
  for (const dir of dirs) walk(dir);
  return hits;
}

/**
 * Every visible element of the chat page whose content is wider than its box (scrollWidth over
 * clientWidth: text running past its edge, or cut by an ellipsis) or that reaches past the page's
 * right edge. Elements made to scroll sideways (overflow-x auto or scroll: code, diffs) are not
 * overflowing. `root`: a frame locator (vs.webview); `ignore`: selectors whose elements (and
 * their insides) are not checked. Returns [{selector, text, scrollWidth, clientWidth, right}].
 */
export async function findOverflow(root, { ignore = [] } = {}) {
  return root.locator("body").evaluate((body, ignored) => {
    const pageRight = document.documentElement.clientWidth;
    const describe = (el) => {
      const parts = [];
      for (let e = el; e && e !== body && parts.length < 4; e = e.parentElement) {
        const cls = [...e.classList].slice(0, 2).join(".");
        parts.unshift(`${e.tagName.toLowerCase()}${cls ? `.${cls}` : ""}`);
      }
      return parts.join(" > ");
    };
    const found = [];
    for (const el of body.querySelectorAll("*")) {
      if (ignored.some((sel) => el.closest(sel))) continue;
      const style = getComputedStyle(el);
      if (style.display === "none" || style.visibility === "hidden") continue;
      const rect = el.getBoundingClientRect();
      // Zero-size and 1 px boxes (screen-reader-only text) show nothing to cut.
      if (rect.width <= 1 || rect.height <= 1) continue;
      const scrolls = style.overflowX === "auto" || style.overflowX === "scroll";
      const wide = !scrolls && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && !(el instanceof SVGElement);
      // Past the page's edge, unless an ancestor clips or scrolls it (then that one is judged).
      const past = rect.right > pageRight + 1 && ![...ancestors(el)].some((a) => {
        const s = getComputedStyle(a);
        return s.overflowX === "auto" || s.overflowX === "scroll" || s.overflowX === "hidden";
      });
      if (wide || past) {
        found.push({ selector: describe(el), text: (el.textContent ?? "").trim().slice(0, 60), scrollWidth: el.scrollWidth, clientWidth: el.clientWidth, right: Math.round(rect.right) });
      }
    }
    function* ancestors(el) {
      for (let a = el.parentElement; a && a !== body; a = a.parentElement) yield a;
    }
    return found;
  }, ignore);
}

/** Sets the sidebar (where the chat view is) to `width` px by dragging its edge (the vertical
 * sash nearest to the sidebar's right side). */
export async function setSidebarWidth(vs, width) {
  const sidebar = vs.page.locator(".part.sidebar");
  let seen = "no sidebar";
  for (let attempt = 0; attempt < 3; attempt++) {
    const box = await sidebar.boundingBox();
    if (!box) break;
    seen = `${Math.round(box.width)} px`;
    if (Math.abs(box.width - width) <= 1) return;
    const edge = box.x + box.width;
    const sashes = await vs.page.locator(".monaco-sash.vertical").evaluateAll((els) =>
      els.map((e) => e.getBoundingClientRect()).map((r) => ({ x: r.x, y: r.y, width: r.width, height: r.height })),
    );
    const sash = sashes.filter((r) => r.height > 100).sort((a, b) => Math.abs(a.x + a.width / 2 - edge) - Math.abs(b.x + b.width / 2 - edge))[0];
    if (!sash) {
      seen += ", no sash to drag";
      break;
    }
    const y = sash.y + sash.height / 2;
    await vs.page.mouse.move(sash.x + sash.width / 2, y);
    await vs.page.mouse.down();
    await vs.page.mouse.move(box.x + width, y, { steps: 8 });
    await vs.page.mouse.up();
  }
  // A screenshot or a layout check at the wrong width would say nothing of the width it names.
  const box = await sidebar.boundingBox();
  if (box && Math.abs(box.width - width) <= 1) return;
  throw new Error(`setSidebarWidth: the sidebar is ${box ? `${Math.round(box.width)} px` : seen}, not ${width} px`);
}

/** Opens the header's Options menu when a narrow header folded its pickers (agent, mode, model,
 * the agent's options) into it; nothing when they show in a row. `root`: the chat's frame. */
export async function showPickers(root) {
  const options = root.locator(".options-menu-button");
  if ((await options.count()) && (await options.getAttribute("aria-expanded")) !== "true") await options.click();
}
