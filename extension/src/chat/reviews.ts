// Reviewing a proposed edit: the original on the left (read-only), the proposal on the right as an
// editable document, one review per permission request. Accept answers allow with what the user
// left on the right (as userContent when it differs from the proposal); Reject, or closing the
// review, denies. The editor itself is a port: VS Code's diff editor in vscode/diffReview.ts.
// No vscode import.

import type { EditReview, UserDecision } from "../generated/core";
import type { ReviewAnswer, ReviewPort } from "./permissionBroker";

/** One open review. `key` names both sides' documents (unique per request). */
export interface Review {
  requestId: string;
  key: string;
  filePath: string;
  original: string;
  proposed: string;
  title: string;
}

/** What the review needs from an editor. */
export interface ReviewEditor {
  /** Keep the proposal as the right side's document (editable, saved in memory). */
  store(review: Review): void;
  /** Forget the right side's document. */
  remove(review: Review): void;
  /** Show the two sides side by side. */
  show(review: Review): Promise<void>;
  /** What is on the right side now (the open editor's text, else the stored document). */
  currentText(review: Review): string;
  /** Save the right side and close the review's editor. */
  close(review: Review): Promise<void>;
  /** The key of the review in the editor in front, if it is one. */
  activeKey(): string | undefined;
}

function basename(filePath: string): string {
  const normalized = filePath.replace(/\\/g, "/");
  return normalized.slice(normalized.lastIndexOf("/") + 1);
}

export class ReviewBook implements ReviewPort {
  private readonly reviews = new Map<string, { review: Review; answer: (answer: ReviewAnswer) => void }>();

  constructor(
    private readonly editor: ReviewEditor,
    private readonly log: (message: string) => void,
  ) {}

  /** The review whose documents are named `key`. */
  byKey(key: string): Review | undefined {
    for (const { review } of this.reviews.values()) if (review.key === key) return review;
    return undefined;
  }

  async open(requestId: string, edit: EditReview, answer: (answer: ReviewAnswer) => void): Promise<void> {
    let entry = this.reviews.get(requestId);
    if (!entry) {
      const name = basename(edit.path) || "file";
      const review: Review = {
        requestId,
        key: `/${encodeURIComponent(requestId)}/${name}`,
        filePath: edit.path,
        original: edit.original ?? "",
        proposed: edit.proposed,
        title: `${name} (${edit.original ? "proposed edit" : "new file"}) — Tether`,
      };
      entry = { review, answer };
      this.editor.store(review);
      this.reviews.set(requestId, entry);
    }
    await this.editor.show(entry.review);
  }

  /** Accept: the review `key` names (an editor title button), else the one in front, else the
   * only one open. False when there is none. */
  async accept(key?: string): Promise<boolean> {
    const review = this.target(key);
    if (!review) return false;
    const content = this.editor.currentText(review);
    this.finish(review, content === review.proposed ? { decision: "allow" } : { decision: "allow", userContent: content });
    await this.editor.close(review);
    return true;
  }

  async reject(key?: string, reason?: string): Promise<boolean> {
    const review = this.target(key);
    if (!review) return false;
    this.finish(review, { decision: "deny", ...(reason ? { reason } : {}) });
    await this.editor.close(review);
    return true;
  }

  /** The user closed the review's editor: a rejection. */
  closed(key: string): void {
    const review = this.byKey(key);
    if (review) this.finish(review, { decision: "deny", reason: "The user closed the review without accepting the change." });
  }

  async answeredElsewhere(requestId: string, decision: UserDecision): Promise<string | undefined> {
    const entry = this.reviews.get(requestId);
    if (!entry) return undefined;
    const content = this.editor.currentText(entry.review);
    this.reviews.delete(requestId);
    await this.editor.close(entry.review);
    this.editor.remove(entry.review);
    return decision !== "deny" && content !== entry.review.proposed ? content : undefined;
  }

  async cancel(requestId: string): Promise<void> {
    const entry = this.reviews.get(requestId);
    if (!entry) return;
    this.reviews.delete(requestId);
    await this.editor.close(entry.review);
    this.editor.remove(entry.review);
  }

  /** Every open review is refused (the extension shuts down). */
  dispose(): void {
    for (const { review } of [...this.reviews.values()]) this.finish(review, { decision: "deny", reason: "The review was closed." });
  }

  private finish(review: Review, answer: ReviewAnswer): void {
    const entry = this.reviews.get(review.requestId);
    if (!entry) return;
    this.reviews.delete(review.requestId);
    this.log(`review ${review.requestId}: ${answer.decision}${answer.userContent !== undefined ? " (user-modified)" : ""}`);
    entry.answer(answer);
    this.editor.remove(review);
  }

  private target(key?: string): Review | undefined {
    if (key !== undefined) return this.byKey(key);
    const active = this.editor.activeKey();
    if (active !== undefined) return this.byKey(active);
    // One review open: the command palette or keybinding means that one.
    return this.reviews.size === 1 ? [...this.reviews.values()][0]!.review : undefined;
  }
}
