// Permission requests: while open, a card in the dock above the composer (the one place the
// question shows); once answered, a one-line outcome in the timeline. The request's tool call shows "awaiting approval".

import type { PermissionRequest, UserDecision } from "@tether/core";
import type { PermissionResolved } from "@tether/contract/protocol";
import type { ToolCalls } from "./calls";
import type { PermissionRow, Timeline } from "./model";

export class Permissions {
  /** Open requests, in arrival order. */
  pending: PermissionRow[] = [];
  private rows = new Map<string, PermissionRow>();

  constructor(
    private readonly timeline: Timeline,
    private readonly calls: ToolCalls,
  ) {}

  add(req: PermissionRequest): void {
    const row: PermissionRow = { kind: "permission", key: `p:${req.id}`, v: 0, req };
    this.rows.set(req.id, row);
    this.timeline.push(row);
    this.pending.push(row);
    this.calls.setAwaiting(req.toolUseId, true);
  }

  resolve(ev: PermissionResolved): void {
    const row = this.rows.get(ev.requestId);
    if (!row) return;
    row.outcome = ev.outcome;
    row.always = ev.always ?? row.decided === "always";
    if (ev.destination) row.destination = ev.destination;
    row.reason = ev.reason ?? row.reason;
    row.v++;
    this.pending = this.pending.filter((p) => p !== row);
    this.calls.setAwaiting(row.req.toolUseId, false);
  }

  /** The user answered a card; the extension confirms with permissionResolved. */
  markDecided(requestId: string, decision: UserDecision, reason?: string): boolean {
    const row = this.rows.get(requestId);
    if (!row) return false;
    row.decided = decision;
    if (reason) row.reason = reason;
    row.v++;
    return true;
  }

  /**
   * Open requests end as cancelled: at the end of a turn those of the turn (a question that
   * outlives it, such as a gateway's pairing, stays open), after a replay all of them (a past
   * session cannot be waiting).
   */
  cancelPending(scope: "turn" | "all"): void {
    const ending = this.pending.filter((p) => scope === "all" || !p.req.outlivesTurn);
    for (const p of ending) {
      p.outcome = p.outcome ?? "cancelled";
      p.v++;
    }
    this.pending = this.pending.filter((p) => !ending.includes(p));
  }

  clear(): void {
    this.pending = [];
    this.rows.clear();
  }
}
