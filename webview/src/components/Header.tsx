import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { HistoryActions, HistorySession, UiState } from "@tether/contract/protocol";
import { modeLook, PERMISSION_MODE_INFO } from "@tether/contract/modes";
import { isModelOption } from "@tether/contract/options";
import { store } from "../store";
import { post } from "../vscode";
import { plural, relativeTime } from "../util";
import { Picker } from "./Picker";
import { ProjectSetup } from "./ProjectSetup";
import { Icon } from "./common";
import { memo, shallowEqual } from "../memo";

/** The gateway connection's look in the header (codicons). */
const GATEWAY_ICONS: Record<NonNullable<UiState["gateway"]>["state"], string> = {
  disconnected: "debug-disconnect",
  connecting: "sync",
  connected: "plug",
  error: "error",
};

const WHERE: Record<string, { label: string; icon: string; help: string }> = {
  local: {
    label: "Local",
    icon: "device-desktop",
    help: "The agent runs on this machine and works on local files.",
  },
  "ui-remote": {
    label: "UI ↔ remote",
    icon: "remote",
    help: "The agent runs on this machine; files and commands go to the remote workspace.",
  },
  workspace: {
    label: "Workspace",
    icon: "server",
    help: "The agent runs on the remote workspace host.",
  },
};

/** The agent's own options besides its model (which has the model picker): its modes, reasoning
 * effort, switches. */
function AgentOptions({ state, initialized }: { state: UiState; initialized: boolean }) {
  const options = (state.agentOptions ?? []).filter((o) => !isModelOption(o));
  return (
    <>
      {options.map((option) =>
        option.kind === "boolean" ? (
          <button
            key={option.id}
            type="button"
            class={`icon-button agent-toggle${option.value === "true" ? " active" : ""}`}
            title={option.description ?? option.name}
            aria-pressed={option.value === "true"}
            disabled={!initialized}
            onClick={() => post({ type: "setAgentOption", id: option.id, value: option.value === "true" ? "false" : "true" })}
          >
            {option.name}
          </button>
        ) : (
          <Picker
            key={option.id}
            name={option.name}
            icon={option.category === "mode" ? "robot" : "settings"}
            value={option.value}
            options={option.choices.map((c) => ({ id: c.value, label: c.displayName || c.value, ...(c.description ? { description: c.description } : {}) }))}
            disabled={!initialized}
            className="agent-option-picker"
            onSelect={(value) => post({ type: "setAgentOption", id: option.id, value })}
          />
        ),
      )}
    </>
  );
}

/** A cost as people read it: dollars with a sign, small amounts to a hundredth of a cent. */
export function formatCost(amount: number, currency = "USD"): string {
  const digits = amount !== 0 && Math.abs(amount) < 0.01 ? 4 : 2;
  const value = amount.toFixed(digits);
  return currency === "USD" ? `$${value}` : `${value} ${currency}`;
}

/** How much of the model's context the session uses, and what the session cost so far, when the
 * agent says; the tooltip has what fills the context. */
function ContextMeter({ state }: { state: UiState }) {
  const context = state.context;
  if (!context || context.size <= 0) return null;
  const percent = Math.min(100, Math.round((100 * context.used) / context.size));
  const cost = context.cost !== undefined ? formatCost(context.cost, context.currency) : undefined;
  const parts = (context.breakdown ?? []).map((c) => `${c.name} ${c.tokens.toLocaleString()}`);
  const label = [
    `Context: ${context.used.toLocaleString()} of ${context.size.toLocaleString()} tokens (${percent}%)`,
    ...(parts.length ? [`Used by: ${parts.join(", ")}`] : []),
    ...(cost ? [`Session cost: ${cost}`] : []),
  ].join("\n");
  return (
    <span class="context-meter muted small" title={label} aria-label={label.replace(/\n/g, ". ")} role="note">
      {percent}%{cost ? <span class="context-cost"> · {cost}</span> : null}
    </span>
  );
}

/** What the pickers show: when it changes, they are tried at full width again. */
function pickerSignature(state: UiState): string {
  const options = (state.agentOptions ?? []).map((o) => `${o.id}=${o.value}`);
  return [state.agent, state.mode, state.model, ...options].join("|");
}

/** How far the pickers' labels and the header run past their boxes, in px. */
function overflowOf(header: HTMLElement): number {
  let deficit = Math.max(0, header.scrollWidth - header.clientWidth);
  for (const el of header.querySelectorAll<HTMLElement>(".picker-label, .agent-toggle")) {
    deficit += Math.max(0, el.scrollWidth - el.clientWidth);
  }
  return deficit;
}

/** The header's pickers in a row while they fit; when they do not (their labels would be cut),
 * one "Options" button whose menu holds them, each with its name. Measured after each render and
 * on every resize: collapsed at the width they needed, expanded again once the header is that
 * wide (or what they show changed). */
function CollapsingPickers({ signature, children }: { signature: string; children: ComponentChildren }) {
  const anchorRef = useRef<HTMLSpanElement>(null);
  const [collapsed, setCollapsed] = useState(false);
  const [open, setOpen] = useState(false);
  const expandAt = useRef(0);
  const header = () => anchorRef.current?.closest<HTMLElement>(".header") ?? null;

  useEffect(() => setCollapsed(false), [signature]);
  useLayoutEffect(() => {
    const h = header();
    if (!h || collapsed) return;
    const deficit = overflowOf(h);
    if (deficit > 0) {
      expandAt.current = h.clientWidth + deficit;
      setCollapsed(true);
    }
  });
  useEffect(() => {
    const h = header();
    if (!h || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => {
      if (collapsed && h.clientWidth >= expandAt.current) setCollapsed(false);
      else if (!collapsed && overflowOf(h) > 0) {
        expandAt.current = h.clientWidth + overflowOf(h);
        setCollapsed(true);
      }
    });
    observer.observe(h);
    return () => observer.disconnect();
  }, [collapsed]);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!anchorRef.current?.contains(e.target as Node)) setOpen(false);
    };
    // Escape closes the menu wherever the focus is (on the Options button after a click, too),
    // but a picker's open list inside it closes first.
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !(e.target instanceof Element && e.target.closest(".picker-list"))) setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  if (!collapsed) return <span ref={anchorRef} class="header-pickers">{children}</span>;
  return (
    <span ref={anchorRef} class="header-pickers collapsed">
      <button
        type="button"
        class="picker-button options-menu-button"
        aria-haspopup="dialog"
        aria-expanded={open}
        title="Agent, mode, model and the agent's options"
        onClick={() => setOpen(!open)}
      >
        <Icon name="settings" />
        <span class="picker-label">Options</span>
        <Icon name="chevron-down" className="picker-chevron" />
      </button>
      {open ? (
        <div class="options-menu" role="dialog" aria-label="Agent, mode and model">
          {children}
        </div>
      ) : null}
    </span>
  );
}

interface HeaderProps {
  state: UiState;
  initialized: boolean;
  historyOpen: boolean;
  onToggleHistory: () => void;
  /** The canvas panel's button, when the session has a canvas. */
  canvas?: { open: boolean; filled: boolean; onToggle: () => void } | undefined;
  /** Where the page is: the sidebar offers to open the session in an editor tab. */
  surface: "sidebar" | "editor";
}

/** The header re-renders only when its props change (not on every streamed delta), so its layout
 * read (the pickers' overflow) does not run per delta either. */
export const Header = memo(HeaderView, shallowEqual);

function HeaderView({ state, initialized, historyOpen, onToggleHistory, canvas, surface }: HeaderProps) {
  const modes = state.modes.length ? state.modes : PERMISSION_MODE_INFO;
  const look = modeLook(state.mode);
  const models = state.models.length ? state.models : state.model ? [{ id: state.model, label: state.model }] : [];
  const where = WHERE[state.where] ?? WHERE.local!;
  const agents = state.agents ?? [];
  const authMethods = state.authMethods ?? [];
  return (
    <header class="header" role="toolbar" aria-label="Chat controls" title={state.title ?? undefined}>
      <CollapsingPickers signature={pickerSignature(state)}>
      {agents.length > 1 ? (
        <Picker
          name="Agent"
          icon="hubot"
          value={state.agent ?? ""}
          options={agents}
          disabled={!initialized}
          className="agent-picker"
          onSelect={(agent) => {
            post({ type: "setAgent", agent });
            store.setLocalState({ agent });
          }}
        />
      ) : null}
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
      <AgentOptions state={state} initialized={initialized} />
      </CollapsingPickers>
      <span class="spacer" />
      <ContextMeter state={state} />
      {authMethods.length ? (
        <Picker
          name="Log in"
          icon="account"
          value=""
          options={authMethods.map((m) => ({ id: m.id, label: m.name, ...(m.description ? { description: m.description } : {}) }))}
          disabled={!initialized}
          className="login-picker"
          buttonLabel="Log in"
          onSelect={(methodId) => post({ type: "authenticate", methodId })}
        />
      ) : null}
      {state.gateway ? (
        <span
          class={`gateway-badge gateway-${state.gateway.state}`}
          title={`Gateway: ${state.gateway.state}${state.gateway.message ? `\n${state.gateway.message}` : ""}`}
          aria-label={`Gateway ${state.gateway.state}`}
          role="status"
        >
          <Icon name={GATEWAY_ICONS[state.gateway.state]} />
          <span class="gateway-label">{state.gateway.state}</span>
        </span>
      ) : null}
      <ProjectSetup state={state} />
      <span
        class={`where-badge where-${state.where}`}
        title={`${where.help}${state.workspaceLabel ? `\n${state.workspaceLabel}` : ""}`}
        aria-label={`Runs: ${where.label}${state.workspaceLabel ? `, ${state.workspaceLabel}` : ""}`}
        role="note"
      >
        <Icon name={where.icon} />
        <span class="where-label">{where.label}</span>
      </span>
      {canvas ? (
        <button
          type="button"
          class={`icon-button canvas-button${canvas.open ? " active" : ""}${canvas.filled ? " filled" : ""}`}
          title={canvas.filled ? "Canvas (has content)" : "Canvas"}
          aria-label={canvas.filled ? "Canvas, has content" : "Canvas"}
          aria-expanded={canvas.open}
          aria-controls="canvas-panel"
          onClick={canvas.onToggle}
        >
          <Icon name="layout" />
        </button>
      ) : null}
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
      {surface === "sidebar" ? (
        <button
          type="button"
          class="icon-button open-in-editor-button"
          title="Open in an editor tab"
          aria-label="Open in an editor tab"
          disabled={!initialized}
          onClick={() => post({ type: "openInEditor" })}
        >
          <Icon name="link-external" />
        </button>
      ) : null}
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
  offers,
  actions,
  onClose,
}: {
  sessions: HistorySession[] | undefined;
  currentId?: string;
  /** The session operations the agent offers: fork and close show where it offers them. */
  offers?: readonly string[];
  /** Rename and delete, where the agent allows them. */
  actions?: HistoryActions;
  onClose: (focusButton: boolean) => void;
}) {
  const [query, setQuery] = useState("");
  const canFork = offers?.includes("fork") ?? false;
  const canClose = offers?.includes("close") ?? false;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const first =
      ref.current?.querySelector<HTMLElement>(".history-item") ?? ref.current?.querySelector<HTMLElement>(".history-close");
    first?.focus();
  }, [sessions === undefined]);
  const needle = query.trim().toLowerCase();
  const sorted = sessions
    ? sessions.filter((s) => !needle || (s.title || "").toLowerCase().includes(needle)).sort((a, b) => {
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
      {sessions?.length ? (
        <input
          type="search"
          class="history-search"
          placeholder="Search sessions"
          aria-label="Search sessions"
          value={query}
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
        />
      ) : null}
      {sorted === undefined ? (
        <div class="history-empty muted" role="status">
          <Icon name="loading" className="codicon-modifier-spin" /> Loading sessions…
        </div>
      ) : sorted.length === 0 && needle ? (
        <div class="history-empty muted" role="status">
          <p>No session matches.</p>
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
                  {relativeTime(s.updatedAt)}
                  {s.messageCount ? ` · ${plural(s.messageCount, "message")}` : ""}
                </span>
              </button>
              {actions?.rename ? (
                <button
                  type="button"
                  class="icon-button history-action history-rename"
                  aria-label={`Rename ${s.title || "this session"}`}
                  title="Rename"
                  onClick={() => post({ type: "renameSession", sessionId: s.id })}
                >
                  <Icon name="edit" />
                </button>
              ) : null}
              {actions?.delete && s.id !== currentId ? (
                <button
                  type="button"
                  class="icon-button history-action history-delete"
                  aria-label={`Delete ${s.title || "this session"}`}
                  title="Delete"
                  onClick={() => post({ type: "deleteSession", sessionId: s.id })}
                >
                  <Icon name="trash" />
                </button>
              ) : null}
              {canFork ? (
                <button
                  type="button"
                  class="icon-button history-action history-fork"
                  aria-label={`Fork ${s.title || "this session"}`}
                  title="Fork: a new session from this one"
                  onClick={() => {
                    post({ type: "forkSession", sessionId: s.id });
                    onClose(false);
                  }}
                >
                  <Icon name="repo-forked" />
                </button>
              ) : null}
              {canClose && s.id === currentId ? (
                <button
                  type="button"
                  class="icon-button history-action history-end"
                  aria-label="Close this session in the agent"
                  title="Close: end this session in the agent"
                  onClick={() => {
                    post({ type: "closeSession" });
                    onClose(false);
                  }}
                >
                  <Icon name="stop-circle" />
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
