// The rewind preview: the files a rewind puts back (lines back and away), what cannot be rewound
// (shell commands, files changed since), then Rewind or Cancel; afterwards, how it ended.

import { useEffect, useRef } from "preact/hooks";
import type { RewindFile } from "@tether/core";
import { store } from "../store";
import type { RewindView } from "../store/rewind";
import { post } from "../vscode";
import { Icon } from "./common";

function FileLine({ file }: { file: RewindFile }) {
  return (
    <li class={`rewind-file${file.problem ? " has-problem" : ""}`}>
      <div class="rewind-file-head">
        <Icon name={file.action === "delete" ? "trash" : "file"} />
        <span class="rewind-path" title={file.path}>
          {file.relative}
        </span>
        <span class="rewind-counts">
          {file.action === "delete" ? <span class="muted small">delete</span> : null}
          <span class="diff-add">+{file.insertions}</span>
          <span class="diff-del">−{file.deletions}</span>
        </span>
      </div>
      {file.problem ? <div class="rewind-problem">{file.problem}</div> : null}
    </li>
  );
}

export function RewindDialog({ view }: { view: RewindView }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.querySelector<HTMLElement>("button.button-primary, button")?.focus(), [view.messageId, view.done]);
  const close = () => {
    store.rewind.close();
    store.changed();
  };
  const confirm = () => {
    store.rewind.started();
    store.changed();
    post({ type: "rewindConfirm", messageId: view.messageId, fork: view.fork });
  };
  const preview = view.preview;
  const blocked = !preview || !preview.known || preview.files.some((f) => f.problem);
  const title = view.fork ? "Rewind code and fork from here" : "Rewind code";
  return (
    <div class="rewind-dialog" role="dialog" aria-modal="true" aria-label={title} ref={ref} onKeyDown={(e) => e.key === "Escape" && close()}>
      <div class="rewind-title">
        <Icon name="discard" />
        <span>{title}</span>
      </div>
      {view.done ? (
        <p class={view.done.ok ? "rewind-ok" : "rewind-problem"} role="status">
          {view.done.message}
        </p>
      ) : view.error ? (
        <p class="rewind-problem">{view.error}</p>
      ) : !preview ? null : !preview.known ? (
        <p class="rewind-problem">There is no checkpoint for this message (it was sent before checkpoints were kept, or it is older than the retention).</p>
      ) : (
        <>
          {preview.files.length ? (
            <ul class="rewind-files" aria-label="Files the rewind puts back">
              {preview.files.map((f) => (
                <FileLine key={f.path} file={f} />
              ))}
            </ul>
          ) : (
            <p class="muted">Tether changed no files from this message on.</p>
          )}
          {preview.shellCommands ? (
            <p class="rewind-warning">
              <Icon name="warning" /> Shell commands ran from this message on. What they changed is not rewound.
            </p>
          ) : null}
        </>
      )}
      <div class="rewind-buttons">
        {view.done ? (
          <button type="button" class="button button-small" onClick={close}>
            Close
          </button>
        ) : (
          <>
            <button type="button" class="button button-primary button-small" disabled={blocked || view.running} onClick={confirm}>
              {view.running ? "Rewinding…" : view.fork ? "Rewind and fork" : "Rewind"}
            </button>
            <button type="button" class="button button-secondary button-small" onClick={close}>
              Cancel
            </button>
          </>
        )}
      </div>
    </div>
  );
}
