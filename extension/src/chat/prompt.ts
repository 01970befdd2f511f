// Turns the composer's text and attachments into the prompt the agent gets: files are named,
// selections quoted with their place, images passed as images. Pure.

import type { Attachment } from "../contract/protocol";

export interface PromptImage {
  mediaType: string;
  /** base64, without the data: prefix. */
  data: string;
}

export function buildPrompt(text: string, attachments: Attachment[]): { text: string; images: PromptImage[] } {
  const context: string[] = [];
  const images: PromptImage[] = [];
  for (const a of attachments) {
    if (a.kind === "image" && a.dataUrl) {
      const match = /^data:([^;,]+);base64,(.*)$/s.exec(a.dataUrl);
      if (match) images.push({ mediaType: a.mimeType ?? match[1]!, data: match[2]! });
    } else if (a.kind === "selection" && a.path && a.text !== undefined) {
      const where = a.range ? `${a.path}:${a.range.startLine}-${a.range.endLine}` : a.path;
      const fence = a.text.includes("```") ? "````" : "```";
      context.push(`Selection from ${where}:\n${fence}\n${a.text}\n${fence}`);
    } else if (a.kind === "file" && a.path && !text.includes(`@${a.path}`)) {
      context.push(`@${a.path}`);
    }
  }
  const full = context.length ? `${context.join("\n\n")}\n\n${text}` : text;
  return { text: full, images };
}
