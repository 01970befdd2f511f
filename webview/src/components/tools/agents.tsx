// The model's own bookkeeping: TodoWrite (a checklist), ExitPlanMode (the plan), and Task/Agent (a
// subagent's group, holding its nested calls and text).

import type { TodoItem } from "@tether/core";
import type { ComponentType } from "preact";
import { store, type AssistantMessage, type ToolCall } from "../../store";
import { arr, isObject, plural, str } from "../../util";
import { Icon } from "../common";
import { Markdown, StreamingMarkdown } from "../Markdown";
import { ThinkingView } from "../Thinking";
import { Badge, ErrorText, ToolFrame } from "./frame";

function todoIcon(status: string): string {
  if (status === "completed") return "pass-filled";
  return status === "in_progress" ? "circle-large-filled" : "circle-large-outline";
}

export function TodoList({ todos }: { todos: TodoItem[] }) {
  return (
    <ul class="todo-list" aria-label="Todo list">
      {todos.map((t, i) => (
        <li key={i} class={`todo todo-${t.status}`}>
          <Icon name={todoIcon(t.status)} className="todo-icon" />
          <span class="todo-text">{t.status === "in_progress" && t.activeForm ? t.activeForm : t.content}</span>
          <span class="sr-only">{` (${t.status.replace("_", " ")})`}</span>
        </li>
      ))}
    </ul>
  );
}

function parseTodos(input: unknown): TodoItem[] {
  return (arr(input, "todos") ?? []).filter(isObject).map((t) => ({
    content: str(t, "content") ?? "",
    status: str(t, "status") ?? "pending",
    activeForm: str(t, "activeForm") ?? null,
  }));
}

export function TodoWriteView({ call }: { call: ToolCall }) {
  const todos = parseTodos(call.input);
  const done = todos.filter((t) => t.status === "completed").length;
  return (
    <ToolFrame
      call={call}
      icon="checklist"
      label="Update todos"
      badges={todos.length ? <span class="muted small">{`${done}/${todos.length} done`}</span> : null}
      defaultOpen={true}
      after={<ErrorText call={call} />}
      body={todos.length ? <TodoList todos={todos} /> : undefined}
    />
  );
}

export function ExitPlanModeView({ call }: { call: ToolCall }) {
  const plan = call.plan ?? str(call.input, "plan") ?? "";
  let outcome = null;
  if (call.status === "ok") outcome = <Badge tone="ok">approved</Badge>;
  else if (call.status === "error") outcome = <Badge tone="warn">keep planning</Badge>;
  const feedback = call.status === "error" && call.result?.content ? call.result.content : "";
  return (
    <ToolFrame
      call={call}
      icon="list-ordered"
      label="Plan"
      summary={<span class="muted">Ready to code?</span>}
      badges={outcome}
      defaultOpen={true}
      after={feedback ? <div class="plan-feedback muted small">{feedback}</div> : null}
      body={
        plan ? (
          <Markdown text={plan} className="plan-md" />
        ) : (
          <div class="muted small">The plan is in a file under ~/.claude/plans.</div>
        )
      }
    />
  );
}

function SubagentMessage({ msg, parent }: { msg: AssistantMessage; parent: ToolCall }) {
  return (
    <div class="subagent-message">
      {msg.parts.map((p, i) =>
        p.kind === "thinking" ? (
          <ThinkingView
            key={i}
            part={p}
            streaming={msg.streaming && i === msg.parts.length - 1}
            onToggle={() => store.toggleCall(parent, "thinkingToggled")}
          />
        ) : (
          <StreamingMarkdown key={i} part={p} streaming={msg.streaming && i === msg.parts.length - 1} />
        ),
      )}
    </div>
  );
}

/** A subagent's group. `Child` draws its nested calls (the dispatcher, passed in to keep the
 * families free of it). */
export function TaskView({ call, depth, Child }: { call: ToolCall; depth: number; Child: ComponentType<{ call: ToolCall; v: number; depth: number }> }) {
  const description = str(call.input, "description") ?? call.title ?? "";
  const agentType = str(call.input, "subagent_type") ?? "agent";
  const prompt = str(call.input, "prompt") ?? "";
  const nTools = call.children.filter((c) => c.kind === "tool").length;
  const result = call.result && !call.result.isError ? call.result.content : "";
  return (
    <ToolFrame
      call={call}
      icon="agent"
      label={agentType}
      summary={<span class="task-desc">{description}</span>}
      badges={nTools ? <span class="muted small">{plural(nTools, "tool call")}</span> : null}
      defaultOpen={true}
      after={<ErrorText call={call} />}
      body={
        <div class="task-body" role="group" aria-label={`Subagent ${agentType}: ${description}`}>
          {prompt ? (
            <details class="task-prompt">
              <summary>Prompt</summary>
              <pre class="output-text">{prompt}</pre>
            </details>
          ) : null}
          <div class="task-children">
            {call.children.map((c) =>
              c.kind === "tool" ? (
                <Child key={c.call.id} call={c.call} v={c.call.v} depth={depth + 1} />
              ) : (
                <SubagentMessage key={c.msg.id} msg={c.msg} parent={call} />
              ),
            )}
            {call.status === "running" && !call.children.length ? (
              <div class="muted small">
                <Icon name="loading" className="codicon-modifier-spin" /> Starting…
              </div>
            ) : null}
          </div>
          {result ? (
            <div class="task-result">
              <div class="output-label">Result</div>
              <Markdown text={result} />
            </div>
          ) : null}
        </div>
      }
    />
  );
}
