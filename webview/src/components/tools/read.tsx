// Reading files: Read (a file link with the line range) and LS (a folder listing).

import { store, type ToolCall } from "../../store";
import { isObject, num, str, workspaceRelative } from "../../util";
import { FileLink, PathDir } from "../common";
import { ErrorText, okContent, OutputBlock, ToolFrame } from "./frame";

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

export function ReadView({ call }: { call: ToolCall }) {
  const s = call.result?.structured;
  const path = str(call.input, "file_path") ?? (isObject(s) ? str(s.file, "filePath") : undefined) ?? "";
  const r = readRange(call);
  let range = "";
  if (r.start !== undefined && r.end !== undefined) range = `lines ${r.start}–${r.end}`;
  else if (r.start !== undefined) range = `from line ${r.start}`;
  if (r.total !== undefined) range += range ? ` of ${r.total}` : `${r.total} lines`;
  return (
    <ToolFrame
      call={call}
      icon="file"
      label="Read"
      summary={
        <>
          {path ? <FileLink path={path} line={r.start} /> : null}
          {path ? <PathDir path={path} /> : null}
        </>
      }
      badges={range ? <span class="muted small read-range">{range}</span> : null}
      after={<ErrorText call={call} />}
    />
  );
}

export function LsView({ call }: { call: ToolCall }) {
  const path = str(call.input, "path") ?? "";
  const content = okContent(call);
  return (
    <ToolFrame
      call={call}
      icon="folder"
      label="List"
      summary={path ? <FileLink path={path} label={workspaceRelative(path, store.state.workspaceRoot)} /> : null}
      after={<ErrorText call={call} />}
      body={content ? <OutputBlock text={content} call={call} flag="outAll" /> : undefined}
    />
  );
}
