// Permission cards: Allow / Always allow (with its rule) / Reject with a reason, diffs, subagents,
// keyboard use, and the one-line outcome after permissionResolved.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ev } from "./fixtures.mjs";
import { events, finish, frames, init, posted, screenshot, useWebview } from "./helpers.mjs";

const chat = useWebview();

const T = { timeout: 30_000 };

const bashRequest = ev.permission(
  "req-1",
  "Bash",
  { command: "npm run test:unit -- --watch=false", description: "Run unit tests" },
  { kind: "execute", title: "Run unit tests", alwaysLabel: "Bash(npm run test:*)", toolUseId: "t1" },
);

async function setup(page, request = bashRequest) {
  await init(page);
  await events(page, [
    ev.user("u1", "run the tests"),
    ev.status("running"),
    ev.toolStart("t1", "Bash", bashRequest.input, { kind: "execute", title: "npm run test:unit" }),
    ev.status("requiresAction"),
    request,
  ]);
  const card = page.locator(`[data-perm-card="${request.id}"]`);
  await card.waitFor();
  return card;
}

describe("permission cards", () => {
  test("Allow posts allow; the card collapses to a one-line outcome on permissionResolved", T, async () => {
    const page = await chat.open();
    const card = await setup(page);
    assert.equal(await card.getAttribute("role"), "region");
    assert.match(await card.locator(".perm-title").innerText(), /Allow Bash\?/);
    assert.match(await card.innerText(), /Run unit tests/);
    assert.match(await card.locator(".command-line").innerText(), /npm run test:unit -- --watch=false/);
    assert.match(await card.locator(".perm-always").innerText(), /Always allow\s*Bash\(npm run test:\*\)/);
    assert.equal(await page.locator('.tool[data-call-id="t1"]').getAttribute("data-status"), "awaiting");
    // One surface: the card; no second copy of the question in the timeline.
    assert.equal(await page.locator(".perm-line").count(), 0);
    assert.match(await page.locator(".working").innerText(), /Waiting for your approval/);
    await screenshot(page, "13-permission-bash");
    await card.getByRole("button", { name: "Allow", exact: true }).click();
    assert.deepEqual(await posted(page, "permission"), [{ type: "permission", requestId: "req-1", decision: "allow" }]);
    assert.equal(await card.getByRole("button", { name: "Allow", exact: true }).isDisabled(), true);
    // A second click cannot answer twice.
    await card.getByRole("button", { name: "Reject" }).click({ force: true }).catch(() => {});
    assert.equal((await posted(page, "permission")).length, 1);
    await events(page, [ev.resolved("req-1", "allowed")]);
    assert.equal(await page.locator(".perm-card").count(), 0);
    const line = page.locator('.perm-line[data-request-id="req-1"]');
    assert.equal(await line.getAttribute("data-outcome"), "allowed");
    assert.match(await line.innerText(), /^Allowed Bash/);
    assert.equal(await page.locator('.tool[data-call-id="t1"]').getAttribute("data-status"), "running");
    // Focus returns to the composer.
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("composer-input")), true);
    await finish(page);
  });

  test("Always allow posts always and the outcome names the rule", T, async () => {
    const page = await chat.open();
    const card = await setup(page);
    await card.locator(".perm-always").click();
    assert.deepEqual(await posted(page, "permission"), [{ type: "permission", requestId: "req-1", decision: "always" }]);
    await events(page, [ev.resolved("req-1", "allowed")]);
    const line = page.locator('.perm-line[data-request-id="req-1"]');
    assert.match(await line.innerText(), /Always allowed Bash[\s\S]*rule Bash\(npm run test:\*\)/);
    await finish(page);
  });

  test("Reject with a reason posts deny + reason", T, async () => {
    const page = await chat.open();
    const card = await setup(page);
    await card.getByRole("textbox", { name: "Reason for rejecting" }).fill("use pnpm instead");
    await card.getByRole("button", { name: "Reject" }).click();
    assert.deepEqual(await posted(page, "permission"), [{ type: "permission", requestId: "req-1", decision: "deny", reason: "use pnpm instead" }]);
    await events(page, [ev.resolved("req-1", "denied")]);
    const line = page.locator('.perm-line[data-request-id="req-1"]');
    assert.equal(await line.getAttribute("data-outcome"), "denied");
    assert.match(await line.innerText(), /Rejected Bash[\s\S]*use pnpm instead/);
    await screenshot(page, "14-permission-resolved");
    await finish(page);
  });

  test("keyboard: focus lands on Allow, Tab reaches Always/Reject, Enter in the reason rejects", T, async () => {
    const page = await chat.open();
    const card = await setup(page);
    await frames(page, 2);
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("perm-allow")), true);
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("perm-always")), true);
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("perm-deny")), true);
    await page.keyboard.press("Tab");
    await page.keyboard.type("not now");
    await page.keyboard.press("Enter");
    assert.deepEqual(await posted(page, "permission"), [{ type: "permission", requestId: "req-1", decision: "deny", reason: "not now" }]);
    assert.equal(await card.count(), 1);
    await finish(page);
  });

  test("keyboard: Enter on the focused Allow button allows", T, async () => {
    const page = await chat.open();
    await setup(page);
    await frames(page, 2);
    await page.keyboard.press("Enter");
    assert.deepEqual(await posted(page, "permission"), [{ type: "permission", requestId: "req-1", decision: "allow" }]);
    await finish(page);
  });

  test("an edit asked by a subagent: Open diff (no diff copy on the card), the agent's name, the reason", T, async () => {
    const page = await chat.open();
    const card = await setup(
      page,
      ev.permission(
        "req-2",
        "Edit",
        { file_path: "/data/proj/src/parser.rs", old_string: "i <= n", new_string: "i < n" },
        {
          kind: "edit",
          title: "Edit parser.rs",
          agentId: "code-fixer",
          alwaysLabel: "Edit(src/**)",
          reason: "Path is outside allowed working directories",
          review: {
            path: "/data/proj/src/parser.rs",
            original: "…",
            proposed: "…",
            hunks: [{ oldStart: 41, oldLines: 3, newStart: 41, newLines: 3, lines: ["     let mut i = 0;", "-    while i <= n {", "+    while i < n {", "         i += 1;"] }],
          },
        },
      ),
    );
    assert.match(await card.locator(".perm-agent").innerText(), /subagent code-fixer/);
    assert.match(await card.locator(".perm-reason").innerText(), /outside allowed working directories/);
    // The diff is in the editor (and the tool row shows none while it waits): not on the card.
    assert.equal(await card.locator(".dl").count(), 0);
    assert.match(await card.locator(".diff-stats").innerText(), /\+1\s*−1/);
    assert.match(await card.locator(".perm-file").innerText(), /\/data\/proj\/src\/parser\.rs/);
    await screenshot(page, "15-permission-edit");
    await card.getByRole("button", { name: /Open diff/ }).click();
    assert.deepEqual(await posted(page, "openDiff"), [{ type: "openDiff", requestId: "req-2" }]);
    await card.locator(".perm-always").click();
    assert.deepEqual(await posted(page, "permission"), [{ type: "permission", requestId: "req-2", decision: "always" }]);
    await finish(page);
  });

  test("Always allow with rules asks where to save them, showing the rule", T, async () => {
    const page = await chat.open();
    const card = await setup(page, {
      ...bashRequest,
      alwaysRules: ["Bash(npm run test:*)"],
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "always", name: "Always allow", kind: "allow_always" },
        { optionId: "deny", name: "Reject", kind: "reject_once" },
      ],
    });
    await card.locator(".perm-always").click();
    assert.deepEqual(await posted(page, "permission"), [], "nothing is answered before the destination");
    assert.match(await card.locator(".perm-rule-text").innerText(), /Save Bash\(npm run test:\*\) for:/);
    const destinations = await card.locator(".perm-destination").allInnerTexts();
    assert.equal(destinations.length, 4);
    assert.match(destinations.join("|"), /This session only[\s\S]*settings\.local\.json[\s\S]*\.claude\/settings\.json[\s\S]*~\/\.claude\/settings\.json/);
    await screenshot(page, "15b-permission-always-where");
    await card.locator('[data-destination="projectSettings"]').click();
    assert.deepEqual(await posted(page, "permission"), [
      { type: "permission", requestId: "req-1", decision: "always", destination: "projectSettings" },
    ]);
    await events(page, [{ type: "permissionResolved", requestId: "req-1", outcome: "allowed", always: true, destination: "projectSettings" }]);
    assert.match(await page.locator('.perm-line[data-request-id="req-1"]').innerText(), /rule Bash\(npm run test:\*\) · saved in \.claude\/settings\.json/);
    await finish(page);
  });

  test("an edit of several hunks: unchecking one allows the others only", T, async () => {
    const page = await chat.open();
    const hunk = (at, from, to) => ({ oldStart: at, oldLines: 3, newStart: at, newLines: 3, lines: [" a", `-${from}`, `+${to}`, " b"] });
    const card = await setup(
      page,
      ev.permission(
        "req-3",
        "Write",
        { file_path: "/data/proj/notes.txt", content: "…" },
        {
          kind: "edit",
          review: { path: "/data/proj/notes.txt", original: "…", proposed: "…", hunks: [hunk(1, "one", "ONE"), hunk(20, "twenty", "TWENTY"), hunk(38, "x", "y")] },
        },
      ),
    );
    assert.equal(await card.locator(".perm-hunk").count(), 3);
    assert.match(await card.locator(".perm-hunk").nth(1).innerText(), /Lines 20–22[\s\S]*TWENTY/);
    await card.locator('[data-hunk="1"]').uncheck();
    assert.match(await card.getByRole("button", { name: /^Allow/ }).innerText(), /Allow\s+\(2 of 3 hunks\)/);
    await screenshot(page, "15c-permission-hunks");
    await card.getByRole("button", { name: /^Allow/ }).click();
    assert.deepEqual(await posted(page, "permission"), [{ type: "permission", requestId: "req-3", decision: "allow", acceptedHunks: [0, 2] }]);
    await finish(page);
  });

  test("no always label → no Always button; several pending requests stack", T, async () => {
    const page = await chat.open();
    await setup(page, { ...bashRequest, alwaysLabel: null });
    assert.equal(await page.locator(".perm-always").count(), 0);
    await events(page, [ev.permission("req-9", "mcp__db__query", { sql: "select 1" })]);
    assert.equal(await page.locator(".perm-card").count(), 2);
    assert.match(await page.locator('[data-perm-card="req-9"] .perm-json').innerText(), /select 1/);
    await events(page, [ev.resolved("req-1", "cancelled")]);
    assert.equal(await page.locator(".perm-card").count(), 1);
    assert.match(await page.locator('.perm-line[data-request-id="req-1"]').innerText(), /Cancelled Bash/);
    // The end of the turn cancels what is still open.
    await events(page, [ev.done({ subtype: "error_during_execution", isError: true, durationMs: 1 })]);
    assert.equal(await page.locator(".perm-card").count(), 0);
    assert.equal(await page.locator('.perm-line[data-request-id="req-9"]').getAttribute("data-outcome"), "cancelled");
    await finish(page);
  });

  test("a question that outlives the turn (a gateway's pairing) stays open when the turn ends", T, async () => {
    const page = await chat.open();
    await setup(page);
    await events(page, [{ ...ev.permission("pair-1", "PairNode", { gateway: "ws://127.0.0.1:1" }), outlivesTurn: true }]);
    assert.equal(await page.locator(".perm-card").count(), 2);
    await events(page, [ev.done({ subtype: "success", isError: false, durationMs: 1 })]);
    assert.equal(await page.locator(".perm-card").count(), 1);
    assert.equal(await page.locator('[data-perm-card="pair-1"]').count(), 1);
    assert.equal(await page.locator('.perm-line[data-request-id="req-1"]').getAttribute("data-outcome"), "cancelled");
    await finish(page);
  });

  test("the agent's own options: one button each, answered with the option's decision", T, async () => {
    const page = await chat.open();
    const options = [
      { optionId: "o1", name: "Allow once", kind: "allow_once" },
      { optionId: "o2", name: "Allow for this session", kind: "allow_always" },
      { optionId: "o3", name: "Deny", kind: "reject_once" },
      { optionId: "o4", name: "Never for this command", kind: "reject_always" },
    ];
    const card = await setup(page, { ...bashRequest, alwaysLabel: null, options });
    assert.deepEqual(await card.locator(".perm-actions button").allInnerTexts(), options.map((o) => o.name));
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Allow once");
    await card.getByRole("button", { name: "Allow for this session" }).click();
    assert.deepEqual(await posted(page, "permission"), [{ type: "permission", requestId: "req-1", decision: "always" }]);
    await finish(page);
  });

  test("the agent withdrawing a request (permissionCancelled) closes its card as cancelled", T, async () => {
    const page = await chat.open();
    await setup(page);
    await events(page, [{ type: "permissionCancelled", id: "req-1" }]);
    assert.equal(await page.locator(".perm-card").count(), 0);
    assert.equal(await page.locator('.perm-line[data-request-id="req-1"]').getAttribute("data-outcome"), "cancelled");
    assert.equal(await page.locator('.tool[data-call-id="t1"]').getAttribute("data-status"), "running");
    await finish(page);
  });

  test("ExitPlanMode: the plan with its choices", T, async () => {
    const page = await chat.open();
    await init(page, { mode: "plan" });
    await events(page, [
      ev.toolStart("p1", "ExitPlanMode", {}, { kind: "switch_mode", title: "Ready to code?" }),
      ev.plan("p1", "## Plan\n\n- Fix `parse()`\n- Add a regression test"),
      ev.permission("req-p", "ExitPlanMode", {}, { kind: "switch_mode", toolUseId: "p1" }),
    ]);
    const card = page.locator('[data-perm-card="req-p"]');
    await card.waitFor();
    assert.match(await card.locator(".perm-title").innerText(), /Ready to code\?/);
    assert.equal(await card.locator(".plan-md li").count(), 2);
    assert.deepEqual(await card.locator(".perm-actions button").allInnerTexts(), [
      "Yes, and auto-accept edits",
      "Yes, and ask before edits",
      "No, keep planning",
    ]);
    await screenshot(page, "16-plan-approval");
    await card.getByRole("button", { name: "Yes, and auto-accept edits" }).click();
    const msgs = (await posted(page)).filter((m) => m.type === "permission" || m.type === "setMode");
    assert.deepEqual(msgs, [
      { type: "permission", requestId: "req-p", decision: "allow" },
      { type: "setMode", mode: "acceptEdits" },
    ]);
    await finish(page);
  });

  test("ExitPlanMode: keep planning sends the feedback", T, async () => {
    const page = await chat.open();
    await init(page, { mode: "plan" });
    await events(page, [ev.permission("req-p", "ExitPlanMode", { plan: "Do it" }, { kind: "switch_mode" })]);
    const card = page.locator('[data-perm-card="req-p"]');
    await card.getByRole("textbox").fill("also update the docs");
    await card.getByRole("button", { name: "No, keep planning" }).click();
    assert.deepEqual(await posted(page, "permission"), [
      { type: "permission", requestId: "req-p", decision: "deny", reason: "also update the docs" },
    ]);
    await finish(page);
  });
});
