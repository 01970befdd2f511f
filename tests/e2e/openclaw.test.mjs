// The real OpenClaw gateway (openclaw@2026.9.6 under Node 24, from Tether's build cache, with the
// scripted fake model API of tests/openclaw) in a real VS Code: the user stores the gateway token
// with "Tether: Set OpenClaw Gateway Token" (SecretStorage), picks OpenClaw in the chat header's
// agent picker, and chats with the gateway's agent from the Tether view; the header shows the
// gateway connected, a manual disconnect stays disconnected until Connect, and a session picked in
// the history (the gateway's own list) shows its messages again.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { REPLY } from "../openclaw/fake-llm.mjs";
import { TOKEN, bareClient, startGateway } from "../openclaw/gateway.mjs";
import { launchVsCode, openTether, runCommand, shot, showPickers } from "./harness.mjs";

let gateway;
let vs;

before(async () => {
  gateway = await startGateway();
  vs = await launchVsCode({
    name: "openclaw",
    files: { "README.md": "a workspace\n" },
    settings: { "tether.openclaw.gatewayUrl": gateway.url, "files.autoSave": "off" },
  });
});

after(async () => {
  await vs?.close();
  await gateway?.close();
});

test("picked in the agent picker with its token in SecretStorage, OpenClaw streams the gateway agent's reply into the Tether view", { timeout: 240_000 }, async () => {
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
  const box = vs.webview.getByRole("textbox", { name: "Message to OpenClaw" });
  await box.waitFor({ timeout: 30_000 });
  await box.fill("Say hello please.");
  await vs.webview.getByRole("button", { name: "Send" }).click();
  await vs.webview.getByText(REPLY).waitFor({ timeout: 120_000 });
  await vs.webview.locator(".gateway-badge.gateway-connected").waitFor({ timeout: 10_000 });
  await shot(vs, "openclaw-01-streamed-reply");
  assert.match(vs.extHostLog(), /_doActivateExtension tether\.tether/);
});

test("Disconnect shows the gateway disconnected and stays so; Connect brings it back", { timeout: 120_000 }, async () => {
  await runCommand(vs, "Tether: Disconnect from the OpenClaw Gateway");
  await vs.webview.locator(".gateway-badge.gateway-disconnected").waitFor({ timeout: 20_000 });
  // No reconnect try follows a manual disconnect.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(await vs.webview.locator(".gateway-badge.gateway-disconnected").count(), 1);
  await runCommand(vs, "Tether: Connect to the OpenClaw Gateway");
  await vs.webview.locator(".gateway-badge.gateway-connected").waitFor({ timeout: 60_000 });
  await shot(vs, "openclaw-02-reconnected");
});

test("New starts another gateway session; the first one, picked in the history, shows its messages again", { timeout: 300_000 }, async () => {
  await vs.webview.getByRole("button", { name: "New session" }).click();
  // The chat's messages, not the session strip (whose tabs are titled by their first prompts).
  const firstPrompt = vs.webview.locator(".msg-user", { hasText: "Say hello please." });
  await firstPrompt.waitFor({ state: "detached", timeout: 30_000 });
  const box = vs.webview.getByRole("textbox", { name: "Message to OpenClaw" });
  await box.fill("A second conversation.");
  await vs.webview.getByRole("button", { name: "Send" }).click();
  await vs.webview.getByText(REPLY).waitFor({ timeout: 120_000 });
  // The gateway lists its sessions (its own default one too); the first conversation is one of the others.
  await vs.webview.getByRole("button", { name: "Session history" }).first().click();
  const others = vs.webview.locator(".history-item:not(.current)");
  await others.first().waitFor({ timeout: 30_000 });
  const ids = await others.evaluateAll((items) => items.map((item) => item.getAttribute("data-session-id")));
  let found = false;
  for (const id of ids) {
    if (!(await vs.webview.locator(".history-list").count())) await vs.webview.getByRole("button", { name: "Session history" }).first().click();
    await vs.webview.locator(`.history-item[data-session-id="${id}"]`).click();
    try {
      await firstPrompt.waitFor({ timeout: 20_000 });
      found = true;
      break;
    } catch {
      // Not this one: the gateway's own sessions hold no conversation of this test.
    }
  }
  assert.ok(found, `no session of ${JSON.stringify(ids)} showed the first conversation`);
  assert.equal(await vs.webview.locator(".msg-user", { hasText: "A second conversation." }).count(), 0, "the chat shows the session switched to, only");
  await shot(vs, "openclaw-03-switched-back");
});

/** A widget whose button sends `{clicked: 1}` through the gateway's widget bridge and prints the answer. */
const WIDGET_HTML =
  '<h2>Clicks</h2><button id="emit" class="primary">Count a click</button><p id="out">waiting</p>' +
  '<script>document.getElementById("emit").onclick=()=>openclaw.state.emit({clicked:1}).then(' +
  '(r)=>{document.getElementById("out").textContent="sent "+JSON.stringify(r)},' +
  '(e)=>{document.getElementById("out").textContent="failed "+e.message})</script>';

test("a widget on the session's board runs in the canvas when the user asks, and its event reaches the gateway", { timeout: 180_000 }, async () => {
  // The session the view shows now (the history marks it).
  await vs.webview.getByRole("button", { name: "Session history" }).first().click();
  const sessionKey = await vs.webview.locator(".history-item.current").getAttribute("data-session-id", { timeout: 30_000 });
  await vs.webview.getByRole("button", { name: "Close history" }).click();
  assert.match(sessionKey ?? "", /^agent:main:/);
  await vs.webview.getByRole("button", { name: /^Canvas/ }).click();
  const panel = vs.webview.getByRole("dialog", { name: "Canvas" });
  await panel.waitFor();
  // The gateway's agent puts a widget on that session's board (here an operator does it for it).
  const operator = await bareClient(gateway.url);
  try {
    await operator.request("board.widget.put", { sessionKey, name: "clicks", title: "Clicks", content: { kind: "html", html: WIDGET_HTML } });
  } finally {
    operator.close();
  }
  // The gateway's board.changed brings it to the open panel.
  await panel.locator('[data-widget="clicks"]').waitFor({ timeout: 30_000 });
  await panel.getByRole("button", { name: "Run the widget" }).click();
  const widget = vs.webview.frameLocator('iframe[title="Widget Clicks"]');
  await widget.getByRole("button", { name: "Count a click" }).click({ timeout: 30_000 });
  await widget.getByText('sent {"ok":true,"appended":true}').waitFor({ timeout: 30_000 });
  await shot(vs, "openclaw-04-board-widget");
  await panel.getByRole("button", { name: "Close canvas" }).click();
});
