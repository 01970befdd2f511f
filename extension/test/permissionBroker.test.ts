import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChatEntry } from "../src/contract/protocol";
import { PermissionBroker } from "../src/chat/permissionBroker";
import { permissionRequest, RecordingReviews, settle } from "./chatFixtures";

function broker(reviews = new RecordingReviews()) {
  const shown: ChatEntry[] = [];
  const failures: string[] = [];
  const b = new PermissionBroker({ reviews, show: (entries) => shown.push(...entries), fail: (what) => failures.push(what) });
  return { b, shown, reviews, failures };
}

const review = { path: "/w/a.txt", original: "a\n", proposed: "b\n", hunks: [] };

test("asking shows nothing: the request itself is the agent's event, shown by the feed", async () => {
  const { b, shown } = broker();
  void b.ask(permissionRequest("p1"), new AbortController().signal);
  await settle();
  assert.deepEqual(shown, []);
  assert.equal(b.waiting, 1);
});

test("an answer from the card settles the question and shows how it ended", async () => {
  const { b, shown } = broker();
  const answer = b.ask(permissionRequest("p1"), new AbortController().signal);
  await b.answer("p1", "deny", "use pnpm");
  assert.deepEqual(await answer, { decision: "deny", reason: "use pnpm" });
  assert.deepEqual(shown, [{ type: "permissionResolved", requestId: "p1", outcome: "denied", reason: "use pnpm" }]);
  // A second answer to the same request changes nothing.
  await b.answer("p1", "allow");
  assert.equal(shown.length, 1);
});

test("always allow is an allow that says the rule was added", async () => {
  const { b, shown } = broker();
  const answer = b.ask(permissionRequest("p1"), new AbortController().signal);
  await b.answer("p1", "always");
  assert.deepEqual(await answer, { decision: "always" });
  assert.deepEqual(shown, [{ type: "permissionResolved", requestId: "p1", outcome: "allowed", always: true }]);
});

test("an edit opens its review; allowing on the card takes the text the user left in it", async () => {
  const { b, reviews } = broker();
  const answer = b.ask(permissionRequest("p1", { kind: "edit", review }), new AbortController().signal);
  await settle();
  assert.equal(reviews.opened.has("p1"), true);
  reviews.userContent = "b, edited\n";
  await b.answer("p1", "allow");
  assert.deepEqual(await answer, { decision: "allow", userContent: "b, edited\n" });
});

test("accepting in the review answers the question from there", async () => {
  const { b, reviews, shown } = broker();
  const answer = b.ask(permissionRequest("p1", { kind: "edit", review }), new AbortController().signal);
  await settle();
  reviews.opened.get("p1")!({ decision: "allow", userContent: "mine\n" });
  assert.deepEqual(await answer, { decision: "allow", userContent: "mine\n" });
  assert.deepEqual(shown, [{ type: "permissionResolved", requestId: "p1", outcome: "allowed" }]);
});

test("a question withdrawn by the session (abort) is shown cancelled once and its review closed", async () => {
  const { b, shown, reviews } = broker();
  const controller = new AbortController();
  void b.ask(permissionRequest("p1", { kind: "edit", review }), controller.signal);
  controller.abort();
  assert.deepEqual(shown, [{ type: "permissionResolved", requestId: "p1", outcome: "cancelled" }]);
  assert.deepEqual(reviews.cancelled, ["p1"]);
  assert.equal(b.waiting, 0);
});

test("a question the agent withdrew (its permissionCancelled is in the chat) adds nothing when the abort follows", () => {
  const { b, shown, reviews } = broker();
  const controller = new AbortController();
  void b.ask(permissionRequest("p1"), controller.signal);
  b.withdrawn("p1");
  controller.abort();
  assert.deepEqual(shown, []);
  assert.deepEqual(reviews.cancelled, ["p1"]);
});

test("the end of the session refuses every open question with its reason", async () => {
  const { b, reviews } = broker();
  const first = b.ask(permissionRequest("p1"), new AbortController().signal);
  const second = b.ask(permissionRequest("p2"), new AbortController().signal);
  b.denyAll("The session ended.");
  assert.deepEqual(await first, { decision: "deny", reason: "The session ended." });
  assert.deepEqual(await second, { decision: "deny", reason: "The session ended." });
  assert.deepEqual(reviews.cancelled, ["p1", "p2"]);
  assert.equal(b.waiting, 0);
});

test("Open diff opens the review of an open edit request only", async () => {
  const { b, reviews } = broker();
  void b.ask(permissionRequest("p1"), new AbortController().signal);
  await b.openReview("p1");
  await b.openReview("nope");
  assert.equal(reviews.opened.size, 0);
});

test("a review that cannot open is reported; the question stays open for the card", async () => {
  const reviews = new RecordingReviews();
  reviews.open = () => Promise.reject(new Error("no diff editor"));
  const { b, failures } = broker(reviews);
  const answer = b.ask(permissionRequest("p1", { kind: "edit", review }), new AbortController().signal);
  await settle();
  assert.deepEqual(failures, ["opening the diff"]);
  await b.answer("p1", "allow");
  assert.deepEqual(await answer, { decision: "allow" });
});

test("always allow carries where to save the rule, and says so when resolved", async () => {
  const { b, shown } = broker();
  const answer = b.ask(permissionRequest("p1"), new AbortController().signal);
  await b.answer("p1", "always", undefined, undefined, { destination: "userSettings" });
  assert.deepEqual(await answer, { decision: "always", destination: "userSettings" });
  assert.deepEqual(shown, [{ type: "permissionResolved", requestId: "p1", outcome: "allowed", always: true, destination: "userSettings" }]);
});

test("the hunks accepted on the card go with the answer, unless the user changed the text in the review", async () => {
  const { b, reviews } = broker();
  const first = b.ask(permissionRequest("p1", { kind: "edit", review }), new AbortController().signal);
  await settle();
  await b.answer("p1", "allow", undefined, undefined, { acceptedHunks: [0, 2] });
  assert.deepEqual(await first, { decision: "allow", acceptedHunks: [0, 2] });
  const second = b.ask(permissionRequest("p2", { kind: "edit", review }), new AbortController().signal);
  await settle();
  reviews.userContent = "b, edited\n";
  await b.answer("p2", "allow", undefined, undefined, { acceptedHunks: [1] });
  assert.deepEqual(await second, { decision: "allow", userContent: "b, edited\n" });
});

test("a rejection carries no hunks and no destination", async () => {
  const { b } = broker();
  const answer = b.ask(permissionRequest("p1", { kind: "edit", review }), new AbortController().signal);
  await settle();
  await b.answer("p1", "deny", "no", undefined, { acceptedHunks: [0], destination: "session" });
  assert.deepEqual(await answer, { decision: "deny", reason: "no" });
});
