import assert from "node:assert/strict";
import { mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { listSessions, projectDirName, transcriptToEntries } from "../src/backends/claude/history";
import { buildPrompt } from "../src/chat/prompt";
import { transcriptToMarkdown } from "../src/chat/transcript";

const line = (value: unknown) => JSON.stringify(value);
const transcript = [
  line({ type: "user", message: { role: "user", content: "fix the bug" } }),
  line({ type: "user", isMeta: true, message: { role: "user", content: "<system reminder>" } }),
  line({ type: "assistant", message: { id: "m1", role: "assistant", content: [{ type: "text", text: "Looking." }] } }),
  line({
    type: "assistant",
    message: { id: "m1", role: "assistant", content: [{ type: "tool_use", id: "t1", name: "mcp__tether__Read", input: { file_path: "/w/a" } }] },
  }),
  line({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "1\tx" }] } }),
  '{"type":"assistant", torn',
].join("\n");

test("the project folder name replaces every non-alphanumeric character with a dash", () => {
  assert.equal(projectDirName("/tmp/my proj.v2"), "-tmp-my-proj-v2");
});

test("a transcript becomes user, assistant, tool call and result entries; meta and torn lines are skipped", () => {
  assert.deepEqual(transcriptToEntries(transcript), [
    { type: "userMessage", id: "history-user-1", text: "fix the bug" },
    { type: "messageStart", messageId: "m1", parentToolUseId: null },
    { type: "textDelta", messageId: "m1", text: "Looking.", parentToolUseId: null },
    {
      type: "toolCallStart",
      id: "t1",
      name: "Read",
      input: { file_path: "/w/a" },
      kind: "other",
      title: "Read",
      locations: [],
      parentToolUseId: null,
    },
    { type: "toolCallResult", id: "t1", isError: false, content: "1\tx", structured: null, parentToolUseId: null },
    { type: "messageStop", messageId: "m1", stopReason: null },
  ]);
});

test("sessions are listed newest first with their first prompt as title; empty ones are left out", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tether-history-"));
  writeFileSync(path.join(dir, "old.jsonl"), transcript);
  writeFileSync(path.join(dir, "new.jsonl"), line({ type: "user", message: { content: "second session" } }));
  writeFileSync(path.join(dir, "empty.jsonl"), "");
  utimesSync(path.join(dir, "old.jsonl"), new Date(1000), new Date(1000));
  const sessions = await listSessions(dir);
  assert.deepEqual(
    sessions.map((s) => [s.id, s.title]),
    [
      ["new", "second session"],
      ["old", "fix the bug"],
    ],
  );
  assert.equal(sessions[1]!.messageCount, 4);
});

test("a missing project folder is an empty history", async () => {
  assert.deepEqual(await listSessions(path.join(os.tmpdir(), "tether-no-such-dir-xyz")), []);
});

test("prompts quote selections with their place, name files and pass images as base64", () => {
  const out = buildPrompt("explain", [
    { kind: "selection", path: "src/a.ts", range: { startLine: 3, endLine: 4 }, text: "let x = 1;" },
    { kind: "file", path: "README.md" },
    { kind: "image", dataUrl: "data:image/png;base64,AAAA", mimeType: "image/png" },
  ]);
  assert.equal(out.text, "Selection from src/a.ts:3-4:\n```\nlet x = 1;\n```\n\n@README.md\n\nexplain");
  assert.deepEqual(out.images, [{ mediaType: "image/png", data: "AAAA" }]);
});

test("a file already @-mentioned in the text is not added again", () => {
  assert.equal(buildPrompt("look at @README.md", [{ kind: "file", path: "README.md" }]).text, "look at @README.md");
});

test("the Markdown export shows each tool call once, with its final title; notices are left out", () => {
  const md = transcriptToMarkdown([
    { type: "userMessage", id: "u", text: "go" },
    { type: "messageStart", messageId: "m", parentToolUseId: null },
    { type: "textDelta", messageId: "m", text: "Reading.", parentToolUseId: null },
    { type: "toolCallStart", id: "t", name: "Read", input: {}, kind: "read", title: "Read", locations: [], parentToolUseId: null },
    { type: "toolCallUpdate", id: "t", input: { file_path: "/w/a" }, title: "Read a", locations: [] },
    { type: "permissionResolved", requestId: "p", outcome: "denied", reason: "no" },
    { type: "error", kind: "interrupted", severity: "notice", message: "Stopped.", hint: null },
    { type: "error", kind: "api", severity: "error", message: "overloaded", hint: null },
  ]);
  assert.equal(
    md,
    "# Tether session\n\n## You\n\ngo\n\n## Claude\n\nReading.\n\n> **Read** Read a\n\n> permission denied: no\n\n> **Error:** overloaded\n",
  );
});
