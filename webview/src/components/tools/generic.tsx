// Tools Tether has no view of its own for: another MCP server's tools, and any tool an agent
// brings under a name of its own (ACP agents name tools freely). They are drawn by their kind:
// an icon and a label for it, the files they touch, the command they run, their input and result.

import type { ToolKind } from "@tether/core";
import type { ToolCall } from "../../store";
import { countLines, isObject, plural, prettyJson, splitMcpName, str } from "../../util";
import { FileLink } from "../common";
import { DiffView, hunksFromStructured } from "../Diff";
import { store } from "../../store";
import { CommandLine, ErrorText, okContent, OutputBlock, ToolFrame } from "./frame";

const KIND_ICONS: Record<ToolKind, string> = {
  read: "file",
  edit: "edit",
  execute: "terminal",
  search: "search",
  think: "lightbulb",
  fetch: "globe",
  switch_mode: "arrow-swap",
  other: "tools",
};

function hasInput(input: unknown): boolean {
  return isObject(input) ? Object.keys(input).length > 0 : input !== undefined && input !== null;
}

/** Input as JSON and the result text, the body of a call known only by its kind. */
function InputAndResult({ call }: { call: ToolCall }) {
  const content = okContent(call);
  const input = hasInput(call.input);
  if (!input && !content) return null;
  return (
    <>
      {input ? (
        <div class="generic-input">
          <div class="output-label">Input</div>
          <pre class="output-text json">{prettyJson(call.input)}</pre>
        </div>
      ) : null}
      {content ? <OutputBlock text={content} call={call} flag="outAll" label="Result" /> : null}
    </>
  );
}

function lineBadge(call: ToolCall) {
  const content = okContent(call);
  return content ? <span class="muted small">{plural(countLines(content), "line")}</span> : null;
}

/** Another MCP server's tool (`mcp__server__tool`), or a tool of kind "other". */
export function GenericView({ call }: { call: ToolCall }) {
  const mcp = splitMcpName(call.name);
  const label = mcp ? `${mcp.server} · ${mcp.tool}` : call.name;
  const title = call.title && call.title !== call.name ? call.title : "";
  const body = <InputAndResult call={call} />;
  return (
    <ToolFrame
      call={call}
      icon={mcp ? "mcp" : "tools"}
      label={label}
      summary={title ? <span class="muted">{title}</span> : null}
      badges={lineBadge(call)}
      after={<ErrorText call={call} />}
      body={hasInput(call.input) || okContent(call) ? body : undefined}
    />
  );
}

/** A tool of a known kind under a name Tether does not know: its title, the files it names, the
 * command it runs (execute), the patch it made (edit), then its input and result. */
export function KindView({ call }: { call: ToolCall }) {
  const kind = call.kind;
  const command = kind === "execute" ? str(call.input, "command") : undefined;
  const hunks = kind === "edit" && call.status !== "error" ? (hunksFromStructured(call.result?.structured) ?? []) : [];
  const hasBody = hasInput(call.input) || okContent(call) !== "" || hunks.length > 0;
  return (
    <ToolFrame
      call={call}
      icon={KIND_ICONS[kind]}
      label={call.title || call.name}
      summary={
        call.locations.length ? (
          <>
            {call.locations.map((l) => (
              <FileLink key={`${l.path}:${l.line ?? ""}`} path={l.path} line={l.line ?? undefined} />
            ))}
          </>
        ) : undefined
      }
      badges={lineBadge(call)}
      sub={command ? <CommandLine command={command} folded={!call.ui.open} /> : null}
      defaultOpen={kind === "edit" || kind === "execute"}
      after={<ErrorText call={call} />}
      body={
        hasBody ? (
          <>
            {hunks.length ? (
              <DiffView hunks={hunks} expanded={!!call.ui.diffAll} onToggle={() => store.toggleCall(call, "diffAll")} />
            ) : null}
            <InputAndResult call={call} />
          </>
        ) : undefined
      }
    />
  );
}
