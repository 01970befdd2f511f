// The frame every tool call is drawn in (header with toggle, label, summary, badges, status; an
// expandable body), and the small parts the per-family views share.

import type { ComponentChildren } from "preact";
import { store, type ToolCall } from "../../store";
import { splitLines } from "../../util";
import { FileLink, Icon } from "../common";
import { creationHunks, DiffView, replacementHunks } from "../Diff";

/** Output blocks show this many lines (the last ones) before "Show all". */
const OUTPUT_COLLAPSED_LINES = 20;
const OUTPUT_MAX_CHARS = 200_000;

function StatusIcon({ call }: { call: ToolCall }) {
  if (call.awaitingApproval) {
    return <Icon name="shield" className="status-icon awaiting" label="Awaiting approval" />;
  }
  switch (call.status) {
    case "running":
      return <Icon name="loading" className="status-icon codicon-modifier-spin running" label="Running" />;
    case "ok":
      return <Icon name="check" className="status-icon ok" label="Succeeded" />;
    case "error":
      return <Icon name="error" className="status-icon failed" label="Failed" />;
    default:
      return <Icon name="circle-slash" className="status-icon cancelled" label="Cancelled" />;
  }
}

/** Text output, collapsed to its last lines. */
export function OutputBlock({
  text,
  call,
  flag,
  className,
  label,
  collapsedLines = OUTPUT_COLLAPSED_LINES,
}: {
  text: string;
  call?: ToolCall;
  flag: string;
  className?: string;
  label?: string;
  collapsedLines?: number;
}) {
  const expanded = call ? !!call.ui[flag] : false;
  const capped = text.length > OUTPUT_MAX_CHARS ? text.slice(0, OUTPUT_MAX_CHARS) : text;
  const lines = splitLines(capped);
  const total = lines.length;
  const showAll = expanded || total <= collapsedLines;
  const shown = showAll ? capped.replace(/\n$/, "") : lines.slice(total - collapsedLines).join("\n");
  return (
    <div class={`output ${className ?? ""}`}>
      {label ? <div class="output-label">{label}</div> : null}
      {!showAll ? (
        <button
          type="button"
          class="link-button output-more"
          aria-expanded="false"
          onClick={() => call && store.toggleCall(call, flag, true)}
        >
          {`Show all ${total} lines (${total - collapsedLines} hidden)`}
        </button>
      ) : null}
      <pre class="output-text">{shown}</pre>
      {text.length > OUTPUT_MAX_CHARS ? <div class="muted small">{`Output cut at ${OUTPUT_MAX_CHARS} characters`}</div> : null}
      {expanded && total > collapsedLines ? (
        <button
          type="button"
          class="link-button output-more"
          aria-expanded="true"
          onClick={() => call && store.toggleCall(call, flag, false)}
        >
          Show less
        </button>
      ) : null}
    </div>
  );
}

interface FrameProps {
  call: ToolCall;
  icon: string;
  label: string;
  summary?: ComponentChildren;
  badges?: ComponentChildren;
  sub?: ComponentChildren;
  /** The expandable body. Omit for calls with no body. */
  body?: ComponentChildren;
  defaultOpen?: boolean;
  /** Always shown under the header (e.g. errors). */
  after?: ComponentChildren;
}

export function ToolFrame({ call, icon, label, summary, badges, sub, body, defaultOpen = false, after }: FrameProps) {
  const hasBody = body !== undefined && body !== null && body !== false;
  const open = hasBody && (call.ui.open ?? defaultOpen);
  const bodyId = `tb-${call.id}`;
  return (
    <div
      class={`tool tool-${call.status}${call.awaitingApproval ? " tool-awaiting" : ""}`}
      data-tool={call.name}
      data-status={call.awaitingApproval ? "awaiting" : call.status}
      data-call-id={call.id}
    >
      <div
        class={`tool-head${hasBody ? " clickable" : ""}`}
        onClick={(e) => {
          if (!hasBody) return;
          const t = e.target as HTMLElement;
          if (t.closest("a,button,input,textarea")) return;
          store.toggleCall(call, "open", !open);
        }}
      >
        {hasBody ? (
          <button
            type="button"
            class="tool-toggle"
            aria-expanded={open}
            aria-controls={bodyId}
            aria-label={`${open ? "Collapse" : "Expand"} ${label}`}
            onClick={() => store.toggleCall(call, "open", !open)}
          >
            <Icon name={open ? "chevron-down" : "chevron-right"} />
          </button>
        ) : (
          <span class="tool-toggle-spacer" />
        )}
        <Icon name={icon} className="tool-icon" />
        <span class="tool-label">{label}</span>
        {summary !== undefined ? <span class="tool-summary">{summary}</span> : null}
        <span class="tool-badges">{badges}</span>
        <StatusIcon call={call} />
      </div>
      {sub ? <div class="tool-sub">{sub}</div> : null}
      {call.refusal !== undefined ? <Refusal why={call.refusal} /> : null}
      {after}
      <ToolContentView call={call} />
      {open ? (
        <div class="tool-body" id={bodyId}>
          {body}
        </div>
      ) : null}
    </div>
  );
}

/** The file changes and terminals an ACP agent shows for a call, always in view (a terminal
 * streams as it runs). Text items are the call's result, shown with it. */
function ToolContentView({ call }: { call: ToolCall }) {
  const items = (call.content ?? []).filter((item) => item.type !== "text");
  if (!items.length) return null;
  return (
    <div class="tool-content">
      {items.map((item, i) => {
        if (item.type === "diff") {
          const hunks = item.oldText === null ? creationHunks(item.newText) : replacementHunks(item.oldText, item.newText);
          return (
            <div class="tool-content-diff" key={`d${i}`}>
              <FileLink path={item.path} />
              <DiffView hunks={hunks} expanded={!!call.ui[`diff${i}`]} onToggle={() => store.toggleCall(call, `diff${i}`)} />
            </div>
          );
        }
        if (item.type !== "terminal") return null;
        const terminal = store.terminal(item.terminalId);
        const ended = terminal?.exited
          ? terminal.exitCode !== null
            ? `exit code ${terminal.exitCode}`
            : `ended by ${terminal.signal ?? "a signal"}`
          : undefined;
        return (
          <div class="tool-content-terminal" key={`t${i}`} data-terminal-id={item.terminalId}>
            {terminal?.output ? <OutputBlock text={terminal.output} call={call} flag={`term${i}`} label="Output" /> : null}
            {ended ? <div class="muted small">{ended}</div> : null}
          </div>
        );
      })}
    </div>
  );
}

/** Tether refused the call without asking anyone: said plainly, in place of a generic failure. */
function Refusal({ why }: { why: string }) {
  const planMode = /^plan mode\b/i.test(why);
  const detail = planMode ? why.replace(/^plan mode:?\s*/i, "") : why;
  return (
    <div class="tool-refusal" role="note">
      <Icon name="circle-slash" />{" "}
      {planMode ? <strong>Refused in plan mode</strong> : <strong>Refused by Tether</strong>}
      {detail ? `: ${detail}` : null}
    </div>
  );
}

/** A failed call's message, always in view (a refusal says its own). */
/** A failed call's error: its first line, the rest on demand (Details). */
export function ErrorText({ call }: { call: ToolCall }) {
  if (call.status !== "error" || !call.result || call.refusal !== undefined) return null;
  const text = (call.result.content || "Failed").trim();
  const [first, ...rest] = text.split("\n");
  const open = !!call.ui.errDetails;
  return (
    <div class="tool-error-text">
      <div class="error-line">
        <Icon name="error" />
        <span class="error-line-text">{first}</span>
        {rest.length ? (
          <button type="button" class="link-button" aria-expanded={open} onClick={() => store.toggleCall(call, "errDetails")}>
            {open ? "Hide details" : "Details"}
          </button>
        ) : null}
      </div>
      {open ? <OutputBlock text={rest.join("\n")} call={call} flag="errAll" collapsedLines={12} /> : null}
    </div>
  );
}

/** The result text of a call that succeeded ("" otherwise). */
export function okContent(call: ToolCall): string {
  return call.result && !call.result.isError ? call.result.content : "";
}

export function Badge({ children, tone, title }: { children: ComponentChildren; tone?: string; title?: string }) {
  return (
    <span class={`badge${tone ? " badge-" + tone : ""}`} title={title}>
      {children}
    </span>
  );
}

export function Code({ children }: { children: ComponentChildren }) {
  return <code class="inline-code">{children}</code>;
}

/** The command line of a shell call (first line only while folded). */
export function CommandLine({ command, folded }: { command: string; folded: boolean }) {
  const multiline = command.includes("\n");
  return (
    <pre class="command-line" title={command}>
      <span class="prompt" aria-hidden="true">
        ${" "}
      </span>
      {multiline && folded ? `${command.split("\n")[0] ?? ""} …` : command}
    </pre>
  );
}
