import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "preact/hooks";
import type { TodoItem } from "@tether/core";
import { onStoreSwap, store, type Row } from "../store";
import { tabs } from "../store/tabs";
import { post } from "../vscode";
import { copyText, parseFileHref } from "../util";
import { VirtualList } from "../virtual";
import { Composer } from "./Composer";
import { Header, HistoryPanel } from "./Header";
import { PermissionDock } from "./Permission";
import { RewindDialog } from "./RewindDialog";
import { estimateRow, retryText, rowLabel, RowView } from "./Rows";
import { Icon } from "./common";
import { CanvasPanel } from "./canvas/CanvasPanel";
import { SessionStrip } from "./SessionStrip";
import { TodoList } from "./tools/agents";
import { QueuePanel } from "./QueuePanel";
import { TaskPanels } from "./TaskPanels";

const getKey = (row: Row) => row.key;
const renderRow = (row: Row) => <RowView row={row} v={row.v} />;

function Welcome({ where, label }: { where: string; label: string }) {
  return (
    <div class="welcome">
      <div class="welcome-logo">
        <Icon name="claude" />
      </div>
      <h1>Claude Code, wherever your files are</h1>
      <p class="muted">
        {where === "ui-remote"
          ? `Claude runs on this machine; reads, edits and commands go to ${label || "the remote workspace"}.`
          : where === "workspace"
            ? `Claude runs on ${label || "the workspace host"}.`
            : "Claude runs on this machine."}
      </p>
      <ul class="welcome-hints">
        <li>
          <Icon name="comment" />
          <span>Ask about the code, or describe a change to make.</span>
        </li>
        <li>
          <Icon name="mention" />
          <span>
            Type <kbd>@</kbd> to mention a file; paste an image to attach it.
          </span>
        </li>
        <li>
          <Icon name="list-ordered" />
          <span>
            Pick <strong>Plan</strong> mode to review a plan before any edit.
          </span>
        </li>
        <li>
          <Icon name="keyboard" />
          <span>
            <kbd>Enter</kbd> sends, <kbd>Shift</kbd>+<kbd>Enter</kbd> adds a line, <kbd>Esc</kbd> stops.
          </span>
        </li>
      </ul>
    </div>
  );
}

function Loading() {
  return (
    <div class="loading-state" role="status">
      <Icon name="loading" className="codicon-modifier-spin" />
      <span>Starting Tether…</span>
    </div>
  );
}

function WorkingIndicator() {
  const status = store.agentStatus;
  if (!store.state.busy && status === "idle") return null;
  const last = store.rows[store.rows.length - 1];
  let text = "Working…";
  if (status === "requiresAction" || store.pending.length) text = "Waiting for your approval…";
  else if (last?.kind === "retry") text = retryText(last.ev);
  return (
    <div class="working" role="status">
      <Icon name="loading" className="codicon-modifier-spin" />
      <span>{text}</span>
    </div>
  );
}

function TodoPanel({ todos }: { todos: TodoItem[] }) {
  const [open, setOpen] = useState(false);
  if (!todos.length) return null;
  const done = todos.filter((t) => t.status === "completed").length;
  if (done === todos.length && !store.state.busy) return null;
  const current = todos.find((t) => t.status === "in_progress");
  return (
    <div class="todo-panel">
      <button type="button" class="panel-toggle todo-panel-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Icon name={open ? "chevron-down" : "chevron-right"} />
        <Icon name="checklist" />
        <span class="todo-panel-title">{current ? current.activeForm || current.content : "Tasks"}</span>
        <span class="muted small">{`${done}/${todos.length}`}</span>
      </button>
      {open ? <TodoList todos={todos} /> : null}
    </div>
  );
}

/** Clicks inside rendered markdown: copy buttons and file links (no inline handlers anywhere). */
function onDelegatedClick(e: MouseEvent): void {
  const target = e.target as HTMLElement | null;
  if (!target) return;
  const copy = target.closest<HTMLElement>('[data-action="copy-code"]');
  if (copy) {
    e.preventDefault();
    const code = copy.closest(".code-block")?.querySelector("code");
    if (code) {
      void copyText(code.textContent ?? "").then((ok) => {
        copy.classList.toggle("copied", ok);
        copy.setAttribute("aria-label", ok ? "Copied" : "Copy failed");
        setTimeout(() => {
          copy.classList.remove("copied");
          copy.setAttribute("aria-label", "Copy code");
        }, 1500);
      });
    }
    return;
  }
  const link = target.closest<HTMLAnchorElement>(".md a[href]");
  if (link) {
    const href = link.getAttribute("href") ?? "";
    if (/^(https?:|mailto:)/i.test(href)) return; // VS Code opens these externally.
    e.preventDefault();
    if (!href || href.startsWith("#")) return;
    const { path, line } = parseFileHref(href);
    post(line ? { type: "openFile", path, line } : { type: "openFile", path });
  }
}

export function App() {
  const [, force] = useReducer((x: number) => x + 1, 0);
  const [historyOpen, setHistoryOpen] = useState(false);
  const [canvasOpen, setCanvasOpen] = useState(false);
  const listRef = useRef<VirtualList<Row>>(null);

  useEffect(() => {
    const render = () => force(undefined);
    // The view shows another session: its store, and its panels closed.
    let unsubscribe = store.subscribe(render);
    const stopTabs = tabs.subscribe(render);
    const stopSwaps = onStoreSwap(() => {
      unsubscribe();
      unsubscribe = store.subscribe(render);
      setHistoryOpen(false);
      setCanvasOpen(false);
      render();
    });
    return () => {
      unsubscribe();
      stopTabs();
      stopSwaps();
    };
  }, []);

  const state = store.state;
  const initialized = store.initialized;
  const busy = state.busy;

  // Stable callbacks and props: the header and the composer re-render only when these change.
  const toggleHistory = useCallback(() => {
    if (!historyOpen) {
      store.history = undefined;
      post({ type: "requestHistory" });
    }
    setHistoryOpen(!historyOpen);
    setCanvasOpen(false);
  }, [historyOpen]);
  const toggleCanvas = useCallback(() => {
    setCanvasOpen(!canvasOpen);
    setHistoryOpen(false);
  }, [canvasOpen]);
  // The canvas button shows for a gateway's session, or once anything is on the canvas.
  const filled = !store.canvas.empty;
  const canvasShown = !!state.gateway || filled;
  const canvas = useMemo(
    () => (canvasShown ? { open: canvasOpen, filled, onToggle: toggleCanvas } : undefined),
    [canvasShown, canvasOpen, filled, toggleCanvas],
  );

  return (
    <div class={`app${busy ? " is-busy" : ""}${!state.connected ? " is-disconnected" : ""}`} onClick={onDelegatedClick}>
      <Header
        state={state}
        initialized={initialized}
        historyOpen={historyOpen}
        onToggleHistory={toggleHistory}
        canvas={canvas}
        surface={tabs.surface}
      />
      <SessionStrip />
      {initialized && !state.connected ? (
        <div class="banner banner-disconnected" role="alert">
          <Icon name="debug-disconnect" />
          <span>Disconnected from Claude Code.</span>
          <span class="spacer" />
          <button type="button" class="button button-secondary button-small" onClick={() => post({ type: "retry" })}>
            <Icon name="refresh" /> Reconnect
          </button>
        </div>
      ) : null}
      <main class="main">
        {!initialized ? (
          <Loading />
        ) : (
          <VirtualList<Row>
            key={tabs.key}
            ref={listRef}
            items={store.rows}
            getKey={getKey}
            estimate={estimateRow}
            renderItem={renderRow}
            getLabel={rowLabel}
            epoch={store.epoch}
            version={store.version}
            stickSignal={store.stickSignal}
            ariaLabel="Conversation"
            busy={busy}
            empty={<Welcome where={state.where} label={state.workspaceLabel} />}
            footer={<WorkingIndicator />}
          />
        )}
        {historyOpen ? (
          <HistoryPanel
            sessions={store.history}
            currentId={state.sessionId}
            offers={state.offers}
            actions={store.historyActions}
            onClose={(focusButton) => {
              setHistoryOpen(false);
              if (focusButton) requestAnimationFrame(() => document.querySelector<HTMLElement>(".history-button")?.focus());
            }}
          />
        ) : null}
        {canvas && canvasOpen ? (
          <CanvasPanel
            canvas={store.canvas}
            onClose={(focusButton) => {
              setCanvasOpen(false);
              if (focusButton) requestAnimationFrame(() => document.querySelector<HTMLElement>(".canvas-button")?.focus());
            }}
          />
        ) : null}
        {store.rewind.current ? <RewindDialog view={store.rewind.current} /> : null}
      </main>
      <TodoPanel todos={store.todos} />
      <PermissionDock pending={store.pending} />
      <TaskPanels tasks={store.tasks.visible} />
      <QueuePanel queue={state.queue ?? []} />
      <Composer
        busy={busy}
        connected={state.connected}
        initialized={initialized}
        state={state}
        suggestions={store.suggestions}
        inbox={store.composerInbox.length ? store.version : 0}
      />
      <div class="sr-only" aria-live="polite" aria-atomic="true">
        {store.announcement}
      </div>
    </div>
  );
}
