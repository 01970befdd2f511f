// The permission broker: holds each permission request the agent asks the user about until it is
// answered, from the chat's card or from the diff review, or withdrawn. It does not show the
// request (that is the agent's permissionRequest event, shown once by the feed); it shows how the
// request ended. No vscode import.

import type { EditReview, PermissionAnswer, PermissionRequest, RuleScope, UserDecision } from "../generated/core";
import type { ChatEntry, PermissionResolved } from "../contract/protocol";
import { planFeedback, planOf, planTitle, type PlanPort } from "./plans";

/** A form's answers (AskUserQuestion, an ACP form elicitation), by field id. */
export type FormAnswers = NonNullable<PermissionAnswer["answers"]>;

/** What the card adds to a decision: where "always" saves its rules, the hunks accepted. */
export interface AnswerExtras {
  destination?: RuleScope;
  acceptedHunks?: number[];
}

/** The diff review of a proposed edit (chat/reviews.ts behind VS Code's diff editor). */
export interface ReviewPort {
  /** Open (or focus) the review; `answer` is called once, when the user decides there. */
  open(requestId: string, review: EditReview, answer: (answer: ReviewAnswer) => void): Promise<void>;
  /** The user answered on the card: close the review, and return the text they left in it when
   * it differs from the proposal and the answer allows. */
  answeredElsewhere(requestId: string, decision: UserDecision): Promise<string | undefined>;
  /** The request went away unanswered: close the review. */
  cancel(requestId: string): Promise<void>;
}

/** How the user answered in the diff review. */
export interface ReviewAnswer {
  decision: "allow" | "deny";
  reason?: string;
  userContent?: string;
}

export interface BrokerDeps {
  reviews: ReviewPort;
  /** Plans to approve, shown as documents the user can comment on. */
  plans?: PlanPort;
  /** Shows entries in the chat. */
  show(entries: ChatEntry[]): void;
  /** Reports a failure the user should see. */
  fail(what: string, error: unknown): void;
  /** The number of requests waiting changed (a tab's badge). */
  changed?(): void;
}

interface Pending {
  request: PermissionRequest;
  resolve(answer: PermissionAnswer): void;
}

export class PermissionBroker {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly deps: BrokerDeps) {}

  /** The requests waiting for an answer. */
  get waiting(): number {
    return this.pending.size;
  }

  /** The session's question (SessionDriver's onPermission). Settles with the user's answer;
   * `signal` aborts when the agent withdraws the question or the session ends. */
  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    return new Promise<PermissionAnswer>((resolve) => {
      this.pending.set(request.id, { request, resolve });
      this.deps.changed?.();
      signal.addEventListener("abort", () => {
        if (!this.forget(request.id)) return;
        this.deps.show([{ type: "permissionResolved", requestId: request.id, outcome: "cancelled" }]);
      });
      if (request.review) void this.openReview(request.id).catch((error) => this.deps.fail("opening the diff", error));
      const plan = planOf(request);
      if (plan && this.deps.plans) {
        void this.deps.plans.open(request.id, planTitle(plan), plan).catch((error) => this.deps.fail("opening the plan", error));
      }
    });
  }

  /** The agent withdrew the request (its permissionCancelled event is in the chat already). */
  withdrawn(requestId: string): void {
    this.forget(requestId);
  }

  /** The user answered on the chat's card (with a form's answers); an open review is closed,
   * its text kept on allow. Keeping on planning sends the plan's comments along. */
  async answer(requestId: string, decision: UserDecision, reason?: string, answers?: FormAnswers, extras: AnswerExtras = {}): Promise<void> {
    const pending = this.pending.get(requestId);
    if (!pending) return;
    const userContent = await this.deps.reviews.answeredElsewhere(requestId, decision);
    const plan = planOf(pending.request);
    const said = plan && decision === "deny" && this.deps.plans ? planFeedback(plan, this.deps.plans.comments(requestId), reason) : reason;
    // Text the user changed in the review editor is what they want written: it wins over hunks.
    const kept: AnswerExtras = {
      ...(extras.destination && decision === "always" ? { destination: extras.destination } : {}),
      ...(extras.acceptedHunks && decision !== "deny" && userContent === undefined ? { acceptedHunks: extras.acceptedHunks } : {}),
    };
    this.resolve(requestId, decision, said, userContent, answers, kept);
  }

  /** "Open diff" on the card: the review of the request's proposed edit. */
  async openReview(requestId: string): Promise<void> {
    const review = this.pending.get(requestId)?.request.review;
    if (!review) return;
    await this.deps.reviews.open(requestId, review, (answer) =>
      this.resolve(requestId, answer.decision, answer.reason, answer.userContent),
    );
  }

  /** Every open request is refused (the session ends, VS Code closes); nothing is shown: the
   * chat ends the turn itself. */
  denyAll(reason: string): void {
    for (const [id, p] of [...this.pending]) {
      this.pending.delete(id);
      void this.deps.reviews.cancel(id);
      p.resolve({ decision: "deny", reason });
    }
    this.deps.changed?.();
  }

  private resolve(requestId: string, decision: UserDecision, reason?: string, userContent?: string, answers?: FormAnswers, extras: AnswerExtras = {}): void {
    const pending = this.pending.get(requestId);
    if (!pending) return;
    this.pending.delete(requestId);
    this.deps.changed?.();
    this.deps.plans?.settled(requestId);
    pending.resolve({
      decision,
      ...(reason ? { reason } : {}),
      ...(userContent !== undefined ? { userContent } : {}),
      ...(answers && decision !== "deny" ? { answers } : {}),
      ...extras,
    });
    const resolved: PermissionResolved = {
      type: "permissionResolved",
      requestId,
      outcome: decision === "deny" ? "denied" : "allowed",
      ...(decision === "always" ? { always: true } : {}),
      ...(extras.destination ? { destination: extras.destination } : {}),
      ...(reason ? { reason } : {}),
    };
    this.deps.show([resolved]);
  }

  /** Drops a request without an answer; false when it was not open. */
  private forget(requestId: string): boolean {
    if (!this.pending.delete(requestId)) return false;
    this.deps.changed?.();
    void this.deps.reviews.cancel(requestId);
    this.deps.plans?.settled(requestId);
    return true;
  }
}
