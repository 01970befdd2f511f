import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { AuditLog } from "../src/chat/auditLog";

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "tether-audit-"));
}

test("records are appended in order, one JSON line each, with the time, after a session line", async () => {
  const dir = tempDir();
  const log = new AuditLog(path.join(dir, "audit"), () => undefined, () => new Date("2026-11-27T10:00:00.000Z"));
  const session = { agent: "claude", root: "/w" };
  log.append("k1", { kind: "toolCall", tool: "Read", toolUseId: "t1", paths: ["/w/a.txt"], ok: true, outputBytes: 12 }, session);
  log.append("k1", { kind: "write", path: "/w/a.txt", bytes: 3, sha256: "ab" }, session);
  const records = await log.read("k1");
  assert.deepEqual(
    records.map((r) => r.kind),
    ["session", "toolCall", "write"],
  );
  assert.deepEqual(records[0], { time: "2026-11-27T10:00:00.000Z", kind: "session", agent: "claude", root: "/w" });
  assert.equal(records[2]!.sha256, "ab");
  const lines = fs.readFileSync(log.pathFor("k1"), "utf8").trimEnd().split("\n");
  assert.equal(lines.length, 3);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("each session has its own file; a key cannot name a path outside the folder", async () => {
  const dir = tempDir();
  const log = new AuditLog(dir, () => undefined);
  assert.equal(path.dirname(log.pathFor("../../etc/passwd")), dir);
  log.append("a", { kind: "ruleRemoved", rule: "Bash(ls)", behavior: "allow", scope: "session" }, { agent: "x", root: "/w" });
  assert.deepEqual(await log.read("b"), []);
  assert.equal((await log.read("a")).length, 2);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a failing disk is logged, not thrown, and later records still go", async () => {
  const dir = tempDir();
  const blocked = path.join(dir, "file");
  fs.writeFileSync(blocked, "");
  const problems: string[] = [];
  const log = new AuditLog(path.join(blocked, "audit"), (m) => problems.push(m));
  log.append("k", { kind: "write", path: "/w/a", bytes: 1, sha256: "x" }, { agent: "x", root: "/w" });
  await log.flushed();
  assert.equal(problems.length, 1);
  fs.rmSync(dir, { recursive: true, force: true });
});
