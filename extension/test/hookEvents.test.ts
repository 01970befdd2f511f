// The hook events a session asks its agent for: those the project's settings (and the user's,
// when their hooks run) configure, read before the start; every event when they were not read.

import assert from "node:assert/strict";
import { test } from "node:test";
import { hooksWithEvents } from "../src/session/driver";

const stop = JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "notify-send done" }] }] } });
const preBash = JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "check" }] }] } });

test("the events asked for are the project's settings' own; none when they configure none", () => {
  assert.deepEqual(hooksWithEvents({ project: true, user: false }, [stop, "{}"], preBash), { project: true, user: false, events: ["Stop"] });
  assert.deepEqual(hooksWithEvents({ project: true, user: false }, [], undefined)?.events, []);
});

test("the user's hooks count only when they run; settings not read ask for every event", () => {
  assert.deepEqual(hooksWithEvents({ project: true, user: true }, [stop], preBash)?.events, ["PreToolUse", "Stop"]);
  assert.deepEqual(hooksWithEvents({ project: false, user: false }, [stop], preBash)?.events, []);
  assert.deepEqual(hooksWithEvents({ project: true, user: false }, undefined, undefined), { project: true, user: false });
});

test("disableAllHooks in any of the settings asks for none", () => {
  assert.deepEqual(hooksWithEvents({ project: true, user: true }, [stop, JSON.stringify({ disableAllHooks: true })], preBash)?.events, []);
});
