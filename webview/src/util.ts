/** Small helpers shared by the views. */

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function str(obj: unknown, key: string): string | undefined {
  if (!isObject(obj)) return undefined;
  const v = obj[key];
  return typeof v === "string" ? v : undefined;
}

export function num(obj: unknown, key: string): number | undefined {
  if (!isObject(obj)) return undefined;
  const v = obj[key];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function bool(obj: unknown, key: string): boolean | undefined {
  if (!isObject(obj)) return undefined;
  const v = obj[key];
  return typeof v === "boolean" ? v : undefined;
}

export function arr(obj: unknown, key: string): unknown[] | undefined {
  if (!isObject(obj)) return undefined;
  const v = obj[key];
  return Array.isArray(v) ? v : undefined;
}

export function basename(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, "");
  const i = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
  return i >= 0 ? trimmed.slice(i + 1) : trimmed;
}

export function dirname(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, "");
  const i = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
  return i > 0 ? trimmed.slice(0, i) : "";
}

/** A path as the workspace names it: relative to `root` when inside it (`src/app.js`), else as
 * it is. */
export function workspaceRelative(path: string, root: string | undefined): string {
  if (!root) return path;
  const base = root.replace(/[\\/]+$/, "");
  if (path === base) return ".";
  const sep = path.charAt(base.length);
  return path.startsWith(base) && (sep === "/" || sep === "\\") ? path.slice(base.length + 1) : path;
}

export function prettyJson(v: unknown): string {
  try {
    const s = JSON.stringify(v, null, 2);
    return s === undefined ? String(v) : s;
  } catch {
    return String(v);
  }
}

export function countLines(s: string): number {
  if (!s) return 0;
  let n = 1;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) n++;
  if (s.endsWith("\n")) n--;
  return n;
}

export function splitLines(s: string): string[] {
  const lines = s.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export function plural(n: number, one: string, many?: string): string {
  return `${n} ${n === 1 ? one : (many ?? one + "s")}`;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "";
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)}s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s % 60);
  return `${m}m ${rest}s`;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function formatCost(usd: number): string {
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export function relativeTime(when: number | string, now = Date.now()): string {
  const t = typeof when === "number" ? when : Date.parse(when);
  if (!Number.isFinite(t)) return "";
  const d = Math.max(0, now - t) / 1000;
  if (d < 60) return "just now";
  if (d < 3600) return `${Math.floor(d / 60)} min ago`;
  if (d < 86400) return `${Math.floor(d / 3600)} h ago`;
  if (d < 86400 * 7) return `${Math.floor(d / 86400)} d ago`;
  return new Date(t).toLocaleDateString();
}

/** "path:12", "path#L12" or "path#L12-20" → {path, line}. */
export function parseFileHref(href: string): { path: string; line?: number } {
  let path = href;
  try {
    path = decodeURI(href);
  } catch {
    // keep raw
  }
  let line: number | undefined;
  const hash = /#L(\d+)(?:-L?\d+)?$/.exec(path);
  if (hash) {
    line = Number(hash[1]);
    path = path.slice(0, hash.index);
  } else {
    const colon = /:(\d+)(?::\d+)?$/.exec(path);
    if (colon && !/^[a-z]:$/i.test(path.slice(0, colon.index))) {
      line = Number(colon[1]);
      path = path.slice(0, colon.index);
    }
  }
  if (path.startsWith("file://")) path = path.slice("file://".length);
  return line ? { path, line } : { path };
}

/** "mcp__server__tool" → {server, tool}. */
export function splitMcpName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith("mcp__")) return undefined;
  const rest = name.slice(5);
  const i = rest.indexOf("__");
  if (i < 0) return { server: rest, tool: "" };
  return { server: rest.slice(0, i), tool: rest.slice(i + 2) };
}

let idCounter = 0;
export function uid(prefix = "id"): string {
  idCounter++;
  return `${prefix}-${Date.now().toString(36)}-${idCounter}`;
}

export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall back below
  }
  try {
    const ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.className = "clipboard-helper";
    document.body.appendChild(ta);
    ta.select();
    const ok = document.execCommand("copy");
    ta.remove();
    return ok;
  } catch {
    return false;
  }
}
