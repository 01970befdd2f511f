// Plans to approve as read-only markdown documents (`tether-plan:` URIs, titled by the plan) the
// user can comment on line by line with VS Code's Comments API. The comments stay with the
// request until it is answered; "keep planning" sends them to the model (chat/plans.ts).

import * as vscode from "vscode";
import type { PlanComment, PlanPort } from "../chat/plans";

export const PLAN_SCHEME = "tether-plan";
const CONTROLLER_ID = "tether.plan";

interface OpenPlan {
  uri: vscode.Uri;
  threads: vscode.CommentThread[];
}

export class PlanDocuments implements PlanPort, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly plans = new Map<string, OpenPlan>();
  private readonly controller: vscode.CommentController;
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    this.controller = vscode.comments.createCommentController(CONTROLLER_ID, "Comments on the plan");
    this.controller.options = { prompt: "Comment on the plan", placeHolder: "What should change here?" };
    this.controller.commentingRangeProvider = {
      provideCommentingRanges: (document) =>
        this.requestOf(document.uri) ? [new vscode.Range(0, 0, Math.max(0, document.lineCount - 1), 0)] : [],
    };
    this.disposables.push(
      this.controller,
      vscode.workspace.registerTextDocumentContentProvider(PLAN_SCHEME, {
        provideTextDocumentContent: (uri) => this.texts.get(uri.toString()) ?? "",
      }),
      vscode.commands.registerCommand("tether.plan.comment", (reply: vscode.CommentReply) => this.addComment(reply)),
    );
  }

  async open(requestId: string, title: string, plan: string): Promise<void> {
    // The query tells requests apart; the path is what the tab shows.
    const uri = vscode.Uri.from({ scheme: PLAN_SCHEME, path: `/${title}.md`, query: requestId });
    this.texts.set(uri.toString(), plan);
    this.plans.set(requestId, { uri, threads: [] });
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(document, "markdown");
    await vscode.window.showTextDocument(document, { preview: false, preserveFocus: true });
  }

  comments(requestId: string): PlanComment[] {
    const plan = this.plans.get(requestId);
    if (!plan) return [];
    return plan.threads.flatMap((thread) =>
      thread.comments.map((comment) => ({
        startLine: thread.range?.start.line ?? 0,
        endLine: thread.range?.end.line ?? 0,
        text: typeof comment.body === "string" ? comment.body : comment.body.value,
      })),
    );
  }

  /** The question is over: its threads can no longer be replied to (the document stays). */
  settled(requestId: string): void {
    const plan = this.plans.get(requestId);
    if (!plan) return;
    this.plans.delete(requestId);
    for (const thread of plan.threads) {
      thread.canReply = false;
      thread.collapsibleState = vscode.CommentThreadCollapsibleState.Collapsed;
    }
  }

  private requestOf(uri: vscode.Uri): string | undefined {
    return uri.scheme === PLAN_SCHEME && this.plans.has(uri.query) ? uri.query : undefined;
  }

  /** The comment widget's button: the text becomes a comment on its lines. */
  private addComment(reply: vscode.CommentReply): void {
    const requestId = this.requestOf(reply.thread.uri);
    const text = reply.text.trim();
    if (!requestId || !text) return;
    const thread = reply.thread;
    thread.comments = [
      ...thread.comments,
      { body: text, mode: vscode.CommentMode.Preview, author: { name: "You" } },
    ];
    thread.label = "Sent to the agent if you keep planning";
    const plan = this.plans.get(requestId);
    if (plan && !plan.threads.includes(thread)) plan.threads.push(thread);
  }

  dispose(): void {
    for (const plan of this.plans.values()) for (const thread of plan.threads) thread.dispose();
    this.plans.clear();
    for (const d of this.disposables) d.dispose();
  }
}
