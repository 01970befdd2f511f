// Searching: Glob (files by pattern) and Grep (content), with counts and an expandable file list.

import type { ComponentChildren } from "preact";
import { store, type ToolCall } from "../../store";
import { arr, bool, isObject, num, plural, splitLines, str, workspaceRelative } from "../../util";
import { FileLink } from "../common";
import { Badge, Code, ErrorText, OutputBlock, ToolFrame } from "./frame";

function FileList({ files, call }: { files: string[]; call: ToolCall }) {
  const limit = call.ui.filesAll ? files.length : 50;
  return (
    <div class="file-list">
      <ul>
        {files.slice(0, limit).map((f) => (
          <li key={f}>
            <FileLink path={f} label={workspaceRelative(f, store.state.workspaceRoot)} />
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

/** The file names in a text result (without the "Found N files" line). */
function resultLines(call: ToolCall): string[] {
  const c = call.result?.content ?? "";
  return splitLines(c).filter((l) => l.trim() && !/^(Found \d+ files?|No files found)/.test(l));
}

function PatternIn({ pattern, path, extra }: { pattern: string; path?: string; extra?: string }) {
  return (
    <>
      <Code>{pattern}</Code>
      {path ? <span class="muted">{" in "}</span> : null}
      {path ? <FileLink path={path} label={workspaceRelative(path, store.state.workspaceRoot)} className="muted" /> : null}
      {extra ? <span class="muted">{` (${extra})`}</span> : null}
    </>
  );
}

export function GlobView({ call }: { call: ToolCall }) {
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
      summary={<PatternIn pattern={pattern} path={path} />}
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

export function GrepView({ call }: { call: ToolCall }) {
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
      summary={<PatternIn pattern={pattern} path={path} extra={glob} />}
      badges={count ? <Badge>{count}</Badge> : null}
      after={<ErrorText call={call} />}
      body={body}
    />
  );
}
