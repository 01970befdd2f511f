// Past sessions of the CLI, from its transcripts `~/.claude/projects/<encoded cwd>/<id>.jsonl`:
// the list for the history picker, and a session turned into chat entries for resume. Node only
// (no vscode), tested with real temp files.

import { promises as fsp } from "node:fs";
import * as path from "node:path";
import { MCP_PREFIX, type JsonValue } from "../../generated/core";
import type { ChatEntry, HistorySession } from "../../contract/protocol";

/** The CLI names a project folder after its cwd with every non-alphanumeric character as "-". */
export function projectDirName(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, "-");
}

export function projectDir(homeDir: string, cwd: string): string {
  return path.join(homeDir, ".claude", "projects", projectDirName(cwd));
}

interface TranscriptLine {
  type?: string;
  isMeta?: boolean;
  isSidechain?: boolean;
  summary?: string;
  /** A `custom-title` line: the title `rename_session` gave the session (CLI 2.1.330). */
  customTitle?: string;
  message?: { id?: string; role?: string; content?: unknown };
  toolUseResult?: unknown;
}

function parseLines(text: string): TranscriptLine[] {
  const lines: TranscriptLine[] = [];
  for (const raw of text.split("\n")) {
    if (!raw.trim()) continue;
    try {
      const value: unknown = JSON.parse(raw);
      if (value && typeof value === "object") lines.push(value as TranscriptLine);
    } catch {
      // A torn last line (the CLI was writing): skip it.
    }
  }
  return lines;
}

type Block = { type?: string; text?: string; thinking?: string; id?: string; name?: string; input?: JsonValue; tool_use_id?: string; content?: unknown; is_error?: boolean };

function blocks(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? (content.filter((b) => b && typeof b === "object") as Block[]) : [];
}

/** The text a user typed (not tool results, not the CLI's injected meta messages). */
function userText(line: TranscriptLine): string | undefined {
  if (line.type !== "user" || line.isMeta || line.isSidechain) return undefined;
  const text = blocks(line.message?.content)
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text!)
    .join("\n")
    .trim();
  if (!text || text.startsWith("<command-") || text.startsWith("<local-command")) return undefined;
  return text;
}

function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  return blocks(content)
    .filter((b) => b.type === "text")
    .map((b) => b.text ?? "")
    .join("\n");
}

/** The sessions in `dir`, newest first. A missing folder is an empty history. */
export async function listSessions(dir: string, limit = 50): Promise<HistorySession[]> {
  let names: string[];
  try {
    names = (await fsp.readdir(dir)).filter((n) => n.endsWith(".jsonl"));
  } catch {
    return [];
  }
  const stats = await Promise.all(
    names.map(async (name) => ({ name, stat: await fsp.stat(path.join(dir, name)).catch(() => undefined) })),
  );
  const newest = stats
    .filter((s) => s.stat?.isFile())
    .sort((a, b) => b.stat!.mtimeMs - a.stat!.mtimeMs)
    .slice(0, limit);
  const sessions: HistorySession[] = [];
  for (const { name, stat } of newest) {
    const lines = parseLines(await fsp.readFile(path.join(dir, name), "utf8").catch(() => ""));
    const summary = lines.find((l) => l.type === "summary" && typeof l.summary === "string")?.summary;
    const prompts = lines.map(userText).filter((t): t is string => t !== undefined);
    if (prompts.length === 0) continue; // a session that never got a prompt
    const custom = lines.filter((l) => l.type === "custom-title" && typeof l.customTitle === "string").at(-1)?.customTitle;
    const title = (custom ?? summary ?? prompts[0]!).split("\n")[0]!.slice(0, 120);
    const messageCount = lines.filter((l) => (l.type === "user" || l.type === "assistant") && !l.isMeta).length;
    sessions.push({ id: name.slice(0, -".jsonl".length), title, updatedAt: stat!.mtimeMs, messageCount });
  }
  return sessions;
}

/** A session transcript as chat entries (for `replay`): the events the agent sent then, as far
 * as the transcript tells them. Subagent side chains are left out. */
export function transcriptToEntries(text: string): ChatEntry[] {
  const entries: ChatEntry[] = [];
  let userCount = 0;
  let openMessage: string | undefined;
  const closeMessage = () => {
    if (openMessage) entries.push({ type: "messageStop", messageId: openMessage, stopReason: null });
    openMessage = undefined;
  };
  for (const line of parseLines(text)) {
    if (line.isSidechain) continue;
    if (line.type === "user") {
      const typed = userText(line);
      if (typed !== undefined) {
        closeMessage();
        entries.push({ type: "userMessage", id: `history-user-${++userCount}`, text: typed });
        continue;
      }
      for (const block of blocks(line.message?.content)) {
        if (block.type !== "tool_result" || !block.tool_use_id) continue;
        entries.push({
          type: "toolCallResult",
          id: block.tool_use_id,
          isError: block.is_error === true,
          content: toolResultText(block.content),
          structured: line.toolUseResult && typeof line.toolUseResult === "object" ? (line.toolUseResult as JsonValue) : null,
          parentToolUseId: null,
        });
      }
    } else if (line.type === "assistant") {
      const id = line.message?.id ?? `history-assistant-${entries.length}`;
      for (const block of blocks(line.message?.content)) {
        if (block.type === "text" || block.type === "thinking") {
          if (openMessage !== id) {
            closeMessage();
            openMessage = id;
            entries.push({ type: "messageStart", messageId: id, parentToolUseId: null });
          }
          const text = block.type === "text" ? block.text : block.thinking;
          if (text) entries.push({ type: block.type === "text" ? "textDelta" : "thinkingDelta", messageId: id, text, parentToolUseId: null });
        } else if (block.type === "tool_use" && block.id && block.name) {
          const name = block.name.startsWith(MCP_PREFIX) ? block.name.slice(MCP_PREFIX.length) : block.name;
          // The transcript does not say the kind; the chat draws these tools by name.
          entries.push({
            type: "toolCallStart",
            id: block.id,
            name,
            input: block.input ?? {},
            kind: "other",
            title: name,
            locations: [],
            parentToolUseId: null,
          });
        }
      }
    }
  }
  closeMessage();
  return entries;
}
