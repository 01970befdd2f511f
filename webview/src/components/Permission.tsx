import { useEffect, useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { store, type PermissionRow } from "../store";
import { post } from "../vscode";
import { isObject, prettyJson, str } from "../util";
import { DiffStats, DiffView, hunksFromInput } from "./Diff";
import { Markdown } from "./Markdown";
import { FileLink, Icon } from "./Tools";

const EDIT_TOOLS = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"]);

/** Set when the user answered from the dock: focus moves on once the card goes away. */
let restoreFocus = false;

function decide(row: PermissionRow, decision: "allow" | "always" | "deny", reason?: string): void {
  if (row.decided || row.outcome) return;
  restoreFocus = true;
  const r = reason?.trim();
  post(
    r && decision === "deny"
      ? { type: "permission", requestId: row.req.requestId, decision, reason: r }
      : { type: "permission", requestId: row.req.requestId, decision },
  );
  store.markDecided(row.req.requestId, decision, decision === "deny" ? r : undefined);
}

function PermissionBody({ row }: { row: PermissionRow }) {
  const req = row.req;
  const [diffAll, setDiffAll] = useState(false);
  const input = req.input;
  if (req.toolName === "Bash") {
    const command = str(input, "command") ?? "";
    return (
      <pre class="command-line perm-command">
        <span class="prompt" aria-hidden="true">
          ${" "}
        </span>
        {command}
      </pre>
    );
  }
  if (req.toolName === "ExitPlanMode") {
    const plan = str(input, "plan") ?? store.planFor(req.toolCallId) ?? "";
    return plan ? (
      <div class="perm-plan">
        <Markdown text={plan} className="plan-md" />
      </div>
    ) : (
      <div class="muted small">Claude has finished planning and wants to start coding.</div>
    );
  }
  if (EDIT_TOOLS.has(req.toolName) || req.diff) {
    const path = req.diff?.path ?? str(input, "file_path") ?? str(input, "notebook_path") ?? "";
    const hunks = req.diff?.hunks ?? hunksFromInput(req.toolName, input) ?? [];
    return (
      <div class="perm-edit">
        <div class="perm-file">
          {path ? <FileLink path={path} label={path} /> : null}
          {hunks.length ? <DiffStats hunks={hunks} /> : null}
          <span class="spacer" />
          {req.diff ? (
            <button
              type="button"
              class="button button-secondary button-small"
              onClick={() => post({ type: "openDiff", requestId: req.requestId })}
            >
              <Icon name="diff" /> Open diff
            </button>
          ) : null}
        </div>
        {hunks.length ? (
          <DiffView hunks={hunks} expanded={diffAll} onToggle={() => setDiffAll(!diffAll)} collapsedLines={24} />
        ) : null}
      </div>
    );
  }
  const path = str(input, "file_path") ?? str(input, "path");
  const pattern = str(input, "pattern");
  const url = str(input, "url");
  if (path || pattern || url) {
    return (
      <div class="perm-target">
        {pattern ? <code class="inline-code">{pattern}</code> : null}
        {pattern && path ? " in " : null}
        {path ? <FileLink path={path} label={path} /> : null}
        {url ? <span class="web-link">{url}</span> : null}
      </div>
    );
  }
  const hasInput = isObject(input) ? Object.keys(input).length > 0 : input !== undefined && input !== null;
  return hasInput ? <pre class="output-text json perm-json">{prettyJson(input)}</pre> : null;
}

export function PermissionCard({ row, autoFocus }: { row: PermissionRow; autoFocus: boolean }) {
  const req = row.req;
  const [reason, setReason] = useState("");
  const allowRef = useRef<HTMLButtonElement>(null);
  const isPlan = req.toolName === "ExitPlanMode";
  const headingId = `perm-h-${req.requestId}`;
  const decided = !!row.decided;

  useEffect(() => {
    if (autoFocus) allowRef.current?.focus();
  }, []);

  const agent = req.agentType || req.agentId;
  const title = isPlan ? "Ready to code?" : `Allow ${req.toolName}?`;
  let buttons: ComponentChildren;
  if (isPlan) {
    buttons = (
      <>
        <button
          ref={allowRef}
          type="button"
          class="button perm-allow"
          disabled={decided}
          onClick={() => {
            decide(row, "allow");
            post({ type: "setMode", mode: "acceptEdits" });
            store.setLocalState({ mode: "acceptEdits" });
          }}
        >
          Yes, and auto-accept edits
        </button>
        <button type="button" class="button button-secondary perm-allow-manual" disabled={decided} onClick={() => decide(row, "allow")}>
          Yes, and ask before edits
        </button>
        <button type="button" class="button button-secondary perm-deny" disabled={decided} onClick={() => decide(row, "deny", reason)}>
          No, keep planning
        </button>
      </>
    );
  } else {
    buttons = (
      <>
        <button ref={allowRef} type="button" class="button perm-allow" disabled={decided} onClick={() => decide(row, "allow")}>
          Allow
        </button>
        {req.alwaysRule ? (
          <button
            type="button"
            class="button button-secondary perm-always"
            disabled={decided}
            title={`Adds the rule ${req.alwaysRule}`}
            onClick={() => decide(row, "always")}
          >
            Always allow <code class="rule">{req.alwaysRule}</code>
          </button>
        ) : null}
        <button type="button" class="button button-secondary perm-deny" disabled={decided} onClick={() => decide(row, "deny", reason)}>
          Reject
        </button>
      </>
    );
  }

  return (
    <section
      class={`perm-card${decided ? " perm-decided" : ""}`}
      data-perm-card={req.requestId}
      role="region"
      aria-labelledby={headingId}
      onKeyDown={(e) => {
        if (e.key === "Escape" && !decided) {
          const t = e.target as HTMLElement;
          if (t.tagName === "INPUT" && reason) {
            setReason("");
            return;
          }
        }
      }}
    >
      <div class="perm-head">
        <Icon name={isPlan ? "list-ordered" : "shield"} />
        <h2 id={headingId} class="perm-title">
          {title}
        </h2>
        {agent ? (
          <span class="badge badge-info perm-agent" title={req.agentId ? `Agent ${req.agentId}` : undefined}>
            <Icon name="agent" /> {req.agentType ? `subagent ${req.agentType}` : `agent ${req.agentId}`}
          </span>
        ) : null}
      </div>
      {req.title && !isPlan ? <div class="perm-subtitle">{req.title}</div> : null}
      {req.description && req.description !== req.title ? <div class="perm-desc muted">{req.description}</div> : null}
      {req.reason ? (
        <div class="perm-reason">
          <Icon name="warning" /> {req.reason}
        </div>
      ) : null}
      <PermissionBody row={row} />
      <div class="perm-actions" role="group" aria-label="Decision">
        {buttons}
      </div>
      <input
        type="text"
        class="input perm-reason-input"
        placeholder={isPlan ? "What should change in the plan? (optional)" : "Reason or what to do instead (optional)"}
        aria-label={isPlan ? "Feedback on the plan" : "Reason for rejecting"}
        value={reason}
        disabled={decided}
        onInput={(e) => setReason((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.isComposing) {
            e.preventDefault();
            decide(row, "deny", reason);
          }
        }}
      />
      {decided ? (
        <div class="muted small perm-sending" role="status">
          <Icon name="loading" className="codicon-modifier-spin" /> Sending…
        </div>
      ) : null}
    </section>
  );
}

/** Pending permission requests, docked above the composer so they are always in view. */
export function PermissionDock({ pending }: { pending: PermissionRow[] }) {
  const dockRef = useRef<HTMLDivElement>(null);
  const prevCount = useRef(pending.length);

  // When the card the user answered goes away, move focus to the next card or to the composer.
  useEffect(() => {
    const dock = dockRef.current;
    if (pending.length < prevCount.current && restoreFocus) {
      restoreFocus = false;
      const next = dock?.querySelector<HTMLElement>(".perm-card:not(.perm-decided) .perm-allow");
      if (next) next.focus();
      else document.querySelector<HTMLTextAreaElement>(".composer textarea")?.focus();
    }
    prevCount.current = pending.length;
  });

  if (!pending.length) return null;
  const active = document.activeElement;
  const focusFree =
    !active ||
    active === document.body ||
    !!(active instanceof HTMLElement && active.closest(".perm-dock, .vlist")) ||
    (active instanceof HTMLTextAreaElement && active.value === "");
  return (
    <div class="perm-dock" ref={dockRef} aria-label="Approvals">
      {pending.map((row, i) => (
        <PermissionCard key={row.key} row={row} autoFocus={i === 0 && focusFree} />
      ))}
    </div>
  );
}
