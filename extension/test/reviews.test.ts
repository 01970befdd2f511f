import assert from "node:assert/strict";
import { test } from "node:test";
import type { ReviewAnswer } from "../src/chat/permissionBroker";
import { ReviewBook, type Review, type ReviewEditor } from "../src/chat/reviews";

/** The diff editor: the stored right sides, what is open, what the user typed. */
class FakeEditor implements ReviewEditor {
  readonly stored = new Map<string, string>();
  readonly shown: string[] = [];
  readonly closed: string[] = [];
  /** key → text the user typed on the right side. */
  readonly typed = new Map<string, string>();
  active: string | undefined;

  store(review: Review): void {
    this.stored.set(review.key, review.proposed);
  }
  remove(review: Review): void {
    this.stored.delete(review.key);
  }
  async show(review: Review): Promise<void> {
    this.shown.push(review.title);
    this.active = review.key;
  }
  currentText(review: Review): string {
    return this.typed.get(review.key) ?? this.stored.get(review.key) ?? review.proposed;
  }
  async close(review: Review): Promise<void> {
    this.closed.push(review.key);
    if (this.active === review.key) this.active = undefined;
  }
  activeKey(): string | undefined {
    return this.active;
  }
}

const edit = (path: string, original: string | null = "old\n") => ({ path, original, proposed: "new\n", hunks: [] });

async function opened(...ids: string[]) {
  const editor = new FakeEditor();
  const book = new ReviewBook(editor, () => undefined);
  const answers = new Map<string, ReviewAnswer[]>();
  for (const id of ids) {
    answers.set(id, []);
    await book.open(id, edit(`/w/src/${id}.ts`), (a) => answers.get(id)!.push(a));
  }
  return { editor, book, answers, key: (id: string) => `/${id}/${id}.ts` };
}

test("opening a review keeps the proposal as the right side and shows it under a title that says what it is", async () => {
  const editor = new FakeEditor();
  const book = new ReviewBook(editor, () => undefined);
  await book.open("r 1", edit("C:\\w\\a.ts"), () => undefined);
  await book.open("r2", edit("/w/new.ts", null), () => undefined);
  assert.deepEqual(editor.shown, ["a.ts (proposed edit) — Tether", "new.ts (new file) — Tether"]);
  assert.deepEqual([...editor.stored.keys()], ["/r%201/a.ts", "/r2/new.ts"]);
  assert.equal(book.byKey("/r2/new.ts")?.original, "");
  // Opening again focuses the same review.
  await book.open("r2", edit("/w/new.ts", null), () => undefined);
  assert.equal(editor.stored.size, 2);
});

test("Accept unchanged allows; Accept after the user typed allows with their text", async () => {
  const { editor, book, answers, key } = await opened("a", "b");
  assert.equal(await book.accept(key("a")), true);
  editor.typed.set(key("b"), "new, mine\n");
  assert.equal(await book.accept(key("b")), true);
  assert.deepEqual(answers.get("a"), [{ decision: "allow" }]);
  assert.deepEqual(answers.get("b"), [{ decision: "allow", userContent: "new, mine\n" }]);
  assert.deepEqual(editor.closed, [key("a"), key("b")]);
  assert.equal(editor.stored.size, 0);
});

test("Reject and closing the review deny, with the reason the model reads", async () => {
  const { book, answers, key } = await opened("a", "b");
  await book.reject(key("a"), "The user rejected the change.");
  book.closed(key("b"));
  assert.deepEqual(answers.get("a"), [{ decision: "deny", reason: "The user rejected the change." }]);
  assert.deepEqual(answers.get("b"), [{ decision: "deny", reason: "The user closed the review without accepting the change." }]);
});

test("without a key, Accept means the review in front, else the only one open, else none", async () => {
  const { editor, book, answers, key } = await opened("a", "b");
  editor.active = key("a");
  await book.accept();
  assert.equal(answers.get("a")!.length, 1);
  editor.active = undefined;
  await book.accept();
  assert.equal(answers.get("b")!.length, 1, "the only review left");
  assert.equal(await book.accept(), false);
  const two = await opened("c", "d");
  two.editor.active = undefined;
  assert.equal(await two.book.accept(), false, "two reviews and none in front: nothing to accept");
});

test("an answer on the chat's card closes the review and returns what the user typed, for an allow only", async () => {
  const { editor, book, answers, key } = await opened("a", "b", "c");
  editor.typed.set(key("a"), "typed\n");
  editor.typed.set(key("b"), "typed\n");
  assert.equal(await book.answeredElsewhere("a", "allow"), "typed\n");
  assert.equal(await book.answeredElsewhere("b", "deny"), undefined);
  assert.equal(await book.answeredElsewhere("c", "always"), undefined, "untouched proposal");
  assert.equal(await book.answeredElsewhere("zzz", "allow"), undefined);
  assert.deepEqual([...answers.values()].flat(), [], "the card answered, not the review");
  assert.equal(editor.stored.size, 0);
});

test("a withdrawn request closes its review without an answer; disposing refuses what is still open", async () => {
  const { editor, book, answers, key } = await opened("a", "b");
  await book.cancel("a");
  assert.deepEqual(editor.closed, [key("a")]);
  book.dispose();
  assert.deepEqual(answers.get("a"), []);
  assert.deepEqual(answers.get("b"), [{ decision: "deny", reason: "The review was closed." }]);
  // A review answers once.
  book.closed(key("b"));
  assert.equal(answers.get("b")!.length, 1);
});
