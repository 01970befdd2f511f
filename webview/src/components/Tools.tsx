import { memo } from "../memo";
import type { ComponentChildren } from "preact";
import type { PatchHunk, TodoItem } from "../protocol";
import { store, type AssistantMessage, type ToolCall } from "../store";
import { post } from "../vscode";
import {
  arr,
  basename,
  bool,
  countLines,
  dirname,
  isObject,
  num,
  plural,
  prettyJson,
  splitLines,
  splitMcpName,
  str,
} from "../util";
import { DiffStats, DiffView, hunksFromInput, hunksFromStructured } from "./Diff";
import { Markdown, StreamingMarkdown } from "./Markdown";
import { ThinkingView } from "./Thinking";

/** Output blocks show this many lines (the last ones) before "Show all". */
export const OUTPUT_COLLAPSED_LINES = 20;
const OUTPUT_MAX_CHARS = 200_000;

// ---------------------------------------------------------------------------------------------
// Small building blocks
// ---------------------------------------------------------------------------------------------

export function Icon({ name, className, label }: { name: string; className?: string; label?: string }) {
  return (
    <span
      class={`codicon codicon-${name}${className ? " " + className : ""}`}
      aria-hidden={label ? undefined : "true"}
      role={label ? "img" : undefined}
      aria-label={label}
    />
  );
}

export function FileLink({ path, line, label, className }: { path: string; line?: number; label?: string; className?: string }) {
  const text = label ?? basename(path) ?? path;
  return (
    <a
      href="#"
      class={`file-ref${className ? " " + className : ""}`}
      title={line ? `${path}:${line}` : path}
      data-path={path}
      data-line={line ?? ""}
      onClick={(e) => {
        e.preventDefault();
        e.stopPropagation();
        post(line ? { type: "openFile", path, line } : { type: "openFile", path });
      }}
    >
      {text}
    </a>
  );
}

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

function ToolFrame({ call, icon, label, summary, badges, sub, body, defaultOpen = false, after }: FrameProps) {
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
      {after}
      {open ? (
        <div class="tool-body" id={bodyId}>
          {body}
        </div>
      ) : null}
    </div>
  );
}

function ErrorText({ call }: { call: ToolCall }) {
  if (call.status !== "error" || !call.result) return null;
  const text = call.result.content || "Failed";
  return <OutputBlock text={text} call={call} flag="errAll" className="tool-error-text" collapsedLines={12} />;
}

function Badge({ children, tone, title }: { children: ComponentChildren; tone?: string; title?: string }) {
  return (
    <span class={`badge${tone ? " badge-" + tone : ""}`} title={title}>
      {children}
    </span>
  );
}

function Code({ children }: { children: ComponentChildren }) {
  return <code class="inline-code">{children}</code>;
}

// ---------------------------------------------------------------------------------------------
// Per-tool renderers
// ---------------------------------------------------------------------------------------------

function BashView({ call }: { call: ToolCall }) {
  const input = call.input;
  const command = str(input, "command") ?? "";
  const description = str(input, "description");
  const background = bool(input, "run_in_background");
  const s = call.result?.structured;
  const stdout = isObject(s) ? (str(s, "stdout") ?? "") : "";
  const stderr = isObject(s) ? (str(s, "stderr") ?? "") : "";
  const exitCode = isObject(s) ? num(s, "exitCode") : undefined;
  const interrupted = isObject(s) ? bool(s, "interrupted") : undefined;
  const hasStructured = isObject(s) && ("stdout" in s || "stderr" in s);
  const firstLine = command.split("\n")[0] ?? "";
  const multiline = command.includes("\n");

  const badges = (
    <>
      {background ? <Badge tone="info">background</Badge> : null}
      {interrupted ? <Badge tone="warn">interrupted</Badge> : null}
      {exitCode !== undefined ? (
        <Badge tone={exitCode === 0 ? "ok" : "error"} title="Exit code">{`exit ${exitCode}`}</Badge>
      ) : call.status === "error" && hasStructured ? (
        <Badge tone="error">failed</Badge>
      ) : null}
    </>
  );

  let output: ComponentChildren = null;
  if (call.result) {
    if (hasStructured) {
      output = (
        <>
          {stdout ? <OutputBlock text={stdout} call={call} flag="outAll" className="stdout" /> : null}
          {stderr ? <OutputBlock text={stderr} call={call} flag="errOutAll" className="stderr" label="stderr" /> : null}
          {!stdout && !stderr ? <div class="muted small output-empty">(no output)</div> : null}
        </>
      );
    } else if (call.result.content) {
      output = (
        <OutputBlock
          text={call.result.content}
          call={call}
          flag="outAll"
          className={call.result.isError ? "stderr" : "stdout"}
        />
      );
    }
  }

  return (
    <ToolFrame
      call={call}
      icon="terminal"
      label={description || "Run command"}
      badges={badges}
      sub={
        <pre class="command-line" title={command}>
          <span class="prompt" aria-hidden="true">
            ${" "}
          </span>
          {multiline && !call.ui.open ? `${firstLine} …` : command}
        </pre>
      }
      defaultOpen={true}
      body={output}
    />
  );
}

function readRange(call: ToolCall): { start?: number; end?: number; total?: number } {
  const s = call.result?.structured;
  const file = isObject(s) && isObject(s.file) ? s.file : undefined;
  if (file) {
    const start = num(file, "startLine");
    const n = num(file, "numLines");
    const total = num(file, "totalLines");
    return { start, end: start !== undefined && n !== undefined ? start + Math.max(0, n - 1) : undefined, total };
  }
  const offset = num(call.input, "offset");
  const limit = num(call.input, "limit");
  if (offset !== undefined || limit !== undefined) {
    const start = offset ?? 1;
    return { start, end: limit !== undefined ? start + limit - 1 : undefined };
  }
  return {};
}

function ReadView({ call }: { call: ToolCall }) {
  const path =
    str(call.input, "file_path") ??
    (isObject(call.result?.structured) && isObject((call.result!.structured as Record<string, unknown>).file)
      ? str((call.result!.structured as { file: unknown }).file, "filePath")
      : undefined) ??
    "";
  const r = readRange(call);
  let range = "";
  if (r.start !== undefined && r.end !== undefined) range = `lines ${r.start}–${r.end}`;
  else if (r.start !== undefined) range = `from line ${r.start}`;
  if (r.total !== undefined) range += range ? ` of ${r.total}` : `${r.total} lines`;
  const dir = dirname(path);
  return (
    <ToolFrame
      call={call}
      icon="file"
      label="Read"
      summary={
        <>
          {path ? <FileLink path={path} line={r.start} /> : null}
          {dir ? <span class="muted path-dir" title={path}>{` ${dir}`}</span> : null}
        </>
      }
      badges={range ? <span class="muted small read-range">{range}</span> : null}
      after={<ErrorText call={call} />}
    />
  );
}

function FileList({ files, call }: { files: string[]; call: ToolCall }) {
  const limit = call.ui.filesAll ? files.length : 50;
  return (
    <div class="file-list">
      <ul>
        {files.slice(0, limit).map((f) => (
          <li key={f}>
            <FileLink path={f} label={f} />
          </li>
        ))}
      </ul>
      {files.length > limit ? (
        <button type="button" class="link-button" onClick={() => store.toggleCall(call, "filesAll", true)}>
          {`Show all ${files.length} files`}
        </button>
      ) : null}
    </div>
  );
}

function resultLines(call: ToolCall): string[] {
  const c = call.result?.content ?? "";
  return splitLines(c).filter((l) => l.trim() && !/^(Found \d+ files?|No files found)/.test(l));
}

function GlobView({ call }: { call: ToolCall }) {
  const pattern = str(call.input, "pattern") ?? "";
  const path = str(call.input, "path");
  const s = call.result?.structured;
  const files = (isObject(s) ? (arr(s, "filenames") as string[] | undefined) : undefined) ?? (call.result ? resultLines(call) : []);
  const numFiles = (isObject(s) ? num(s, "numFiles") : undefined) ?? files.length;
  const truncated = isObject(s) ? bool(s, "truncated") : undefined;
  return (
    <ToolFrame
      call={call}
      icon="search"
      label="Glob"
      summary={
        <>
          <Code>{pattern}</Code>
          {path ? <span class="muted">{" in "}</span> : null}
          {path ? <FileLink path={path} label={path} className="muted" /> : null}
        </>
      }
      badges={
        call.result && !call.result.isError ? (
          <Badge>{`${plural(numFiles, "file")}${truncated ? " (truncated)" : ""}`}</Badge>
        ) : null
      }
      after={<ErrorText call={call} />}
      body={files.length ? <FileList files={files} call={call} /> : undefined}
    />
  );
}

function GrepView({ call }: { call: ToolCall }) {
  const pattern = str(call.input, "pattern") ?? "";
  const path = str(call.input, "path");
  const glob = str(call.input, "glob") ?? str(call.input, "type");
  const s = call.result?.structured;
  const mode = (isObject(s) ? str(s, "mode") : undefined) ?? str(call.input, "output_mode") ?? "files_with_matches";
  const files = (isObject(s) ? (arr(s, "filenames") as string[] | undefined) : undefined) ?? [];
  const numFiles = isObject(s) ? num(s, "numFiles") : undefined;
  const numMatches = isObject(s) ? num(s, "numMatches") : undefined;
  const content = isObject(s) ? str(s, "content") : undefined;
  let count = "";
  if (numMatches !== undefined && numFiles !== undefined) count = `${plural(numMatches, "match", "matches")} in ${plural(numFiles, "file")}`;
  else if (numMatches !== undefined) count = plural(numMatches, "match", "matches");
  else if (numFiles !== undefined) count = plural(numFiles, "file");
  let body: ComponentChildren = undefined;
  if (call.result && !call.result.isError) {
    if (mode === "content" && (content ?? call.result.content)) {
      body = <OutputBlock text={content ?? call.result.content} call={call} flag="outAll" className="grep-content" />;
    } else if (files.length) {
      body = <FileList files={files} call={call} />;
    } else if (!isObject(s) && call.result.content) {
      body = <OutputBlock text={call.result.content} call={call} flag="outAll" />;
    }
  }
  return (
    <ToolFrame
      call={call}
      icon="search"
      label="Grep"
      summary={
        <>
          <Code>{pattern}</Code>
          {path ? <span class="muted">{" in "}</span> : null}
          {path ? <FileLink path={path} label={path} className="muted" /> : null}
          {glob ? <span class="muted">{` (${glob})`}</span> : null}
        </>
      }
      badges={count ? <Badge>{count}</Badge> : null}
      after={<ErrorText call={call} />}
      body={body}
    />
  );
}

function LsView({ call }: { call: ToolCall }) {
  const path = str(call.input, "path") ?? "";
  const content = call.result && !call.result.isError ? call.result.content : "";
  return (
    <ToolFrame
      call={call}
      icon="folder"
      label="List"
      summary={path ? <FileLink path={path} label={path} /> : null}
      after={<ErrorText call={call} />}
      body={content ? <OutputBlock text={content} call={call} flag="outAll" /> : undefined}
    />
  );
}

function editHunks(call: ToolCall): PatchHunk[] | undefined {
  const fromResult = call.result && !call.result.isError ? hunksFromStructured(call.result.structured) : undefined;
  if (fromResult && fromResult.length) return fromResult;
  return hunksFromInput(call.name, call.input);
}

function EditView({ call }: { call: ToolCall }) {
  const s = call.result?.structured;
  const path = str(call.input, "file_path") ?? (isObject(s) ? str(s, "filePath") : undefined) ?? "";
  const hunks = editHunks(call) ?? [];
  const isWrite = call.name === "Write";
  const created = isWrite && (isObject(s) ? str(s, "type") === "create" : false);
  const label = call.name === "MultiEdit" ? "Edit" : isWrite ? (created ? "Create" : "Write") : "Edit";
  const edits = call.name === "MultiEdit" ? arr(call.input, "edits")?.length : undefined;
  return (
    <ToolFrame
      call={call}
      icon={isWrite ? "new-file" : "edit"}
      label={label}
      summary={
        <>
          {path ? <FileLink path={path} line={hunks[0]?.newStart || undefined} /> : null}
          {dirname(path) ? <span class="muted path-dir" title={path}>{` ${dirname(path)}`}</span> : null}
        </>
      }
      badges={
        <>
          {edits ? <span class="muted small">{plural(edits, "edit")}</span> : null}
          {bool(s, "userModified") ? <Badge tone="info">modified by you</Badge> : null}
          {hunks.length ? <DiffStats hunks={hunks} /> : null}
        </>
      }
      defaultOpen={true}
      after={<ErrorText call={call} />}
      body={
        hunks.length && call.status !== "error" ? (
          <DiffView
            hunks={hunks}
            expanded={!!call.ui.diffAll}
            onToggle={() => store.toggleCall(call, "diffAll")}
            label={`Diff of ${basename(path)}`}
          />
        ) : undefined
      }
    />
  );
}

function NotebookEditView({ call }: { call: ToolCall }) {
  const path = str(call.input, "notebook_path") ?? "";
  const cell = str(call.input, "cell_id") ?? (num(call.input, "cell_number")?.toString() ?? "");
  const modeName = str(call.input, "edit_mode") ?? "replace";
  const source = str(call.input, "new_source") ?? "";
  return (
    <ToolFrame
      call={call}
      icon="notebook"
      label="Notebook"
      summary={
        <>
          {path ? <FileLink path={path} /> : null}
          <span class="muted">{` ${modeName}${cell ? ` cell ${cell}` : ""}`}</span>
        </>
      }
      defaultOpen={true}
      after={<ErrorText call={call} />}
      body={source && modeName !== "delete" ? <OutputBlock text={source} call={call} flag="srcAll" /> : undefined}
    />
  );
}

export function TodoList({ todos }: { todos: TodoItem[] }) {
  return (
    <ul class="todo-list" aria-label="Todo list">
      {todos.map((t, i) => (
        <li key={i} class={`todo todo-${t.status}`}>
          <Icon
            name={t.status === "completed" ? "pass-filled" : t.status === "in_progress" ? "circle-large-filled" : "circle-large-outline"}
            className="todo-icon"
          />
          <span class="todo-text">
            {t.status === "in_progress" && t.activeForm ? t.activeForm : t.content}
          </span>
          <span class="sr-only">{` (${t.status.replace("_", " ")})`}</span>
        </li>
      ))}
    </ul>
  );
}

export function parseTodos(input: unknown): TodoItem[] {
  const todos = arr(input, "todos") ?? [];
  return todos
    .filter(isObject)
    .map((t) => ({
      content: str(t, "content") ?? "",
      status: (str(t, "status") as TodoItem["status"]) ?? "pending",
      activeForm: str(t, "activeForm"),
    }));
}

function TodoWriteView({ call }: { call: ToolCall }) {
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

function ExitPlanModeView({ call }: { call: ToolCall }) {
  const plan = call.plan ?? str(call.input, "plan") ?? "";
  let outcome: ComponentChildren = null;
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
          <ThinkingView key={i} part={p} streaming={msg.streaming && i === msg.parts.length - 1} onToggle={() => store.toggleCall(parent, "thinkingToggled")} />
        ) : (
          <StreamingMarkdown key={i} part={p} streaming={msg.streaming && i === msg.parts.length - 1} />
        ),
      )}
    </div>
  );
}

function TaskView({ call, depth }: { call: ToolCall; depth: number }) {
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
                <ToolCallView key={c.call.id} call={c.call} v={c.call.v} depth={depth + 1} />
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

function WebView({ call }: { call: ToolCall }) {
  const url = str(call.input, "url");
  const query = str(call.input, "query");
  const prompt = str(call.input, "prompt");
  const content = call.result && !call.result.isError ? call.result.content : "";
  return (
    <ToolFrame
      call={call}
      icon="globe"
      label={call.name === "WebSearch" ? "Search the web" : "Fetch"}
      summary={
        url ? (
          <a href={/^https?:/i.test(url) ? url : "#"} class="web-link" title={url}>
            {url}
          </a>
        ) : (
          <Code>{query ?? ""}</Code>
        )
      }
      sub={prompt ? <div class="muted small">{prompt}</div> : null}
      after={<ErrorText call={call} />}
      body={content ? <OutputBlock text={content} call={call} flag="outAll" /> : undefined}
    />
  );
}

function ShellControlView({ call }: { call: ToolCall }) {
  const id = str(call.input, "bash_id") ?? str(call.input, "shell_id") ?? str(call.input, "task_id") ?? "";
  const kill = call.name !== "BashOutput";
  const content = call.result && !call.result.isError ? call.result.content : "";
  return (
    <ToolFrame
      call={call}
      icon={kill ? "debug-stop" : "output"}
      label={kill ? "Stop shell" : "Shell output"}
      summary={id ? <Code>{id}</Code> : null}
      defaultOpen={!kill}
      after={<ErrorText call={call} />}
      body={content ? <OutputBlock text={content} call={call} flag="outAll" /> : undefined}
    />
  );
}

function GenericView({ call }: { call: ToolCall }) {
  const mcp = splitMcpName(call.name);
  const label = mcp ? `${mcp.server} · ${mcp.tool}` : call.name;
  const title = call.title && call.title !== call.name ? call.title : "";
  const hasInput = isObject(call.input) ? Object.keys(call.input).length > 0 : call.input !== undefined && call.input !== null;
  const content = call.result && !call.result.isError ? call.result.content : "";
  const body =
    hasInput || content ? (
      <>
        {hasInput ? (
          <div class="generic-input">
            <div class="output-label">Input</div>
            <pre class="output-text json">{prettyJson(call.input)}</pre>
          </div>
        ) : null}
        {content ? <OutputBlock text={content} call={call} flag="outAll" label="Result" /> : null}
      </>
    ) : undefined;
  return (
    <ToolFrame
      call={call}
      icon={mcp ? "mcp" : "tools"}
      label={label}
      summary={title ? <span class="muted">{title}</span> : null}
      badges={content ? <span class="muted small">{plural(countLines(content), "line")}</span> : null}
      after={<ErrorText call={call} />}
      body={body}
    />
  );
}

function ToolCallInner({ call, depth }: { call: ToolCall; depth: number }) {
  switch (call.name) {
    case "Bash":
      return <BashView call={call} />;
    case "Read":
      return <ReadView call={call} />;
    case "Glob":
      return <GlobView call={call} />;
    case "Grep":
      return <GrepView call={call} />;
    case "LS":
      return <LsView call={call} />;
    case "Edit":
    case "MultiEdit":
    case "Write":
      return <EditView call={call} />;
    case "NotebookEdit":
      return <NotebookEditView call={call} />;
    case "TodoWrite":
      return <TodoWriteView call={call} />;
    case "ExitPlanMode":
      return <ExitPlanModeView call={call} />;
    case "Task":
    case "Agent":
      return <TaskView call={call} depth={depth} />;
    case "WebFetch":
    case "WebSearch":
      return <WebView call={call} />;
    case "BashOutput":
    case "KillShell":
    case "KillBash":
    case "TaskStop":
      return <ShellControlView call={call} />;
    default:
      return <GenericView call={call} />;
  }
}

export const ToolCallView = memo(
  function ToolCallView({ call, depth }: { call: ToolCall; v: number; depth: number }) {
    return <ToolCallInner call={call} depth={depth} />;
  },
  (a, b) => a.call === b.call && a.v === b.v && a.depth === b.depth,
);
