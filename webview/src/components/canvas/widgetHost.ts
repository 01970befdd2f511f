// The host side of an OpenClaw board widget's bridge. The gateway serves each widget's page with
// its own sandboxing CSP (`sandbox allow-scripts`: an opaque origin, no network beyond what the
// user granted); the panel frames it with `sandbox="allow-scripts"` as well, so the page cannot
// reach this document, only post messages. Its bridge (`window.openclaw`) offers a MessagePort,
// gets the view ticket in `openclaw:widget-host-init`, and sends `openclaw:widget-bridge-request`s
// on that port. Calls for the gateway (`state.emit`, `data.read`, `action.run`, `cron.trigger`)
// go to the backend, which answers each with the ticket the board gave that widget; `host.open`
// opens an http(s) link through VS Code; `prompt.send` puts the text in the composer for the user
// to send. Messages are told apart by their source window, never by what they claim.

import type { CanvasUpdate, JsonValue } from "@tether/core";

type WidgetReply = Extract<CanvasUpdate, { kind: "widgetReply" }>;

/** Calls one widget may have waiting at once. */
const CALLS_IN_FLIGHT = 64;
/** A call's arguments, serialized (the gateway takes 8 KiB). */
const MAX_CALL_BYTES = 64 * 1024;
/** A text a widget may suggest to the composer. */
const MAX_PROMPT = 8_000;
/** The backend answers every call (the gateway's own timeout is 30 s); this only guards against a
 * webview whose extension went away. */
const CALL_DEADLINE_MS = 45_000;
const HEIGHT = { min: 48, max: 1_600 };

export interface WidgetHostEvents {
  /** Send a call to the backend (`canvasAction` `widgetCall`). */
  call(callId: string, method: string, params: JsonValue): void;
  /** Open an http(s) link. */
  open(url: string): void;
  /** Put text in the composer. */
  suggest(text: string): void;
  /** The page's content height. */
  resize(height: number): void;
  /** An error in the page's script. */
  failed(message: string): void;
}

interface Pending {
  host: WidgetHost;
  requestId: string;
  timer: ReturnType<typeof setTimeout>;
}

const hosts = new Map<MessageEventSource, WidgetHost>();
const pending = new Map<string, Pending>();
let sequence = 0;
let listening = false;

function onWindowMessage(event: MessageEvent): void {
  const host = event.source ? hosts.get(event.source) : undefined;
  host?.fromPage(event);
}

/** The backend's answer to a widget's call: back to the page that made it. */
export function deliverWidgetReply(reply: WidgetReply): void {
  const call = pending.get(reply.callId);
  if (!call) return;
  pending.delete(reply.callId);
  clearTimeout(call.timer);
  call.host.settle(reply.callId, call.requestId, reply.ok, reply.ok ? reply.result : (reply.error ?? "the gateway refused the call"));
}

function object(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** VS Code's theme as the widget theme's tokens (a page styled with them matches the editor). */
const THEME_TOKENS: Record<string, string> = {
  surface: "--vscode-editor-background",
  card: "--vscode-editorWidget-background",
  elevated: "--vscode-input-background",
  text: "--vscode-foreground",
  "text-strong": "--vscode-editor-foreground",
  muted: "--vscode-descriptionForeground",
  border: "--vscode-widget-border",
  "border-strong": "--vscode-input-border",
  accent: "--vscode-textLink-foreground",
  "accent-fill": "--vscode-button-background",
  "accent-fg": "--vscode-button-foreground",
  ok: "--vscode-testing-iconPassed",
  warn: "--vscode-editorWarning-foreground",
  danger: "--vscode-errorForeground",
  info: "--vscode-editorInfo-foreground",
  "font-body": "--vscode-font-family",
  "font-mono": "--vscode-editor-font-family",
};

function themeMessage(): { type: string; tokens: Record<string, string>; mode: "light" | "dark" } {
  const style = getComputedStyle(document.documentElement);
  const tokens: Record<string, string> = {};
  for (const [token, variable] of Object.entries(THEME_TOKENS)) {
    const value = style.getPropertyValue(variable).trim();
    if (value) tokens[token] = value;
  }
  const light = document.body.classList.contains("vscode-light") || document.body.classList.contains("vscode-high-contrast-light");
  return { type: "openclaw:widget-theme", tokens, mode: light ? "light" : "dark" };
}

/** One framed widget page and its bridge port. */
export class WidgetHost {
  private port: MessagePort | undefined;
  private readonly mine = new Set<string>();

  constructor(
    private readonly frame: HTMLIFrameElement,
    private readonly widget: string,
    private ticket: string,
    private readonly events: WidgetHostEvents,
  ) {
    if (!listening) {
      window.addEventListener("message", onWindowMessage);
      listening = true;
    }
    // The frame's window stays the same object across its page's loads.
    const source = frame.contentWindow;
    if (source) hosts.set(source, this);
  }

  /** A fresh ticket from a newer board read: the page carries on with it, without reloading. */
  setTicket(ticket: string): void {
    if (ticket === this.ticket) return;
    this.ticket = ticket;
    this.port?.postMessage({ type: "openclaw:widget-host-init", ticket });
  }

  /** Tell the page VS Code's colours. */
  sendTheme(): void {
    this.frame.contentWindow?.postMessage(themeMessage(), "*");
  }

  dispose(): void {
    for (const [source, host] of hosts) if (host === this) hosts.delete(source);
    for (const callId of this.mine) {
      const call = pending.get(callId);
      if (call) clearTimeout(call.timer);
      pending.delete(callId);
    }
    this.mine.clear();
    this.port?.close();
    this.port = undefined;
  }

  fromPage(event: MessageEvent): void {
    const data = object(event.data);
    switch (data?.type) {
      case "openclaw:widget-bridge-port-offer": {
        const port = event.ports[0];
        if (!port) return;
        this.port?.close();
        this.port = port;
        port.onmessage = (message) => this.fromPort(message.data);
        port.postMessage({ type: "openclaw:widget-host-init", ticket: this.ticket });
        return;
      }
      case "openclaw:widget-size": {
        const height = data.height;
        if (typeof height === "number" && Number.isFinite(height)) {
          this.events.resize(Math.min(HEIGHT.max, Math.max(HEIGHT.min, Math.ceil(height))));
        }
        return;
      }
      case "openclaw:widget-runtime-error":
        if (typeof data.message === "string") this.events.failed(data.message.slice(0, 500));
        return;
      default:
        // The prompt channel, scroll forwarding and snapshots are the control UI's own: not offered.
        return;
    }
  }

  /** The answer to call `callId`, for the page's request `requestId`. */
  settle(callId: string, requestId: string, ok: boolean, value: JsonValue | string): void {
    this.mine.delete(callId);
    this.respond(requestId, ok, value);
  }

  private respond(requestId: string, ok: boolean, value: JsonValue | string): void {
    const answer = ok
      ? { type: "openclaw:widget-bridge-response", id: requestId, ok: true, result: value }
      : { type: "openclaw:widget-bridge-response", id: requestId, ok: false, error: String(value) };
    this.port?.postMessage(answer);
  }

  private fromPort(message: unknown): void {
    const data = object(message);
    if (data?.type !== "openclaw:widget-bridge-request" || typeof data.id !== "string" || typeof data.method !== "string") return;
    const requestId = data.id;
    const params = object(data.params) ?? {};
    switch (data.method) {
      case "host.open": {
        const url = params.url;
        if (typeof url === "string" && /^https?:\/\//i.test(url)) {
          this.events.open(url);
          this.respond(requestId, true, true);
        } else this.respond(requestId, false, "only http(s) links open");
        return;
      }
      case "prompt.send": {
        const text = params.text;
        if (typeof text === "string" && text.trim()) {
          this.events.suggest(text.slice(0, MAX_PROMPT));
          this.respond(requestId, true, true);
        } else this.respond(requestId, false, "the prompt is empty");
        return;
      }
      default:
        this.forward(requestId, data.method, params);
    }
  }

  private forward(requestId: string, method: string, params: Record<string, unknown>): void {
    if (this.mine.size >= CALLS_IN_FLIGHT) return this.respond(requestId, false, "too many calls are waiting for the gateway");
    let size: number;
    try {
      size = JSON.stringify(params).length;
    } catch {
      return this.respond(requestId, false, "the call's arguments are not JSON");
    }
    if (size > MAX_CALL_BYTES) return this.respond(requestId, false, `the call's arguments are over ${MAX_CALL_BYTES} bytes`);
    const callId = `${this.widget}:${++sequence}`;
    const timer = setTimeout(() => {
      if (pending.delete(callId)) this.settle(callId, requestId, false, "no answer from the gateway");
    }, CALL_DEADLINE_MS);
    pending.set(callId, { host: this, requestId, timer });
    this.mine.add(callId);
    this.events.call(callId, method, params as JsonValue);
  }
}
