import MarkdownItCtor, { type MarkdownIt, type Token } from "markdown-it";

/**
 * Sanitized markdown for model output.
 *
 * - `html: false`: raw HTML in the source is escaped, never interpreted.
 * - Links are validated: only http(s), mailto and plain paths/anchors survive; anything with another
 *   scheme (javascript:, data:, vbscript:, file:, command:, vscode:) is left as literal text.
 * - Images are never loaded (they would be tracking pixels; the CSP blocks them anyway): they render
 *   as a link with their alt text.
 * - Table alignment uses classes, not `style=` (which the CSP would block).
 * - Fenced code gets a header with the language and a copy button (`data-action="copy-code"`,
 *   handled by delegation; no inline handlers anywhere).
 */

const SAFE_SCHEME_RE = /^(https?:|mailto:)/i;
const ANY_SCHEME_RE = /^[a-z][a-z0-9+.-]*:/i;
// A Windows drive path like C:\x or C:/x is a path, not a scheme.
const WINDOWS_DRIVE_RE = /^[a-z]:[\\/]/i;

export function isSafeHref(url: string): boolean {
  // Strip characters browsers ignore inside schemes (tabs, newlines, controls, spaces).
  // eslint-disable-next-line no-control-regex
  const compact = url.replace(/[\u0000-\u0020\u007f]/g, "");
  if (SAFE_SCHEME_RE.test(compact)) return true;
  if (WINDOWS_DRIVE_RE.test(compact)) return true;
  if (ANY_SCHEME_RE.test(compact)) return false;
  // Protocol-relative URLs (//host) are not paths.
  if (compact.startsWith("//")) return false;
  return true;
}

function attr(token: Token, name: string): string {
  const v = token.attrGet(name);
  return v === null || v === undefined ? "" : String(v);
}

function createMarkdown(): MarkdownIt {
  const md = new MarkdownItCtor({
    html: false,
    linkify: true,
    breaks: false,
    typographer: false,
  });
  md.validateLink = isSafeHref;

  const escape = md.utils.escapeHtml;

  md.renderer.rules.fence = (tokens, idx) => {
    const token = tokens[idx]!;
    const info = token.info ? md.utils.unescapeAll(token.info).trim() : "";
    const lang = info.split(/\s+/g)[0] ?? "";
    const langClass = lang ? ` class="language-${escape(lang.replace(/[^\w-]/g, ""))}"` : "";
    return (
      `<div class="code-block">` +
      `<div class="code-header"><span class="code-lang">${escape(lang || "text")}</span>` +
      `<button type="button" class="icon-button code-copy" data-action="copy-code" title="Copy code" aria-label="Copy code">` +
      `<span class="codicon codicon-copy" aria-hidden="true"></span></button></div>` +
      `<pre><code${langClass}>${escape(token.content)}</code></pre></div>\n`
    );
  };

  md.renderer.rules.code_block = (tokens, idx) => {
    const token = tokens[idx]!;
    return `<pre class="code-indented"><code>${escape(token.content)}</code></pre>\n`;
  };

  md.renderer.rules.image = (tokens, idx) => {
    const token = tokens[idx]!;
    const src = attr(token, "src");
    const alt = token.children ? md.renderer.renderInlineAsText(token.children, md.options, {}) : token.content;
    const label = `image: ${alt || src}`;
    if (src && isSafeHref(src) && !src.startsWith("data:")) {
      return `<a class="md-image-link" href="${escape(src)}" title="${escape(src)}">[${escape(label)}]</a>`;
    }
    return `<span class="md-image-link">[${escape(label)}]</span>`;
  };

  const defaultLinkOpen =
    md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    const href = attr(token, "href");
    token.attrSet("title", href);
    token.attrSet("rel", "noopener noreferrer");
    if (!SAFE_SCHEME_RE.test(href)) token.attrJoin("class", "file-link");
    return defaultLinkOpen(tokens, idx, options, env, self);
  };

  // Table alignment: style="text-align:x" → class="align-x".
  md.core.ruler.push("tether_align_classes", (state) => {
    for (const token of state.tokens) {
      if ((token.type === "th_open" || token.type === "td_open") && token.attrs) {
        const style = attr(token, "style");
        if (style) {
          const m = /text-align:\s*(left|right|center)/.exec(style);
          token.attrs = token.attrs.filter(([name]) => name !== "style");
          if (m) token.attrJoin("class", `align-${m[1]}`);
        }
      }
    }
    return true;
  });

  return md;
}

let mdInstance: MarkdownIt | undefined;

export function markdown(): MarkdownIt {
  return (mdInstance ??= createMarkdown());
}

export function renderMarkdown(src: string): string {
  return markdown().render(src);
}

// ---------------------------------------------------------------------------------------------
// Incremental rendering
// ---------------------------------------------------------------------------------------------

export interface MdBlock {
  /** Stable key: the block's start offset in the text. */
  key: number;
  html: string;
}

const FENCE_OPEN_RE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * The most of one text rendered as markdown (256 Ki characters, well past any real answer): a
 * longer one (hostile or runaway output) shows its start and a notice, so one message cannot
 * stall the view. The transcript export keeps all of it.
 */
export const MAX_MARKDOWN_CHARS = 256 * 1024;

function sizeLabel(chars: number): string {
  return chars >= 1024 * 1024 ? `${(chars / (1024 * 1024)).toFixed(1)} M` : `${Math.ceil(chars / 1024)} K`;
}

function overflowNotice(hidden: number): string {
  return (
    `<p class="md-overflow">${sizeLabel(hidden)} more characters of this message are not shown. ` +
    `Export the session as Markdown to read all of it.</p>\n`
  );
}

/**
 * Renders a growing markdown text as a list of blocks. Completed top-level blocks (ended by a blank
 * line outside any code fence, and not followed by an indented continuation) are parsed once and
 * cached; only the open tail is parsed again when more text arrives. A long streaming answer costs
 * O(size of the last block) per update instead of O(size of the message), and unchanged blocks keep
 * their DOM (and the user's selection).
 *
 * The same splitting is used for finished and replayed messages, so a message looks the same live
 * and after a resume.
 */
export class IncrementalMarkdown {
  private text = "";
  /** Offset of the first line not yet scanned for block boundaries. */
  private scanPos = 0;
  /** Start of the open (uncommitted) tail. */
  private tailStart = 0;
  private fence: { ch: string; len: number } | null = null;
  /** A blank line was seen; the block may end at this offset if the next line is not indented. */
  private pendingBoundary = -1;
  private readonly committed: MdBlock[] = [];
  private tailCache: { src: string; html: string } | null = null;

  constructor(text = "") {
    if (text) this.append(text);
  }

  get length(): number {
    return this.text.length;
  }

  /** Replaces the text (it usually only grows; anything else starts over). */
  setText(text: string): void {
    if (text.startsWith(this.text)) {
      this.append(text.slice(this.text.length));
      return;
    }
    this.text = "";
    this.scanPos = 0;
    this.tailStart = 0;
    this.fence = null;
    this.pendingBoundary = -1;
    this.committed.length = 0;
    this.tailCache = null;
    this.append(text);
  }

  append(delta: string): void {
    if (!delta) return;
    this.text += delta;
    this.scan();
  }

  private scan(): void {
    const text = this.text;
    for (;;) {
      // Past the rendered part nothing needs block boundaries.
      if (this.tailStart >= MAX_MARKDOWN_CHARS) {
        this.scanPos = text.length;
        return;
      }
      const nl = text.indexOf("\n", this.scanPos);
      if (nl < 0) break;
      const line = text.slice(this.scanPos, nl);
      const lineStart = this.scanPos;
      this.scanPos = nl + 1;
      this.scanLine(line, lineStart);
    }
    // The partial last line already tells whether a pending boundary holds: commit early so the
    // finished paragraph is not re-parsed while the next one streams.
    if (this.pendingBoundary >= 0 && !this.fence && this.scanPos < text.length) {
      const c = text[this.scanPos]!;
      if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") {
        if (this.pendingBoundary > this.tailStart) this.commit(this.pendingBoundary);
        this.pendingBoundary = -1;
      }
    }
  }

  private scanLine(line: string, lineStart: number): void {
    if (this.fence) {
      const m = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (m && m[1]![0] === this.fence.ch && m[1]!.length >= this.fence.len) this.fence = null;
      return;
    }
    const blank = line.trim() === "";
    if (blank) {
      if (this.pendingBoundary < 0) this.pendingBoundary = this.scanPos;
      return;
    }
    if (this.pendingBoundary >= 0) {
      const indented = line.startsWith(" ") || line.startsWith("\t");
      if (!indented && this.pendingBoundary > this.tailStart) {
        this.commit(this.pendingBoundary);
      }
      this.pendingBoundary = -1;
    }
    const open = FENCE_OPEN_RE.exec(line);
    if (open) {
      const marker = open[1]!;
      // A backtick fence's info string may not contain backticks.
      if (!(marker[0] === "`" && open[2]!.includes("`"))) {
        this.fence = { ch: marker[0]!, len: marker.length };
      }
    }
    void lineStart;
  }

  private commit(end: number): void {
    // A block that crosses the limit is cut at it.
    const src = this.text.slice(this.tailStart, Math.min(end, MAX_MARKDOWN_CHARS));
    this.committed.push({ key: this.tailStart, html: renderMarkdown(src) });
    this.tailStart = end;
    this.tailCache = null;
  }

  /** The blocks to display: the committed ones plus the rendered tail (and, past the limit, the
   * notice of what is not shown). */
  blocks(): MdBlock[] {
    const blocks = this.committed.slice();
    const tailSrc = this.text.slice(this.tailStart, Math.max(this.tailStart, MAX_MARKDOWN_CHARS));
    if (tailSrc.trim()) {
      if (!this.tailCache || this.tailCache.src !== tailSrc) {
        this.tailCache = { src: tailSrc, html: renderMarkdown(tailSrc) };
      }
      blocks.push({ key: this.tailStart, html: this.tailCache.html });
    }
    if (this.text.length > MAX_MARKDOWN_CHARS) {
      blocks.push({ key: MAX_MARKDOWN_CHARS + 1, html: overflowNotice(this.text.length - MAX_MARKDOWN_CHARS) });
    }
    return blocks;
  }
}
