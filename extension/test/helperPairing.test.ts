// Tether Remote's guard and the helper tier's behaviour when the connection fails under a call,
// without VS Code: the helper's real handlers behind a router that stands for VS Code's command
// routing (arguments and results cross as JSON), and routers that fail the way a lost remote does.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { HelperHandlers } from "../src/helper/handlers";
import { HelperExecutor, pairHelper, type CommandExecutor } from "../src/remote/helperExecutor";
import { HelperCommand, Refusal, newHelperSecret, type HelperHello } from "../src/remote/protocol";

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tether-pairing-test-")));
after(() => rmSync(tmp, { recursive: true, force: true }));

function helper(trusted = () => true) {
  return new HelperHandlers({ version: "test", ripgrepPath: null, isTrusted: trusted });
}

function routeTo(handlers: HelperHandlers): CommandExecutor {
  const table = new Map(handlers.commands());
  return (id, ...args) => {
    const run = table.get(id);
    if (!run) return Promise.reject(new Error(`command '${id}' not found`));
    return run(...(JSON.parse(JSON.stringify(args)) as [unknown])).then((r) => JSON.parse(JSON.stringify(r ?? null)));
  };
}

const request = (command: string, timeoutMs = 10_000) => ({ command, cwd: tmp, env: [] as [string, string][], timeoutMs, maxOutputBytes: 1 << 20 });

async function paired(execute: CommandExecutor, secret = newHelperSecret()) {
  const answer = await pairHelper(execute, secret, 5000);
  assert.equal(answer.kind, "paired", JSON.stringify(answer));
  return { hello: (answer as { hello: HelperHello }).hello, secret };
}

test("the first hello pairs the window's secret and the helper then runs its calls", async () => {
  const execute = routeTo(helper());
  const { hello, secret } = await paired(execute);
  const out = await new HelperExecutor(execute, hello, secret).run(request("echo paired"));
  assert.equal(out.stdout, "paired\n");
});

test("a call without the secret, or with another one, is refused and runs nothing", async () => {
  const execute = routeTo(helper());
  await paired(execute);
  const marker = path.join(tmp, "must-not-exist");
  for (const call of [undefined, { args: { request: request(`touch ${marker}`) } }, { secret: newHelperSecret(), args: { request: request(`touch ${marker}`) } }]) {
    const reply = (await execute(HelperCommand.run, call)) as { ok: boolean; code: string; message: string };
    assert.equal(reply.ok, false);
    assert.equal(reply.code, Refusal.badSecret);
    assert.match(reply.message, /secret/);
  }
  // The protocol-1 shape (the request as the argument itself) is refused too.
  assert.equal(((await execute(HelperCommand.run, { request: request(`touch ${marker}`) })) as { ok: boolean }).ok, false);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(existsSync(marker), false);
});

test("before any hello every command is refused as unpaired", async () => {
  const execute = routeTo(helper());
  for (const id of Object.values(HelperCommand).filter((c) => c !== HelperCommand.hello)) {
    const reply = (await execute(id, { secret: newHelperSecret(), args: null })) as { ok: boolean; code: string };
    assert.deepEqual([id, reply.ok, reply.code], [id, false, Refusal.unpaired]);
  }
});

test("a second pairing with another secret is refused, and the paired caller goes on", async () => {
  const execute = routeTo(helper());
  const { hello, secret } = await paired(execute);
  const intruder = await pairHelper(execute, newHelperSecret(), 5000);
  assert.equal(intruder.kind, "refused");
  assert.equal((intruder as { code: string }).code, Refusal.pairedElsewhere);
  assert.match((intruder as { message: string }).message, /already paired/);
  assert.equal((await pairHelper(execute, secret, 5000)).kind, "paired", "the same secret pairs again");
  assert.equal((await new HelperExecutor(execute, hello, secret).run(request("echo still"))).stdout, "still\n");
});

test("a weak or malformed secret cannot pair", async () => {
  const execute = routeTo(helper());
  for (const secret of ["", "secret", "a".repeat(42), 42, null]) {
    const answer = await pairHelper(execute, secret as string, 5000);
    assert.equal(answer.kind, "refused", JSON.stringify(secret));
  }
  await paired(execute); // still unpaired, so the real secret pairs
});

test("in an untrusted workspace every command, hello included, is refused with a reason for the user", async () => {
  let trusted = true;
  const execute = routeTo(helper(() => trusted));
  const { hello, secret } = await paired(execute);
  trusted = false;
  const answer = await pairHelper(execute, secret, 5000);
  assert.equal(answer.kind, "refused");
  assert.equal((answer as { code: string }).code, Refusal.untrusted);
  assert.match((answer as { message: string }).message, /untrusted workspace.*Manage Workspace Trust/);
  for (const id of Object.values(HelperCommand).filter((c) => c !== HelperCommand.hello)) {
    const reply = (await execute(id, { secret, args: null })) as { ok: boolean; code: string };
    assert.deepEqual([id, reply.code], [id, Refusal.untrusted]);
  }
  await assert.rejects(new HelperExecutor(execute, hello, secret).run(request("true")), (error: Error & { code?: string }) => {
    assert.equal(error.code, "NoPermissions");
    assert.match(error.message, /untrusted workspace/);
    return true;
  });
  trusted = true;
  assert.equal((await new HelperExecutor(execute, hello, secret).run(request("echo trusted"))).stdout, "trusted\n");
});

test("a helper from before pairing (protocol 1) is reported outdated, so Tether reinstalls it", async () => {
  const old = async () => ({ protocol: 1, version: "0.0.9" });
  assert.deepEqual(await pairHelper(old, newHelperSecret(), 5000), { kind: "outdated", protocol: 1 });
  assert.deepEqual(await pairHelper(() => Promise.reject(new Error("command '_tether.remote.hello' not found")), newHelperSecret(), 5000), {
    kind: "absent",
  });
  assert.deepEqual(await pairHelper(() => new Promise(() => undefined), newHelperSecret(), 50), { kind: "absent" }, "no answer in time");
});

test("a helper that restarted (the remote's extension host came back) is paired again and the call goes through", async () => {
  let handlers = helper();
  const execute: CommandExecutor = (id, ...args) => routeTo(handlers)(id, ...args);
  const { hello, secret } = await paired(execute);
  const executor = new HelperExecutor(execute, hello, secret);
  handlers = helper(); // a fresh helper knows no secret
  assert.equal((await executor.run(request("echo again"))).stdout, "again\n");
});

test("the connection lost under a command: an Unavailable error that says the command may have run", async () => {
  const real = routeTo(helper());
  const { hello, secret } = await paired(real);
  // What VS Code does to a call in flight when the remote extension host goes away.
  const lost: CommandExecutor = () => Promise.reject(Object.assign(new Error("Canceled"), { name: "Canceled" }));
  const executor = new HelperExecutor(lost, hello, secret);
  await assert.rejects(executor.run(request("make deploy")), (error: Error & { code?: string }) => {
    assert.equal(error.code, "Unavailable");
    assert.match(error.message, /connection to the remote was lost while running the command \(Canceled\)/);
    assert.match(error.message, /may or may not have run/);
    return true;
  });
  await assert.rejects(executor.ripgrep(["needle"], tmp, 5000), /lost while searching \(Canceled\)\. Nothing was changed/);
  await assert.rejects(executor.statMany([tmp]), /lost while reading file information/);
});

test("a remote that never answers fails the call after its own timeout plus the grace, not never", async () => {
  const real = routeTo(helper());
  const { hello, secret } = await paired(real);
  const silent: CommandExecutor = () => new Promise(() => undefined);
  const executor = new HelperExecutor(silent, hello, secret, { answerGraceMs: 100 });
  const started = Date.now();
  await assert.rejects(executor.run(request("sleep 1", 200)), /did not answer within 0 s while running the command: the connection to it may be down/);
  const took = Date.now() - started;
  assert.ok(took >= 280 && took < 2000, `bounded by timeout + grace (${took} ms)`);
  await assert.rejects(executor.ripgrep(["x"], tmp, 100), (error: Error & { code?: string }) => error.code === "Unavailable");
});

test("the connection back: the same executor works again", async () => {
  const real = routeTo(helper());
  const { hello, secret } = await paired(real);
  let up = false;
  const flaky: CommandExecutor = (id, ...args) => (up ? real(id, ...args) : Promise.reject(new Error("Canceled")));
  const executor = new HelperExecutor(flaky, hello, secret);
  await assert.rejects(executor.run(request("echo one")), /lost/);
  up = true;
  assert.equal((await executor.run(request("echo two"))).stdout, "two\n");
});
