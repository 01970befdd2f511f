// The session's folder in a multi-root workspace, and what of a remote project's setup comes to the
// laptop for the CLI: skills and output styles in the mirror, the plugin manifest that offers them,
// the output style the project chose, the other folders with their own mirrors and memory.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { ContextSync, type RestartableSession } from "../src/chat/contextSync";
import { chooseFolders, needsFolderPick } from "../src/chat/folders";
import { NodeHost } from "../src/node/nodeHost";
import { outputStyle, PLUGIN_MANIFEST, readProjectContext, syncMirror } from "../src/remote/context";

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tether-setup-test-")));
after(() => rmSync(tmp, { recursive: true, force: true }));
const host = new NodeHost({ ripgrepPath: null });

function project(name: string, files: Record<string, string>): string {
  const root = path.join(mkdtempSync(path.join(tmp, "remote-")), name);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const idle: RestartableSession = { running: false, busy: false, restart: async () => undefined };
const remoteFolder = (name: string) => ({ name, scheme: "vscode-remote", authority: "ssh-remote+gpu" });

test("a session works in the first folder by default, the others on the same machine come along", () => {
  const folders = [remoteFolder("app"), remoteFolder("lib"), { name: "notes", scheme: "file", authority: "" }];
  const choice = chooseFolders(folders)!;
  assert.equal(choice.primary.name, "app");
  assert.deepEqual(choice.others.map((f) => f.name), ["lib"]);
  assert.match(choice.leftOut.join("\n"), /notes is on another machine/);
});

test("the folder named by the setting or the session is the session's folder; an unknown name falls back to the first and says so", () => {
  const folders = [remoteFolder("app"), remoteFolder("lib")];
  assert.equal(chooseFolders(folders, "lib")!.primary.name, "lib");
  assert.deepEqual(chooseFolders(folders, "lib")!.others.map((f) => f.name), ["app"]);
  const unknown = chooseFolders(folders, "gone")!;
  assert.equal(unknown.primary.name, "app");
  assert.match(unknown.leftOut[0]!, /no workspace folder named gone/);
  assert.equal(chooseFolders([], "app"), undefined);
});

test("a new session asks for its folder only when there are several and none is chosen", () => {
  assert.equal(needsFolderPick([remoteFolder("app")]), false);
  assert.equal(needsFolderPick([remoteFolder("app"), remoteFolder("lib")]), true);
  assert.equal(needsFolderPick([remoteFolder("app"), remoteFolder("lib")], "lib"), false);
  assert.equal(needsFolderPick([remoteFolder("app"), remoteFolder("lib")], "gone"), true);
});

test("skills (with the files beside SKILL.md) and output styles are mirrored, offered by a plugin manifest of skills and styles only", async () => {
  const root = project("app", {
    ".claude/skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets\n---\nSay hi.\n",
    ".claude/skills/greet/scripts/hello.sh": "echo hi\n",
    ".claude/output-styles/pirate.md": "---\nname: Pirate\ndescription: Arr\n---\nSpeak like a pirate.\n",
    ".claude/hooks/format.sh": "exit 0\n",
    "src/main.rs": "fn main() {}\n",
  });
  const mirror = path.join(tmp, "mirror-skills");
  const context = await readProjectContext(host, root);
  await syncMirror(mirror, context, "app");
  assert.equal(readFileSync(path.join(mirror, ".claude/skills/greet/scripts/hello.sh"), "utf8"), "echo hi\n");
  assert.ok(existsSync(path.join(mirror, ".claude/output-styles/pirate.md")));
  assert.equal(existsSync(path.join(mirror, ".claude/hooks")), false, "hook scripts stay on the remote");
  assert.equal(existsSync(path.join(mirror, "src")), false, "project files stay on the remote");
  const manifest = JSON.parse(readFileSync(path.join(mirror, PLUGIN_MANIFEST), "utf8"));
  assert.deepEqual({ name: manifest.name, agents: manifest.agents, commands: manifest.commands }, { name: "app", agents: [], commands: [] });
  // The skills removed on the remote: the manifest goes too.
  rmSync(path.join(root, ".claude"), { recursive: true });
  await syncMirror(mirror, await readProjectContext(host, root), "app");
  assert.equal(existsSync(path.join(mirror, PLUGIN_MANIFEST)), false);
  assert.equal(existsSync(path.join(mirror, ".claude/skills/greet/SKILL.md")), false);
});

test("the project's output style is named as the CLI knows it: the plugin's own, else a built-in as written", async () => {
  const own = await readProjectContext(
    host,
    project("app", {
      ".claude/output-styles/pirate.md": "---\nname: Pirate\n---\nArr.\n",
      ".claude/settings.json": JSON.stringify({ outputStyle: "Explanatory" }),
      ".claude/settings.local.json": JSON.stringify({ outputStyle: "Pirate" }),
    }),
  );
  assert.equal(outputStyle(own, "app"), "app:Pirate");
  const builtIn = await readProjectContext(host, project("app", { ".claude/settings.json": JSON.stringify({ outputStyle: "Explanatory" }) }));
  assert.equal(outputStyle(builtIn, "app"), "Explanatory");
  assert.equal(outputStyle(await readProjectContext(host, project("app", {})), "app"), undefined);
});

test("a remote session's other folders get their own mirrors, their skills as plugin folders and their memory after the first's", async () => {
  const app = project("app", { "CLAUDE.md": "APP-MEMORY\n", ".claude/skills/a/SKILL.md": "---\nname: a\ndescription: A\n---\nA.\n" });
  const lib = project("lib", { "CLAUDE.md": "LIB-MEMORY\n", ".claude/skills/b/SKILL.md": "---\nname: b\ndescription: B\n---\nB.\n", "lib.rs": "x\n" });
  const appMirror = path.join(tmp, "m-app");
  const libMirror = path.join(tmp, "m-lib");
  const sync = new ContextSync(idle, () => undefined);
  const setup = await sync.prepare({ host, root: app, remote: { mirror: appMirror, facts: async () => ({}) }, others: [{ root: lib, mirror: libMirror }] }, false);
  assert.deepEqual(setup.additionalFolders, [{ root: lib, mirror: libMirror }]);
  assert.deepEqual(setup.pluginDirs, [path.join(appMirror, ".claude"), path.join(libMirror, ".claude")]);
  assert.match(setup.memory ?? "", /APP-MEMORY[\s\S]*LIB-MEMORY/);
  assert.ok(existsSync(path.join(libMirror, ".claude/skills/b/SKILL.md")));
  assert.equal(existsSync(path.join(libMirror, "lib.rs")), false);
});

test("a local session's other folders are offered as they are, with no mirror and no plugin folder", async () => {
  const app = project("app", { ".claude/skills/a/SKILL.md": "---\nname: a\ndescription: A\n---\nA.\n" });
  const lib = project("lib", {});
  const setup = await new ContextSync(idle, () => undefined).prepare({ host, root: app, others: [{ root: lib }] }, false);
  assert.deepEqual(setup, { additionalFolders: [{ root: lib }], projectSettings: [] });
});
