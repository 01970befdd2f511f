// Tool calls: started, updated as their input streams in, finished with a result; a subagent's
// calls nest under its Task/Agent call instead of taking a row of their own.

import type { AgentEvent, TerminalView, Timeline, ToolCall, ToolRow } from "./model";

/** Calls whose text and calls nest inside them (Claude Code's subagents). */
function isSubagentGroup(name: string): boolean {
  return name === "Task" || name === "Agent";
}

export class ToolCalls {
  private calls = new Map<string, ToolCall>();
  /** Call id → the top-level row holding it. */
  private rowOf = new Map<string, ToolRow>();
  /** Calls still running (so ending a turn is O(open), not O(all)). */
  private running = new Set<ToolCall>();
  /** Plans may arrive before their ExitPlanMode call. */
  private plans = new Map<string, string>();
  /** Terminals by id (their output may arrive before the call that shows them), and the calls
   * that show each. */
  private terminals = new Map<string, TerminalView>();
  private shownIn = new Map<string, Set<string>>();

  constructor(private readonly timeline: Timeline) {}

  get(id: string | null | undefined): ToolCall | undefined {
    return id ? this.calls.get(id) : undefined;
  }

  planFor(id: string | null | undefined): string | undefined {
    return id ? (this.plans.get(id) ?? this.calls.get(id)?.plan) : undefined;
  }

  start(ev: AgentEvent<"toolCallStart">): void {
    const existing = this.calls.get(ev.id);
    if (existing) {
      // A repeated start updates the call.
      this.update({ ...ev, type: "toolCallUpdate" });
      return;
    }
    const call: ToolCall = {
      id: ev.id,
      name: ev.name,
      kind: ev.kind,
      title: ev.title,
      locations: ev.locations,
      input: ev.input ?? {},
      inputJson: "",
      status: "running",
      children: [],
      plan: this.plans.get(ev.id),
      ui: isSubagentGroup(ev.name) ? { open: true } : {},
      v: 0,
    };
    this.calls.set(call.id, call);
    this.running.add(call);
    const parent = this.get(ev.parentToolUseId);
    if (parent) {
      call.parentId = parent.id;
      parent.children.push({ kind: "tool", call });
      this.touch(parent);
    } else {
      const row: ToolRow = { kind: "tool", key: `t:${call.id}`, v: 0, call };
      this.rowOf.set(call.id, row);
      this.timeline.push(row);
    }
  }

  /** The full input (after streaming) and the title made from it. */
  update(ev: AgentEvent<"toolCallUpdate">): void {
    const call = this.calls.get(ev.id);
    if (!call) return;
    call.input = ev.input ?? call.input;
    call.title = ev.title || call.title;
    if (ev.locations.length) call.locations = ev.locations;
    this.touch(call);
  }

  /** A fragment of the input JSON; the input is replaced whenever the text so far parses. */
  inputDelta(ev: AgentEvent<"toolInputDelta">): void {
    const call = this.calls.get(ev.id);
    if (!call) return;
    call.inputJson += ev.partialJson;
    try {
      call.input = JSON.parse(call.inputJson);
    } catch {
      // Not complete yet.
    }
    this.touch(call);
  }

  result(ev: AgentEvent<"toolCallResult">): void {
    const call = this.calls.get(ev.id);
    if (!call) return;
    call.result = { isError: ev.isError, content: ev.content, structured: ev.structured ?? null };
    call.status = ev.isError ? "error" : "ok";
    this.running.delete(call);
    call.awaitingApproval = false;
    // A finished subagent group folds away unless the user opened it.
    if (isSubagentGroup(call.name) && call.ui.userToggled !== true) call.ui.open = false;
    this.touch(call);
  }

  /** What the call shows now (the whole list). */
  content(ev: AgentEvent<"toolContent">): void {
    const call = this.calls.get(ev.id);
    if (!call) return;
    call.content = ev.content;
    for (const item of ev.content) {
      if (item.type !== "terminal") continue;
      const calls = this.shownIn.get(item.terminalId) ?? new Set<string>();
      calls.add(call.id);
      this.shownIn.set(item.terminalId, calls);
    }
    this.touch(call);
  }

  terminal(id: string): TerminalView | undefined {
    return this.terminals.get(id);
  }

  /** Output of a terminal, whoever created it (an id no call names yet is kept for later). */
  terminalOutput(ev: AgentEvent<"terminalOutput">): void {
    const view = this.terminals.get(ev.terminalId) ?? { output: "", exited: false, exitCode: null, signal: null };
    view.output = ev.append ? view.output + ev.output : ev.output;
    if (ev.exited) {
      view.exited = true;
      view.exitCode = ev.exitCode;
      view.signal = ev.signal;
    }
    this.terminals.set(ev.terminalId, view);
    for (const id of this.shownIn.get(ev.terminalId) ?? []) {
      const call = this.calls.get(id);
      if (call) this.touch(call);
    }
  }

  plan(ev: AgentEvent<"plan">): void {
    if (ev.plan === null) return;
    this.plans.set(ev.toolCallId, ev.plan);
    const call = this.calls.get(ev.toolCallId);
    if (call) {
      call.plan = ev.plan;
      this.touch(call);
    }
  }

  setAwaiting(id: string | null | undefined, awaiting: boolean): void {
    const call = this.get(id);
    if (!call) return;
    call.awaitingApproval = awaiting;
    this.touch(call);
  }

  /** The call was refused without asking (a mode or a rule): the row says why. False when
   * the call is not shown. */
  refuse(id: string, why: string): boolean {
    const call = this.get(id);
    if (!call) return false;
    call.refusal = why;
    this.touch(call);
    return true;
  }

  /** Calls still running end as cancelled (end of a turn, error, replay). */
  cancelRunning(): void {
    for (const call of this.running) {
      call.status = "cancelled";
      call.awaitingApproval = false;
      this.touch(call);
    }
    this.running.clear();
  }

  /** Bump a call's version and every ancestor's (and the row holding it). */
  touch(call: ToolCall): void {
    let c: ToolCall | undefined = call;
    let top: ToolCall = call;
    while (c) {
      c.v++;
      top = c;
      c = this.get(c.parentId);
    }
    const row = this.rowOf.get(top.id);
    if (row) row.v++;
  }

  clear(): void {
    this.terminals.clear();
    this.shownIn.clear();
    this.calls.clear();
    this.rowOf.clear();
    this.running.clear();
    this.plans.clear();
  }
}
