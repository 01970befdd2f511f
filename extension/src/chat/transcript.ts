// The chat transcript (its entries) as Markdown, for "Export Session as Markdown". Pure.

import type { ChatEntry } from "../contract/protocol";

export function transcriptToMarkdown(events: readonly ChatEntry[]): string {
  const out: string[] = [];
  // A tool call's title changes when its full input arrives: keep one line, the latest title.
  const toolLines = new Map<string, number>();
  const names = new Map<string, string>();
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
        if (!texts.has(e.messageId)) {
          texts.set(e.messageId, "");
          order.push(e.messageId);
        }
        break;
      case "textDelta": {
        const id = e.messageId ?? order[order.length - 1] ?? "";
        if (!texts.has(id)) order.push(id);
        texts.set(id, (texts.get(id) ?? "") + e.text);
        break;
      }
      case "toolCallStart": {
        flushMessages();
        names.set(e.id, e.name);
        toolLines.set(e.id, out.length);
        out.push(toolLine(e.name, e.title));
        break;
      }
      case "toolCallUpdate": {
        const line = toolLines.get(e.id);
        const name = names.get(e.id);
        if (line !== undefined && name !== undefined && e.title) out[line] = toolLine(name, e.title);
        break;
      }
      case "permissionResolved":
        out.push(`> permission ${e.outcome}${e.reason ? `: ${e.reason}` : ""}\n`);
        break;
      case "error":
        if (e.severity === "error") out.push(`> **Error:** ${e.message}\n`);
        break;
      default:
        break;
    }
  }
  flushMessages();
  return `# Tether session\n\n${out.join("\n")}`;
}

function toolLine(name: string, title: string): string {
  return `> **${name}** ${title && title !== name ? title : ""}`.trimEnd() + "\n";
}
