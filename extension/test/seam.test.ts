// The seam between the extension and its backends, checked on the sources: outside the backend
// modules (extension/src/backends/) and the generated files, nothing names a backend to decide
// something; extension/src imports nothing from webview/src; the scripted test backend is known
// to its own module and one registry line only.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

/** The extension's folder, from the bundled test in target/ext-tests. */
const EXTENSION = path.resolve(__dirname, "../../extension");
const SRC = path.join(EXTENSION, "src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return /\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

const relative = (file: string) => path.relative(EXTENSION, file).split(path.sep).join("/");

/** The code without its comments (a comment may name a backend: it decides nothing). */
function code(file: string): string {
  return readFileSync(file, "utf8")
    .replace(/\/\*[^]*?\*\//g, "")
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** The agents and backends Tether knows, by the names code could test for. */
const BACKEND_NAMES = ["claude", "acp", "openclaw", "claude-agent-acp", "gemini", "codex"];
const NAMED = new RegExp(`(["'\`])(${BACKEND_NAMES.join("|")})\\1`);

test("outside the backend modules and the generated files, no code names a backend", () => {
  const offenders = sources(SRC)
    .filter((file) => !relative(file).startsWith("src/backends/") && !relative(file).startsWith("src/generated/"))
    .flatMap((file) =>
      code(file)
        .split("\n")
        .map((line, index) => ({ where: `${relative(file)}:${index + 1}`, line: line.trim() }))
        .filter(({ line }) => NAMED.test(line)),
    );
  assert.deepEqual(offenders, [], "a backend's name belongs in its module under extension/src/backends/");
});

test("outside the backends, code reaches a backend only through the registry and the module contract", () => {
  const allowed = new Set(["backends", "backends/backend"]);
  const offenders = sources(SRC)
    .filter((file) => !relative(file).startsWith("src/backends/"))
    .flatMap((file) =>
      [...code(file).matchAll(/from\s+"([^"]+)"/g)]
        .map((match) => path.relative(SRC, path.resolve(path.dirname(file), match[1]!)).split(path.sep).join("/"))
        .filter((target) => target.startsWith("backends") && !allowed.has(target))
        .map((target) => `${relative(file)} imports ${target}`),
    );
  assert.deepEqual(offenders, []);
});

test("extension/src imports nothing from webview/src", () => {
  const offenders = sources(SRC).filter((file) => /from\s+"[^"]*webview\/src[^"]*"|require\("[^"]*webview\/src/.test(code(file)));
  assert.deepEqual(offenders.map(relative), []);
});

test("the scripted backend is its own module plus one registry line", (t) => {
  const files = [...sources(SRC), ...sources(path.join(EXTENSION, "test"))].filter(
    (file) => !file.endsWith("seam.test.ts") && /scriptedBackend/.test(code(file)),
  );
  t.diagnostic(`files that know the scripted backend: ${files.map(relative).join(", ")}`);
  assert.deepEqual(files.map(relative).sort(), ["test/backends/scripted.ts", "test/sessions.test.ts"]);
  const uses = code(path.join(EXTENSION, "test/sessions.test.ts"))
    .split("\n")
    .filter((line) => /scriptedBackend/.test(line) && !/^import /.test(line));
  // The registry line, and the test's check that the registry hands its agent to it.
  assert.equal(uses.filter((line) => /\[\.\.\.BACKENDS, scriptedBackend\]/.test(line)).length, 1);
  const imports = [...code(path.join(EXTENSION, "test/backends/scripted.ts")).matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(
    imports.filter((target) => target!.startsWith(".")),
    ["../../src/backends/acp", "../../src/backends/backend"],
    "it builds on the module contract (and the ACP connector, to run its fake ACP agent)",
  );
});
