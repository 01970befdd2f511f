// The assistant's messages: text and thinking streamed in deltas. A message takes its place in the
// timeline at its first text (a message that only calls tools leaves no row); a subagent's message
// goes inside its Task/Agent call. Deltas without a message id belong to the open message.

import type { ToolCalls } from "./calls";
import type { AssistantMessage, AssistantRow, Timeline, ToolCall } from "./model";

interface MessageEntry {
  msg: AssistantMessage;
  /** Set once placed at top level. */
  row?: AssistantRow;
  /** Set once placed inside a subagent's call. */
  parent?: ToolCall;
  parentId?: string;
  placed: boolean;
}

export class Messages {
  private messages = new Map<string, MessageEntry>();
  /** Messages still streaming (so ending a turn is O(open), not O(all)). */
  private streaming = new Set<MessageEntry>();
  /** The message deltas without an id belong to. */
  private openId: string | undefined;
  private synthetic = 0;

  constructor(
    private readonly timeline: Timeline,
    private readonly calls: ToolCalls,
  ) {}

  start(id: string, parentToolUseId: string | null): void {
    this.openId = id;
    this.ensure(id, parentToolUseId);
  }

  append(messageId: string | null, parentToolUseId: string | null, kind: "text" | "thinking", text: string): void {
    const entry = this.entryFor(messageId, parentToolUseId);
    if (!text) return;
    this.place(entry);
    const msg = entry.msg;
    const last = msg.parts[msg.parts.length - 1];
    if (last && last.kind === kind) last.text += text;
    else msg.parts.push({ kind, text });
    this.touch(entry);
  }

  stop(id: string): void {
    if (this.openId === id) this.openId = undefined;
    const entry = this.messages.get(id);
    if (!entry) return;
    entry.msg.streaming = false;
    this.streaming.delete(entry);
    this.touch(entry);
  }

  /** Whatever still streams ends (end of a turn, error, replay). */
  stopAll(): void {
    this.openId = undefined;
    for (const entry of this.streaming) {
      entry.msg.streaming = false;
      this.touch(entry);
    }
    this.streaming.clear();
  }

  clear(): void {
    this.messages.clear();
    this.streaming.clear();
    this.openId = undefined;
  }

  private entryFor(id: string | null, parentToolUseId: string | null): MessageEntry {
    if (id) {
      this.openId = id;
      return this.ensure(id, parentToolUseId);
    }
    const open = this.openId && this.messages.get(this.openId);
    if (open) return open;
    const synthetic = `message-${++this.synthetic}`;
    this.openId = synthetic;
    return this.ensure(synthetic, parentToolUseId);
  }

  private ensure(id: string, parentToolUseId: string | null): MessageEntry {
    const existing = this.messages.get(id);
    if (existing) return existing;
    const entry: MessageEntry = { msg: { id, parts: [], streaming: true }, placed: false };
    if (parentToolUseId) entry.parentId = parentToolUseId;
    this.messages.set(id, entry);
    this.streaming.add(entry);
    return entry;
  }

  private place(entry: MessageEntry): void {
    if (entry.placed) return;
    entry.placed = true;
    const parent = this.calls.get(entry.parentId);
    if (parent) {
      entry.parent = parent;
      parent.children.push({ kind: "message", msg: entry.msg });
    } else {
      entry.row = { kind: "assistant", key: this.timeline.key(`a:${entry.msg.id}`), v: 0, msg: entry.msg };
      this.timeline.push(entry.row);
    }
  }

  private touch(entry: MessageEntry): void {
    if (entry.row) entry.row.v++;
    if (entry.parent) this.calls.touch(entry.parent);
  }
}
