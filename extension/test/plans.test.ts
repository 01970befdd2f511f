import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChatEntry } from "../src/contract/protocol";
import { PermissionBroker } from "../src/chat/permissionBroker";
import { planFeedback, planTitle, type PlanComment, type PlanPort } from "../src/chat/plans";
import { permissionRequest, RecordingReviews, settle } from "./chatFixtures";

const PLAN = "# Add a greeting\n\n1. Create greeting.txt\n2. Write hello\n";

class RecordingPlans implements PlanPort {
  opened: { requestId: string; title: string; plan: string }[] = [];
  notes = new Map<string, PlanComment[]>();
  settledIds: string[] = [];
  async open(requestId: string, title: string, plan: string): Promise<void> {
    this.opened.push({ requestId, title, plan });
  }
  comments(requestId: string): PlanComment[] {
    return this.notes.get(requestId) ?? [];
  }
  settled(requestId: string): void {
    this.settledIds.push(requestId);
  }
}

function broker(plans = new RecordingPlans()) {
  const shown: ChatEntry[] = [];
  const b = new PermissionBroker({ reviews: new RecordingReviews(), plans, show: (entries) => shown.push(...entries), fail: () => {} });
  return { b, plans, shown };
}

const planRequest = (id: string) => permissionRequest(id, { toolName: "ExitPlanMode", rawToolName: "ExitPlanMode", input: { plan: PLAN } });

test("a plan is titled by its first heading, not an id", () => {
  assert.equal(planTitle(PLAN), "Plan: Add a greeting");
  assert.equal(planTitle("Just do it\nthen more"), "Plan: Just do it");
  assert.equal(planTitle("  \n"), "Plan");
  assert.equal(planTitle(`# ${"x".repeat(80)}`).length, "Plan: ".length + 60);
});

test("the feedback quotes each comment's lines, in the plan's order, after what the user typed", () => {
  const text = planFeedback(
    PLAN,
    [
      { startLine: 3, endLine: 3, text: "in French" },
      { startLine: 0, endLine: 2, text: " rename it " },
      { startLine: 1, endLine: 1, text: "  " },
    ],
    "shorter please",
  );
  assert.equal(
    text,
    "shorter please\n\nThe user's comments on the plan:\n\n" +
      "On lines 1-3 of the plan:\n> # Add a greeting\n> \n> 1. Create greeting.txt\nrename it\n\n" +
      "On line 4 of the plan:\n> 2. Write hello\nin French",
  );
  assert.equal(planFeedback(PLAN, [], "  "), undefined);
  assert.equal(planFeedback(PLAN, [{ startLine: 99, endLine: 120, text: "past the end" }]), "The user's comments on the plan:\n\nOn line 5 of the plan:\n> \npast the end");
});

test("a plan to approve opens as a document before the answer; keep planning sends its comments", async () => {
  const { b, plans } = broker();
  const answer = b.ask(planRequest("p1"), new AbortController().signal);
  await settle();
  assert.deepEqual(plans.opened, [{ requestId: "p1", title: "Plan: Add a greeting", plan: PLAN }]);
  plans.notes.set("p1", [{ startLine: 2, endLine: 2, text: "Say it in French" }]);
  await b.answer("p1", "deny");
  const { decision, reason } = await answer;
  assert.equal(decision, "deny");
  assert.match(reason ?? "", /On line 3 of the plan:\n> 1\. Create greeting\.txt\nSay it in French/);
  assert.deepEqual(plans.settledIds, ["p1"]);
});

test("approving a plan sends no comments; other requests open no plan", async () => {
  const { b, plans } = broker();
  const approved = b.ask(planRequest("p1"), new AbortController().signal);
  plans.notes.set("p1", [{ startLine: 2, endLine: 2, text: "ignored" }]);
  await b.answer("p1", "allow");
  assert.deepEqual(await approved, { decision: "allow" });
  void b.ask(permissionRequest("p2"), new AbortController().signal);
  await settle();
  assert.equal(plans.opened.length, 1);
});

test("a form's answers go with an allowing answer only", async () => {
  const { b } = broker();
  const submitted = b.ask(permissionRequest("q1", { toolName: "AskUserQuestion" }), new AbortController().signal);
  await b.answer("q1", "allow", undefined, { "Which color?": "Red", "Sizes?": ["S", "L"] });
  assert.deepEqual(await submitted, { decision: "allow", answers: { "Which color?": "Red", "Sizes?": ["S", "L"] } });
  const skipped = b.ask(permissionRequest("q2", { toolName: "AskUserQuestion" }), new AbortController().signal);
  await b.answer("q2", "deny", undefined, { "Which color?": "Red" });
  assert.deepEqual(await skipped, { decision: "deny" });
});

test("a withdrawn plan question is settled", async () => {
  const { b, plans } = broker();
  const controller = new AbortController();
  void b.ask(planRequest("p1"), controller.signal);
  controller.abort();
  await settle();
  assert.deepEqual(plans.settledIds, ["p1"]);
});
