import { Component, h, type ComponentType, type FunctionComponent } from "preact";

/**
 * `memo` without preact/compat: re-renders `fn` only when `equal(prev, next)` is false. Rows compare
 * their model object and its version number, so only changed rows re-render.
 */
export function memo<P extends object>(fn: FunctionComponent<P>, equal: (prev: P, next: P) => boolean): ComponentType<P> {
  class Memo extends Component<P> {
    override shouldComponentUpdate(next: P): boolean {
      return !equal(this.props, next);
    }
    override render(props: P) {
      return h(fn as FunctionComponent<P>, props);
    }
  }
  (Memo as unknown as { displayName: string }).displayName = `Memo(${fn.displayName ?? fn.name})`;
  return Memo;
}

/** Props equal key by key (by identity): for components whose props are values or stable objects. */
export function shallowEqual<P extends object>(prev: P, next: P): boolean {
  const a = prev as Record<string, unknown>;
  const b = next as Record<string, unknown>;
  for (const k in a) if (a[k] !== b[k]) return false;
  for (const k in b) if (!(k in a)) return false;
  return true;
}
