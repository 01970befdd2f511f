// A panel for each subagent and background task the agent reports (taskUpdate): what it is, its
// live output (a subagent's tool calls and text, newest last; a background shell's last lines),
// how it ended, and Stop while it runs. Folded to one line each until opened, so several fit
// above the composer at 300 px.

import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { isRunning, statusLabel, store, type TaskEntry, type ToolChild } from "../store";
import { post } from "../vscode";
import { Icon } from "./common";

/** How many of a subagent's latest steps the panel shows. */
const SHOWN_STEPS = 8;

function stepText(child: ToolChild): { icon: string; text: string } {
  if (child.kind === "tool") {
    const call = child.call;
    const icon = call.status === "running" ? "loading" : call.status === "ok" ? "check" : "error";
    return { icon, text: call.title || call.name };
  }
  const text = child.msg.parts
    .filter((p) => p.kind === "text")
    .map((p) => p.text)
    .join("")
    .trim();
  return { icon: "comment", text };
}

/** A shell's last lines, kept scrolled to the newest unless the user scrolled up to read. */
function ShellOutput({ task }: { task: TaskEntry }) {
  const ref = useRef<HTMLPreElement>(null);
  const following = useRef(true);
  const text = task.output ?? "";
  useLayoutEffect(() => {
    const pre = ref.current;
    if (pre && following.current) pre.scrollTop = pre.scrollHeight;
  }, [text]);
  const onScroll = () => {
    const pre = ref.current;
    if (pre) following.current = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
  };
  return (
    <div class="task-panel-body">
      {text ? (
        <pre class="task-output" ref={ref} onScroll={onScroll} tabIndex={0} aria-label={`Output of ${task.description}`}>
          {text}
        </pre>
      ) : (
        <div class="muted small">{isRunning(task) ? "No output yet." : "No output."}</div>
      )}
      {task.summary ? <div class="task-summary">{task.summary}</div> : null}
    </div>
  );
}

function TaskOutput({ task }: { task: TaskEntry }) {
  if (task.output !== null) return <ShellOutput task={task} />;
  const call = store.call(task.toolUseId);
  const steps = (call?.children ?? []).map(stepText).filter((s) => s.text);
  const shown = steps.slice(-SHOWN_STEPS);
  return (
    <div class="task-panel-body">
      {steps.length > shown.length ? <div class="muted small">{`… ${steps.length - shown.length} earlier`}</div> : null}
      {shown.map((step, i) => (
        <div class="task-step" key={i}>
          <Icon name={step.icon} className={step.icon === "loading" ? "codicon-modifier-spin" : undefined} />
          <span class="task-step-text">{step.text}</span>
        </div>
      ))}
      {!shown.length && isRunning(task) ? <div class="muted small">No output yet.</div> : null}
      {task.summary && task.summary.trim() !== task.description ? <div class="task-summary">{task.summary}</div> : null}
    </div>
  );
}

function endIcon(status: string): string {
  if (status === "completed") return "pass";
  if (status === "failed" || status === "timed_out") return "error";
  return "circle-slash";
}

function TaskPanel({ task }: { task: TaskEntry }) {
  const [open, setOpen] = useState(false);
  const panel = useRef<HTMLDivElement>(null);
  // Opened: shown whole where the panels scroll (its output may be the newest thing there).
  useLayoutEffect(() => {
    if (open) panel.current?.scrollIntoView({ block: "nearest" });
  }, [open]);
  const running = isRunning(task);
  const stop = () => {
    store.tasks.markStopping(task.id);
    store.changed();
    post({ type: "stopTask", taskId: task.id });
  };
  return (
    <div class={`task-panel${running ? " running" : ""}`} data-task-id={task.id} ref={panel}>
      <div class="task-panel-head">
        <button type="button" class="panel-toggle task-panel-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          <Icon name={open ? "chevron-down" : "chevron-right"} />
          <Icon name={running ? "loading" : endIcon(task.status)} className={running ? "codicon-modifier-spin" : undefined} />
          <span class="task-panel-title" title={task.description}>
            {task.description}
          </span>
        </button>
        <span class="task-status muted small">{statusLabel(task)}</span>
        {running ? (
          <button type="button" class="button button-secondary button-small task-stop" disabled={task.stopping} aria-label={`Stop ${task.description}`} onClick={stop}>
            <Icon name="debug-stop" /> Stop
          </button>
        ) : (
          <button
            type="button"
            class="icon-button task-dismiss"
            title="Dismiss"
            aria-label={`Dismiss ${task.description}`}
            onClick={() => {
              store.tasks.dismiss(task.id);
              store.changed();
            }}
          >
            <Icon name="close" />
          </button>
        )}
      </div>
      {open ? <TaskOutput task={task} /> : null}
    </div>
  );
}

export function TaskPanels({ tasks }: { tasks: TaskEntry[] }) {
  if (!tasks.length) return null;
  return (
    <section class="task-panels" aria-label="Subagents and background tasks">
      {tasks.map((task) => (
        <TaskPanel key={task.id} task={task} />
      ))}
    </section>
  );
}
