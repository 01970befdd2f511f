import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { PERMISSION_MODE_INFO } from "../src/contract/modes";
import { PERMISSION_MODES } from "../src/generated/core";
import { gatewayHttpOrigin } from "../src/backends/openclaw";
import { readSettings } from "../src/settings";

const from = (values: Record<string, unknown>) => (key: string) => values[key];

test("missing settings give the defaults and no problems", () => {
  const { settings, problems } = readSettings(from({}));
  assert.deepEqual(settings, {
    claudePath: "",
    agent: "claude",
    agents: {},
    defaultMode: "default",
    model: "",
    allowedTools: [],
    disallowedTools: [],
    environment: {},
    remoteExecutor: "auto",
    openclaw: { gatewayUrl: "", offerWorkspace: false },
    checkpoints: { enabled: true, keepMessages: 100, keepSessions: 20 },
    sendWith: "enter",
  });
  assert.deepEqual(problems, []);
});

test("checkpoint retention must be a whole number of at least 1; another is reported and the default kept", () => {
  const { settings, problems } = readSettings(from({ "checkpoints.enabled": false, "checkpoints.keepMessages": 0, "checkpoints.keepSessions": 5 }));
  assert.deepEqual(settings.checkpoints, { enabled: false, keepMessages: 100, keepSessions: 5 });
  assert.deepEqual(problems.map((p) => p.key), ["tether.checkpoints.keepMessages"]);
});

test("the user's own hooks run on the workspace only when tether.hooks.user is on", () => {
  assert.equal(readSettings(from({})).settings.hooks, undefined);
  assert.deepEqual(readSettings(from({ "hooks.user": true })).settings.hooks, { user: true });
  assert.equal(readSettings(from({ "hooks.user": "yes" })).settings.hooks, undefined);
});

test("the OpenClaw gateway URL must be ws:// or wss://; another is reported and ignored", () => {
  const good = readSettings(from({ "openclaw.gatewayUrl": " ws://127.0.0.1:18789 ", "openclaw.offerWorkspace": true }));
  assert.deepEqual(good.settings.openclaw, { gatewayUrl: "ws://127.0.0.1:18789", offerWorkspace: true });
  const bad = readSettings(from({ "openclaw.gatewayUrl": "http://127.0.0.1:18789" }));
  assert.equal(bad.settings.openclaw.gatewayUrl, "");
  assert.deepEqual(bad.problems.map((p) => p.key), ["tether.openclaw.gatewayUrl"]);
});

test("the gateway's widget pages come from its HTTP origin: ws → http, wss → https, no path", () => {
  assert.equal(gatewayHttpOrigin("ws://127.0.0.1:18789"), "http://127.0.0.1:18789");
  assert.equal(gatewayHttpOrigin("wss://gw.example/ws?x=1"), "https://gw.example");
  assert.equal(gatewayHttpOrigin("ws://[::1]:18789/"), "http://[::1]:18789");
  assert.equal(gatewayHttpOrigin(""), undefined);
  assert.equal(gatewayHttpOrigin("ws://"), undefined);
});

test("the remote executor can be forced to one tier; an unknown one falls back to auto", () => {
  assert.equal(readSettings(from({ remoteExecutor: "terminal" })).settings.remoteExecutor, "terminal");
  const { settings, problems } = readSettings(from({ remoteExecutor: "ssh" }));
  assert.equal(settings.remoteExecutor, "auto");
  assert.match(problems[0]!.message, /tether\.remoteExecutor must be one of auto, helper, shellIntegration, terminal/);
});

test("valid settings are read and trimmed", () => {
  const { settings, problems } = readSettings(
    from({
      claudePath: " /opt/claude ",
      defaultMode: "acceptEdits",
      model: "opus",
      allowedTools: ["WebFetch", " "],
      disallowedTools: ["Bash"],
      environment: { ANTHROPIC_BASE_URL: "http://127.0.0.1:1", RETRIES: 3 },
    }),
  );
  assert.deepEqual(problems, []);
  assert.equal(settings.claudePath, "/opt/claude");
  assert.equal(settings.defaultMode, "acceptEdits");
  assert.deepEqual(settings.allowedTools, ["WebFetch"]);
  assert.deepEqual(settings.environment, { ANTHROPIC_BASE_URL: "http://127.0.0.1:1", RETRIES: "3" });
});

test("an unknown mode falls back to default and is reported", () => {
  const { settings, problems } = readSettings(from({ defaultMode: "yolo" }));
  assert.equal(settings.defaultMode, "default");
  assert.match(problems[0]!.message, /tether\.defaultMode must be one of default, acceptEdits/);
});

test("wrong types are reported per key and replaced by defaults", () => {
  const { settings, problems } = readSettings(from({ claudePath: 3, allowedTools: "Bash", environment: ["A=1"] }));
  assert.equal(settings.claudePath, "");
  assert.deepEqual(settings.allowedTools, []);
  assert.deepEqual(settings.environment, {});
  assert.deepEqual(
    problems.map((p) => p.key).sort(),
    ["tether.allowedTools", "tether.claudePath", "tether.environment"],
  );
});

test("environment entries with bad names or object values are skipped, the rest kept", () => {
  const { settings, problems } = readSettings(from({ environment: { "BAD-NAME": "x", OK: "y", NESTED: { a: 1 } } }));
  assert.deepEqual(settings.environment, { OK: "y" });
  assert.equal(problems.length, 2);
});

test("the defaultMode setting and the mode pickers offer exactly the core's permission modes, in its order", () => {
  // package.json is JSON and cannot import the generated list; this keeps it in step. The test
  // runs bundled in target/ext-tests.
  const manifest = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "extension", "package.json"), "utf8"));
  assert.deepEqual(manifest.contributes.configuration.properties["tether.defaultMode"].enum, PERMISSION_MODES);
  assert.deepEqual(
    PERMISSION_MODE_INFO.map((m) => m.id),
    PERMISSION_MODES,
  );
});
