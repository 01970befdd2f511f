// The canvas panel's model: the session's board widgets, canvas documents and A2UI surfaces, as the
// core's `canvas` events deliver them. Everything here is the gateway's data, kept as data: the
// views render it as text (documents through the whitelist in ../components/canvas/sanitize.ts).

import type { CanvasUpdate, CanvasWidget, JsonValue, SurfaceComponent } from "@tether/core";
import { deliverWidgetReply } from "../components/canvas/widgetHost";

/** Kept at once, so a gateway that sends without end cannot grow the view. */
const DOCUMENTS_KEPT = 32;
const SURFACES_KEPT = 64;
const COMPONENTS_KEPT = 500;

export interface Board {
  sessionId: string;
  revision: number;
  widgets: CanvasWidget[];
  /** When it arrived (`Date.now()`): its widgets' view tickets count from then. */
  receivedAt: number;
}

export interface CanvasDocument {
  docId: string;
  html: string;
}

export interface Surface {
  surfaceId: string;
  title: string | null;
  components: SurfaceComponent[];
  model: JsonValue;
}

export class Canvas {
  board: Board | undefined;
  /** In arrival order (a document sent again moves to the end). */
  documents: CanvasDocument[] = [];
  surfaces: Surface[] = [];
  /** The widgets (by `widgetKey`) the user chose to run, shown live whenever the panel is open. */
  live = new Set<string>();

  get empty(): boolean {
    return !this.board?.widgets.length && !this.documents.length && !this.surfaces.length;
  }

  clear(): void {
    this.board = undefined;
    this.documents = [];
    this.surfaces = [];
    this.live = new Set();
  }

  apply(update: CanvasUpdate): void {
    switch (update.kind) {
      case "board":
        this.board = { sessionId: update.sessionId, revision: update.revision, widgets: update.widgets, receivedAt: Date.now() };
        return;
      case "document":
        this.documents = [...this.documents.filter((d) => d.docId !== update.docId), { docId: update.docId, html: update.html }].slice(
          -DOCUMENTS_KEPT,
        );
        return;
      case "surface": {
        const old = this.surfaces.find((s) => s.surfaceId === update.surfaceId);
        const surface: Surface = {
          surfaceId: update.surfaceId,
          // updateComponents carries no title: the surface keeps the one it was created with.
          title: update.title ?? old?.title ?? null,
          components: update.components.slice(0, COMPONENTS_KEPT),
          model: old?.model ?? {},
        };
        this.put(surface);
        return;
      }
      case "widgetReply":
        deliverWidgetReply(update);
        return;
      case "surfaceData": {
        const old = this.surfaces.find((s) => s.surfaceId === update.surfaceId);
        this.put({ surfaceId: update.surfaceId, title: old?.title ?? null, components: old?.components ?? [], model: update.model });
        return;
      }
    }
  }

  private put(surface: Surface): void {
    const at = this.surfaces.findIndex((s) => s.surfaceId === surface.surfaceId);
    if (at >= 0) this.surfaces = this.surfaces.map((s, i) => (i === at ? surface : s));
    else this.surfaces = [...this.surfaces, surface].slice(-SURFACES_KEPT);
  }
}

/** One widget instance: its new revisions keep running once the user ran it; a widget put again
 * under the same name (a new instance) is asked about again. */
export function widgetKey(widget: CanvasWidget): string {
  return `${widget.name}\u0000${widget.instanceId ?? ""}`;
}

/** The value at the JSON Pointer `pointer` (RFC 6901) in `model`; undefined when there is none. */
export function atPointer(model: JsonValue, pointer: string): JsonValue | undefined {
  if (pointer === "") return model;
  if (!pointer.startsWith("/")) return undefined;
  let at: JsonValue | undefined = model;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(at)) at = /^(0|[1-9][0-9]*)$/.test(token) ? at[Number(token)] : undefined;
    else if (at !== null && typeof at === "object") at = Object.prototype.hasOwnProperty.call(at, token) ? at[token] : undefined;
    else return undefined;
    if (at === undefined) return undefined;
  }
  return at;
}

/** A prop, bound to the surface's data model when it is `{path: "/json/pointer"}`. */
export function bound(value: JsonValue | undefined, model: JsonValue): JsonValue | undefined {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && typeof value.path === "string" && Object.keys(value).length === 1) {
    return atPointer(model, value.path);
  }
  return value;
}
