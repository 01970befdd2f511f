// The remote executor's pieces that run without VS Code: the helper's commands driven through the
// HelperExecutor as the main extension calls them (command routing replaced by a direct call),
// the terminal tiers' text handling, and the mirror with the project's Claude context.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { HelperHandlers } from "../src/helper/handlers";
import { NodeHost } from "../src/node/nodeHost";
import { agentFiles, contextFingerprint, memoryPrompt, mirrorFolder, readProjectContext, syncMirror } from "../src/remote/context";
import { HelperExecutor, pairHelper } from "../src/remote/helperExecutor";
import { HELPER_PROTOCOL, newHelperSecret, type HelperHello } from "../src/remote/protocol";
import { CappedText, cleanTerminalOutput, commandScript, shellQuote } from "../src/remote/terminalText";

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tether-remote-test-")));
after(() => rmSync(tmp, { recursive: true, force: true }));

function dir(name: string, files: Record<string, string> = {}): string {
  const root = path.join(tmp, name);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  mkdirSync(root, { recursive: true });
  return root;
}

/** Command routing replaced by a direct call; across hosts arguments and results travel as JSON. */
function routeTo(handlers: HelperHandlers) {
  const table = new Map(handlers.commands());
  return (id: string, ...args: unknown[]) => {
    const run = table.get(id);
    if (!run) return Promise.reject(new Error(`command '${id}' not found`));
    return run(...(JSON.parse(JSON.stringify(args)) as [unknown])).then((r) => JSON.parse(JSON.stringify(r ?? null)));
  };
}

async function helperExecutor(): Promise<{ executor: HelperExecutor; handlers: HelperHandlers }> {
  const handlers = new HelperHandlers({ version: "test", ripgrepPath: null, isTrusted: () => true });
  const execute = routeTo(handlers);
  const secret = newHelperSecret();
  const paired = await pairHelper(execute, secret, 5000);
  assert.equal(paired.kind, "paired");
  return { executor: new HelperExecutor(execute, (paired as { hello: HelperHello }).hello, secret), handlers };
}

const request = (command: string, cwd: string, extra: Partial<{ timeoutMs: number; env: [string, string][] }> = {}) => ({
  command,
  cwd,
  env: extra.env ?? [],
  timeoutMs: extra.timeoutMs ?? 10_000,
  maxOutputBytes: 1 << 20,
});

test("the helper says who it is: protocol, OS and shell of the machine it runs on", async () => {
  const { executor } = await helperExecutor();
  const hello = executor.hello;
  assert.equal(hello.protocol, HELPER_PROTOCOL);
  assert.equal(hello.platform, process.platform);
  assert.match(hello.osDescription, new RegExp(os.type()));
});

test("a command through the helper runs in its cwd with its env and reports output and exit code", async () => {
  const { executor } = await helperExecutor();
  const root = dir("run");
  const out = await executor.run(request('pwd; echo "$GREETING"; echo oops >&2; exit 4', root, { env: [["GREETING", "hi there"]] }));
  assert.equal(out.stdout, `${root}\nhi there\n`);
  assert.equal(out.stderr, "oops\n");
  assert.equal(out.exitCode, 4);
  assert.equal(out.timedOut, false);
});

test("a helper failure keeps its error code across the command boundary", async () => {
  const { executor } = await helperExecutor();
  await assert.rejects(executor.run(request("true", path.join(tmp, "does-not-exist"))), (error: Error & { code?: string }) => {
    assert.equal(error.code, "ENOENT");
    assert.match(error.message, /does not exist/);
    return true;
  });
});

test("a background read through the helper waits for output instead of polling, and kill stops the process", async () => {
  const { executor, handlers } = await helperExecutor();
  const root = dir("bg");
  const id = await executor.spawnBackground(request("sleep 0.3; echo late; sleep 30", root, { timeoutMs: 60_000 }));
  const started = Date.now();
  const first = await executor.readBackgroundWhenReady(id, 5000);
  const waited = Date.now() - started;
  assert.equal(first.stdout, "late\n");
  assert.ok(waited >= 200 && waited < 4000, `answered when the output came (${waited} ms)`);
  assert.equal(await executor.killBackground(id), true);
  const last = await executor.readBackground(id);
  assert.equal(last.running, false);
  handlers.dispose();
});

test("statMany answers every path, failures included, in order", async () => {
  const { executor } = await helperExecutor();
  const root = dir("stat", { "a.txt": "abc", "sub/b.txt": "" });
  const results = await executor.statMany([path.join(root, "a.txt"), path.join(root, "missing"), path.join(root, "sub")]);
  assert.deepEqual(
    results.map((r) => (r.ok ? `${r.stat.kind}:${r.stat.size}` : r.code)),
    ["file:3", "ENOENT", `directory:${statSync(path.join(root, "sub")).size}`],
  );
});

test("realPath through the helper resolves symlinks on the remote", async () => {
  const { executor } = await helperExecutor();
  const root = dir("links", { "real/file.txt": "x" });
  symlinkSync(path.join(root, "real"), path.join(root, "link"));
  assert.equal(await executor.realPath(path.join(root, "link/file.txt")), path.join(root, "real/file.txt"));
});

test("rename through the helper moves a file over another in one step", async () => {
  const { executor } = await helperExecutor();
  const root = dir("rename", { "target.txt": "old\n", ".target.txt.tmp": "new\n" });
  await executor.rename(path.join(root, ".target.txt.tmp"), path.join(root, "target.txt"));
  assert.equal(readFileSync(path.join(root, "target.txt"), "utf8"), "new\n");
  assert.equal(existsSync(path.join(root, ".target.txt.tmp")), false);
});

test("a rename the remote refuses is an error with its code, and the target stays whole", async () => {
  const { executor } = await helperExecutor();
  const root = dir("rename-refused", { "target.txt": "old\n" });
  await assert.rejects(executor.rename(path.join(root, "missing.tmp"), path.join(root, "target.txt")), (error: { code?: string; message: string }) => {
    assert.equal(error.code, "ENOENT");
    assert.match(error.message, /rename/);
    return true;
  });
  assert.equal(readFileSync(path.join(root, "target.txt"), "utf8"), "old\n");
});

test("a helper that gives no answer (disabled, uninstalled) is a clear error, not a hang", async () => {
  const { executor: paired } = await helperExecutor();
  const executor = new HelperExecutor(async () => undefined, paired.hello, newHelperSecret());
  await assert.rejects(executor.run(request("true", tmp)), /Tether Remote gave no answer to run/);
});

test("shellQuote survives every character through a real shell", () => {
  const nasty = `it's "quoted" $HOME \`tick\` \\ back\nnew line`;
  assert.equal(execFileSync("sh", ["-c", `printf %s ${shellQuote(nasty)}`]).toString(), nasty);
});

test("a command script runs the command in bash, in its cwd, with its environment", () => {
  const root = dir("script");
  const script = path.join(root, "c.sh");
  writeFileSync(script, commandScript(request('echo "$PWD:$NAME"; [[ -n $BASH_VERSION ]] && echo bash', root, { env: [["NAME", "it's me"]] })));
  assert.equal(execFileSync("sh", [script]).toString(), `${root}:it's me\nbash\n`);
});

test("terminal output loses shell-integration marks, colours and CR before LF", () => {
  const raw = "\u001b]633;C\u0007hello\r\n\u001b[31mred\u001b[0m\r\n\u001b]633;D;0\u0007";
  assert.equal(cleanTerminalOutput(raw), "hello\nred\n");
});

test("capped output is cut at a character boundary and marked truncated", () => {
  const capped = new CappedText(4);
  capped.push("abcé"); // é is two bytes: the fourth byte is half of it
  assert.equal(capped.text(), "abc");
  assert.equal(capped.truncated, true);
});

test("the mirror folder is per remote authority and path, made of safe names, and never resolved", () => {
  const base = path.join(tmp, "storage");
  const a = mirrorFolder(base, "ssh-remote+build:22", "/home/dev/proj");
  const b = mirrorFolder(base, "ssh-remote+other", "/home/dev/proj");
  const c = mirrorFolder(base, "ssh-remote+build:22", "/srv/proj");
  assert.notEqual(a, b);
  assert.notEqual(a, c);
  assert.equal(a, mirrorFolder(base, "ssh-remote+build:22", "/home/dev/proj"), "stable");
  assert.ok(a.startsWith(path.join(base, "mirrors") + path.sep));
  for (const segment of path.relative(base, a).split(path.sep)) assert.doesNotMatch(segment, /[<>:"|?*]|[. ]$/);
  assert.match(path.basename(mirrorFolder(base, "wsl+Ubuntu", "/home/u/CON")), /^_CON-/, "reserved Windows names are escaped");
});

test("the project's Claude context is synced into the mirror: changed files written, stale ones removed, project files and settings never", async () => {
  const root = dir("project", {
    "CLAUDE.md": "Use tabs.\n",
    ".claude/settings.json": '{"permissions":{"deny":["Bash(rm:*)"]}}',
    ".claude/agents/reviewer.md": "---\nname: reviewer\n---\n",
    ".claude/commands/ship.md": "Ship it.\n",
    "src/main.ts": "secret source\n",
  });
  const mirror = path.join(tmp, "mirror");
  const host = new NodeHost({ ripgrepPath: null });
  const first = await readProjectContext(host, root);
  // A settings file an older Tether copied goes: the hooks in it would run on the laptop.
  mkdirSync(path.join(mirror, ".claude"), { recursive: true });
  writeFileSync(path.join(mirror, ".claude/settings.local.json"), '{"hooks":{}}');
  assert.deepEqual((await syncMirror(mirror, first)).sort(), [".claude/agents/reviewer.md", ".claude/commands/ship.md", ".claude/settings.local.json", "CLAUDE.md"]);
  assert.equal(readFileSync(path.join(mirror, "CLAUDE.md"), "utf8"), "Use tabs.\n");
  assert.ok(!existsSync(path.join(mirror, "src")), "no project file in the mirror");
  assert.ok(!existsSync(path.join(mirror, ".claude/settings.json")) && !existsSync(path.join(mirror, ".claude/settings.local.json")), "no settings in the mirror");
  assert.ok(first.files.has(".claude/settings.json"), "the settings are read for Tether's own use");
  assert.deepEqual(await syncMirror(mirror, first), [], "nothing rewritten when nothing changed");
  assert.deepEqual(agentFiles(first), [{ name: "reviewer.md", text: "---\nname: reviewer\n---\n" }]);

  rmSync(path.join(root, ".claude/commands/ship.md"));
  writeFileSync(path.join(root, "CLAUDE.md"), "Use spaces.\n");
  const second = await readProjectContext(host, root);
  assert.notEqual(contextFingerprint(second), contextFingerprint(first));
  assert.deepEqual((await syncMirror(mirror, second)).sort(), [".claude/commands/ship.md", "CLAUDE.md"]);
  assert.ok(!existsSync(path.join(mirror, ".claude/commands/ship.md")));
});

test("the memory prompt holds the CLAUDE.md files with their remote paths, private ones labelled", async () => {
  const root = dir("memory", { "CLAUDE.md": "Team rules.\n", "CLAUDE.local.md": "My rules.\n" });
  const prompt = memoryPrompt(await readProjectContext(new NodeHost({ ripgrepPath: null }), root), root)!;
  assert.ok(prompt.indexOf("Team rules.") < prompt.indexOf("My rules."));
  assert.ok(prompt.includes(`Contents of ${root}/CLAUDE.md (project instructions, checked into the codebase)`));
  assert.ok(prompt.includes(`Contents of ${root}/CLAUDE.local.md (user's private project instructions, not checked in)`));
  assert.equal(memoryPrompt(await readProjectContext(new NodeHost({ ripgrepPath: null }), dir("empty")), "/x"), undefined);
});
