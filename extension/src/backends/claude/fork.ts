// Forking a Claude Code conversation at one of the chat's user messages. Each prompt carries a
// uuid made from the chat's message id (crate/src/claude/protocol/prompt.rs `message_uuid`, the same
// rule), which the CLI (2.1.330) keeps as the message's uuid in its transcript. A fork resumes the
// conversation with `--fork-session --resume-session-at <uuid>`, where the uuid is the last
// assistant message before that user message: the new session holds what came before it.
// Node only (no vscode).

import { promises as fsp } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { projectDir } from "./history";

/** The transcript uuid of the chat's user message `messageId` (`user-<ms>`). */
export function messageUuid(messageId: string): string | undefined {
  const match = /^user-(\d+)$/.exec(messageId);
  if (!match) return undefined;
  const ms = BigInt(match[1]!) & 0xffff_ffff_ffffn;
  return `7e7e7e7e-0000-4000-8000-${ms.toString(16).padStart(12, "0")}`;
}

interface Line {
  type?: string;
  uuid?: string;
  parentUuid?: string | null;
}

/** Where a fork of `conversation` resumes so that it ends just before the user message
 * `messageId`: the assistant message before it, or none when the message began the conversation.
 * Throws, saying why, when the message is not in the transcript. */
export async function forkPoint(cwd: string, conversation: string, messageId: string, home = os.homedir()): Promise<{ resumeAt?: string }> {
  const uuid = messageUuid(messageId);
  const file = path.join(projectDir(home, cwd), `${conversation}.jsonl`);
  const text = await fsp.readFile(file, "utf8").catch(() => "");
  const byUuid = new Map<string, Line>();
  for (const raw of text.split("\n")) {
    try {
      const line = JSON.parse(raw) as Line;
      if (line && typeof line.uuid === "string") byUuid.set(line.uuid, line);
    } catch {
      // Blank or torn line.
    }
  }
  const message = uuid ? byUuid.get(uuid) : undefined;
  if (!message) throw new Error("this message is not in Claude Code's transcript of the conversation, so it cannot be forked from");
  let parent = message.parentUuid ? byUuid.get(message.parentUuid) : undefined;
  while (parent && parent.type !== "assistant") parent = parent.parentUuid ? byUuid.get(parent.parentUuid) : undefined;
  return parent?.uuid ? { resumeAt: parent.uuid } : {};
}
