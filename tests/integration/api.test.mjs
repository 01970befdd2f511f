// The real Claude Code CLI through tether-cli: API retries and subagents.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { lastDone, makeDirs, ofType, runTether } from "./harness.mjs";

test("529 overloaded: the CLI's retry is surfaced as an apiRetry event and the turn recovers", async () => {
  const dirs = makeDirs();
  try {
    const result = await runTether({
      dirs,
      script: [
        { when: { lastUserText: "SCENARIO overloaded" }, error: { status: 529 } },
        { when: { lastUserText: "SCENARIO overloaded" }, text: "Recovered." },
      ],
      args: ["--prompt", "SCENARIO overloaded"],
    });
    assert.equal(result.code, 0, result.stderr);
    const [retry] = ofType(result.events, "apiRetry");
    assert.ok(retry, "an apiRetry event");
    assert.equal(retry.attempt, 1);
    assert.equal(retry.errorStatus, 529);
    assert.equal(lastDone(result).result, "Recovered.");
  } finally {
    dirs.cleanup();
  }
});

test("a subagent (Agent tool) edits a workspace file through mcp__tether__Edit", async () => {
  const dirs = makeDirs({ "sub.txt": "sub original\n" });
  try {
    const file = path.join(dirs.root, "sub.txt");
    const result = await runTether({
      dirs,
      script: [
        {
          when: { lastUserText: "SCENARIO subagent" },
          toolUse: {
            name: "Agent",
            input: { description: "Edit sub.txt", prompt: "SUBTASK edit sub.txt", subagent_type: "general-purpose", run_in_background: false },
          },
        },
        { when: { lastUserText: "SUBTASK edit" }, toolUse: { name: "mcp__tether__Read", input: { file_path: file } } },
        { when: { lastToolResult: "sub original" }, toolUse: { name: "mcp__tether__Edit", input: { file_path: file, old_string: "original", new_string: "edited by the subagent" } } },
        { when: { lastToolResult: "has been updated" }, text: "SUBDONE: edited." },
        { when: { lastToolResult: "SUBDONE" }, text: "The subagent edited sub.txt." },
      ],
      args: ["--prompt", "SCENARIO subagent", "--approve", "Agent,Edit"],
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(fs.readFileSync(file, "utf8"), "sub edited by the subagent\n");
    const editRequest = ofType(result.events, "permissionRequest").find((e) => e.toolName === "Edit");
    assert.ok(editRequest?.agentId, `the subagent's edit is asked with its agent id: ${JSON.stringify(editRequest)}`);
    const subCalls = ofType(result.events, "toolCallStart").filter((e) => e.parentToolUseId);
    assert.ok(subCalls.some((e) => e.name === "Edit"), "the subagent's Edit is shown under its Agent call");
    assert.equal(lastDone(result).result, "The subagent edited sub.txt.");
  } finally {
    dirs.cleanup();
  }
});
