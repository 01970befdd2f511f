// A plan the agent asks to approve (ExitPlanMode) opens as a document before the question is
// answered, and the user can comment on its lines; "keep planning" sends the comments to the
// model in the refusal, each quoted with the lines it is on. What the chat needs of the editor
// (PlanPort, chat/vscode/planDocuments.ts behind it) and the text the model reads. No vscode import.

import type { PermissionRequest } from "../generated/core";

/** One comment of the user's on the plan; lines are 0-based and inclusive. */
export interface PlanComment {
  startLine: number;
  endLine: number;
  text: string;
}

/** The plan documents the chat opens. */
export interface PlanPort {
  /** Show `plan` as a read-only markdown document titled `title`, open to comments. */
  open(requestId: string, title: string, plan: string): Promise<void>;
  /** The comments the user left on the request's plan so far. */
  comments(requestId: string): PlanComment[];
  /** The question was answered or withdrawn: no more comments on it. */
  settled(requestId: string): void;
}

/** The plan an ExitPlanMode request carries (`input.plan`), if any. */
export function planOf(request: PermissionRequest): string | undefined {
  if (request.toolName !== "ExitPlanMode") return undefined;
  const input = request.input as { plan?: unknown } | null;
  const plan = input && typeof input === "object" && typeof input.plan === "string" ? input.plan : undefined;
  return plan?.trim() ? plan : undefined;
}

/** The document's title: the plan's first heading (or first line), not an id. */
export function planTitle(plan: string): string {
  const lines = plan.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  const heading = lines.find((line) => /^#{1,6}\s/.test(line)) ?? lines[0] ?? "";
  const name = heading.replace(/^#{1,6}\s+/, "").replace(/[\\/:*?"<>|]+/g, " ").trim();
  const short = name.length > 60 ? `${name.slice(0, 59).trimEnd()}…` : name;
  return short ? `Plan: ${short}` : "Plan";
}

/** What the model reads when the user keeps planning: what they typed, then each comment
 * with the plan's lines it is on, quoted. Undefined when there is neither. */
export function planFeedback(plan: string, comments: PlanComment[], typed?: string): string | undefined {
  const lines = plan.split(/\r?\n/);
  const notes = comments
    .filter((comment) => comment.text.trim())
    .sort((a, b) => a.startLine - b.startLine)
    .map((comment) => {
      const start = Math.max(0, Math.min(comment.startLine, lines.length - 1));
      const end = Math.max(start, Math.min(comment.endLine, lines.length - 1));
      const where = start === end ? `line ${start + 1}` : `lines ${start + 1}-${end + 1}`;
      const quoted = lines
        .slice(start, end + 1)
        .map((line) => `> ${line}`)
        .join("\n");
      return `On ${where} of the plan:\n${quoted}\n${comment.text.trim()}`;
    });
  const parts = [typed?.trim() ?? "", notes.length ? `The user's comments on the plan:\n\n${notes.join("\n\n")}` : ""];
  const text = parts.filter(Boolean).join("\n\n");
  return text || undefined;
}
