// The real Claude Code CLI through tether-cli: Tether's proxied tools and their permission prompts.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { changes, isCliState, lastDone, makeDirs, ofType, runTether, snapshot, toolResults } from "./harness.mjs";

const read = (file_path) => ({ name: "mcp__tether__Read", input: { file_path } });
const edit = (file_path, old_string, new_string) => ({ name: "mcp__tether__Edit", input: { file_path, old_string, new_string } });

/** Read `file`, then replace `from` with `to`, then say `closing`. */
function readThenEdit(file, marker, from, to, closing = "Edited.") {
  return [
    { when: { lastUserText: marker }, text: "Reading first.", toolUse: read(file) },
    { when: { lastToolResult: from }, text: "Now the edit.", toolUse: edit(file, from, to) },
    { text: closing },
  ];
}

test("read: the model reads a workspace file through mcp__tether__Read without a prompt", async () => {
  const dirs = makeDirs({ "hello.txt": "hello from the workspace\n" });
  try {
    const file = path.join(dirs.root, "hello.txt");
    const result = await runTether({
      dirs,
      script: [
        { when: { lastUserText: "SCENARIO read" }, text: "Reading.", toolUse: read(file) },
        { when: { lastToolResult: "hello from the workspace" }, text: "It says hello." },
      ],
      args: ["--prompt", "SCENARIO read", "--approve", "none"],
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(ofType(result.events, "permissionRequest").length, 0, "a read inside the workspace needs no prompt");
    const start = ofType(result.events, "toolCallStart").find((e) => e.name === "Read");
    assert.ok(start, "toolCallStart for Read");
    const done = ofType(result.events, "toolCallResult").find((e) => e.id === start.id);
    assert.equal(done?.isError, false);
    assert.match(done.content, /hello from the workspace/);
    assert.equal(lastDone(result).isError, false);
    assert.ok(ofType(result.events, "sessionInit").length > 0, "sessionInit event");
    const [sent] = toolResults(result.requests);
    assert.match(sent.text, /1\thello from the workspace/, "the model got the numbered content");
  } finally {
    dirs.cleanup();
  }
});

test("edit approved: the prompt carries a review and the file changes", async () => {
  const dirs = makeDirs({ "a.txt": "alpha\nbeta\n" });
  try {
    const file = path.join(dirs.root, "a.txt");
    const result = await runTether({
      dirs,
      script: readThenEdit(file, "SCENARIO edit", "beta", "gamma"),
      args: ["--prompt", "SCENARIO edit", "--approve", "Edit"],
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(fs.readFileSync(file, "utf8"), "alpha\ngamma\n");
    const [request] = ofType(result.events, "permissionRequest");
    assert.equal(request?.toolName, "Edit");
    assert.equal(request.rawToolName, "mcp__tether__Edit");
    assert.equal(request.review?.proposed, "alpha\ngamma\n");
    assert.equal(request.review?.original, "alpha\nbeta\n");
    const edited = toolResults(result.requests).at(-1);
    assert.equal(edited.isError, false);
    assert.match(edited.text, /has been updated/);
  } finally {
    dirs.cleanup();
  }
});

test("edit rejected: the file is unchanged and the model is told", async () => {
  const dirs = makeDirs({ "a.txt": "alpha\nbeta\n" });
  try {
    const file = path.join(dirs.root, "a.txt");
    const result = await runTether({
      dirs,
      script: readThenEdit(file, "SCENARIO reject", "beta", "gamma", "Understood, no edit."),
      args: ["--prompt", "SCENARIO reject", "--approve", "none"],
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(fs.readFileSync(file, "utf8"), "alpha\nbeta\n");
    assert.equal(ofType(result.events, "permissionRequest")[0]?.toolName, "Edit");
    const refused = toolResults(result.requests).at(-1);
    assert.equal(refused.isError, true, JSON.stringify(refused));
    assert.match(refused.text, /Denied by tether-cli --approve none/);
  } finally {
    dirs.cleanup();
  }
});

test("edit approved with the user's modified content: that content is written and the model is told", async () => {
  const dirs = makeDirs({ "a.txt": "alpha\nbeta\n" });
  try {
    const file = path.join(dirs.root, "a.txt");
    const userFile = path.join(dirs.base, "user-content.txt");
    fs.writeFileSync(userFile, "alpha\ndelta (the user's version)\n");
    const result = await runTether({
      dirs,
      script: readThenEdit(file, "SCENARIO user content", "beta", "gamma"),
      args: ["--prompt", "SCENARIO user content", "--approve", "Edit", "--user-content-file", userFile],
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(fs.readFileSync(file, "utf8"), "alpha\ndelta (the user's version)\n");
    const edited = toolResults(result.requests).at(-1);
    assert.match(edited.text, /user modified your proposed changes/);
  } finally {
    dirs.cleanup();
  }
});

test("acceptEdits mode: an edit inside the workspace goes through without a prompt", async () => {
  const dirs = makeDirs({ "a.txt": "alpha\nbeta\n" });
  try {
    const file = path.join(dirs.root, "a.txt");
    const result = await runTether({
      dirs,
      script: readThenEdit(file, "SCENARIO accept", "beta", "gamma"),
      args: ["--prompt", "SCENARIO accept", "--mode", "acceptEdits", "--approve", "none"],
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(ofType(result.events, "permissionRequest").length, 0);
    assert.equal(fs.readFileSync(file, "utf8"), "alpha\ngamma\n");
  } finally {
    dirs.cleanup();
  }
});

test("a deny rule in the project's .claude/settings.json blocks a proxied Edit without asking", async () => {
  const dirs = makeDirs({
    "secret.txt": "top secret\n",
    ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Edit(/secret.txt)"] } }),
  });
  try {
    const file = path.join(dirs.root, "secret.txt");
    const result = await runTether({
      dirs,
      script: readThenEdit(file, "SCENARIO deny rule", "top secret", "leaked", "Blocked, as expected."),
      args: ["--prompt", "SCENARIO deny rule", "--approve", "all"],
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(fs.readFileSync(file, "utf8"), "top secret\n");
    assert.equal(ofType(result.events, "permissionRequest").length, 0, "a denied call is not asked about");
    const refused = toolResults(result.requests).at(-1);
    assert.equal(refused.isError, true);
    const denial = ofType(result.events, "permissionDenied")[0];
    assert.ok(denial || /deny|denied/i.test(refused.text), `the model learns it was denied: ${refused.text}`);
  } finally {
    dirs.cleanup();
  }
});

test("Bash with a timeout: the command is killed and the model is told", async () => {
  const dirs = makeDirs();
  try {
    const result = await runTether({
      dirs,
      script: [
        {
          when: { lastUserText: "SCENARIO bash timeout" },
          toolUse: { name: "mcp__tether__Bash", input: { command: "echo started; sleep 30", timeout: 1500, description: "Wait" } },
        },
        { when: { lastToolResult: "timed out" }, text: "It timed out." },
      ],
      args: ["--prompt", "SCENARIO bash timeout", "--approve", "Bash"],
    });
    assert.equal(result.code, 0, result.stderr);
    const sent = toolResults(result.requests).at(-1);
    assert.match(sent.text, /Command timed out after 1\.5s|Command timed out/);
    assert.match(sent.text, /started/);
    assert.equal(ofType(result.events, "done").at(-1).result, "It timed out.");
  } finally {
    dirs.cleanup();
  }
});

test("nothing changes on the local side but the CLI's own state: edits through the mirror path land in the workspace", async () => {
  const dirs = makeDirs({ "notes.txt": "one\ntwo\n" });
  try {
    fs.writeFileSync(path.join(dirs.home, ".bashrc"), "# the user's own file\n");
    const homeBefore = snapshot(dirs.home, isCliState);
    const mirrorBefore = snapshot(dirs.mirror);
    const rootBefore = snapshot(dirs.root);
    // The model works in the CLI's cwd (the mirror), as it is told to.
    const viaMirror = path.join(dirs.mirror, "notes.txt");
    const result = await runTether({
      dirs,
      script: [
        { when: { lastUserText: "SCENARIO local" }, toolUse: read(viaMirror) },
        { when: { lastToolResult: "two" }, toolUse: edit(viaMirror, "two", "three") },
        {
          when: { lastToolResult: "has been updated" },
          toolUse: { name: "mcp__tether__Write", input: { file_path: path.join(dirs.mirror, "sub/new.txt"), content: "new\n" } },
        },
        {
          when: { lastToolResult: "File created" },
          toolUse: { name: "mcp__tether__Bash", input: { command: "echo made by bash > bash.txt && pwd", description: "Write a file" } },
        },
        { when: { lastToolResult: dirs.base }, text: "All done." },
      ],
      args: ["--prompt", "SCENARIO local", "--approve", "all"],
    });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(changes(mirrorBefore, snapshot(dirs.mirror)), [], "the mirror folder is untouched");
    assert.deepEqual(changes(homeBefore, snapshot(dirs.home, isCliState)), [], "HOME changed only in the CLI's own state");
    assert.deepEqual(changes(rootBefore, snapshot(dirs.root)), ["bash.txt", "notes.txt", "sub", "sub/new.txt"]);
    assert.equal(fs.readFileSync(path.join(dirs.root, "notes.txt"), "utf8"), "one\nthree\n");
    assert.equal(fs.readFileSync(path.join(dirs.root, "sub/new.txt"), "utf8"), "new\n");
    assert.equal(fs.readFileSync(path.join(dirs.root, "bash.txt"), "utf8"), "made by bash\n");
    assert.match(toolResults(result.requests).at(-1).text, new RegExp(`${dirs.root}|${dirs.mirror}`), "pwd ran in the workspace");
    const baseEntries = fs.readdirSync(dirs.base).sort();
    assert.deepEqual(baseEntries, ["home", "mirror", "workspace"], "nothing next to the workspace");
  } finally {
    dirs.cleanup();
  }
});

test("aliases: a built-in name the model emits (Read, Bash) runs Tether's tool on the workspace", async () => {
  const dirs = makeDirs({ "notes.txt": "aliased read\n" });
  try {
    const mirrorBefore = snapshot(dirs.mirror);
    const result = await runTether({
      dirs,
      script: [
        { when: { lastUserText: "SCENARIO alias" }, toolUse: { name: "Read", input: { file_path: path.join(dirs.root, "notes.txt") } } },
        {
          when: { lastToolResult: "aliased read" },
          toolUse: { name: "Bash", input: { command: "echo by alias > aliased.txt && pwd", description: "Write a file" } },
        },
        { when: { lastToolResult: dirs.base }, text: "All done." },
      ],
      args: ["--prompt", "SCENARIO alias", "--approve", "all"],
    });
    assert.equal(result.code, 0, result.stderr);
    const [read, bash] = toolResults(result.requests);
    assert.equal(read.isError, false, read.text);
    assert.match(read.text, /1\taliased read/);
    assert.equal(bash.isError, false, bash.text);
    assert.equal(fs.readFileSync(path.join(dirs.root, "aliased.txt"), "utf8"), "by alias\n");
    assert.deepEqual(changes(mirrorBefore, snapshot(dirs.mirror)), [], "nothing ran in the local mirror");
  } finally {
    dirs.cleanup();
  }
});
