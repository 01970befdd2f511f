import { useEffect, useRef } from "preact/hooks";
import type { HistorySession, UiState } from "../protocol";
import { modeLook, PERMISSION_MODE_INFO } from "../modes";
import { store } from "../store";
import { post } from "../vscode";
import { plural, relativeTime } from "../util";
import { Picker } from "./Picker";
import { Icon } from "./common";

const WHERE: Record<string, { label: string; icon: string; help: string }> = {
  local: {
    label: "Local",
    icon: "device-desktop",
    help: "Claude runs on this machine and works on local files.",
  },
  "ui-remote": {
    label: "UI ↔ remote",
    icon: "remote",
    help: "Claude runs on this machine; files and commands go to the remote workspace.",
  },
  workspace: {
    label: "Workspace",
    icon: "server",
    help: "Claude runs on the remote workspace host.",
  },
};

export function Header({
  state,
  initialized,
  historyOpen,
  onToggleHistory,
}: {
  state: UiState;
  initialized: boolean;
  historyOpen: boolean;
  onToggleHistory: () => void;
}) {
  const modes = state.modes.length ? state.modes : PERMISSION_MODE_INFO;
  const look = modeLook(state.mode);
  const models = state.models.length ? state.models : state.model ? [{ id: state.model, label: state.model }] : [];
  const where = WHERE[state.where] ?? WHERE.local!;
  return (
    <header class="header" role="toolbar" aria-label="Chat controls">
      <Picker
        name="Mode"
        icon={look?.icon ?? "shield"}
        value={state.mode}
        options={modes}
        disabled={!initialized}
        className={`mode-picker mode-${state.mode}`}
        buttonLabel={look?.short}
        onSelect={(mode) => {
          post({ type: "setMode", mode });
          store.setLocalState({ mode });
        }}
      />
      <Picker
        name="Model"
        icon="sparkle"
        value={state.model}
        options={models}
        disabled={!initialized}
        className="model-picker"
        onSelect={(model) => {
          post({ type: "setModel", model });
          store.setLocalState({ model });
        }}
      />
      <span class="spacer" />
      <span
        class={`where-badge where-${state.where}`}
        title={`${where.help}${state.workspaceLabel ? `\n${state.workspaceLabel}` : ""}`}
        aria-label={`Runs: ${where.label}${state.workspaceLabel ? `, ${state.workspaceLabel}` : ""}`}
        role="note"
      >
        <Icon name={where.icon} />
        <span class="where-label">{where.label}</span>
      </span>
      <button
        type="button"
        class={`icon-button history-button${historyOpen ? " active" : ""}`}
        title="Session history"
        aria-label="Session history"
        aria-expanded={historyOpen}
        aria-controls="history-panel"
        disabled={!initialized}
        onClick={onToggleHistory}
      >
        <Icon name="history" />
      </button>
      <button
        type="button"
        class="icon-button new-session-button"
        title="New session"
        aria-label="New session"
        disabled={!initialized}
        onClick={() => post({ type: "newSession" })}
      >
        <Icon name="add" />
      </button>
    </header>
  );
}

export function HistoryPanel({
  sessions,
  currentId,
  onClose,
}: {
  sessions: HistorySession[] | undefined;
  currentId?: string;
  onClose: (focusButton: boolean) => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const first =
      ref.current?.querySelector<HTMLElement>(".history-item") ?? ref.current?.querySelector<HTMLElement>(".history-close");
    first?.focus();
  }, [sessions === undefined]);
  const sorted = sessions
    ? [...sessions].sort((a, b) => {
        const ta = typeof a.updatedAt === "number" ? a.updatedAt : Date.parse(a.updatedAt);
        const tb = typeof b.updatedAt === "number" ? b.updatedAt : Date.parse(b.updatedAt);
        return (tb || 0) - (ta || 0);
      })
    : undefined;
  return (
    <div
      class="history-panel"
      id="history-panel"
      role="dialog"
      aria-label="Session history"
      ref={ref}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          onClose(true);
          return;
        }
        if (e.key === "ArrowDown" || e.key === "ArrowUp") {
          const items = Array.from(ref.current?.querySelectorAll<HTMLElement>(".history-item") ?? []);
          const i = items.indexOf(document.activeElement as HTMLElement);
          if (items.length) {
            e.preventDefault();
            const next = e.key === "ArrowDown" ? Math.min(items.length - 1, i + 1) : Math.max(0, i - 1);
            items[next]!.focus();
          }
        }
      }}
    >
      <div class="history-head">
        <h2>Sessions</h2>
        <span class="spacer" />
        <button type="button" class="icon-button history-close" aria-label="Close history" title="Close" onClick={() => onClose(true)}>
          <Icon name="close" />
        </button>
      </div>
      {sorted === undefined ? (
        <div class="history-empty muted" role="status">
          <Icon name="loading" className="codicon-modifier-spin" /> Loading sessions…
        </div>
      ) : sorted.length === 0 ? (
        <div class="history-empty" role="status">
          <Icon name="history" />
          <p>No past sessions yet.</p>
          <p class="muted small">Sessions you start here appear in this list and can be resumed.</p>
        </div>
      ) : (
        <ul class="history-list" aria-label="Past sessions">
          {sorted.map((s) => (
            <li key={s.id}>
              <button
                type="button"
                class={`history-item${s.id === currentId ? " current" : ""}`}
                data-session-id={s.id}
                aria-current={s.id === currentId ? "true" : undefined}
                onClick={() => {
                  post({ type: "resume", sessionId: s.id });
                  onClose(false);
                }}
              >
                <span class="history-title">{s.title || "Untitled session"}</span>
                <span class="history-meta muted small">
                  {relativeTime(s.updatedAt)} · {plural(s.messageCount, "message")}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
