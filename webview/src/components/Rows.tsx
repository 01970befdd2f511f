import type { ErrorKind, RuleScope } from "@tether/core";
import { useState } from "preact/hooks";
import { memo } from "../memo";
import type { Attachment } from "@tether/contract/protocol";
import {
  errorText,
  isRetryable,
  store,
  type AssistantRow,
  type AuthRow,
  type DoneRow,
  type ErrorRow,
  type NoticeRow,
  type PermissionRow,
  type RetryRow,
  type Row,
  type UserRow,
} from "../store";
import { post } from "../vscode";
import { basename, formatCost, formatDuration, formatTokens, str } from "../util";
import { FileLink, Icon } from "./common";
import { StreamingMarkdown } from "./Markdown";
import { alwaysRule, RULE_DESTINATIONS } from "./Permission";
import { MessageActions } from "./MessageActions";
import { ThinkingView } from "./Thinking";
import { ToolCallView } from "./tools";

export function AttachmentChipStatic({ a }: { a: Attachment }) {
  if (a.kind === "image") {
    return (
      <span class="chip chip-image" title={a.mimeType ?? "image"}>
        {a.dataUrl && a.dataUrl.startsWith("data:image/") ? <img src={a.dataUrl} alt="Attached image" /> : <Icon name="file-media" />}
      </span>
    );
  }
  const label =
    a.kind === "selection" && a.range
      ? `${basename(a.path ?? "selection")}:${a.range.startLine}-${a.range.endLine}`
      : basename(a.path ?? "file");
  return (
    <span class="chip" title={a.path}>
      <Icon name={a.kind === "selection" ? "list-selection" : "file"} />
      {a.path ? <FileLink path={a.path} line={a.range?.startLine} label={label} /> : label}
    </span>
  );
}

function UserRowView({ row }: { row: UserRow }) {
  return (
    <div class="msg msg-user" tabIndex={row.messageId ? 0 : undefined} data-message-id={row.messageId}>
      {row.attachments.length ? (
        <div class="chips">
          {row.attachments.map((a, i) => (
            <AttachmentChipStatic key={i} a={a} />
          ))}
        </div>
      ) : null}
      <div class="user-text">{row.text}</div>
      {row.messageId ? <MessageActions messageId={row.messageId} /> : null}
    </div>
  );
}

function AssistantRowView({ row }: { row: AssistantRow }) {
  const msg = row.msg;
  const lastIndex = msg.parts.length - 1;
  return (
    <div class="msg msg-assistant" data-message-id={msg.id} data-streaming={msg.streaming ? "true" : "false"}>
      {msg.parts.map((p, i) =>
        p.kind === "thinking" ? (
          <ThinkingView
            key={i}
            part={p}
            streaming={msg.streaming && i === lastIndex}
            onToggle={() => store.toggleRow(row)}
          />
        ) : (
          <StreamingMarkdown key={i} part={p} streaming={msg.streaming && i === lastIndex} />
        ),
      )}
      {msg.streaming && msg.parts.length === 0 ? (
        <div class="muted small">
          <Icon name="loading" className="codicon-modifier-spin" />
        </div>
      ) : null}
    </div>
  );
}

function permissionSubject(row: PermissionRow): string {
  const req = row.req;
  return (
    req.title ||
    str(req.input, "command") ||
    str(req.input, "file_path") ||
    str(req.input, "path") ||
    str(req.input, "pattern") ||
    str(req.input, "url") ||
    req.description ||
    ""
  );
}

function PermissionLineView({ row }: { row: PermissionRow }) {
  const req = row.req;
  const subject = permissionSubject(row);
  // An open question shows once, as its card in the dock above the composer.
  if (!row.outcome) return null;
  const icon = row.outcome === "allowed" ? "check" : row.outcome === "denied" ? "close" : "circle-slash";
  const verb =
    row.outcome === "allowed" ? (row.always ? "Always allowed" : "Allowed") : row.outcome === "denied" ? "Rejected" : "Cancelled";
  const rule = req.alwaysRules?.length ? req.alwaysRules.join(", ") : alwaysRule(req);
  return (
    <div class={`perm-line perm-${row.outcome}`} data-request-id={req.id} data-outcome={row.outcome}>
      <Icon name={icon} />
      <span>
        {`${verb} `}
        <strong>{req.toolName}</strong>
        {subject ? <span class="muted">{` ${subject}`}</span> : null}
        {row.always && rule ? (
          <span class="muted">
            {" · rule "}
            <code class="inline-code">{rule}</code>
            {row.destination ? ` · ${destinationLabel(row.destination)}` : null}
          </span>
        ) : null}
        {row.outcome === "denied" && row.reason ? <span class="muted">{` — “${row.reason}”`}</span> : null}
      </span>
    </div>
  );
}

function destinationLabel(scope: RuleScope): string {
  const d = RULE_DESTINATIONS.find((x) => x.scope === scope);
  return d?.file ? `saved in ${d.file}` : "for this session";
}

function NoticeRowView({ row }: { row: NoticeRow }) {
  return (
    <div class={`notice notice-${row.level}`} role={row.level === "warning" ? "status" : undefined}>
      <Icon name={row.level === "warning" ? "warning" : "info"} />
      <span>{row.text}</span>
    </div>
  );
}

export function retryText(ev: RetryRow["ev"]): string {
  const secs = Math.max(0, Math.round(ev.delayMs / 1000));
  const error = ev.errorStatus ? `${ev.errorStatus} ${ev.error}` : ev.error;
  return `Retrying in ${secs}s (attempt ${ev.attempt}/${ev.maxRetries}): ${error}`;
}

function RetryRowView({ row }: { row: RetryRow }) {
  return (
    <div class="notice notice-warning notice-retry" role="status">
      <Icon name="sync" />
      <span>{retryText(row.ev)}</span>
    </div>
  );
}

const ERROR_TITLES: Partial<Record<ErrorKind, string>> = {
  notLoggedIn: "Not logged in",
  crash: "Claude Code stopped unexpectedly",
  api: "API error",
  controlRequestFailed: "Protocol error",
};

/** An error as one line (what happened, Details, Retry); the rest on demand. A kind with a title
 * of its own shows the title and keeps the message for Details; any other error's line is its
 * message's first line (a generic "Error" would make the user click to learn anything). Not
 * being logged in shows its hint at once: it says what to do (a general one when it has none). */
function ErrorRowView({ row }: { row: ErrorRow }) {
  const ev = row.ev;
  const [open, setOpen] = useState(ev.kind === "notLoggedIn");
  const kindTitle = ERROR_TITLES[ev.kind];
  const [firstLine = "", ...otherLines] = ev.message.trim().split("\n");
  const title = kindTitle ?? (firstLine || "Error");
  const message = kindTitle || !firstLine ? errorText(ev) : [...otherLines, ...(ev.hint ? [ev.hint] : [])].join("\n").trim();
  return (
    <div class={`error-card error-${ev.kind}`} role="alert">
      <div class="error-head">
        <Icon name="error" />
        <strong class="error-title">{title}</strong>
        {message && message !== title ? (
          <button type="button" class="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? "Hide details" : "Details"}
          </button>
        ) : null}
        <span class="spacer" />
        {isRetryable(ev) || ev.kind === "notLoggedIn" ? (
          <button
            type="button"
            class="button button-secondary error-retry"
            disabled={row.retried}
            onClick={() => {
              post({ type: "retry" });
              store.markErrorRetried(row);
            }}
          >
            <Icon name="refresh" /> {row.retried ? "Retrying…" : "Retry"}
          </button>
        ) : null}
      </div>
      {open ? <div class="error-message">{message}</div> : null}
      {open && ev.kind === "notLoggedIn" && !ev.hint ? (
        <div class="error-hint">
          Run <code class="inline-code">claude</code> once in a terminal on this machine and log in (or set{" "}
          <code class="inline-code">ANTHROPIC_API_KEY</code>), then retry.
        </div>
      ) : null}
    </div>
  );
}

const DONE_LABELS: Record<string, string> = {
  success: "Done",
  error_max_turns: "Stopped: too many turns",
  error_during_execution: "Stopped",
  error_max_budget_usd: "Stopped: budget reached",
};

function DoneRowView({ row }: { row: DoneRow }) {
  const ev = row.ev;
  const parts: string[] = [];
  if (ev.durationMs) parts.push(formatDuration(ev.durationMs));
  if (ev.numTurns) parts.push(`${ev.numTurns} ${ev.numTurns === 1 ? "turn" : "turns"}`);
  const usage = row.usage;
  if (usage) {
    // Cached input is input too.
    const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheCreationTokens;
    parts.push(`${formatTokens(input)} in / ${formatTokens(usage.outputTokens)} out`);
    if (typeof usage.costUsd === "number") parts.push(formatCost(usage.costUsd));
  }
  const label = DONE_LABELS[ev.subtype] ?? (ev.isError ? `Stopped (${ev.subtype})` : "Done");
  return (
    <div class={`done-line${ev.isError ? " done-error" : ""}`}>
      <Icon name={ev.isError ? "debug-stop" : "check-all"} />
      <span>{label}</span>
      {parts.length ? <span class="muted">{` · ${parts.join(" · ")}`}</span> : null}
    </div>
  );
}

/** The agent wants a login before it works: its ways to log in, as buttons. */
function AuthRowView({ row }: { row: AuthRow }) {
  return (
    <div class="auth-row" role="group" aria-label="Log in">
      <Icon name="account" />
      <span class="auth-message">{row.message}</span>
      <span class="auth-methods">
        {row.methods.map((m) => (
          <button key={m.id} type="button" class="button button-secondary" title={m.description ?? m.name} onClick={() => post({ type: "authenticate", methodId: m.id })}>
            {m.name}
          </button>
        ))}
      </span>
    </div>
  );
}

function RowInner({ row }: { row: Row }) {
  switch (row.kind) {
    case "user":
      return <UserRowView row={row} />;
    case "assistant":
      return <AssistantRowView row={row} />;
    case "tool":
      return <ToolCallView call={row.call} v={row.call.v} depth={0} />;
    case "permission":
      return <PermissionLineView row={row} />;
    case "notice":
      return <NoticeRowView row={row} />;
    case "retry":
      return <RetryRowView row={row} />;
    case "error":
      return <ErrorRowView row={row} />;
    case "done":
      return <DoneRowView row={row} />;
    case "auth":
      return <AuthRowView row={row} />;
    case "older":
      return (
        <div class="row-older">
          <button type="button" class="button button-secondary" onClick={() => post({ type: "loadOlder" })}>
            Load earlier messages
          </button>
        </div>
      );
    default:
      return null;
  }
}

export const RowView = memo(
  function RowView({ row }: { row: Row; v: number }) {
    return <RowInner row={row} />;
  },
  (a, b) => a.row === b.row && a.v === b.v,
);

/** The height of `text` wrapped at `charsPerLine` (lines found without splitting: a replay
 * estimates every row of the session). */
function textHeight(text: string, charsPerLine: number): number {
  let lines = 0;
  let start = 0;
  for (;;) {
    const end = text.indexOf("\n", start);
    const length = (end < 0 ? text.length : end) - start;
    lines += Math.max(1, Math.ceil(length / charsPerLine));
    if (end < 0) return lines * 20;
    start = end + 1;
  }
}

/** Height estimate for a row never measured (the list keeps it while the row stays the same
 * object: cheap enough to make again when a list is mounted). */
export function estimateRow(row: Row, width: number): number {
  const charsPerLine = Math.max(20, Math.floor((width - 32) / 7.2));
  switch (row.kind) {
    case "user":
      return 32 + textHeight(row.text, charsPerLine) + (row.attachments.length ? 28 : 0);
    case "assistant": {
      let h = 16;
      for (const p of row.msg.parts) h += p.kind === "thinking" ? 28 : textHeight(p.text, charsPerLine) + 8;
      return h;
    }
    case "tool": {
      const c = row.call;
      if (c.name === "Bash") return 92;
      if (c.name === "Edit" || c.name === "Write" || c.name === "MultiEdit") return 180;
      if (c.name === "TodoWrite") return 40 + 22 * 4;
      if (c.name === "Task" || c.name === "Agent") return c.ui.open ? 200 : 36;
      return 34;
    }
    case "error":
      return 96;
    default:
      return 30;
  }
}

/** Accessible name of a timeline row. */
export function rowLabel(row: Row): string {
  switch (row.kind) {
    case "user":
      return "You";
    case "assistant":
      return store.state.agentLabel ?? "Claude";
    case "tool": {
      const c = row.call;
      const status = c.status === "running" ? "running" : c.status === "ok" ? "done" : c.status === "error" ? "failed" : "cancelled";
      return `Tool ${c.name}, ${status}`;
    }
    case "permission":
      return `Permission request for ${row.req.toolName}${row.outcome ? `, ${row.outcome}` : ", waiting"}`;
    case "error":
      return "Error";
    case "retry":
      return "Retrying";
    case "done":
      return "Turn finished";
    case "auth":
      return "Log in needed";
    case "older":
      return "Earlier messages";
    default:
      return "Notice";
  }
}
