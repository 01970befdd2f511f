// A gateway's canvas document (HTML) as Preact elements, through a whitelist: the HTML is parsed
// in an inert document (DOMParser: nothing in it runs or loads), and only plain text structure is
// rebuilt from it. No attribute survives but an http(s)/mailto link's target (VS Code opens those
// outside the webview); images become their alt text; scripts, styles, frames, forms and
// SVG/MathML are dropped with their content.

import type { ComponentChildren, VNode } from "preact";
import { h } from "preact";

const KEPT = new Set(
  (
    "p div span section article header footer main aside nav h1 h2 h3 h4 h5 h6 ul ol li dl dt dd pre code kbd samp " +
    "strong b em i u s small sub sup mark blockquote br hr table thead tbody tfoot tr th td caption figure figcaption a"
  ).split(" "),
);
/** Dropped with everything inside them. */
const DROPPED = new Set(
  "script style x-style template noscript iframe frame frameset object embed applet svg math head title textarea select option form button input link meta base video audio picture source canvas".split(
    " ",
  ),
);
const SAFE_HREF = /^(https?:|mailto:)/i;
const MAX_NODES = 5_000;
const MAX_DEPTH = 48;
const MAX_TEXT = 200_000;

export function sanitizedHtml(html: string): ComponentChildren {
  const doc = new DOMParser().parseFromString(withoutStyles(html.slice(0, MAX_TEXT)), "text/html");
  const budget = { nodes: MAX_NODES };
  return children(doc.body, 0, budget);
}

/** Styles renamed before parsing: the parser's document shares the webview's CSP, which blocks them
 * but reports each one as a violation. (Safety does not rest on this: nothing of them is rebuilt.) */
function withoutStyles(html: string): string {
  return html
    .replace(/<(\/?)style\b/gi, "<$1x-style")
    .replace(/<[a-z][^>]*>/gi, (tag) => tag.replace(/([\s/"'])style(\s*=)/gi, "$1data-x-style$2"));
}

function children(parent: Node, depth: number, budget: { nodes: number }): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  for (const node of Array.from(parent.childNodes)) {
    if (budget.nodes-- <= 0) break;
    out.push(convert(node, depth, budget));
  }
  return out;
}

function convert(node: Node, depth: number, budget: { nodes: number }): ComponentChildren {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? "";
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  const el = node as Element;
  const tag = el.tagName.toLowerCase();
  if (DROPPED.has(tag)) return null;
  if (tag === "img") {
    const alt = el.getAttribute("alt");
    return alt ? `[image: ${alt}]` : "[image]";
  }
  // Past the depth limit the text stays, flat.
  if (depth >= MAX_DEPTH) return el.textContent ?? "";
  const inner = children(el, depth + 1, budget);
  if (!KEPT.has(tag)) return inner;
  if (tag === "a") {
    const href = (el.getAttribute("href") ?? "").trim();
    return SAFE_HREF.test(href) ? h("a", { href, title: href, rel: "noopener noreferrer" }, inner) : h("span", { class: "canvas-link-text" }, inner);
  }
  return h(tag, null, inner) as VNode;
}
