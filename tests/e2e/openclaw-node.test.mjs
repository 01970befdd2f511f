// The VS Code workspace as the real OpenClaw gateway's hands, in a real VS Code (code-server): the
// window's folder is the emulated remote (tests/e2e/fake-remote, a `tetherfake:` folder as with
// Remote-SSH), and `tether.openclaw.offerWorkspace` offers it to the gateway (openclaw@2026.9.6,
// Node 24, the scripted fake model API of tests/openclaw) as a node. The user approves the pairing
// in the Tether view; the gateway's agent then runs a command (`exec` host=node) and fetches a file
// (`file_fetch`) in the remote folder once the user allows them there, and a Reject reaches the
// agent as a denial.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { EXEC_COMMAND, REPLY } from "../openclaw/fake-llm.mjs";
import { TOKEN, bareClient, startGateway } from "../openclaw/gateway.mjs";
import { FAKE_REMOTE, launchVsCode, openTether, runCommand, shot, showPickers, waitFor } from "./harness.mjs";


let gateway;
let vs;
let remote;

before(async () => {
  // The remote folder exists before the gateway starts: the File Transfer plugin's read policy names it.
  remote = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tether-e2e-openclaw-node-remote-")));
  fs.writeFileSync(path.join(remote, "notes.txt"), "notes kept in the remote folder\n");
  gateway = await startGateway({
    allowCommands: ["file.fetch"],
    fileTransferNodes: { "*": { ask: "off", allowReadPaths: [`${remote}/**`] } },
  });
  vs = await launchVsCode({
    name: "openclaw-node",
    extensions: [FAKE_REMOTE],
    folder: () => `tetherfake:${remote}`,
    settings: {
      "tether.openclaw.gatewayUrl": gateway.url,
      "tether.openclaw.offerWorkspace": true,
      "files.autoSave": "off",
    },
  });
});

after(async () => {
  if (vs) await shot(vs, "openclaw-node-99-last").catch(() => undefined);
  await vs?.close();
  await gateway?.close();
  if (remote) fs.rmSync(remote, { recursive: true, force: true });
});

async function sendPrompt(text) {
  const box = vs.webview.getByRole("textbox", { name: "Message to OpenClaw" });
  await box.fill(text, { timeout: 30_000 });
  await vs.webview.getByRole("button", { name: "Send" }).click({ timeout: 60_000 });
}

/** Everything the Tether view's store holds (its rows: messages, tool calls and their results). */
function viewText() {
  return vs.webview.locator("body").evaluate(() => {
    const seen = new WeakSet();
    return JSON.stringify(window.__tether.store.rows, (_key, value) => {
      if (value && typeof value === "object") {
        if (seen.has(value)) return undefined;
        seen.add(value);
      }
      return value;
    });
  });
}

/** How many of the view's rows are the agent's replies to the gateway's tool results (counted in
 * the store: the list is virtual, so rows scrolled away are not in the DOM). */
function toolReplyCount() {
  // A reply may open its own message or follow other text in one (the gateway decides): count the
  // replies in the assistant messages' text.
  return vs.webview.locator("body").evaluate(() =>
    window.__tether.store.rows
      .filter((row) => row.kind === "assistant")
      .flatMap((row) => row.msg.parts)
      .filter((part) => part.kind === "text")
      .reduce((n, part) => n + (part.text.split("The tool said:").length - 1), 0),
  );
}

/** Wait until the view's replies to the gateway's tool results number `n`. */
async function toolReplies(n, what) {
  await waitFor(async () => (await toolReplyCount()) >= n, 90_000, what);
}

/** Click the permission card's `label` once it shows. */
async function answer(label) {
  const button = vs.webview.getByRole("button", { name: label, exact: true });
  await button.waitFor({ timeout: 90_000 });
  await button.click();
}

test("the workspace is paired from the Tether view, then the gateway agent runs a command and reads a file in the remote folder once allowed", { timeout: 400_000 }, async () => {
  await openTether(vs);
  await runCommand(vs, "Tether: Set OpenClaw Gateway Token");
  const tokenBox = vs.page.locator(".quick-input-widget input[type=password]");
  await tokenBox.waitFor({ timeout: 10_000 });
  await tokenBox.fill(TOKEN);
  await vs.page.keyboard.press("Enter");
  await vs.page.getByText("the OpenClaw gateway token is stored").first().waitFor({ timeout: 10_000 });
  await showPickers(vs.webview);
  await vs.webview.getByRole("button", { name: /^Agent:/ }).click({ timeout: 30_000 });
  await vs.webview.getByRole("option", { name: /OpenClaw/ }).click();
  await vs.webview.getByRole("textbox", { name: "Message to OpenClaw" }).waitFor({ timeout: 30_000 });
  await sendPrompt("Say hello please.");
  // The one guided step: pairing the node and approving its command surface. It is asked as the
  // node first connects, during this first turn; answered before the turn ends (the view shows a
  // card still open at the end of a turn as cancelled).
  await answer("Approve");
  await vs.webview.getByText(REPLY).waitFor({ timeout: 120_000 });
  await vs.webview.getByText(/gateway's node now/).first().waitFor({ timeout: 60_000 });
  await shot(vs, "openclaw-node-01-paired");

  await sendPrompt("EXECTEST run it on the node");
  const card = vs.webview.locator(".perm-card").filter({ hasText: "node-proof.txt" });
  await card.waitFor({ timeout: 90_000 });
  assert.match(await card.innerText(), /echo hi-from-node/);
  await shot(vs, "openclaw-node-02-asked");
  await answer("Allow");
  await toolReplies(1, "the agent's reply to the command's result");
  assert.match(await viewText(), /hi-from-node\\nLinux/, "the command's output reached the agent");
  assert.equal(fs.readFileSync(path.join(remote, "node-proof.txt"), "utf8"), "hi-from-node\n", `ran in the remote folder: ${EXEC_COMMAND}`);

  // The node as the gateway lists it ("Tether (<folder>)"), named by its id in the request.
  const admin = await bareClient(gateway.url, { scopes: ["operator.read", "operator.admin"] });
  const nodes = (await admin.request("node.list")).nodes;
  admin.close();
  const node = nodes.find((n) => n.displayName === `Tether (${path.basename(remote)})`);
  assert.ok(node?.commands.includes("system.run") && node.commands.includes("file.fetch"), JSON.stringify(nodes));
  await sendPrompt(`FETCHTEST node=${node.nodeId} path=${remote}/notes.txt`);
  // The read is inside the workspace: Tether's rules allow it without asking.
  let asked = false;
  await waitFor(async () => {
    if (await vs.webview.locator(".perm-card:not(.perm-decided)").count()) asked = true;
    return (await toolReplyCount()) >= 2;
  }, 90_000, "the agent's reply to the fetched file");
  assert.equal(asked, false, "a read inside the workspace was asked about");
  assert.match(await viewText(), /notes kept in the remote folder/, "the file's text reached the agent");
  await shot(vs, "openclaw-node-03-fetched");

  fs.rmSync(path.join(remote, "node-proof.txt"));
  await sendPrompt("EXECTEST once more");
  await answer("Reject");
  await toolReplies(3, "the agent's reply to the denial");
  assert.match(await viewText(), /SYSTEM_RUN_DENIED: The user denied it in Tether/, "the agent was told of the denial");
  assert.equal(fs.existsSync(path.join(remote, "node-proof.txt")), false, "nothing ran");
  assert.equal(await toolReplyCount(), 3, "one reply per tool result");
  await shot(vs, "openclaw-node-04-denied");
});
