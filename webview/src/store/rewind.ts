// A rewind in the chat: the preview the extension sent for a user message (files, insertions,
// deletions, what cannot be rewound), then how it ended. One at a time.

import type { RewindPreview } from "@tether/core";
import type { ExtensionToWebview } from "@tether/contract/protocol";

type RewindMessage = Extract<ExtensionToWebview, { type: "rewindPreview" | "rewindDone" }>;

export interface RewindView {
  messageId: string;
  /** A fork follows the rewind ("both"). */
  fork: boolean;
  preview?: RewindPreview;
  /** Why there is no preview. */
  error?: string;
  /** Sent; waiting for rewindDone. */
  running: boolean;
  /** How it ended. */
  done?: { ok: boolean; message: string };
}

export class RewindState {
  current: RewindView | undefined;

  apply(msg: RewindMessage): void {
    if (msg.type === "rewindPreview") {
      this.current = {
        messageId: msg.messageId,
        fork: msg.fork,
        ...(msg.preview ? { preview: msg.preview } : {}),
        ...(msg.error ? { error: msg.error } : {}),
        running: false,
      };
      return;
    }
    if (this.current?.messageId !== msg.messageId) return;
    this.current = { ...this.current, running: false, done: { ok: msg.ok, message: msg.message } };
  }

  started(): void {
    if (this.current) this.current = { ...this.current, running: true };
  }

  close(): void {
    this.current = undefined;
  }
}
