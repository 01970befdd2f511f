// One tool call, drawn by the view of its family: Tether's tools and Claude Code's own by name,
// anything else by its kind.

import type { FunctionComponent } from "preact";
import type { TOOL_NAMES } from "@tether/core";
import { memo } from "../../memo";
import type { ToolCall } from "../../store";
import { ExitPlanModeView, TaskView, TodoWriteView } from "./agents";
import { EditView, NotebookEditView } from "./edit";
import { GenericView, KindView } from "./generic";
import { LsView, ReadView } from "./read";
import { GlobView, GrepView } from "./search";
import { BashView, ShellControlView } from "./shell";
import { WebView } from "./web";

type View = FunctionComponent<{ call: ToolCall; depth: number }>;

const Task: View = ({ call, depth }) => <TaskView call={call} depth={depth} Child={ToolCallView} />;

/** Tether's tools: every one has its view (the table is checked against the generated list). */
const TETHER_TOOLS: Record<(typeof TOOL_NAMES)[number], View> = {
  Read: ReadView,
  LS: LsView,
  Write: EditView,
  Edit: EditView,
  MultiEdit: EditView,
  NotebookEdit: NotebookEditView,
  Glob: GlobView,
  Grep: GrepView,
  Bash: BashView,
  BashOutput: ShellControlView,
  KillShell: ShellControlView,
};

/** Claude Code's own tools that stay with the CLI. */
const AGENT_TOOLS: Record<string, View> = {
  KillBash: ShellControlView,
  TaskStop: ShellControlView,
  TodoWrite: TodoWriteView,
  ExitPlanMode: ExitPlanModeView,
  Task,
  Agent: Task,
  WebFetch: WebView,
  WebSearch: WebView,
};

const BY_NAME = new Map<string, View>([...Object.entries(TETHER_TOOLS), ...Object.entries(AGENT_TOOLS)]);

function viewOf(call: ToolCall): View {
  const named = BY_NAME.get(call.name);
  if (named) return named;
  return call.kind === "other" || call.kind === "switch_mode" ? GenericView : KindView;
}

export const ToolCallView = memo(
  function ToolCallView({ call, depth }: { call: ToolCall; v: number; depth: number }) {
    const View = viewOf(call);
    return <View call={call} depth={depth} />;
  },
  (a, b) => a.call === b.call && a.v === b.v && a.depth === b.depth,
);
