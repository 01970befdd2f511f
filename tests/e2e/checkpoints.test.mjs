// Checkpoints on the emulated remote (tests/e2e/fake-remote, as remote.test.mjs sets it up), with
// the real CLI against the fake API, in one code-server: an edit, then Rewind code restores the
// remote files after a preview; a refusal when a file changed since Tether wrote it; a fork from a
// message (a new session with the conversation up to there); and the before-images stay on the
// workspace side (a marker in a before-image is on no laptop disk).

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { ARTIFACTS, filesContaining, launchRemoteVsCode, lazyInput, openTether, runTurn, waitFor } from "./harness.mjs";

const MARKER = `TETHER-CHECKPOINT-MARKER-${randomUUID()}`;
// Over 256 KB, so the Edit's result echoes no original file: the marker, at the top, reaches the
// conversation never; only the before-image holds it.
const BIG = `${MARKER}\n${"filler line of the big file\n".repeat(12_000)}tail: old\n`;

let api;
let vs;
let remote;
let tempBefore;

const read = (rel) => fs.readFileSync(path.join(remote, rel), "utf8");

before(async () => {
  const at = (rel) => () => path.join(remote, rel);
  api = await startFakeApi([
    {
      when: { lastUserText: /CK edit/ },
      toolUses: [
        { name: "mcp__tether__Edit", input: lazyInput({ file_path: at("hello.txt"), old_string: "two", new_string: "TWO" }) },
        { name: "mcp__tether__Write", input: lazyInput({ file_path: at("made/created.txt"), content: "made by the turn\n" }) },
        { name: "mcp__tether__Edit", input: lazyInput({ file_path: at("big.txt"), old_string: "tail: old", new_string: "tail: new" }) },
      ],
    },
    { when: { lastUserText: /CK second/ }, toolUse: { name: "mcp__tether__Edit", input: lazyInput({ file_path: at("hello.txt"), old_string: "one", new_string: "ONE" }) } },
    { when: { lastUserText: /CK fork/ }, text: "The forked session answers." },
    { when: { lastToolResult: /updated|created/ }, text: "Done with the files.", repeat: true },
  ]);
  tempBefore = new Set(fs.readdirSync(os.tmpdir()));
  vs = await launchRemoteVsCode({
    name: "checkpoints",
    api,
    remoteFiles: { "hello.txt": "one\ntwo\n", "big.txt": BIG },
  });
  remote = vs.remote;
  await openTether(vs);
});

const turn = (prompt, done, timeoutMs) => runTurn(vs, prompt, done, timeoutMs);

after(async () => {
  await vs?.close();
  await api?.close();
});

/** The user message with `text`, hovered so its actions show. */
async function hoverMessage(text) {
  const message = vs.webview.locator(".msg-user", { hasText: text }).first();
  await message.hover();
  return message;
}

/** The chat view alone, at the sidebar's width, set to 300 px. */
async function narrowShot(name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const sidebar = vs.page.locator(".part.sidebar");
  const box = await sidebar.boundingBox();
  const sash = vs.page.locator(".monaco-sash.vertical").first();
  if (box && Math.round(box.width) !== 300) {
    const sashBox = await sash.boundingBox().catch(() => null);
    if (sashBox) {
      await vs.page.mouse.move(sashBox.x + sashBox.width / 2, sashBox.y + sashBox.height / 2);
      await vs.page.mouse.down();
      await vs.page.mouse.move(box.x + 300, sashBox.y + sashBox.height / 2, { steps: 5 });
      await vs.page.mouse.up();
    }
  }
  await sidebar.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

test("Rewind code shows a preview, then puts the remote files back as they were before the message", { timeout: 180_000 }, async () => {
  await turn("CK edit the files", () => read("hello.txt") === "one\nTWO\n" && fs.existsSync(path.join(remote, "made/created.txt")) && read("big.txt").endsWith("tail: new\n"));
  await waitFor(async () => api.messageRequests().some((r) => JSON.stringify(r.body.messages.at(-1)).includes("has been updated")), 30_000, "the turn's end");
  // The before-image of big.txt, with the marker, is a blob in the remote's checkpoint folder.
  await waitFor(async () => filesContaining([path.join(remote, ".tether/checkpoints")], MARKER).length === 1, 30_000, "the before-image written at the turn's end");
  const message = await hoverMessage("CK edit the files");
  await message.getByRole("button", { name: "Rewind code" }).click();
  const dialog = vs.webview.getByRole("dialog", { name: "Rewind code" });
  await dialog.waitFor({ timeout: 30_000 });
  await dialog.getByText("made/created.txt").waitFor({ timeout: 10_000 });
  assert.match(await dialog.innerText(), /hello\.txt[\s\S]*\+1[\s\S]*−1/);
  assert.match(await dialog.innerText(), /big\.txt/);
  await narrowShot("40-checkpoints-preview");
  await dialog.getByRole("button", { name: "Rewind", exact: true }).click();
  await dialog.getByText(/^Rewound:/).waitFor({ timeout: 30_000 });
  assert.equal(read("hello.txt"), "one\ntwo\n");
  assert.equal(read("big.txt"), BIG);
  assert.ok(!fs.existsSync(path.join(remote, "made/created.txt")), "the file the turn created is deleted");
  await dialog.getByRole("button", { name: "Close" }).click();
});

test("the before-images are on the workspace side, in .tether/checkpoints, which git ignores", { timeout: 30_000 }, async () => {
  assert.match(read(".tether/.gitignore"), /^\*$/m);
  const sessions = fs.readdirSync(path.join(remote, ".tether/checkpoints")).filter((n) => n !== "index.json");
  assert.equal(sessions.length, 1);
  assert.ok(fs.existsSync(path.join(remote, ".tether/checkpoints", sessions[0], "journal.json")));
});

test("a rewind is refused, naming the file, when the file changed since Tether wrote it; nothing is lost", { timeout: 150_000 }, async () => {
  await turn("CK second edit", () => read("hello.txt") === "ONE\ntwo\n");
  fs.writeFileSync(path.join(remote, "hello.txt"), "ONE\ntwo\nthe user's own line\n");
  const message = await hoverMessage("CK second edit");
  await narrowShot("41-checkpoints-message-actions");
  // The screenshot may have dragged the sidebar's edge: the actions show on hover again.
  await message.hover();
  await message.getByRole("button", { name: "Rewind code" }).click();
  const dialog = vs.webview.getByRole("dialog", { name: "Rewind code" });
  await dialog.getByText(/changed since Tether last wrote it/).waitFor({ timeout: 30_000 });
  assert.equal(await dialog.getByRole("button", { name: "Rewind", exact: true }).isDisabled(), true);
  await narrowShot("42-checkpoints-refused");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  assert.equal(read("hello.txt"), "ONE\ntwo\nthe user's own line\n");
});

test("Fork conversation from here opens a new session holding the conversation before that message", { timeout: 180_000 }, async () => {
  const message = await hoverMessage("CK second edit");
  await message.getByRole("button", { name: "Fork conversation from here" }).click();
  const box = vs.webview.getByRole("textbox", { name: "Message to Claude" });
  await waitFor(async () => (await box.inputValue()).includes("CK second edit"), 30_000, "the message in the new session's composer");
  await vs.webview.locator(".msg-user", { hasText: "CK edit the files" }).waitFor({ timeout: 10_000 });
  assert.equal(await vs.webview.locator(".msg-user", { hasText: "CK second edit" }).count(), 0, "the forked message is not in the new session");
  const before = api.messageRequests().length;
  await box.fill("");
  await turn("CK fork now", () => api.messageRequests().slice(before).some((r) => JSON.stringify(r.body.messages).includes("CK fork now")));
  const forked = api.messageRequests().slice(before).find((r) => JSON.stringify(r.body.messages).includes("CK fork now"));
  const conversation = JSON.stringify(forked.body.messages);
  assert.ok(conversation.includes("CK edit the files"), "the conversation before the message");
  assert.ok(!conversation.includes("CK second edit"), "and not the message or what came after");
  assert.match(vs.tetherLog(), /--fork-session/);
  assert.match(vs.tetherLog(), /--resume-session-at=/);
});

test("nothing of a before-image is on the laptop's disk: the marker is in no file of HOME, temp or Tether's storage", { timeout: 120_000 }, async () => {
  const onRemote = filesContaining([remote], MARKER).map((p) => path.relative(remote, p));
  assert.deepEqual(onRemote.filter((p) => !p.startsWith(".tether/")), ["big.txt"]);
  const newTemp = fs.readdirSync(os.tmpdir()).filter((name) => !tempBefore.has(name)).map((name) => path.join(os.tmpdir(), name));
  const laptop = [
    vs.home,
    vs.userData,
    ...newTemp.filter((p) => p !== vs.runDir),
    ...fs.readdirSync(vs.runDir).filter((name) => name !== "remote").map((name) => path.join(vs.runDir, name)),
  ];
  assert.deepEqual(filesContaining(laptop, MARKER), []);
});
