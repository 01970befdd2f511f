import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { composePrompt } from "../src/chat/compose";
import { parseMentions, resolveMentions, workspacePath, type MentionSources } from "../src/chat/mentions";
import { expandCommand, parseCommandFile, projectCommands } from "../src/chat/projectCommands";
import { ContextSync } from "../src/chat/contextSync";
import { matchCommands, mergeCommands } from "../src/contract/commands";
import { readSettings } from "../src/settings";
import { NodeHost } from "../src/node/nodeHost";
import { scriptedManager } from "./chatFixtures";

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tether-composer-test-")));
after(() => rmSync(tmp, { recursive: true, force: true }));

function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmp, "ws-"));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const host = new NodeHost({ ripgrepPath: null });
const HELLO = "---\ndescription: Say hello to someone\nargument-hint: <name>\n---\nPlease greet $ARGUMENTS warmly. First: $0 second $1\n";

test("a command file is named by its path, described by its front matter or first line", () => {
  assert.deepEqual(parseCommandFile(".claude/commands/hello.md", HELLO), {
    name: "hello",
    description: "Say hello to someone (project)",
    argumentHint: "<name>",
    body: "Please greet $ARGUMENTS warmly. First: $0 second $1\n",
  });
  const deep = parseCommandFile(".claude/commands/sub/deep.md", "# Deep command body\nmore\n");
  assert.equal(deep?.name, "sub:deep");
  assert.equal(deep?.description, "Deep command body (project)");
  assert.equal(deep?.argumentHint, null);
  assert.equal(parseCommandFile(".claude/agents/x.md", "x"), undefined);
  assert.equal(parseCommandFile(".claude/commands/notes.txt", "x"), undefined);
});

test("a project command expands as the CLI expands it (measured with --setting-sources=project)", () => {
  const commands = [parseCommandFile(".claude/commands/hello.md", HELLO)!, parseCommandFile(".claude/commands/sub/deep.md", "Deep command body\n")!];
  assert.equal(
    expandCommand("/hello world and more", commands),
    "<command-message>hello</command-message>\n<command-name>/hello</command-name>\n<command-args>world and more</command-args>\n\n" +
      "Please greet world and more warmly. First: world second and\n",
  );
  // A body that does not use the arguments gets them appended.
  assert.match(expandCommand("/sub:deep some args", commands)!, /Deep command body\n\n\nARGUMENTS: some args$/);
  assert.equal(expandCommand("/unknown x", commands), undefined);
  assert.equal(expandCommand("hello /hello", commands), undefined);
  // The agent knows a command of that name itself: it is the agent's to run.
  assert.equal(expandCommand("/hello x", commands, [{ name: "hello", description: null, argumentHint: null }]), undefined);
});

test("the composer lists the project's commands the agent does not know, and matches by prefix then substring", () => {
  const agent = [
    { name: "compact", description: "Compact", argumentHint: null },
    { name: "__internal", description: null, argumentHint: null },
  ];
  const project = [
    { name: "deploy", description: "Deploy (project)", argumentHint: null },
    { name: "compact", description: "mine (project)", argumentHint: null },
  ];
  const merged = mergeCommands(agent, project);
  assert.deepEqual(merged.map((c) => c.name), ["deploy", "compact"]);
  assert.deepEqual(matchCommands([...merged, { name: "sub:deploy", description: null, argumentHint: null }], "dep").map((c) => c.name), ["deploy", "sub:deploy"]);
});

test("the project's commands are read from the workspace through the host", async () => {
  const root = project({ ".claude/commands/hello.md": HELLO, ".claude/commands/sub/deep.md": "Deep\n" });
  const sync = new ContextSync({ running: false, busy: false, restart: async () => undefined }, () => undefined);
  await sync.prepare({ host, root }, false);
  assert.deepEqual(sync.commands.map((c) => c.name), ["hello", "sub:deep"]);
  assert.deepEqual(projectCommands(new Map()), []);
});

test("mentions Tether resolves are parsed with their kind; a plain file is left to the agent", () => {
  const found = parseMentions("see @src/app.js#L10-20, @lib/ and @terminal:bash (@problems) but not @plain.js or a@b.c");
  assert.deepEqual(
    found.map((m) => m.target),
    [
      { kind: "lines", path: "src/app.js", start: 10, end: 20 },
      { kind: "folder", path: "lib" },
      { kind: "terminal", name: "bash" },
      { kind: "problems" },
    ],
  );
  assert.deepEqual(parseMentions("@a.js#L7").map((m) => m.target), [{ kind: "lines", path: "a.js", start: 7, end: 7 }]);
  assert.deepEqual(parseMentions("@a.js#L9-3 @a.js#L0"), []);
});

test("a mentioned path must stay inside the workspace", () => {
  assert.equal(workspacePath("/w/proj", "src/a.js"), "/w/proj/src/a.js");
  assert.equal(workspacePath("/w/proj/", "./src/"), "/w/proj/src");
  assert.equal(workspacePath("/w/proj", "/w/proj/a.js"), "/w/proj/a.js");
  assert.equal(workspacePath("/w/proj", "../secret"), undefined);
  assert.equal(workspacePath("/w/proj", "/w/project2/a.js"), undefined);
  assert.equal(workspacePath("/w/proj", "/etc/passwd"), undefined);
  assert.equal(workspacePath("C:\\w\\proj", "src/a.js"), "C:\\w\\proj\\src\\a.js");
  assert.equal(workspacePath("C:\\w\\proj", "c:\\W\\proj\\a.js"), "c:\\W\\proj\\a.js");
});

function sources(root: string, extra: Partial<MentionSources> = {}): MentionSources {
  return {
    root,
    readText: async (file) => new TextDecoder().decode(await host.readFile(file)),
    listFolder: async (folder) => (await host.readDir(folder)).map((e) => (e.kind === "directory" ? `${e.name}/` : e.name)).sort(),
    terminalOutput: (name) => (name === "bash" ? "$ echo hi\nhi\n" : undefined),
    problems: () => [{ path: "src/app.js", line: 3, column: 5, severity: "error", message: "x is not defined", source: "ts" }],
    ...extra,
  };
}

test("a line range resolves to the Read reminders Claude Code writes, and the mention loses its @", async () => {
  const root = project({ "src/app.js": "one\ntwo\nthree\nfour\n" });
  const { text, resolved } = await resolveMentions("look at @src/app.js#L2-3 please", sources(root));
  assert.equal(resolved, 1);
  const file = path.join(root, "src/app.js");
  assert.equal(
    text,
    `<system-reminder>\nCalled the Read tool with the following input: ${JSON.stringify({ file_path: file })}\n</system-reminder>\n` +
      "<system-reminder>\nResult of calling the Read tool:\n2\ttwo\n3\tthree\n</system-reminder>\n\nlook at src/app.js#L2-3 please",
  );
});

test("a folder resolves to its listing, a terminal to its output, @problems to the diagnostics", async () => {
  const root = project({ "src/a.js": "", "src/inner/b.js": "" });
  const { text } = await resolveMentions("@src/ and @terminal:bash and @problems", sources(root));
  assert.match(text, /Called the Bash tool with the following input: \{"command":"ls [^"]*\/src","description":"Lists files in [^"]*\/src"\}/);
  assert.match(text, /Result of calling the Bash tool:\na\.js\ninner\/\n<\/system-reminder>/);
  assert.match(text, /The user mentioned the terminal "bash"\. Its recent output[^\n]*:\n\$ echo hi\nhi\n/);
  assert.match(text, /src\/app\.js:3:5: error: x is not defined \[ts\]/);
  assert.match(text, /\n\nsrc\/ and terminal:bash and problems$/);
});

test("a mention that cannot be resolved stays as typed, with nothing added", async () => {
  const root = project({ "a.js": "x\n" });
  const typed = "@missing.js#L1-2 @terminal:zsh @../outside/ @nofolder/";
  assert.deepEqual(await resolveMentions(typed, sources(root)), { text: typed, resolved: 0 });
});

test("composing a prompt: the command expanded, then its mentions resolved against the project", async () => {
  const root = project({ "src/app.js": "alpha\nbeta\n" });
  const commands = [parseCommandFile(".claude/commands/explain.md", "Explain $ARGUMENTS in detail.\n")!];
  const prompt = await composePrompt("/explain @src/app.js#L2", [], { projectCommands: commands, agentCommands: [], project: { host, root } });
  assert.match(prompt.text, /Result of calling the Read tool:\n2\tbeta\n<\/system-reminder>/);
  assert.match(prompt.text, /<command-name>\/explain<\/command-name>\n<command-args>src\/app\.js#L2<\/command-args>/);
  assert.match(prompt.text, /Explain src\/app\.js#L2 in detail\.\n$/);
});

test("tether.sendWith takes enter or shiftEnter", () => {
  const from = (values: Record<string, unknown>) => (key: string) => values[key];
  assert.equal(readSettings(from({})).settings.sendWith, "enter");
  assert.equal(readSettings(from({ sendWith: "shiftEnter" })).settings.sendWith, "shiftEnter");
  const bad = readSettings(from({ sendWith: "ctrlEnter" }));
  assert.equal(bad.settings.sendWith, "enter");
  assert.equal(bad.problems.length, 1);
});

test("a chat session sends a project command expanded and a line range resolved, read from its workspace", async () => {
  const root = project({ ".claude/commands/greet.md": HELLO, "src/app.js": "one\ntwo\nthree\n" });
  const { manager, sidebar, agents } = scriptedManager({ root, host });
  const { session } = manager.newSession(sidebar, "claude");
  await session.send("/greet team @src/app.js#L2", []);
  assert.deepEqual(session.feed.state.projectCommands?.map((c) => c.name), ["greet"]);
  const sent = agents[0]!.prompts[0]!;
  assert.match(sent, /Result of calling the Read tool:\n2\ttwo\n<\/system-reminder>/);
  assert.match(sent, /<command-name>\/greet<\/command-name>\n<command-args>team src\/app\.js#L2<\/command-args>/);
});
