import type { TextPart } from "../store";
import { StreamingMarkdown } from "./Markdown";

/** A thinking block: collapsed by default, with a live "Thinking…" indicator while it streams. */
export function ThinkingView({ part, streaming, onToggle }: { part: TextPart; streaming: boolean; onToggle: () => void }) {
  const open = !!part.open;
  return (
    <div class={`thinking${streaming ? " thinking-live" : ""}`}>
      <button
        type="button"
        class="thinking-toggle"
        aria-expanded={open}
        onClick={() => {
          part.open = !open;
          onToggle();
        }}
      >
        <span class={`codicon codicon-${open ? "chevron-down" : "chevron-right"}`} aria-hidden="true" />
        <span
          class={`codicon ${streaming ? "codicon-loading codicon-modifier-spin" : "codicon-thinking"}`}
          aria-hidden="true"
        />
        <span class="thinking-label">{streaming ? "Thinking…" : "Thinking"}</span>
      </button>
      {open ? <StreamingMarkdown part={part} streaming={streaming} className="thinking-md" /> : null}
    </div>
  );
}
