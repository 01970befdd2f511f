import { memo } from "../memo";
import { useMemo } from "preact/hooks";
import { IncrementalMarkdown, type MdBlock } from "../markdown";
import type { TextPart } from "../store";

const MdBlockView = memo(
  function MdBlockView({ html }: { html: string }) {
    return <div class="md-block" dangerouslySetInnerHTML={{ __html: html }} />;
  },
  (a, b) => a.html === b.html,
);

function Blocks({ blocks }: { blocks: MdBlock[] }) {
  return (
    <>
      {blocks.map((b) => (
        <MdBlockView key={b.key} html={b.html} />
      ))}
    </>
  );
}

/** Markdown for a streaming text part: only the open tail is re-parsed on each update. */
export function StreamingMarkdown({ part, streaming, className }: { part: TextPart; streaming: boolean; className?: string }) {
  if (!part.md) part.md = new IncrementalMarkdown(part.text);
  else if (part.md.length !== part.text.length) part.md.setText(part.text);
  const blocks = part.md.blocks();
  return (
    <div class={`md ${className ?? ""}${streaming ? " streaming" : ""}`}>
      <Blocks blocks={blocks} />
      {streaming && !blocks.length ? <span class="stream-caret" aria-hidden="true" /> : null}
    </div>
  );
}

/** Markdown for a fixed text (plans, subagent results). */
export function Markdown({ text, className }: { text: string; className?: string }) {
  const blocks = useMemo(() => new IncrementalMarkdown(text).blocks(), [text]);
  return (
    <div class={`md ${className ?? ""}`}>
      <Blocks blocks={blocks} />
    </div>
  );
}
