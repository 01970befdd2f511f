// The canvas panel: the session's board widgets, its canvas documents and the A2UI surfaces a
// gateway pushes (Text, Button, CodeBlock, FileTree; any other component is a placeholder naming
// it). Everything shown is the gateway's and untrusted: text is rendered as text, documents through
// the whitelist in ./sanitize. A board widget is a page with script: it runs only when the user
// asks, framed from the gateway's origin (the only frame source the webview's CSP allows) in a
// sandbox without same-origin, talking to Tether only through its bridge (./widgetHost). The
// user's actions go back as `canvasAction`.

import { useEffect, useRef, useState } from "preact/hooks";
import type { CanvasAction, CanvasWidget, JsonValue, SurfaceComponent } from "@tether/core";
import { bound, store, type Surface } from "../../store";
import { widgetKey, type Canvas, type CanvasDocument } from "../../store/canvas";
import { post } from "../../vscode";
import { Icon } from "../common";
import { sanitizedHtml } from "./sanitize";
import { WidgetHost } from "./widgetHost";

const MAX_TEXT = 20_000;
const MAX_ITEMS = 1_000;
const SAFE_URL = /^https?:\/\//i;

function act(action: CanvasAction): void {
  post({ type: "canvasAction", action });
}

/** A prop as text: strings as they are, numbers and booleans printed, anything else as JSON. */
function text(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return "";
  const s = typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s;
}

function props(component: SurfaceComponent): Record<string, JsonValue> {
  const p = component.props;
  return p !== null && typeof p === "object" && !Array.isArray(p) ? p : {};
}

function Component({ surface, component }: { surface: Surface; component: SurfaceComponent }) {
  const p = props(component);
  const prop = (name: string) => bound(p[name], surface.model);
  const surfaceAction = (action: string, context: Record<string, JsonValue>) =>
    act({ kind: "surface", surfaceId: surface.surfaceId, action, context: { componentId: component.id, ...context } });
  switch (component.type) {
    case "Text":
      return <p class="a2ui-text">{text(prop("text"))}</p>;
    case "Button":
      return (
        <button type="button" class="button button-secondary a2ui-button" onClick={() => surfaceAction("onClick", {})}>
          {text(prop("label")) || component.id}
        </button>
      );
    case "CodeBlock": {
      const language = text(prop("language"));
      return (
        <pre class="a2ui-code" aria-label={language ? `${language} code` : "Code"}>
          <code>{text(prop("code"))}</code>
        </pre>
      );
    }
    case "FileTree": {
      const items = prop("items");
      const paths = (Array.isArray(items) ? items : []).slice(0, MAX_ITEMS).map(text);
      return (
        <ul class="a2ui-filetree" aria-label="Files">
          {paths.map((path, i) => (
            <li key={`${i}:${path}`}>
              <button type="button" class="a2ui-file" title={path} onClick={() => surfaceAction("onSelect", { path })}>
                <Icon name={path.endsWith("/") ? "folder" : "file"} />
                <span>{path}</span>
              </button>
            </li>
          ))}
        </ul>
      );
    }
    default:
      return (
        <div class="a2ui-placeholder" role="note">
          <Icon name="symbol-misc" />
          <span>{`[${text(component.type) || "unnamed"}: not yet implemented]`}</span>
        </div>
      );
  }
}

function SurfaceView({ surface }: { surface: Surface }) {
  const model = surface.model;
  const hasData = model !== null && typeof model === "object" && Object.keys(model).length > 0;
  return (
    <section class="canvas-card canvas-surface" aria-label={`Surface ${surface.title ?? surface.surfaceId}`} data-surface={surface.surfaceId}>
      <h3 class="canvas-card-title">{surface.title ?? surface.surfaceId}</h3>
      {surface.components.map((c, i) => (
        <Component key={`${i}:${c.id}`} surface={surface} component={c} />
      ))}
      {hasData ? (
        <details class="canvas-data">
          <summary>Data</summary>
          <pre>{text(model)}</pre>
        </details>
      ) : null}
    </section>
  );
}

/** Before a fresh ticket is due, the board is read again (the page keeps running with it). */
const TICKET_MARGIN_MS = 60_000;

/** When a widget's ticket, from a board that arrived at `receivedAt`, is due for renewal. */
function renewAt(widget: CanvasWidget, receivedAt: number): number {
  return widget.viewTicketTtlMs ? receivedAt + widget.viewTicketTtlMs - TICKET_MARGIN_MS : Infinity;
}

/** A widget's page, running: framed from the gateway, its bridge served by a WidgetHost. */
function WidgetFrame({ widget, url, ticket, renewal }: { widget: CanvasWidget; url: string; ticket: string; renewal: number }) {
  const host = useRef<WidgetHost>();
  // The page as first loaded: a newer ticket reaches it through the bridge instead of a reload.
  const [src] = useState(url);
  const [height, setHeight] = useState(200);
  const [loaded, setLoaded] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  // Made as the frame enters the page, before its page can post anything.
  const attach = (frame: HTMLIFrameElement | null) => {
    if (!frame || host.current) return;
    host.current = new WidgetHost(frame, widget.name, ticket, {
      call: (callId, method, params) => act({ kind: "widgetCall", widget: widget.name, callId, method, params }),
      open: (link) => post({ type: "openExternal", url: link }),
      suggest: (text) => store.enqueue({ type: "prefill", text }),
      resize: setHeight,
      failed: setFailure,
    });
  };
  useEffect(() => () => host.current?.dispose(), []);
  useEffect(() => host.current?.setTicket(ticket), [ticket]);
  useEffect(() => {
    if (renewal === Infinity) return;
    const timer = setTimeout(() => post({ type: "canvasRefresh" }), Math.max(0, renewal - Date.now()));
    return () => clearTimeout(timer);
  }, [renewal]);
  const name = widget.title || widget.name;
  return (
    <div class="canvas-widget-frame">
      {loaded ? null : (
        <div class="muted small canvas-widget-loading" role="status">
          Loading the widget…
        </div>
      )}
      <iframe
        ref={attach}
        src={src}
        sandbox="allow-scripts"
        referrerpolicy="no-referrer"
        title={`Widget ${name}`}
        style={{ height: `${height}px` }}
        onLoad={() => {
          host.current?.sendTheme();
          setLoaded(true);
        }}
      />
      {failure ? (
        <div class="canvas-widget-error small" role="status">
          <Icon name="warning" />
          <span>{`The widget's script failed: ${failure}`}</span>
        </div>
      ) : null}
    </div>
  );
}

function WidgetView({ canvas, widget }: { canvas: Canvas; widget: CanvasWidget }) {
  const url = widget.frameUrl && SAFE_URL.test(widget.frameUrl) ? widget.frameUrl : null;
  const key = widgetKey(widget);
  const [live, setLive] = useState(canvas.live.has(key));
  const renewal = renewAt(widget, canvas.board?.receivedAt ?? 0);
  // A page is loaded with its ticket in the URL: one about to lapse is renewed before the page
  // loads. A page already running keeps running (its new ticket reaches it over its port).
  const running = useRef(false);
  const showFrame = live && (running.current || Date.now() < renewal);
  running.current = showFrame;
  useEffect(() => {
    if (live && !showFrame) post({ type: "canvasRefresh" });
  }, [live, showFrame, widget.viewTicket]);
  const run = (on: boolean) => {
    if (on) canvas.live.add(key);
    else canvas.live.delete(key);
    setLive(on);
  };
  const grant = (granted: boolean) =>
    act({ kind: "widgetGrant", widget: widget.name, granted, revision: widget.revision, instanceId: widget.instanceId ?? "" });
  const name = widget.title || widget.name;
  return (
    <li class="canvas-card canvas-widget" data-widget={widget.name}>
      <div class="canvas-card-title">
        <Icon name="window" />
        <span>{name}</span>
        <span class="spacer" />
        {url && widget.viewTicket ? (
          <button type="button" class="button button-secondary canvas-widget-run" aria-pressed={live} onClick={() => run(!live)}>
            {live ? "Stop the widget" : "Run the widget"}
          </button>
        ) : null}
      </div>
      <div class="muted small">{`${widget.contentKind || "widget"} · revision ${widget.revision}`}</div>
      {widget.grantState === "pending" ? (
        <div class="canvas-widget-grant" role="group" aria-label={`Approve the widget ${name}`}>
          <p class="small">The agent's widget waits for your approval{widget.declaredSummary.length ? ". It asks for:" : "."}</p>
          {widget.declaredSummary.length ? (
            <ul class="small">
              {widget.declaredSummary.slice(0, 32).map((item, i) => (
                <li key={`${i}:${item}`}>{text(item)}</li>
              ))}
            </ul>
          ) : null}
          {widget.instanceId ? (
            <div class="row">
              <button type="button" class="button" onClick={() => grant(true)}>
                Allow
              </button>
              <button type="button" class="button button-secondary" onClick={() => grant(false)}>
                Reject
              </button>
            </div>
          ) : null}
        </div>
      ) : null}
      {widget.grantState === "rejected" ? <div class="muted small">You rejected this widget.</div> : null}
      {live && url && widget.viewTicket ? (
        showFrame ? (
          <WidgetFrame key={`${widget.revision}`} widget={widget} url={url} ticket={widget.viewTicket} renewal={renewal} />
        ) : (
          <div class="muted small" role="status">
            Getting a fresh view of the widget…
          </div>
        )
      ) : null}
      {url ? (
        <a class="canvas-widget-link small" href={url} title={url} rel="noopener noreferrer">
          Open the widget's page in the browser
        </a>
      ) : null}
    </li>
  );
}

function DocumentView({ doc }: { doc: CanvasDocument }) {
  return (
    <section class="canvas-card canvas-document" aria-label={`Document ${doc.docId}`} data-doc={doc.docId}>
      <div class="canvas-card-title">
        <Icon name="file-code" />
        <span>{doc.docId || "Document"}</span>
        <span class="spacer" />
        {doc.docId ? (
          <button type="button" class="icon-button" title="Reload the document" aria-label="Reload the document" onClick={() => act({ kind: "document", docId: doc.docId })}>
            <Icon name="refresh" />
          </button>
        ) : null}
      </div>
      <div class="canvas-document-body">{sanitizedHtml(doc.html)}</div>
    </section>
  );
}

export function CanvasPanel({ canvas, onClose }: { canvas: Canvas; onClose: (focusButton: boolean) => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.querySelector<HTMLElement>(".canvas-close")?.focus(), []);
  const widgets = canvas.board?.widgets ?? [];
  return (
    <div
      ref={ref}
      class="canvas-panel"
      id="canvas-panel"
      role="dialog"
      aria-label="Canvas"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          onClose(true);
        }
      }}
    >
      <div class="history-head">
        <h2>Canvas</h2>
        <span class="spacer" />
        <button type="button" class="icon-button canvas-refresh" aria-label="Refresh the canvas" title="Refresh" onClick={() => post({ type: "canvasRefresh" })}>
          <Icon name="refresh" />
        </button>
        <button type="button" class="icon-button canvas-close" aria-label="Close canvas" title="Close" onClick={() => onClose(true)}>
          <Icon name="close" />
        </button>
      </div>
      {canvas.empty ? (
        <div class="history-empty canvas-empty" role="status">
          <Icon name="layout" />
          <p>Nothing on the canvas yet.</p>
          <p class="muted small">The agent's board widgets, canvas documents and surfaces appear here.</p>
        </div>
      ) : (
        <div class="canvas-body">
          {widgets.length ? (
            <ul class="canvas-widgets" aria-label="Board widgets">
              {widgets.map((w) => (
                <WidgetView key={widgetKey(w)} canvas={canvas} widget={w} />
              ))}
            </ul>
          ) : null}
          {canvas.documents.map((d) => (
            <DocumentView key={d.docId} doc={d} />
          ))}
          {canvas.surfaces.map((s) => (
            <SurfaceView key={s.surfaceId} surface={s} />
          ))}
        </div>
      )}
    </div>
  );
}
