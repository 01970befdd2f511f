import type { Hunk } from "@tether/core";
import { arr, isObject, splitLines, str } from "../util";

/** Lines shown before "Show all". */
export const DIFF_COLLAPSED_LINES = 40;
/** Hard cap even when expanded; the rest is reachable through "Open diff"/the file. */
export const DIFF_MAX_LINES = 3000;

export function isHunk(v: unknown): v is Hunk {
  return isObject(v) && Array.isArray(v.lines) && typeof v.oldStart === "number" && typeof v.newStart === "number";
}

export function asHunks(v: unknown): Hunk[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const hunks = v.filter(isHunk);
  return hunks.length || v.length === 0 ? hunks : undefined;
}

export function diffStats(hunks: Hunk[]): { added: number; removed: number; lines: number } {
  let added = 0;
  let removed = 0;
  let lines = 0;
  for (const h of hunks) {
    for (const l of h.lines) {
      lines++;
      if (l.startsWith("+")) added++;
      else if (l.startsWith("-")) removed++;
    }
    lines++; // the hunk header
  }
  return { added, removed, lines };
}

/** A hunk that adds every line of `content` (a new file). */
export function creationHunks(content: string): Hunk[] {
  const lines = splitLines(content);
  if (!lines.length) return [];
  return [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: lines.length, lines: lines.map((l) => `+${l}`) }];
}

/** A rough diff from an Edit's old/new strings (before the real structuredPatch arrives). */
export function replacementHunks(oldString: string, newString: string): Hunk[] {
  const a = splitLines(oldString);
  const b = splitLines(newString);
  // Trim common prefix/suffix lines so the unchanged context shows as context.
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const lines = [
    ...a.slice(0, pre).map((l) => ` ${l}`),
    ...a.slice(pre, a.length - suf).map((l) => `-${l}`),
    ...b.slice(pre, b.length - suf).map((l) => `+${l}`),
    ...a.slice(a.length - suf).map((l) => ` ${l}`),
  ];
  return [{ oldStart: 1, oldLines: a.length, newStart: 1, newLines: b.length, lines }];
}

/** Hunks for an edit-like tool from its input alone (Edit, MultiEdit, Write). */
export function hunksFromInput(name: string, input: unknown): Hunk[] | undefined {
  if (name === "Write") {
    const content = str(input, "content");
    return content !== undefined ? creationHunks(content) : undefined;
  }
  if (name === "Edit") {
    const o = str(input, "old_string");
    const n = str(input, "new_string");
    return o !== undefined && n !== undefined ? replacementHunks(o, n) : undefined;
  }
  if (name === "MultiEdit") {
    const edits = arr(input, "edits");
    if (!edits) return undefined;
    const hunks: Hunk[] = [];
    for (const e of edits) {
      const o = str(e, "old_string");
      const n = str(e, "new_string");
      if (o !== undefined && n !== undefined) hunks.push(...replacementHunks(o, n));
    }
    return hunks;
  }
  return undefined;
}

export function hunksFromStructured(structured: unknown): Hunk[] | undefined {
  const patch = asHunks(isObject(structured) ? structured.structuredPatch : undefined);
  if (patch && patch.length) return patch;
  // Write of a new file: structuredPatch is [], the content is the whole file.
  if (isObject(structured) && str(structured, "type") === "create") {
    const content = str(structured, "content");
    if (content !== undefined) return creationHunks(content);
  }
  return patch;
}

interface DiffProps {
  hunks: Hunk[];
  expanded: boolean;
  onToggle: () => void;
  collapsedLines?: number;
  label?: string;
}

export function DiffView({ hunks, expanded, onToggle, collapsedLines = DIFF_COLLAPSED_LINES, label }: DiffProps) {
  const stats = diffStats(hunks);
  const limit = expanded ? DIFF_MAX_LINES : collapsedLines;
  const rows: preact.JSX.Element[] = [];
  let shown = 0;
  outer: for (let hi = 0; hi < hunks.length; hi++) {
    const h = hunks[hi]!;
    if (shown >= limit) break;
    rows.push(
      <div class="dl dh" key={`h${hi}`}>
        <span class="ln" />
        <span class="ln" />
        <span class="code">{`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`}</span>
      </div>,
    );
    shown++;
    let oldNo = h.oldStart;
    let newNo = h.newStart;
    for (let li = 0; li < h.lines.length; li++) {
      if (shown >= limit) break outer;
      const line = h.lines[li]!;
      const sign = line[0] ?? " ";
      const text = line.slice(1);
      let cls = "ctx";
      let o: number | string = "";
      let n: number | string = "";
      if (sign === "+") {
        cls = "add";
        n = newNo++;
      } else if (sign === "-") {
        cls = "del";
        o = oldNo++;
      } else if (sign === "\\") {
        cls = "meta";
      } else {
        o = oldNo++;
        n = newNo++;
      }
      rows.push(
        <div class={`dl ${cls}`} key={`${hi}:${li}`}>
          <span class="ln">{o}</span>
          <span class="ln">{n}</span>
          <span class="code">
            <span class="sign" aria-hidden="true">
              {cls === "add" ? "+" : cls === "del" ? "-" : " "}
            </span>
            {text}
          </span>
        </div>,
      );
      shown++;
    }
  }
  const hidden = stats.lines - shown;
  return (
    <div class="diff-wrap">
      <div class="diff" role="group" aria-label={label ?? `Diff: ${stats.added} lines added, ${stats.removed} removed`}>
        <div class="diff-lines">{rows}</div>
      </div>
      {!expanded && hidden > 0 ? (
        <button type="button" class="link-button diff-more" aria-expanded="false" onClick={onToggle}>
          {`Show all ${stats.lines} lines`}
        </button>
      ) : null}
      {expanded && stats.lines > collapsedLines ? (
        <div class="diff-more">
          <button type="button" class="link-button" aria-expanded="true" onClick={onToggle}>
            Show less
          </button>
          {hidden > 0 ? <span class="muted">{` · ${hidden} more lines not shown`}</span> : null}
        </div>
      ) : null}
    </div>
  );
}

export function DiffStats({ hunks }: { hunks: Hunk[] }) {
  const s = diffStats(hunks);
  return (
    <span class="diff-stats" aria-label={`${s.added} added, ${s.removed} removed`}>
      <span class="added">+{s.added}</span> <span class="removed">−{s.removed}</span>
    </span>
  );
}

