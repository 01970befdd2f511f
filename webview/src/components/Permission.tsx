import { useEffect, useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import type { Hunk, PermissionRequest, RuleScope, UserDecision } from "@tether/core";
import { store, type PermissionRow } from "../store";
import { post } from "../vscode";
import { isObject, prettyJson, str } from "../util";
import { FileLink, Icon } from "./common";
import { DiffStats, hunksFromInput } from "./Diff";
import { Markdown } from "./Markdown";
import { QuestionFormView, type FormAnswers } from "./QuestionForm";

/** Set when the user answered from the dock: focus moves on once the card goes away. */
let restoreFocus = false;

/** Beyond the decision: where "always" saves its rules, and the hunks of an edit accepted. */
interface Extras {
  destination?: RuleScope;
  acceptedHunks?: number[];
}

function decide(row: PermissionRow, decision: UserDecision, reason?: string, answers?: FormAnswers, extras: Extras = {}): void {
  if (row.decided || row.outcome) return;
  restoreFocus = true;
  const r = reason?.trim();
  const allows = decision !== "deny";
  post({
    type: "permission",
    requestId: row.req.id,
    decision,
    ...(r && decision === "deny" ? { reason: r } : {}),
    ...(answers && allows ? { answers } : {}),
    ...(extras.destination && decision === "always" ? { destination: extras.destination } : {}),
    ...(extras.acceptedHunks && allows ? { acceptedHunks: extras.acceptedHunks } : {}),
  });
  store.markDecided(row.req.id, decision, decision === "deny" ? r : undefined);
}

/** Where "Always allow" can save its rules, as the official extension offers them. */
export const RULE_DESTINATIONS: { scope: RuleScope; label: string; file?: string }[] = [
  { scope: "session", label: "This session only" },
  { scope: "localSettings", label: "This project, just me", file: ".claude/settings.local.json" },
  { scope: "projectSettings", label: "This project, shared", file: ".claude/settings.json" },
  { scope: "userSettings", label: "All my projects", file: "~/.claude/settings.json" },
];

/** How a hunk is named: "Lines 17–23" of the original file. */
function hunkLines(hunk: Hunk): string {
  const first = Math.max(hunk.oldStart, 1);
  return hunk.oldLines <= 1 ? `Line ${first}` : `Lines ${first}–${first + hunk.oldLines - 1}`;
}

/** The first line the hunk adds (else the first it removes), to tell hunks apart. */
function hunkGist(hunk: Hunk): string {
  const changed = hunk.lines.find((l) => l.startsWith("+")) ?? hunk.lines.find((l) => l.startsWith("-")) ?? "";
  return changed.slice(1).trim();
}

/** The rule (or mode) "Always allow" adds, when the permission engine offers one. */
export function alwaysRule(req: PermissionRequest): string | undefined {
  return req.alwaysLabel && !req.suppressAlwaysAllow ? req.alwaysLabel : undefined;
}

/** One button of a card. */
interface Choice {
  label: ComponentChildren;
  decision: UserDecision;
  className: string;
  title?: string;
}

const OPTION_KINDS: Record<string, { decision: UserDecision; className: string }> = {
  allow_once: { decision: "allow", className: "perm-allow" },
  allow_always: { decision: "always", className: "perm-always" },
  reject_once: { decision: "deny", className: "perm-deny" },
  reject_always: { decision: "deny", className: "perm-deny perm-deny-always" },
};

/** The options the agent itself offers (ACP: `{optionId, name, kind}`), when the request has them. */
function offeredChoices(req: PermissionRequest): Choice[] | undefined {
  if (!("options" in req) || !Array.isArray(req.options)) return undefined;
  const choices: Choice[] = [];
  for (const option of req.options) {
    const name = str(option, "name");
    const kind = OPTION_KINDS[str(option, "kind") ?? ""];
    if (name && kind) choices.push({ label: name, ...kind });
  }
  return choices.length ? choices : undefined;
}

/** What the user can answer: the agent's own options, else Allow, Always allow (when a rule is
 * offered) and Reject. */
function choicesFor(req: PermissionRequest): Choice[] {
  const offered = offeredChoices(req);
  if (offered) return offered;
  const rule = alwaysRule(req);
  return [
    { label: "Allow", decision: "allow", className: "perm-allow" },
    ...(rule
      ? [
          {
            label: (
              <>
                Always allow <code class="rule">{rule}</code>
              </>
            ),
            decision: "always" as const,
            className: "perm-always",
            title: `Adds the rule ${rule}`,
          },
        ]
      : []),
    { label: "Reject", decision: "deny", className: "perm-deny" },
  ];
}

function PermissionBody({ row, accepted, setAccepted }: { row: PermissionRow; accepted: boolean[] | undefined; setAccepted(next: boolean[]): void }) {
  const req = row.req;
  const input = req.input;
  const command = req.kind === "execute" ? str(input, "command") : undefined;
  if (command !== undefined) {
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
    const plan = str(input, "plan") ?? store.planFor(req.toolUseId) ?? "";
    return plan ? (
      <div class="perm-plan">
        <Markdown text={plan} className="plan-md" />
      </div>
    ) : (
      <div class="muted small">Claude has finished planning and wants to start coding.</div>
    );
  }
  if (req.kind === "edit" || req.review) {
    const path = req.review?.path ?? str(input, "file_path") ?? str(input, "notebook_path") ?? "";
    const hunks = req.review?.hunks ?? hunksFromInput(req.toolName, input) ?? [];
    return (
      <div class="perm-edit">
        <div class="perm-file">
          {path ? <FileLink path={path} label={path} /> : null}
          {hunks.length ? <DiffStats hunks={hunks} /> : null}
          <span class="spacer" />
          {req.review ? (
            <button
              type="button"
              class="button button-secondary button-small"
              onClick={() => post({ type: "openDiff", requestId: req.id })}
            >
              <Icon name="diff" /> Open diff
            </button>
          ) : null}
        </div>
        {accepted && req.review ? (
          <fieldset class="perm-hunks" disabled={!!row.decided}>
            <legend class="muted small">Hunks to write (the diff is in the editor)</legend>
            {req.review.hunks.map((hunk, i) => (
              <label key={i} class="perm-hunk" title={hunkGist(hunk)}>
                <input
                  type="checkbox"
                  checked={accepted[i]}
                  data-hunk={i}
                  onChange={(e) => setAccepted(accepted.map((v, j) => (j === i ? (e.target as HTMLInputElement).checked : v)))}
                />
                <span class="perm-hunk-lines">{hunkLines(hunk)}</span>
                <DiffStats hunks={[hunk]} />
                <code class="perm-hunk-gist">{hunkGist(hunk)}</code>
              </label>
            ))}
          </fieldset>
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
  const [typed, setTyped] = useState("");
  // Per-hunk review: offered when the change has more than one hunk.
  const reviewHunks = req.review?.hunks.length ?? 0;
  const [accepted, setAccepted] = useState<boolean[] | undefined>(reviewHunks > 1 ? req.review!.hunks.map(() => true) : undefined);
  // "Always allow" that saves rules: where to, chosen on the card.
  const [choosing, setChoosing] = useState(false);
  const partial = accepted && accepted.some((a) => !a) ? accepted.flatMap((a, i) => (a ? [i] : [])) : undefined;
  const noneAccepted = partial !== undefined && partial.length === 0;
  const extras = (destination?: RuleScope): Extras => ({ ...(partial ? { acceptedHunks: partial } : {}), ...(destination ? { destination } : {}) });
  const allowRef = useRef<HTMLButtonElement>(null);
  const isPlan = req.toolName === "ExitPlanMode";
  const headingId = `perm-h-${req.id}`;
  const decided = !!row.decided;

  useEffect(() => {
    if (autoFocus) allowRef.current?.focus();
  }, []);

  const form = req.form ?? undefined;
  const title = isPlan ? "Ready to code?" : form ? (req.title ?? "Question for you") : `Allow ${req.toolName}?`;
  const reason = form ? undefined : (req.reason ?? req.decisionReason);
  let buttons: ComponentChildren;
  if (form) {
    buttons = null;
  } else if (isPlan) {
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
        <button type="button" class="button button-secondary perm-deny" disabled={decided} onClick={() => decide(row, "deny", typed)}>
          No, keep planning
        </button>
      </>
    );
  } else if (choosing) {
    buttons = (
      <div class="perm-destinations" role="group" aria-label="Where to save the rule">
        <div class="perm-rule-text">
          Save <code class="rule">{(req.alwaysRules ?? []).join(", ")}</code> for:
        </div>
        {RULE_DESTINATIONS.map((d, i) => (
          <button
            key={d.scope}
            ref={i === 0 ? allowRef : undefined}
            type="button"
            class="button button-secondary perm-destination"
            data-destination={d.scope}
            disabled={decided}
            title={d.file ? `Adds the rule to ${d.file}` : "Until this session ends; written nowhere"}
            onClick={() => decide(row, "always", undefined, undefined, extras(d.scope))}
          >
            <span>{d.label}</span>
            {d.file ? <span class="muted small perm-destination-file">{d.file}</span> : null}
          </button>
        ))}
        <span class="perm-destination-links">
          <button type="button" class="link-button perm-destination-back" onClick={() => setChoosing(false)}>
            Back
          </button>
          <button type="button" class="link-button perm-rules-link" onClick={() => post({ type: "permissionRules" })}>
            Rules in effect…
          </button>
        </span>
      </div>
    );
  } else {
    const choices = choicesFor(req);
    const focused = choices.find((c) => c.decision !== "deny") ?? choices[0];
    // Tether's own "Always allow" with rules asks where to save them; an agent's own "always"
    // option keeps its meaning and is answered as it is.
    const asksWhere = (req.alwaysRules ?? []).length > 0 && !req.suppressAlwaysAllow && (req.options ?? []).some((o) => o.optionId === "always");
    buttons = choices.map((c, i) => {
      const allowing = c.decision !== "deny";
      const label = allowing && partial && !noneAccepted ? <>{c.label} <span class="perm-partial">({partial.length} of {reviewHunks} hunks)</span></> : c.label;
      return (
        <button
          key={i}
          ref={c === focused ? allowRef : undefined}
          type="button"
          class={`button ${i === 0 ? "" : "button-secondary "}${c.className}`}
          disabled={decided || (allowing && noneAccepted)}
          title={c.title}
          onClick={() => {
            if (c.decision === "always" && asksWhere) setChoosing(true);
            else decide(row, c.decision, c.decision === "deny" ? typed : undefined, undefined, extras());
          }}
        >
          {label}
          {c.decision === "always" && asksWhere ? "…" : null}
        </button>
      );
    });
  }

  return (
    <section
      class={`perm-card${decided ? " perm-decided" : ""}`}
      data-perm-card={req.id}
      role="region"
      aria-labelledby={headingId}
      onKeyDown={(e) => {
        if (e.key === "Escape" && !decided) {
          const t = e.target as HTMLElement;
          if (t.tagName === "INPUT" && typed) {
            setTyped("");
            return;
          }
        }
      }}
    >
      <div class="perm-head">
        <Icon name={isPlan ? "list-ordered" : form ? "question" : "shield"} />
        <h2 id={headingId} class="perm-title">
          {title}
        </h2>
        {req.agentId ? (
          <span class="badge badge-info perm-agent" title={`Agent ${req.agentId}`}>
            <Icon name="agent" /> {`subagent ${req.agentId}`}
          </span>
        ) : null}
      </div>
      {req.title && !isPlan && !form ? <div class="perm-subtitle">{req.title}</div> : null}
      {req.description && req.description !== req.title ? <div class="perm-desc muted">{req.description}</div> : null}
      {reason ? (
        <div class="perm-reason">
          <Icon name="warning" /> {reason}
        </div>
      ) : null}
      {isPlan ? (
        <div class="muted small perm-plan-note">
          The plan is open in an editor: comment on its lines there; "No, keep planning" sends your comments.
        </div>
      ) : null}
      {form ? (
        <QuestionFormView
          form={form}
          title={title}
          disabled={decided}
          onSubmit={(answers) => decide(row, "allow", undefined, answers)}
          onSkip={() => decide(row, "deny")}
        />
      ) : (
        <>
          <PermissionBody row={row} accepted={accepted} setAccepted={setAccepted} />
          <div class="perm-actions" role="group" aria-label="Decision">
            {buttons}
          </div>
        </>
      )}
      {form ? null : <input
        type="text"
        class="input perm-reason-input"
        placeholder={isPlan ? "What should change in the plan? (optional)" : "Reason or what to do instead (optional)"}
        aria-label={isPlan ? "Feedback on the plan" : "Reason for rejecting"}
        value={typed}
        disabled={decided}
        onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.isComposing) {
            e.preventDefault();
            decide(row, "deny", typed);
          }
        }}
      />}
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
