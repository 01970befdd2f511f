// tether-cli's command line and its failures before any model turn.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { TETHER_CLI, makeDirs } from "./harness.mjs";

function cli(args, env = {}) {
  const result = spawnSync(process.execPath, [TETHER_CLI, ...args], {
    encoding: "utf8",
    timeout: 30_000,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("--help prints the usage and exits 0", () => {
  const { code, stdout } = cli(["--help"]);
  assert.equal(code, 0);
  assert.match(stdout, /^Usage: tether-cli run --root DIR/);
  assert.match(stdout, /--approve LIST/);
});

test("usage errors exit 2 with the reason on stderr", () => {
  const dirs = makeDirs();
  try {
    const cases = [
      [["run", "--prompt", "hi"], /--root DIR is required/],
      [["run", "--root", dirs.root], /exactly one of --prompt TEXT and --script FILE/],
      [["run", "--root", path.join(dirs.base, "missing"), "--prompt", "hi"], /--root .*missing does not exist/],
      [["run", "--root", dirs.root, "--prompt", "hi", "--mode", "yolo"], /--mode yolo: expected one of default, acceptEdits, plan/],
      [["run", "--root", dirs.root, "--prompt", "hi", "--approve", ","], /--approve ,: expected all, none or a list of tools/],
      [["walk", "--root", dirs.root, "--prompt", "hi"], /unknown command walk/],
      [["run", "--root", dirs.root, "--prompt", "hi", "--bogus"], /Unknown option '--bogus'/],
    ];
    for (const [args, message] of cases) {
      const { code, stdout, stderr } = cli(args);
      assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
      assert.match(stderr, message);
      assert.equal(stdout, "", "no events on a usage error");
    }
  } finally {
    dirs.cleanup();
  }
});

test("a claude binary that does not exist fails with a clear message, before any event", () => {
  const dirs = makeDirs();
  try {
    const missing = path.join(dirs.base, "no-claude");
    const viaEnv = cli(["run", "--root", dirs.root, "--prompt", "hi"], { TETHER_CLAUDE_PATH: missing });
    assert.equal(viaEnv.code, 1);
    assert.match(viaEnv.stderr, new RegExp(`the Claude Code binary ${missing} does not exist`));
    const notExecutable = path.join(dirs.base, "claude");
    fs.writeFileSync(notExecutable, "not a program");
    const viaFlag = cli(["run", "--root", dirs.root, "--prompt", "hi", "--claude", notExecutable]);
    assert.equal(viaFlag.code, 1);
    assert.match(viaFlag.stderr, /could not start Claude Code \(.*claude\): .*EACCES/);
    assert.equal(viaFlag.stdout, "");
  } finally {
    dirs.cleanup();
  }
});
