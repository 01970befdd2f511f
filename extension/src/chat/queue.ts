// The messages a user sent while a turn ran: kept in order, editable and removable, and sent one
// at a time when the turn ends. A plain list (`QueuedMessage[]`), so it can be saved and restored
// with the session. No vscode import.

import type { Attachment, QueuedMessage } from "../contract/protocol";

export class MessageQueue {
  private items: QueuedMessage[] = [];
  private seq = 0;

  /** `changed` hears the whole list after every change (the view shows it). */
  constructor(private readonly changed: (items: QueuedMessage[]) => void) {}

  get length(): number {
    return this.items.length;
  }

  /** A copy of the list, oldest first. */
  get list(): QueuedMessage[] {
    return this.items.map((item) => ({ ...item }));
  }

  add(text: string, attachments: Attachment[]): QueuedMessage {
    const item: QueuedMessage = { id: `q-${Date.now().toString(36)}-${++this.seq}`, text, ...(attachments.length ? { attachments } : {}) };
    this.items.push(item);
    this.publish();
    return item;
  }

  /** New text for a message still waiting; false when it has gone already. */
  edit(id: string, text: string): boolean {
    const item = this.items.find((i) => i.id === id);
    if (!item) return false;
    item.text = text;
    this.publish();
    return true;
  }

  remove(id: string): QueuedMessage | undefined {
    const index = this.items.findIndex((i) => i.id === id);
    if (index < 0) return undefined;
    const [item] = this.items.splice(index, 1);
    this.publish();
    return item;
  }

  /** The oldest message, taken out to be sent. */
  shift(): QueuedMessage | undefined {
    const item = this.items.shift();
    if (item) this.publish();
    return item;
  }

  /** Put a message back at the head (it goes next). */
  unshift(item: QueuedMessage): void {
    this.items.unshift(item);
    this.publish();
  }

  /** A saved list back (a reloaded window); what is queued now stays behind it. */
  restore(items: QueuedMessage[]): void {
    const known = new Set(this.items.map((i) => i.id));
    this.items = [...items.filter((i) => !known.has(i.id)).map((i) => ({ ...i })), ...this.items];
    this.publish();
  }

  clear(): void {
    if (!this.items.length) return;
    this.items = [];
    this.publish();
  }

  private publish(): void {
    this.changed(this.list);
  }
}
