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
