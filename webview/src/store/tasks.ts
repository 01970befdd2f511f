// Subagents and background tasks, from the agent's `taskUpdate` events: each gets a panel with its
// live output (a subagent's calls and text nest under its Agent call; a background shell's last
// lines come with its updates) and a stop control while it runs. Finished ones stay until the
// user dismisses them or the chat is cleared.

import type { AgentEvent } from "./model";

export interface TaskEntry {
  id: string;
  /** The tool call that started it (a subagent's Agent call), whose children are its output. */
  toolUseId: string | null;
  description: string;
  /** `started` while it runs; then how it ended (completed, failed, stopped). */
  status: string;
  summary: string | null;
  /** A background shell's last lines of output; null for a subagent. */
  output: string | null;
  /** How a background shell exited by itself. */
  exitCode: number | null;
  /** The user asked to stop it; the agent confirms with its end. */
  stopping: boolean;
  v: number;
}

export function isRunning(task: TaskEntry): boolean {
  return task.status === "started" || task.status === "running";
}

/** What the panel says of a task's state. */
export function statusLabel(task: TaskEntry): string {
  if (task.stopping) return "stopping…";
  if (isRunning(task)) return "running";
  if (task.status === "timed_out") return "timed out";
  if (task.status === "failed" && task.exitCode !== null) return `failed (exit ${task.exitCode})`;
  return task.status;
}

export class Tasks {
  private readonly byId = new Map<string, TaskEntry>();
  private readonly dismissed = new Set<string>();

  /** The tasks to show, oldest first. */
  get visible(): TaskEntry[] {
    return [...this.byId.values()].filter((t) => !this.dismissed.has(t.id));
  }

  apply(ev: AgentEvent<"taskUpdate">): void {
    const task = this.byId.get(ev.taskId);
    if (!task) {
      this.byId.set(ev.taskId, {
        id: ev.taskId,
        toolUseId: ev.toolUseId,
        description: ev.description ?? "Task",
        status: ev.status,
        summary: ev.summary,
        output: ev.output ?? null,
        exitCode: ev.exitCode ?? null,
        stopping: false,
        v: 0,
      });
      return;
    }
    task.status = ev.status;
    task.toolUseId ??= ev.toolUseId;
    if (ev.description) task.description = ev.description;
    if (ev.summary) task.summary = ev.summary;
    if (ev.output != null) task.output = ev.output;
    if (ev.exitCode != null) task.exitCode = ev.exitCode;
    if (!isRunning(task)) task.stopping = false;
    task.v++;
  }

  markStopping(id: string): void {
    const task = this.byId.get(id);
    if (!task) return;
    task.stopping = true;
    task.v++;
  }

  dismiss(id: string): void {
    this.dismissed.add(id);
  }

  clear(): void {
    this.byId.clear();
    this.dismissed.clear();
  }
}
