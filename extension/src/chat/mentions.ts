// The composer's @-mentions that Tether resolves itself, on the workspace side: a file's lines
// (`@src/app.js#L10-20`), a folder (`@src/`), a terminal's recent output (`@terminal:bash`) and
// the Problems list (`@problems`). What they resolve to goes before the user's text as the
// reminders Claude Code 2.1.330 writes for its own mentions (measured: `@app.js#L2-3` becomes
// "Called the Read tool with the following input: {"file_path":…}" and "Result of calling the
// Read tool:" with the numbered lines; `@src/` an `ls` through Bash), and the mention in the text
// loses its `@` so that no agent resolves it a second time. A plain `@file` stays as it is: the
// agent reads it through Tether's tools. No vscode import.

const MAX_RANGE_LINES = 2000;
const MAX_FOLDER_ENTRIES = 500;
export const MAX_TERMINAL_LINES = 200;
const MAX_PROBLEMS = 200;

export type MentionTarget =
  | { kind: "lines"; path: string; start: number; end: number }
  | { kind: "folder"; path: string }
  | { kind: "terminal"; name: string }
  | { kind: "problems" };

export interface ParsedMention {
  /** The mention as typed, with its `@`. */
  raw: string;
  /** Where it starts in the text. */
  index: number;
  target: MentionTarget;
}

/** One entry of VS Code's Problems list. */
export interface Problem {
  path: string;
  line: number;
  column: number;
  severity: "error" | "warning" | "info" | "hint";
  message: string;
  source?: string;
}

/** Where mentions are resolved: the workspace's files (through the host) and the IDE's state. */
export interface MentionSources {
  /** The workspace root, as the agent knows it (a remote path on a remote workspace). */
  root: string;
  readText(path: string): Promise<string>;
  /** The names in a folder, folders marked with a trailing `/`. */
  listFolder(path: string): Promise<string[]>;
  /** A terminal's recent output, undefined when there is no such terminal. */
  terminalOutput(name: string): Promise<string | undefined> | string | undefined;
  problems(): Problem[];
}

/** The mentions Tether resolves, in the order they appear. Trailing punctuation is not part of
 * a mention ("see @src/, then …"). */
export function parseMentions(text: string): ParsedMention[] {
  const found: ParsedMention[] = [];
  const re = /(^|[\s(>])@([^\s<]+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const token = m[2]!.replace(/[,.;:)!?]+$/, "");
    const target = mentionTarget(token);
    if (target) found.push({ raw: `@${token}`, index: m.index + m[1]!.length, target });
  }
  return found;
}

export function mentionTarget(token: string): MentionTarget | undefined {
  if (token === "problems") return { kind: "problems" };
  const terminal = /^terminal:(.+)$/.exec(token);
  if (terminal) return { kind: "terminal", name: terminal[1]! };
  const lines = /^(.+)#L(\d+)(?:-L?(\d+))?$/.exec(token);
  if (lines) {
    const start = Number(lines[2]);
    const end = lines[3] ? Number(lines[3]) : start;
    if (start < 1 || end < start) return undefined;
    return { kind: "lines", path: lines[1]!, start, end };
  }
  if (token.length > 1 && token.endsWith("/")) return { kind: "folder", path: token.slice(0, -1) };
  return undefined;
}

/** The workspace path of a mentioned path, or undefined when it leaves the workspace. */
export function workspacePath(root: string, mentioned: string): string | undefined {
  const windows = /^[A-Za-z]:[\\/]/.test(root);
  const sep = windows ? "\\" : "/";
  const norm = (p: string) => (windows ? p.replace(/\//g, "\\") : p);
  const base = norm(root).replace(/[\\/]+$/, "");
  const given = norm(mentioned);
  const absolute = windows ? /^[A-Za-z]:\\/.test(given) : given.startsWith("/");
  const full = absolute ? given : `${base}${sep}${given.replace(/^\.[\\/]/, "")}`;
  const segments = full.split(/[\\/]/);
  if (segments.includes("..")) return undefined;
  const same = (a: string, b: string) => (windows ? a.toLowerCase() === b.toLowerCase() : a === b);
  if (!(same(full, base) || same(full.slice(0, base.length + 1), base + sep))) return undefined;
  return full.replace(/[\\/]+$/, "");
}

function reminder(text: string): string {
  return `<system-reminder>\n${text}\n</system-reminder>`;
}

function toolReminders(tool: string, input: Record<string, string>, result: string): string[] {
  return [
    reminder(`Called the ${tool} tool with the following input: ${JSON.stringify(input)}`),
    reminder(`Result of calling the ${tool} tool:\n${result}`),
  ];
}

function lastLines(text: string, count: number): string {
  const lines = text.replace(/\s+$/, "").split(/\r?\n/);
  return lines.slice(-count).join("\n");
}

export function formatProblems(problems: Problem[]): string {
  if (!problems.length) return "No problems in the workspace.";
  const shown = problems.slice(0, MAX_PROBLEMS).map((p) => `${p.path}:${p.line}:${p.column}: ${p.severity}: ${p.message}${p.source ? ` [${p.source}]` : ""}`);
  const more = problems.length > MAX_PROBLEMS ? `\n(${problems.length - MAX_PROBLEMS} more not shown)` : "";
  return shown.join("\n") + more;
}

async function resolveOne(target: MentionTarget, sources: MentionSources): Promise<string[] | undefined> {
  switch (target.kind) {
    case "problems":
      return [reminder(`The user mentioned VS Code's Problems list (the workspace's diagnostics):\n${formatProblems(sources.problems())}`)];
    case "terminal": {
      const output = await sources.terminalOutput(target.name);
      if (output === undefined) return undefined;
      const shown = lastLines(output, MAX_TERMINAL_LINES);
      return [reminder(`The user mentioned the terminal "${target.name}". Its recent output (the last ${MAX_TERMINAL_LINES} lines at most):\n${shown || "(no output yet)"}`)];
    }
    case "lines": {
      const file = workspacePath(sources.root, target.path);
      if (!file) return undefined;
      const lines = (await sources.readText(file)).split(/\r?\n/);
      const end = Math.min(target.end, lines.length, target.start + MAX_RANGE_LINES - 1);
      const numbered = lines.slice(target.start - 1, end).map((line, i) => `${target.start + i}\t${line}`);
      return toolReminders("Read", { file_path: file }, numbered.join("\n"));
    }
    case "folder": {
      const folder = workspacePath(sources.root, target.path);
      if (!folder) return undefined;
      const names = (await sources.listFolder(folder)).slice(0, MAX_FOLDER_ENTRIES);
      return toolReminders("Bash", { command: `ls ${folder}`, description: `Lists files in ${folder}` }, names.join("\n"));
    }
  }
}

/** The text with its mentions resolved: the reminders go first, and each resolved mention loses
 * its `@`. A mention that cannot be resolved (no such file, terminal or folder; a path outside the
 * workspace) stays as typed, as Claude Code leaves one it cannot read. */
export async function resolveMentions(text: string, sources: MentionSources): Promise<{ text: string; resolved: number }> {
  const mentions = parseMentions(text);
  if (!mentions.length) return { text, resolved: 0 };
  const reminders: string[] = [];
  const resolvedAt = new Set<number>();
  const seen = new Set<string>();
  for (const mention of mentions) {
    const blocks = seen.has(mention.raw) ? [] : await resolveOne(mention.target, sources).catch(() => undefined);
    if (!blocks) continue;
    seen.add(mention.raw);
    reminders.push(...blocks);
    resolvedAt.add(mention.index);
  }
  if (!resolvedAt.size) return { text, resolved: 0 };
  let out = "";
  for (let i = 0; i < text.length; i++) if (!resolvedAt.has(i)) out += text[i];
  return { text: `${reminders.join("\n")}\n\n${out}`, resolved: resolvedAt.size };
}
