import { Component, type ComponentChildren, type VNode } from "preact";

/**
 * A virtualized vertical list with measured heights.
 *
 * - Only the rows near the viewport are in the DOM; the others are two spacers whose heights come
 *   from measured heights (ResizeObserver) or estimates for rows never shown.
 * - Sticks to the bottom while new content arrives, unless the user scrolled up (wheel up, keys,
 *   scrollbar); reaching the bottom again re-sticks. A "jump to latest" button appears meanwhile.
 * - When rows above the viewport change height (measured for the first time while scrolling up, or a
 *   group folding), the scroll position is corrected so the content under the user's eyes stays put.
 */

export interface VirtualListProps<T> {
  /** The rows. The same array may only grow (rows appended); any other change comes as another
   * array (the list then re-checks every row). */
  items: readonly T[];
  getKey: (item: T) => string;
  /** Height estimate for a row never measured; `width` is the list's content width. */
  estimate: (item: T, width: number) => number;
  renderItem: (item: T, index: number) => VNode;
  /** Accessible name of a row (the row is an `article` in a `feed`). */
  getLabel?: (item: T) => string;
  /** Changes when the list is replaced (clear/replay): scroll state resets and sticks to bottom. */
  epoch: number;
  /** Changes on every store update (forces a render). */
  version: number;
  /** Rendered after the last row (e.g. "working…" indicator). Not virtualized. */
  footer?: ComponentChildren;
  /** Rendered instead of the rows when there are none. */
  empty?: ComponentChildren;
  ariaLabel: string;
  busy?: boolean;
  /** Changes when the user sends a message: jump to and stick to the bottom. */
  stickSignal?: number;
  overscanPx?: number;
}

interface VState {
  tick: number;
}

const BOTTOM_SLACK = 24;
/** Rows drawn beyond the viewport until the rows in view are painted (a margin for estimates). */
const FIRST_OVERSCAN_PX = 100;

export class VirtualList<T> extends Component<VirtualListProps<T>, VState> {
  override state: VState = { tick: 0 };

  private scroller: HTMLDivElement | null = null;
  private heights = new Map<string, number>();
  /** offsets[i] is row i's top, offsets[count] the total height; the first `validRows` + 1 are
   * up to date. A render recomputes from the first row whose height may have changed, so a delta
   * streamed into the last row of a long session costs O(1), not O(rows). */
  private offsets = new Float64Array(1);
  private count = 0;
  private validRows = 0;
  private offsetsFor: readonly T[] | undefined;
  /** Each row's estimate and the item it was made for: a row is estimated once while it stays
   * the same object (a session of thousands of rows costs one pass, not one per render). A row
   * changed in place keeps its estimate until it is shown and measured. */
  private estimated: (T | undefined)[] = [];
  private estimates = new Float64Array(0);
  private estimatedWidth = 0;
  /** How many rows, and the first one's key, when offsets were last made: fewer rows or another
   * first row means the list was replaced (or rows came before it). */
  private indexedCount = 0;
  private indexedFirstKey = "";
  private stuck = true;
  private lastScrollTop = 0;
  private viewportHeight = 0;
  private width = 0;
  private range: [number, number] = [0, 0];
  private rowObserver: ResizeObserver | null = null;
  private sizeObserver: ResizeObserver | null = null;
  private observed = new Set<Element>();
  private lastEpoch = -1;
  private lastStickSignal = 0;
  private showJump = false;
  private pendingRender = false;
  /** After a mount or a replay, the rows beyond the viewport (the overscan) wait two frames: the
   * rows in view are painted first (a replay's first paint renders about half the rows). */
  private overscanReady = false;
  private overscanFrame = 0;

  /** Exposed for tests/bench. */
  get isStuck(): boolean {
    return this.stuck;
  }

  override componentDidMount(): void {
    const scroller = this.scroller!;
    this.viewportHeight = scroller.clientHeight;
    this.width = scroller.clientWidth;
    this.rowObserver = new ResizeObserver((entries) => this.onRowsResized(entries));
    this.sizeObserver = new ResizeObserver(() => {
      const h = scroller.clientHeight;
      const w = scroller.clientWidth;
      if (h !== this.viewportHeight || w !== this.width) {
        // Another width reflows every row: measured heights of rows not in the DOM are stale.
        if (Math.abs(w - this.width) > 1) this.forgetHeights();
        this.viewportHeight = h;
        this.width = w;
        this.rerender();
      }
    });
    this.sizeObserver.observe(scroller);
    scroller.addEventListener("scroll", this.onScroll, { passive: true });
    scroller.addEventListener("wheel", this.onWheel, { passive: true });
    scroller.addEventListener("keydown", this.onKey);
    this.afterRender();
    // The first render used a zero viewport; render again with the real one.
    this.rerender();
  }

  override componentWillUnmount(): void {
    cancelAnimationFrame(this.overscanFrame);
    this.rowObserver?.disconnect();
    this.sizeObserver?.disconnect();
    const s = this.scroller;
    if (s) {
      s.removeEventListener("scroll", this.onScroll);
      s.removeEventListener("wheel", this.onWheel);
      s.removeEventListener("keydown", this.onKey);
    }
  }

  override componentDidUpdate(): void {
    this.afterRender();
  }

  scrollToBottom(): void {
    this.stuck = true;
    this.showJump = false;
    this.pinBottom();
    this.rerender();
  }

  private rerender(): void {
    if (this.pendingRender) return;
    this.pendingRender = true;
    this.setState((s) => ({ tick: s.tick + 1 }));
  }

  private pinBottom(): void {
    const s = this.scroller;
    if (!s) return;
    const target = s.scrollHeight - s.clientHeight;
    if (Math.abs(s.scrollTop - target) > 0.5) s.scrollTop = target;
    this.lastScrollTop = s.scrollTop;
  }

  private afterRender(): void {
    this.pendingRender = false;
    const s = this.scroller;
    if (!s) return;
    // Observe the rows now in the DOM, forget the ones gone.
    const ro = this.rowObserver;
    if (ro) {
      const current = new Set<Element>();
      const rows = s.querySelectorAll<HTMLElement>(":scope > .vlist-inner > .vlist-rows > .vrow");
      for (const el of rows) {
        current.add(el);
        if (!this.observed.has(el)) {
          ro.observe(el);
          this.observed.add(el);
        }
      }
      for (const el of this.observed) {
        if (!current.has(el)) {
          ro.unobserve(el);
          this.observed.delete(el);
        }
      }
    }
    if (this.stuck) this.pinBottom();
    if (!this.overscanReady && !this.overscanFrame) {
      this.overscanFrame = requestAnimationFrame(() => {
        this.overscanFrame = requestAnimationFrame(() => {
          this.overscanFrame = 0;
          this.overscanReady = true;
          this.rerender();
        });
      });
    }
  }

  private onRowsResized(entries: ResizeObserverEntry[]): void {
    const s = this.scroller;
    if (!s) return;
    let changed = false;
    let delta = 0;
    // The row at the top of the viewport before this change: rows above it shift the content.
    const anchor = this.indexAt(this.lastScrollTop);
    for (const entry of entries) {
      const el = entry.target as HTMLElement;
      if (!el.isConnected) continue;
      const key = el.dataset.key;
      if (key === undefined) continue;
      const box = entry.borderBoxSize?.[0];
      const h = box ? box.blockSize : el.getBoundingClientRect().height;
      const idx = this.indexOf(key, el);
      if (idx < 0) continue;
      const old = this.heights.get(key) ?? this.offsets[idx + 1]! - this.offsets[idx]!;
      if (Math.abs(old - h) < 0.5) {
        if (!this.heights.has(key)) this.setHeight(key, idx, h);
        continue;
      }
      this.setHeight(key, idx, h);
      changed = true;
      if (idx < anchor) delta += h - old;
    }
    if (!changed) return;
    if (this.stuck) {
      this.pinBottom();
    } else if (delta !== 0) {
      s.scrollTop = s.scrollTop + delta;
      this.lastScrollTop = s.scrollTop;
    }
    this.rerender();
  }

  /** The row's index: where it was rendered (its `aria-posinset`), or found by its key when the
   * rows moved since (rows put before it). No key→index map over every row: that cost a pass
   * over a whole replayed session (tens of ms for 50,000 rows). */
  private indexOf(key: string, el: HTMLElement): number {
    const items = this.offsetsFor;
    if (!items) return -1;
    const getKey = this.props.getKey;
    const at = Number(el.getAttribute("aria-posinset")) - 1;
    if (at >= 0 && at < this.count && getKey(items[at]!) === key) return at;
    for (let i = 0; i < this.count; i++) if (getKey(items[i]!) === key) return i;
    return -1;
  }

  private setHeight(key: string, index: number, h: number): void {
    this.heights.set(key, h);
    this.validRows = Math.min(this.validRows, index);
  }

  private forgetHeights(): void {
    this.heights.clear();
    this.validRows = 0;
  }

  private onWheel = (e: WheelEvent): void => {
    if (e.deltaY < 0 && this.stuck) {
      this.stuck = false;
    }
  };

  private onKey = (e: KeyboardEvent): void => {
    if (e.key === "PageUp" || e.key === "ArrowUp" || e.key === "Home") this.stuck = false;
    if (e.key === "End") this.scrollToBottom();
  };

  private onScroll = (): void => {
    const s = this.scroller;
    if (!s) return;
    const top = s.scrollTop;
    const atBottom = s.scrollHeight - top - s.clientHeight <= BOTTOM_SLACK;
    if (atBottom) {
      this.stuck = true;
    } else if (top < this.lastScrollTop - 1) {
      this.stuck = false;
    }
    this.lastScrollTop = top;
    const wantJump = !this.stuck;
    const [a, b] = this.computeRange(top, this.props.items.length);
    if (a !== this.range[0] || b !== this.range[1] || wantJump !== this.showJump) {
      this.rerender();
    }
  };

  private indexAt(y: number): number {
    // Largest i with offsets[i] <= y, clamped to [0, n-1].
    const offs = this.offsets;
    const n = this.count;
    if (n <= 0) return 0;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (offs[mid]! <= y) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private computeRange(top: number, n: number): [number, number] {
    if (n === 0) return [0, 0];
    const overscan = this.overscanReady ? (this.props.overscanPx ?? Math.max(400, this.viewportHeight)) : FIRST_OVERSCAN_PX;
    const vh = this.viewportHeight || 800;
    const start = this.indexAt(Math.max(0, top - overscan));
    const end = Math.min(n, this.indexAt(top + vh + overscan) + 1);
    return [start, Math.max(end, start + 1)];
  }

  private computeOffsets(items: readonly T[]): number {
    const n = items.length;
    const { getKey, estimate } = this.props;
    const width = this.width || 300;
    // Rows are only appended, or all replaced (or rows put before them).
    const firstKey = n ? getKey(items[0]!) : "";
    if (firstKey !== this.indexedFirstKey || n < this.indexedCount) {
      this.estimated = [];
      this.indexedFirstKey = firstKey;
      this.validRows = 0;
    }
    if (items !== this.offsetsFor) {
      this.offsetsFor = items;
      this.validRows = 0;
    }
    this.indexedCount = n;
    this.estimates = grown(this.estimates, n);
    this.offsets = grown(this.offsets, n + 1);
    if (width !== this.estimatedWidth) {
      this.estimated = [];
      this.estimatedWidth = width;
      this.validRows = 0;
    }
    const from = Math.min(this.validRows, this.count, n);
    const offs = this.offsets;
    const heights = this.heights;
    // Right after a replay nothing is measured yet: no lookup per row.
    const measured = heights.size > 0;
    const estimated = this.estimated;
    const estimates = this.estimates;
    let y = offs[from]!;
    for (let i = from; i < n; i++) {
      offs[i] = y;
      const h = measured ? heights.get(getKey(items[i]!)) : undefined;
      if (h !== undefined) y += h;
      else {
        const item = items[i]!;
        if (estimated[i] !== item) {
          estimates[i] = estimate(item, width);
          estimated[i] = item;
        }
        y += estimates[i]!;
      }
    }
    offs[n] = y;
    this.count = n;
    this.validRows = n;
    return y;
  }

  override render(props: VirtualListProps<T>): VNode {
    const { items, getKey, renderItem } = props;
    if (props.epoch !== this.lastEpoch) {
      this.lastEpoch = props.epoch;
      this.forgetHeights();
      this.stuck = true;
      this.overscanReady = false;
      cancelAnimationFrame(this.overscanFrame);
      this.overscanFrame = 0;
    }
    if ((props.stickSignal ?? 0) !== this.lastStickSignal) {
      this.lastStickSignal = props.stickSignal ?? 0;
      this.stuck = true;
    }
    const total = this.computeOffsets(items);
    const n = items.length;
    // Stuck to the bottom, the scroll position is known without asking the page (which would lay
    // it out now, before the rows below are even made).
    const top = this.stuck ? Math.max(0, total - (this.viewportHeight || 0)) : this.scroller ? this.scroller.scrollTop : 0;
    const [start, end] = this.computeRange(top, n);
    this.range = [start, end];
    this.showJump = !this.stuck && n > 0;
    const before = n ? this.offsets[start]! : 0;
    const after = n ? total - this.offsets[end]! : 0;

    const rows: VNode[] = [];
    for (let i = start; i < end; i++) {
      const item = items[i]!;
      const key = getKey(item);
      rows.push(
        <div
          class="vrow"
          data-key={key}
          key={key}
          role="article"
          aria-label={props.getLabel?.(item)}
          aria-posinset={i + 1}
          aria-setsize={n}
        >
          {renderItem(item, i)}
        </div>,
      );
    }

    return (
      <div class="vlist-wrap">
        <div
          class="vlist"
          ref={(el) => {
            this.scroller = el;
          }}
          role="region"
          aria-label={props.ariaLabel}
          tabIndex={0}
          data-rows={n}
          data-start={start}
          data-end={end}
        >
          <div class="vlist-inner">
            <div key="top" class="vspacer" style={{ height: `${before}px` }} aria-hidden="true" />
            {n === 0 ? (
              <div key="empty" class="vlist-empty">
                {props.empty}
              </div>
            ) : (
              <div key="rows" class="vlist-rows" role="feed" aria-label="Messages" aria-busy={props.busy ? "true" : "false"}>
                {rows}
              </div>
            )}
            <div key="bottom" class="vspacer" style={{ height: `${after}px` }} aria-hidden="true" />
            <div key="footer" class="vlist-footer">
              {props.footer}
            </div>
          </div>
        </div>
        {this.showJump ? (
          <button
            type="button"
            class="jump-latest"
            title="Scroll to the latest message"
            aria-label="Scroll to the latest message"
            onClick={() => this.scrollToBottom()}
          >
            <span class="codicon codicon-arrow-down" aria-hidden="true" />
          </button>
        ) : null}
      </div>
    );
  }
}

/** `array`, or a copy with room for at least `size` numbers. */
function grown(array: Float64Array<ArrayBuffer>, size: number): Float64Array<ArrayBuffer> {
  if (array.length >= size) return array;
  const bigger = new Float64Array(Math.max(size, array.length * 2));
  bigger.set(array);
  return bigger;
}
