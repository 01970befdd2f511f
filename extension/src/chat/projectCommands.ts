// The project's own slash commands (`.claude/commands/**/*.md`, read from the workspace through the
// host, never from the laptop), listed for the composer and expanded when the user sends one.
// The CLI runs without the project's settings sources, so it does not know them; Tether expands
// them the way Claude Code 2.1.330 does with `--setting-sources=project` (measured: the user
// message carries `<command-message>`, `<command-name>`, `<command-args>`, then the command's body
// with its front matter removed and `$ARGUMENTS`, `$0`, `$1`… replaced). No vscode import.

import type { CommandInfo } from "../generated/core";

const COMMANDS_DIR = ".claude/commands/";

export interface ProjectCommand extends CommandInfo {
  /** The Markdown body without its front matter. */
  body: string;
}

/** A command file: its name from the path (`sub/deep.md` → `sub:deep`, as the CLI names it), its
 * description and argument hint from the front matter (else the body's first line). */
export function parseCommandFile(rel: string, text: string): ProjectCommand | undefined {
  if (!rel.startsWith(COMMANDS_DIR) || !rel.endsWith(".md")) return undefined;
  const name = rel.slice(COMMANDS_DIR.length, -".md".length).split("/").join(":");
  if (!name || /\s/.test(name)) return undefined;
  const { fields, body } = frontMatter(text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n"));
  const firstLine = body.split("\n").find((line) => line.trim())?.trim() ?? "";
  const description = fields.get("description") || firstLine.replace(/^#+\s*/, "");
  return { name, description: `${description} (project)`, argumentHint: fields.get("argument-hint") || null, body };
}

/** The project's commands from its context files (relative path → bytes), by name. */
export function projectCommands(files: ReadonlyMap<string, Uint8Array>): ProjectCommand[] {
  const commands: ProjectCommand[] = [];
  for (const [rel, content] of files) {
    const command = parseCommandFile(rel, new TextDecoder().decode(content));
    if (command) commands.push(command);
  }
  return commands.sort((a, b) => a.name.localeCompare(b.name));
}

/** The user message a project command becomes, when `text` starts with one the agent does not
 * know itself (`agentCommands`); undefined otherwise (the text goes as it is). */
export function expandCommand(
  text: string,
  commands: readonly ProjectCommand[],
  agentCommands: readonly CommandInfo[] = [],
): string | undefined {
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const name = m[1]!;
  if (agentCommands.some((c) => c.name === name)) return undefined;
  const command = commands.find((c) => c.name === name);
  if (!command) return undefined;
  const args = (m[2] ?? "").trim();
  const header = `<command-message>${name}</command-message>\n<command-name>/${name}</command-name>\n<command-args>${args}</command-args>\n`;
  return `${header}\n${substitute(command.body, args)}`;
}

/** `$ARGUMENTS` is the whole argument text; `$ARGUMENTS[n]` and `$n` the n-th word (from 0, as the
 * CLI counts). A body without `$ARGUMENTS` gets the arguments appended, as the CLI does. */
function substitute(body: string, args: string): string {
  const words = args.split(/\s+/).filter(Boolean);
  const uses = /\$ARGUMENTS|\$\d/.test(body);
  const out = body
    .replace(/\$ARGUMENTS\[(\d+)\]/g, (_, n: string) => words[Number(n)] ?? "")
    .replace(/\$ARGUMENTS/g, args)
    .replace(/\$(\d+)/g, (_, n: string) => words[Number(n)] ?? "");
  return uses || !args ? out : `${out}\n\nARGUMENTS: ${args}`;
}

function frontMatter(text: string): { fields: Map<string, string>; body: string } {
  const fields = new Map<string, string>();
  const m = /^---\n([\s\S]*?)\n---\n?/.exec(text);
  if (!m) return { fields, body: text };
  for (const line of m[1]!.split("\n")) {
    const kv = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (kv) fields.set(kv[1]!.toLowerCase(), kv[2]!.trim().replace(/^(["'])(.*)\1$/, "$2"));
  }
  return { fields, body: text.slice(m[0].length) };
}
