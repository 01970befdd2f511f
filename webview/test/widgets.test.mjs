// Board widgets in the real webview (Chromium): a widget's page runs only when the user asks,
// framed from the gateway's origin (the one frame source the policy names) in a sandbox; its bridge
// calls go out as `widgetCall` and the backend's replies come back to the page; host.open,
// prompt.send and resizing are served here; a page cannot reach the webview's document nor speak
// as the extension; a widget waiting for approval is allowed or rejected from its card. The
// gateway here is a small HTTP server that serves widget pages the way the real one does
// (`sandbox allow-scripts` in its CSP) and speaks the bridge's messages (the real gateway's page is
// in tests/e2e/openclaw.test.mjs).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { clearPosted, events, finish, frames, init, posted, useWebview } from "./helpers.mjs";

const chat = useWebview();
const T = { timeout: 60_000 };
const GATEWAY = { gateway: { state: "connected" } };

/** A widget page speaking the bridge: each button makes one call and every answer is printed. */
const WIDGET_PAGE = `<!doctype html><html><body>
<script>
const out = (text) => { const p = document.createElement("p"); p.className = "out"; p.textContent = text; document.body.append(p); };
const channel = new MessageChannel();
let ticket = null;
let n = 0;
channel.port1.onmessage = (event) => {
  const data = event.data;
  if (data.type === "openclaw:widget-host-init") out("ticket " + data.ticket);
  if (data.type === "openclaw:widget-host-init") ticket = data.ticket;
  if (data.type === "openclaw:widget-bridge-response") out("reply " + data.id + " " + (data.ok ? "ok " + JSON.stringify(data.result) : "error " + data.error));
};
parent.postMessage({ type: "openclaw:widget-bridge-port-offer" }, "*", [channel.port2]);
window.addEventListener("error", (event) => parent.postMessage({ type: "openclaw:widget-runtime-error", message: event.message }, "*"));
window.addEventListener("message", (event) => {
  if (event.data && event.data.type === "openclaw:widget-theme") out("theme " + (event.data.tokens.surface ? "with surface" : "without surface") + " " + event.data.mode);
});
const call = (method, params) => channel.port1.postMessage({ type: "openclaw:widget-bridge-request", id: "r" + ++n, method, params, ticket: "FORGED" });
function reach() {
  try { out("reached " + parent.document.title); } catch (error) { out("blocked"); }
}
</script>
<button onclick="call('state.emit', {payload: {go: 1}})">Emit</button>
<button onclick="call('host.open', {url: 'https://example.com/docs'})">Open</button>
<button onclick="call('host.open', {url: 'javascript:alert(1)'})">Bad link</button>
<button onclick="call('prompt.send', {text: 'Summarize the board'})">Prompt</button>
<button onclick="parent.postMessage({type: 'openclaw:widget-size', height: 420}, '*')">Grow</button>
<button onclick="parent.postMessage({type: 'prefill', text: 'FORGED BY THE WIDGET'}, '*')">Forge</button>
<button onclick="reach()">Reach</button>
<button onclick="undefinedFunction()">Fail</button>
</body></html>`;

let gateway;
let origin;
before(async () => {
  gateway = createServer((req, res) => {
    if (!req.url?.startsWith("/__openclaw__/board/")) return res.writeHead(404).end();
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'none'; frame-src 'none'; sandbox allow-scripts",
    });
    res.end(WIDGET_PAGE);
  });
  await new Promise((ok) => gateway.listen(0, "127.0.0.1", ok));
  origin = `http://127.0.0.1:${gateway.address().port}`;
});
after(() => new Promise((ok) => gateway.close(() => ok())));

const canvas = (update) => ({ type: "canvas", update });
const widget = (extra = {}) => ({
  name: "counter",
  title: "Counter",
  contentKind: "html",
  revision: 1,
  frameUrl: `${origin}/__openclaw__/board/agent%3Amain%3Ax/counter/index.html?bt=T1`,
  viewTicket: "T1",
  viewTicketTtlMs: 1_200_000,
  grantState: "none",
  instanceId: "i1",
  declaredSummary: [],
  ...extra,
});
const board = (widgets) => canvas({ kind: "board", sessionId: "agent:main:x", revision: 1, widgets });

async function openCanvas(page) {
  await page.getByRole("button", { name: /^Canvas/ }).click();
  const panel = page.getByRole("dialog", { name: "Canvas" });
  await panel.waitFor();
  return panel;
}

/** A harness page showing one running widget (its ticket received): the page, the panel, the frame's inside. */
async function runningWidget() {
  const page = await chat.open({ query: `?frames=${origin}` });
  await init(page, GATEWAY);
  await events(page, [board([widget()])]);
  const panel = await openCanvas(page);
  await panel.getByRole("button", { name: "Run the widget" }).click();
  await printed(page, /^ticket T1/);
  return { page, panel, inside: page.frameLocator('iframe[title="Widget Counter"]') };
}

/** The page's printed lines, once `pattern` is among them. */
async function printed(page, pattern) {
  const frame = page.frameLocator('iframe[title="Widget Counter"]');
  await frame.locator("p.out", { hasText: pattern }).first().waitFor();
  return frame.locator("p.out").allInnerTexts();
}

describe("board widgets", () => {
  test("a widget's page runs only when asked, framed from the gateway in a sandbox, and gets its ticket and VS Code's colours", T, async () => {
    const page = await chat.open({ query: `?frames=${origin}` });
    await init(page, GATEWAY);
    await events(page, [board([widget()])]);
    const panel = await openCanvas(page);
    assert.equal(await page.locator("iframe").count(), 0, "nothing runs before the user asks");
    await panel.getByRole("button", { name: "Run the widget" }).click();
    const frame = page.locator('iframe[title="Widget Counter"]');
    assert.equal(await frame.getAttribute("sandbox"), "allow-scripts");
    assert.equal(await frame.getAttribute("referrerpolicy"), "no-referrer");
    const lines = await printed(page, /^theme/);
    assert.ok(lines.includes("ticket T1"), lines.join("\n"));
    assert.ok(lines.includes("theme with surface dark"), lines.join("\n"));
    await page.frameLocator('iframe[title="Widget Counter"]').getByRole("button", { name: "Reach" }).click();
    assert.ok((await printed(page, /blocked|reached/)).includes("blocked"), "the page cannot reach the webview's document");
    await panel.getByRole("button", { name: "Stop the widget" }).click();
    assert.equal(await page.locator("iframe").count(), 0);
    await finish(page);
  });

  test("a widget's call goes out as widgetCall and the backend's reply reaches the page; a newer ticket reaches it without a reload", T, async () => {
    const { page, panel, inside } = await runningWidget();
    await inside.getByRole("button", { name: "Emit" }).click();
    await page.waitForFunction(() => window.__posted.some((m) => m.type === "canvasAction"));
    const [call] = await posted(page, "canvasAction");
    assert.equal(call.action.kind, "widgetCall");
    assert.equal(call.action.widget, "counter");
    assert.equal(call.action.method, "state.emit");
    assert.deepEqual(call.action.params.payload, { go: 1 });
    await events(page, [canvas({ kind: "widgetReply", widget: "counter", callId: call.action.callId, ok: true, result: { ok: true, appended: true }, error: null })]);
    assert.ok((await printed(page, /^reply r1/)).includes('reply r1 ok {"ok":true,"appended":true}'));

    await inside.getByRole("button", { name: "Emit" }).click();
    await page.waitForFunction(() => window.__posted.filter((m) => m.type === "canvasAction").length === 2);
    const second = (await posted(page, "canvasAction"))[1];
    await events(page, [canvas({ kind: "widgetReply", widget: "counter", callId: second.action.callId, ok: false, result: null, error: "board widget view ticket is invalid" })]);
    assert.ok((await printed(page, /^reply r2/)).includes("reply r2 error board widget view ticket is invalid"));

    // The board read again (a fresh ticket): the same page gets it over its port.
    await events(page, [board([widget({ viewTicket: "T2" })])]);
    const lines = await printed(page, /^ticket T2/);
    assert.ok(lines.includes("ticket T1") && lines.includes("reply r1 ok {\"ok\":true,\"appended\":true}"), "the page was not reloaded");
    await finish(page);
  });

  test("a ticket about to lapse is renewed: before the page loads, and while it runs without reloading it", T, async () => {
    const page = await chat.open({ query: `?frames=${origin}` });
    await init(page, GATEWAY);
    // Within the renewal margin already: the board is read again before the page loads.
    await events(page, [board([widget({ viewTicketTtlMs: 30_000 })])]);
    const panel = await openCanvas(page);
    await clearPosted(page);
    await panel.getByRole("button", { name: "Run the widget" }).click();
    await panel.getByRole("status").filter({ hasText: "Getting a fresh view of the widget" }).waitFor();
    assert.equal(await page.locator("iframe").count(), 0, "not loaded with a lapsing ticket");
    // The request goes out from an effect, after the status is painted.
    await page.waitForFunction(() => window.__posted.filter((m) => m.type === "canvasRefresh").length === 1, null, { timeout: 5_000 });
    // The fresh board: the page loads with its ticket, which is due again in about a second.
    await events(page, [board([widget({ viewTicket: "T2", viewTicketTtlMs: 61_000 })])]);
    await printed(page, /^ticket T2/);
    await page.waitForFunction(() => window.__posted.filter((m) => m.type === "canvasRefresh").length === 2, null, { timeout: 5_000 });
    await events(page, [board([widget({ viewTicket: "T3" })])]);
    const lines = await printed(page, /^ticket T3/);
    assert.deepEqual(lines.filter((l) => l.startsWith("ticket")), ["ticket T2", "ticket T3"], "the same page, renewed");
    await finish(page);
  });

  test("links open through VS Code (http(s) only), a prompt goes to the composer, the frame follows the page's height", T, async () => {
    const { page, panel, inside } = await runningWidget();
    await clearPosted(page);
    await inside.getByRole("button", { name: "Open", exact: true }).click();
    await printed(page, /^reply r1/);
    await inside.getByRole("button", { name: "Bad link" }).click();
    assert.ok((await printed(page, /^reply r2/)).includes("reply r2 error only http(s) links open"));
    assert.deepEqual(await posted(page, "openExternal"), [{ type: "openExternal", url: "https://example.com/docs" }]);
    assert.equal((await posted(page, "canvasAction")).length, 0, "served here, not sent to the gateway");

    await inside.getByRole("button", { name: "Grow" }).click();
    await page.waitForFunction(() => document.querySelector("iframe")?.style.height === "420px");

    await inside.getByRole("button", { name: "Prompt" }).click();
    await printed(page, /^reply r3/);
    await panel.getByRole("button", { name: "Close canvas" }).click();
    assert.equal(await page.locator(".composer-input").inputValue(), "Summarize the board", "the user sends it, or not");
    assert.equal((await posted(page, "sendPrompt")).length, 0, "nothing sent by the widget itself");
    await finish(page);
  });

  test("a widget's page cannot speak as the extension, and its script errors are shown on its card", T, async () => {
    const { page, panel, inside } = await runningWidget();
    await inside.getByRole("button", { name: "Forge" }).click();
    await inside.getByRole("button", { name: "Fail" }).click();
    await panel.getByRole("status").filter({ hasText: "The widget's script failed" }).waitFor();
    assert.match(await panel.locator(".canvas-widget-error").innerText(), /undefinedFunction is not defined/);
    await panel.getByRole("button", { name: "Close canvas" }).click();
    assert.equal(await page.locator(".composer-input").inputValue(), "", "a message from the widget's page is not the extension's");
    // The widget's own error (in its frame) is the one page error expected.
    page.__errors = page.__errors.filter((error) => !/undefinedFunction is not defined/.test(error));
    await finish(page);
  });

  test("a widget waiting for approval shows what it asks for; Allow and Reject go back as widgetGrant", T, async () => {
    const page = await chat.open({ query: `?frames=${origin}` });
    await init(page, GATEWAY);
    await events(page, [
      board([widget({ frameUrl: null, viewTicket: null, grantState: "pending", declaredSummary: ["network: https://api.example", "tool: github.actions"] })]),
    ]);
    const panel = await openCanvas(page);
    const approval = panel.getByRole("group", { name: "Approve the widget Counter" });
    assert.match(await approval.innerText(), /waits for your approval[\s\S]*network: https:\/\/api\.example[\s\S]*tool: github\.actions/);
    assert.equal(await panel.getByRole("button", { name: "Run the widget" }).count(), 0, "nothing to run before it is allowed");
    await approval.getByRole("button", { name: "Allow" }).click();
    await approval.getByRole("button", { name: "Reject" }).click();
    assert.deepEqual(
      (await posted(page, "canvasAction")).map((m) => m.action),
      [
        { kind: "widgetGrant", widget: "counter", granted: true, revision: 1, instanceId: "i1" },
        { kind: "widgetGrant", widget: "counter", granted: false, revision: 1, instanceId: "i1" },
      ],
    );
    await events(page, [board([widget({ frameUrl: null, viewTicket: null, grantState: "rejected" })])]);
    assert.match(await panel.innerText(), /You rejected this widget/);
    await finish(page);
  });
});
