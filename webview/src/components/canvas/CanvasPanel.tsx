// The canvas panel: the session's board widgets, its canvas documents and the A2UI surfaces a
// gateway pushes (Text, Button, CodeBlock, FileTree; any other component is a placeholder naming
// it). Everything shown is the gateway's and untrusted: text is rendered as text, documents through
// the whitelist in ./sanitize, and nothing is loaded. The user's actions go back as `canvasAction`.

import { useEffect, useRef } from "preact/hooks";
import type { CanvasAction, CanvasWidget, JsonValue, SurfaceComponent } from "@tether/core";
import { bound, type Surface } from "../../store";
import type { Canvas, CanvasDocument } from "../../store/canvas";
import { post } from "../../vscode";
import { Icon } from "../common";
import { sanitizedHtml } from "./sanitize";

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

function WidgetView({ widget }: { widget: CanvasWidget }) {
  const url = widget.frameUrl && SAFE_URL.test(widget.frameUrl) ? widget.frameUrl : null;
  return (
    <li class="canvas-card canvas-widget" data-widget={widget.name}>
      <div class="canvas-card-title">
        <Icon name="window" />
        <span>{widget.title || widget.name}</span>
      </div>
      <div class="muted small">{`${widget.contentKind || "widget"} · revision ${widget.revision}`}</div>
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
                <WidgetView key={w.name} widget={w} />
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
