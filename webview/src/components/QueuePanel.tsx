// The messages sent while a turn runs, above the composer: each waits for the turn to end, and can
// be edited, removed, or sent now (into the running turn where the agent takes it, else the turn
// stops and it goes first). The extension owns the queue; this only shows it and asks.

import { useState } from "preact/hooks";
import type { QueuedMessage } from "@tether/contract/protocol";
import { post } from "../vscode";
import { Icon } from "./common";

function QueueItem({ item, index }: { item: QueuedMessage; index: number }) {
  const [draft, setDraft] = useState<string | null>(null);
  const files = item.attachments?.length ?? 0;
  if (draft !== null) {
    const save = () => {
      if (draft.trim()) post({ type: "editQueued", id: item.id, text: draft });
      setDraft(null);
    };
    return (
      <li class="queue-item editing">
        <textarea
          class="input queue-edit"
          aria-label={`Edit queued message ${index + 1}`}
          value={draft}
          rows={Math.min(6, Math.max(2, draft.split("\n").length))}
          ref={(el) => el?.focus()}
          onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              save();
            } else if (e.key === "Escape") {
              e.preventDefault();
              e.stopPropagation();
              setDraft(null);
            }
          }}
        />
        <div class="queue-actions">
          <button type="button" class="button button-small queue-save" onClick={save}>
            Save
          </button>
          <button type="button" class="button button-secondary button-small" onClick={() => setDraft(null)}>
            Cancel
          </button>
        </div>
      </li>
    );
  }
  return (
    <li class="queue-item">
      <span class="queue-text" title={item.text}>
        {item.text}
        {files ? <span class="muted small">{` +${files}`}</span> : null}
      </span>
      <span class="queue-actions">
        <button type="button" class="icon-button queue-send-now" title="Send now" aria-label={`Send now: ${item.text}`} onClick={() => post({ type: "sendNow", id: item.id })}>
          <Icon name="debug-step-into" />
        </button>
        <button type="button" class="icon-button queue-edit-button" title="Edit" aria-label={`Edit: ${item.text}`} onClick={() => setDraft(item.text)}>
          <Icon name="edit" />
        </button>
        <button type="button" class="icon-button queue-remove" title="Remove" aria-label={`Remove: ${item.text}`} onClick={() => post({ type: "removeQueued", id: item.id })}>
          <Icon name="close" />
        </button>
      </span>
    </li>
  );
}

export function QueuePanel({ queue }: { queue: QueuedMessage[] }) {
  if (!queue.length) return null;
  return (
    <section class="queue-panel" aria-label="Queued messages">
      <div class="queue-head muted small">
        <Icon name="list-ordered" />
        <span>{`Queued (${queue.length}): sent when the turn ends`}</span>
      </div>
      <ol class="queue-list">
        {queue.map((item, index) => (
          <QueueItem key={item.id} item={item} index={index} />
        ))}
      </ol>
    </section>
  );
}
