import type { WebviewHtmlOptions } from "./protocol";

/** Escapes a value for use inside a double-quoted HTML attribute. */
function attr(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

/** An origin the CSP may name: `http(s)://host[:port]`, nothing else (no path, no wildcard). */
const FRAME_ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$/;

/** The Content-Security-Policy the webview runs under. Frames only from `frameOrigins` (an
 * OpenClaw gateway's board widgets); none without. */
export function webviewCsp(cspSource: string, nonce: string, frameOrigins: string[] = []): string {
  const frames = frameOrigins.filter((origin) => FRAME_ORIGIN.test(origin));
  return [
    "default-src 'none'",
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    ...(frames.length ? [`frame-src ${frames.join(" ")}`] : []),
  ].join("; ");
}

/**
 * The HTML document for the chat webview. The extension calls this with `webview.cspSource`, a fresh
 * nonce and the `asWebviewUri`s of `out/main.js`, `out/main.css` and `out/codicon.css`.
 */
export function renderWebviewHtml(opts: WebviewHtmlOptions): string {
  if (!/^[A-Za-z0-9+/=_-]{8,}$/.test(opts.nonce)) {
    throw new Error("renderWebviewHtml: the nonce must be at least 8 base64/alphanumeric characters");
  }
  const csp = webviewCsp(opts.cspSource, opts.nonce, opts.frameOrigins);
  const title = opts.title ?? "Tether";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(opts.codiconUri)}" nonce="${attr(opts.nonce)}">
<link rel="stylesheet" href="${attr(opts.styleUri)}" nonce="${attr(opts.nonce)}">
<title>${attr(title)}</title>
</head>
<body>
<div id="root" class="tether-root"></div>
<script nonce="${attr(opts.nonce)}" src="${attr(opts.scriptUri)}"></script>
</body>
</html>
`;
}
