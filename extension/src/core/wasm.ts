// Loads the core (the wasm-bindgen `--target nodejs` output of crate/, built by build.sh into
// target/wasm-pkg) and creates servers on a host. The glue reads `tether_core_bg.wasm` from its
// own directory (`__dirname`); once bundled, that is the bundle's directory, so the wasm file ships
// beside every bundle that includes this module.

import type { TetherHost } from "./host";

type Glue = typeof import("tether-core-wasm");
export type TetherServer = import("tether-core-wasm").TetherServer;

export interface TetherConfig {
  /** The workspace root: an absolute path in the workspace's namespace. */
  root: string;
  /** The CLI's local mirror folder, whose paths map onto root. */
  mirror?: string;
  /** Let tools touch paths outside the root (the permission layer asks first). */
  allowOutsideRoot?: boolean;
  /** Extra environment for commands. */
  env?: Record<string, string>;
}

let glue: Glue | undefined;

/** Load the wasm module once. Throws when the wasm file is missing or invalid. */
export function loadTetherCore(): Glue {
  // A require inside the function keeps loading lazy (and its failure catchable) after bundling.
  glue ??= require("tether-core-wasm") as Glue;
  return glue;
}

/** A server with Tether's tools on `host`. Throws an Error with a clear message on a bad config. */
export function createTetherServer(host: TetherHost, config: TetherConfig): TetherServer {
  const { TetherServer } = loadTetherCore();
  return new TetherServer(host, config);
}
