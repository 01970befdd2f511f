// The chat transcript (webview events) as Markdown, for "Export Session as Markdown". Pure.

import type { UiEvent } from "../../../webview/src/protocol";

export function transcriptToMarkdown(events: UiEvent[]): string {
  const out: string[] = [];
  // A tool call is announced again when its full input arrives: keep one line, the latest title.
  const toolLines = new Map<string, number>();
  const texts = new Map<string, string>();
  const order: string[] = [];
  const flushMessages = () => {
    for (const id of order) {
      const text = texts.get(id)?.trim();
      if (text) out.push(`## Claude\n\n${text}\n`);
    }
    texts.clear();
    order.length = 0;
  };
  for (const e of events) {
    switch (e.type) {
      case "userMessage":
        flushMessages();
        out.push(`## You\n\n${e.text}\n`);
        break;
      case "messageStart":
        if (!texts.has(e.id)) {
          texts.set(e.id, "");
          order.push(e.id);
        }
        break;
      case "textDelta":
        if (!texts.has(e.messageId)) order.push(e.messageId);
        texts.set(e.messageId, (texts.get(e.messageId) ?? "") + e.text);
        break;
      case "toolCallStart": {
        flushMessages();
        const known = toolLines.get(e.toolCallId);
        const name = known === undefined ? e.name : (out[known]!.match(/^> \*\*(.+?)\*\*/)?.[1] ?? e.name);
        const text = `> **${name}** ${e.title && e.title !== name ? e.title : ""}`.trimEnd() + "\n";
        if (known === undefined) {
          toolLines.set(e.toolCallId, out.length);
          out.push(text);
        } else if (e.title) {
          out[known] = text;
        }
        break;
      }
      case "permissionResolved":
        out.push(`> permission ${e.outcome}${e.reason ? `: ${e.reason}` : ""}\n`);
        break;
      case "error":
        out.push(`> **Error:** ${e.message}\n`);
        break;
      default:
        break;
    }
  }
  flushMessages();
  return `# Tether session\n\n${out.join("\n")}`;
}
