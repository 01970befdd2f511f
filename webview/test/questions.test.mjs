// Questions and refusals: a permission request with a form (AskUserQuestion, an ACP form
// elicitation) shows radio buttons, checkboxes and "Other" and posts the answers by field id; a
// call refused without asking says why on its row.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ev } from "./fixtures.mjs";
import { events, finish, init, posted, useWebview } from "./helpers.mjs";

const chat = useWebview();
const T = { timeout: 30_000 };

const form = {
  message: null,
  fields: [
    { id: "Which color?", label: "Color", question: "Which color?", kind: "single", required: false, other: true,
      options: [{ value: "Red", label: "Red", description: "warm" }, { value: "Blue", label: "Blue", description: null }] },
    { id: "Which sizes?", label: "Sizes", question: "Which sizes?", kind: "multiple", required: false, other: true,
      options: [{ value: "S", label: "S", description: null }, { value: "L", label: "L", description: null }] },
    { id: "note", label: "Note", question: "Anything else?", kind: "text", required: false, other: false, options: [] },
  ],
};

const ask = ev.permission("q1", "AskUserQuestion", {}, {
  toolUseId: "t1",
  requiresUserInteraction: true,
  form,
  options: [
    { optionId: "submit", name: "Submit", kind: "allow_once" },
    { optionId: "skip", name: "Skip", kind: "reject_once" },
  ],
});

async function shown(page) {
  await init(page);
  await events(page, [ev.user("u1", "ask me"), ev.toolStart("t1", "AskUserQuestion", {}, { kind: "other" }), ask]);
  const card = page.locator('[data-perm-card="q1"]');
  await card.waitFor();
  return card;
}

describe("question forms", () => {
  test("a form's choices, Other and text post the answers by field id", T, async () => {
    const page = await chat.open();
    const card = await shown(page);
    const submit = card.getByRole("button", { name: "Submit" });
    assert.equal(await submit.isDisabled(), true, "nothing answered yet");
    await card.getByRole("radio", { name: /^Red/ }).check();
    await card.getByRole("textbox", { name: "Other answer to: Which color?" }).fill("dark red");
    assert.equal(await card.getByRole("radio", { name: /^Red/ }).isChecked(), false, "typing Other replaces the pick");
    await card.getByRole("checkbox", { name: /^S$/ }).check();
    await card.getByRole("checkbox", { name: /^L$/ }).check();
    await card.getByRole("textbox", { name: "Other answer to: Which sizes?" }).fill("XL");
    await card.getByRole("textbox", { name: "Note" }).fill("  ");
    await submit.click();
    assert.deepEqual(await posted(page, "permission"), [
      { type: "permission", requestId: "q1", decision: "allow", answers: { "Which color?": "dark red", "Which sizes?": ["S", "L", "XL"] } },
    ]);
    await finish(page);
  });

  test("Skip refuses without answers", T, async () => {
    const page = await chat.open();
    const card = await shown(page);
    await card.getByRole("button", { name: "Skip" }).click();
    assert.deepEqual(await posted(page, "permission"), [{ type: "permission", requestId: "q1", decision: "deny" }]);
    await finish(page);
  });
});

describe("refusals", () => {
  test("a call refused in plan mode says so on its row, not as a generic error", T, async () => {
    const page = await chat.open();
    await init(page);
    await events(page, [
      ev.user("u1", "write it"),
      ev.toolStart("w1", "Write", { file_path: "/p/a.txt", content: "x" }, { kind: "edit" }),
      { type: "permissionDenied", toolUseId: "w1", toolName: "Write", message: null, reason: "plan mode: no file changes or commands until the plan is approved", agentId: null },
      ev.toolResult("w1", null, { isError: true, content: "Cannot write to /p/a.txt while in plan mode." }),
    ]);
    const row = page.locator('.tool[data-call-id="w1"]');
    await row.locator(".tool-refusal").waitFor();
    assert.equal((await row.locator(".tool-refusal").innerText()).trim(), "Refused in plan mode: no file changes or commands until the plan is approved");
    assert.equal(await row.locator(".tool-error-text").count(), 0);
    await finish(page);
  });
});
