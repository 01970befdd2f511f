// The IDE tools' path check: the file tools' own (the core's `workspacePath`: mirror paths mapped
// onto the root, `..` normalised, outside the workspace refused), then the same symlink rule — a
// path whose real location is outside the workspace is refused too.

import type { TetherHost } from "../core/host";
import { loadTetherCore } from "../core/wasm";
import type { Resolve } from "./tools";

/** `resolve` for the session's folder `root` (and the agent's `mirror` of it). */
export function containedPaths(host: Pick<TetherHost, "realPath">, root: string, mirror?: string): Resolve {
  const { workspacePath } = loadTetherCore();
  let realRoot: Promise<string> | undefined;
  return async (input) => {
    const path = workspacePath(root, mirror, input);
    realRoot ??= host.realPath(root).catch(() => root);
    const real = await host.realPath(path).catch(() => path);
    if (real === path) return path;
    const inside = (base: string): boolean => {
      try {
        workspacePath(base, undefined, real);
        return true;
      } catch {
        return false;
      }
    };
    if (inside(root) || inside(await realRoot)) return path;
    throw new Error(`The path ${path} leads outside the workspace ${root} through a symbolic link (it resolves to ${real}). Use a path inside the workspace.`);
  };
}
